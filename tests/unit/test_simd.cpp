// The SIMD complex types against std::complex, the virtual-node layout's conversions, and the
// vectorised Wilson hopping term and even-odd operator against the scalar ones and the host
// reference, on lattices whose lane split is non-trivial (unequal extents, x split or not); the
// BLAS and the solvers (CG, BiCGStab, mixed precision; multi-RHS and block CG with one right-hand side
// per lane) on the SIMD layout against the plain layout's.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/block_cg.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/stencil/simd_local_operators.hpp>

#include "host_fields.hpp"
#include "simd_cases.hpp"

#include <wilson_reference.hpp>

#include <algorithm>
#include <complex>
#include <limits>
#include <random>

using namespace kqcd;
using namespace kqcd::test;

namespace {

template <class V> std::vector<std::complex<double>> lanes_of(const V& v) {
  std::vector<std::complex<double>> r;
  for (int i = 0; i < V::lanes; ++i) r.emplace_back(v.lane(i).real(), v.lane(i).imag());
  return r;
}
template <class V> V make(const std::vector<std::complex<double>>& z) {
  V v = V::zero();
  for (int i = 0; i < V::lanes; ++i) v.set_lane(i, {typename V::real_type(z[i].real()), typename V::real_type(z[i].imag())});
  return v;
}

/// Every operation of one SIMD complex type against std::complex lane by lane.
template <class V> void check_arithmetic() {
  using T = typename V::real_type;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto rnd = [&] {
    std::vector<std::complex<double>> z(V::lanes);
    for (auto& c : z) c = {double(T(dist(gen))), double(T(dist(gen)))};
    return z;
  };
  const double eps = 4 * std::numeric_limits<T>::epsilon();
  for (int trial = 0; trial < 20; ++trial) {
    const auto a = rnd(), b = rnd(), c = rnd();
    const V va = make<V>(a), vb = make<V>(b), vc = make<V>(c);
    const std::complex<double> I(0, 1);
    auto expect = [&](const V& got, auto f) {
      const auto g = lanes_of(got);
      for (int i = 0; i < V::lanes; ++i) {
        CAPTURE(i, g[i], f(i));
        REQUIRE(std::abs(g[i] - f(i)) <= eps * (1 + std::abs(f(i))));
      }
    };
    expect(va + vb, [&](int i) { return a[i] + b[i]; });
    expect(va - vb, [&](int i) { return a[i] - b[i]; });
    expect(T(0.5) * va, [&](int i) { return 0.5 * a[i]; });
    expect(V::axpby(T(2), va, T(-0.25), vb), [&](int i) { return 2.0 * a[i] - 0.25 * b[i]; });
    expect(va.times_i(), [&](int i) { return I * a[i]; });
    expect(V::plus_i(va, vb), [&](int i) { return a[i] + I * b[i]; });
    expect(V::minus_i(va, vb), [&](int i) { return a[i] - I * b[i]; });
    expect(cmul(va, vb), [&](int i) { return a[i] * b[i]; });
    expect(cmadd(va, vb, vc), [&](int i) { return c[i] + a[i] * b[i]; });
    expect(cjmadd(va, vb, vc), [&](int i) { return c[i] + std::conj(a[i]) * b[i]; });
    expect(V::scale_lanes(va.dup_re(), vb), [&](int i) { return a[i].real() * b[i]; });
    expect(cjmul(va, vb), [&](int i) { return std::conj(a[i]) * b[i]; });
    expect(V::norm_lanes(va), [&](int i) { return std::complex<double>(std::norm(a[i]), std::norm(a[i])); });
    expect(V::scale_lanes(V::reciprocal_lanes(V::norm_lanes(va)), va), [&](int i) { return a[i] / std::norm(a[i]); });
    expect(V::madd(va.dup_re(), va.dup_im(), vb, vb.times_i(), vc), [&](int i) { return c[i] + a[i] * b[i]; });
    expect(V::broadcast(T(0.25), T(-0.5)), [&](int) { return std::complex<double>(0.25, -0.5); });
    for (int level = 0; (1 << level) < V::lanes; ++level)
      expect(va.swap_blocks(level), [&](int i) { return a[i ^ (1 << level)]; });
    std::vector<T> buf(2 * V::lanes);
    va.store(buf.data());
    expect(V::load(buf.data()), [&](int i) { return a[i]; });
  }
}

} // namespace

TEST_CASE("SIMD complex types agree with std::complex", "[simd]") {
  check_arithmetic<GPUSIMDComplex<float>>();
  check_arithmetic<GPUSIMDComplex<double>>();
  check_arithmetic<CPUSIMDComplex<float, 4>>();
  check_arithmetic<CPUSIMDComplex<double, 2>>();
  check_arithmetic<SIMDComplex<float, 8, simd::Portable<float, 8>>>();
  check_arithmetic<NativeSIMDComplex<float>>();
  check_arithmetic<NativeSIMDComplex<double>>();
#if defined(KQCD_SIMD_AVX512)
  check_arithmetic<SIMDComplex<float, 8, simd::AVX512<float>>>();
  check_arithmetic<SIMDComplex<double, 4, simd::AVX512<double>>>();
  STATIC_REQUIRE(NativeSIMDComplex<float>::lanes == 8);
#endif
#if defined(KQCD_SIMD_AVX2)
  check_arithmetic<SIMDComplex<float, 4, simd::AVX2<float>>>();
  check_arithmetic<SIMDComplex<double, 2, simd::AVX2<double>>>();
#endif
  REQUIRE_NOTHROW(check_simd_isa());
}

TEST_CASE("SIMD geometry: lane splits and clear errors", "[simd]") {
  const SIMDGeometry g(Lattice({4, 8, 12, 16}), 8);
  REQUIRE(g.split() == std::array<int, 4>{1, 2, 2, 2});
  REQUIRE(g.local() == Lattice({4, 4, 6, 8}));
  REQUIRE(g.vsites() * 2 * 8 == g.global().volume());
  // Every global site is exactly one (vector site, lane) of its parity.
  std::vector<int> seen(std::size_t(g.global().volume()), 0);
  for (int p = 0; p < 2; ++p)
    for (int vs = 0; vs < g.vsites(); ++vs)
      for (int lane = 0; lane < 8; ++lane) {
        const Coords c = g.coords(vs, lane, p);
        REQUIRE(Lattice::parity(c) == p);
        ++seen[std::size_t(g.global().lex_index(c))];
      }
  REQUIRE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  REQUIRE_THROWS_AS(SIMDGeometry(Lattice({4, 6, 2, 8}), 8), invalid_argument); // only x and t divisible by 4
  REQUIRE_THROWS_AS(SIMDGeometry(Lattice({4, 8, 8, 8}), 8, {1, 2, 2, 1}), invalid_argument); // 4 lanes, not 8
  REQUIRE_THROWS_AS(SIMDGeometry(Lattice({4, 6, 8, 8}), 8, {1, 2, 2, 2}), invalid_argument); // 6/2 odd
  REQUIRE_THROWS_AS(SIMDGeometry(Lattice({4, 8, 8, 8}), 6), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("SIMD layout round trip", "[simd]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    const SIMDGeometry g(lat, V::lanes, split);
    for (int p = 0; p < 2; ++p) {
      CBSpinor<Kokkos::complex<Real>, Ns, ES> in(lat, p), back(lat, p);
      random_spinor(in, 5 + p);
      SIMDSpinor<V, ES> s(g, p);
      to_simd(s, in);
      from_simd(back, s);
      REQUIRE(export_spinor_cb(in) == export_spinor_cb(back));
      // Random fields and host arrays reach the lanes as they reach the plain layout.
      std::vector<std::complex<double>> want, got, again;
      export_spinor(in, want);
      SIMDSpinor<V, ES> r(g, p), h(g, p);
      random_spinor(r, 5 + p);
      export_spinor(r, got);
      REQUIRE(got == want);
      import_spinor(h, want);
      export_spinor(h, again);
      REQUIRE(again == want);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("SIMD hopping term matches the scalar one and the host reference, its neighbours from the table or computed",
                        "[simd]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string(), split[0], split[1], split[2], split[3]);
    const auto u_host = random_host_gauge(lat, 61);
    const auto psi_host = random_host_spinor(lat, 62);
    const auto u = device_gauge<Real, ES>(lat, u_host);
    for (const auto& bc : {mixed_bc(), parse_boundary_phases("0,p,a,0")}) {
      const SIMDWilsonDslash<Real, ES, Recon18, NeighbourMode::table> simd(u, bc, SIMDGeometry(lat, V::lanes, split));
      const SIMDWilsonDslash<Real, ES, Recon18, NeighbourMode::on_the_fly> fly(u, bc, SIMDGeometry(lat, V::lanes, split));
      const WilsonDslash<Real, ES> scalar(u, bc);
      SpinorField<Kokkos::complex<Real>, Ns, ES> psi(lat);
      import_spinor(psi, psi_host);
      for (int isign : {1, -1})
        for (int cb : {0, 1})
          for (bool xpay : {false, true}) {
            CAPTURE(isign, cb, xpay);
            auto in = simd.create_spinor(1 - cb), x = simd.create_spinor(cb), out = simd.create_spinor(cb);
            to_simd(in, psi[1 - cb]);
            to_simd(x, psi[cb]);
            typename WilsonDslash<Real, ES>::spinor_type want(lat, cb), got(lat, cb);
            auto out_fly = fly.create_spinor(cb);
            if (xpay) {
              simd.apply_xpay(out, in, isign, cb, Real(0.7), x, Real(-0.3));
              fly.apply_xpay(out_fly, in, isign, cb, Real(0.7), x, Real(-0.3));
              scalar.apply_xpay(want, psi[1 - cb], isign, cb, Real(0.7), psi[cb], Real(-0.3));
            } else {
              simd.apply(out, in, isign, cb);
              fly.apply(out_fly, in, isign, cb);
              scalar.apply(want, psi[1 - cb], isign, cb);
            }
            from_simd(got, out);
            const auto g = export_spinor_cb(got), w = export_spinor_cb(want);
            REQUIRE(ref::rel_diff(g, w) < 5 * tol<Real>());
            // Computed neighbours are the table's: the same sums, bit for bit.
            typename WilsonDslash<Real, ES>::spinor_type got_fly(lat, cb);
            from_simd(got_fly, out_fly);
            REQUIRE(export_spinor_cb(got_fly) == g);
            // Every site of the parity differs from zero: every lane was written.
            for (int s = 0; s < lat.cb_volume(); ++s) REQUIRE(std::abs(g[std::size_t(lat.lex_index(lat.cb_coords(s, cb)) * 12)]) > 0);
            if (!xpay) {
              // The host reference on a source that vanishes on the target parity.
              auto src = psi_host;
              for (int s = 0; s < lat.cb_volume(); ++s)
                for (int k = 0; k < 12; ++k) src[std::size_t(lat.lex_index(lat.cb_coords(s, cb)) * 12 + k)] = 0;
              auto h = ref::hopping(lat.dims(), u_host, src, host_bc(bc), isign);
              for (int s = 0; s < lat.cb_volume(); ++s)
                for (int k = 0; k < 12; ++k) h[std::size_t(lat.lex_index(lat.cb_coords(s, 1 - cb)) * 12 + k)] = 0;
              REQUIRE(ref::rel_diff(g, h) < 5 * tol<Real>());
            }
          }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("SIMD hopping term with reconstruct-12 and 8 links matches the scalar reconstruct-18 one",
                        "[simd][compress]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string(), split[0], split[1], split[2], split[3]);
    auto u_host = random_host_gauge(lat, 71);
    const auto u = device_gauge<Real, ES>(lat, u_host);
    const auto bc = mixed_bc();
    const WilsonDslash<Real, ES> scalar(u, bc);
    SpinorField<Kokkos::complex<Real>, Ns, ES> psi(lat);
    import_spinor(psi, random_host_spinor(lat, 72));
    const SIMDGeometry geom(lat, V::lanes, split);
    auto check = [&]<class Recon>(std::type_identity<Recon>) {
      CAPTURE(Recon::name);
      const SIMDWilsonDslash<Real, ES, Recon> simd(u, bc, geom);
      REQUIRE(simd.bytes() < SIMDWilsonDslash<Real, ES>(u, bc, geom).bytes());
      for (int isign : {1, -1})
        for (int cb : {0, 1}) {
          CAPTURE(isign, cb);
          auto in = simd.create_spinor(1 - cb), x = simd.create_spinor(cb), out = simd.create_spinor(cb);
          to_simd(in, psi[1 - cb]);
          to_simd(x, psi[cb]);
          typename WilsonDslash<Real, ES>::spinor_type want(lat, cb), got(lat, cb);
          simd.apply_xpay(out, in, isign, cb, Real(0.7), x, Real(-0.3));
          scalar.apply_xpay(want, psi[1 - cb], isign, cb, Real(0.7), psi[cb], Real(-0.3));
          from_simd(got, out);
          // Reconstruct-8 rebuilds each link from two phases and a division (QUDA's accuracy).
          REQUIRE(ref::rel_diff(export_spinor_cb(got), export_spinor_cb(want)) < (Recon::pairs == 4 ? 50 : 10) * tol<Real>());
        }
    };
    check(std::type_identity<Recon12>{});
    check(std::type_identity<Recon8>{});
    // Links outside SU(3) cannot be rebuilt from two rows or eight reals: refused, as the packed
    // fields refuse them.
    u_host[5 * 36 + 2 * 9 + 4] *= 1.01;
    const auto bad = device_gauge<Real, ES>(lat, u_host);
    REQUIRE_THROWS_AS((SIMDWilsonDslash<Real, ES, Recon12>(bad, bc, geom)), kqcd::invalid_argument);
    REQUIRE_THROWS_AS((SIMDWilsonDslash<Real, ES, Recon8>(bad, bc, geom)), kqcd::invalid_argument);
    REQUIRE_NOTHROW(SIMDWilsonDslash<Real, ES>(bad, bc, geom));
  }
}

TEMPLATE_LIST_TEST_CASE("SIMD even-odd operator matches the scalar one", "[simd]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string());
    const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 71));
    const auto bc = mixed_bc();
    const SIMDEvenOddOperator<WilsonMassTerm<Real, ES>> simd(SIMDGeometry(lat, V::lanes, split), u, bc, -0.3);
    const WilsonEOOperator<Real, ES> scalar(u, bc, -0.3);
    typename WilsonEOOperator<Real, ES>::vector_type in(lat, 0), want(lat, 0), got(lat, 0);
    random_spinor(in, 72);
    auto s_in = simd.create_vector(), s_out = simd.create_vector();
    to_simd(s_in, in);
    for (int isign : {1, -1}) {
      simd.apply(s_out, s_in, isign);
      scalar.apply(want, in, isign);
      from_simd(got, s_out);
      REQUIRE(ref::rel_diff(export_spinor_cb(got), export_spinor_cb(want)) < 5 * tol<Real>());
    }
    simd.apply_normal(s_out, s_in);
    scalar.apply_normal(want, in);
    from_simd(got, s_out);
    REQUIRE(ref::rel_diff(export_spinor_cb(got), export_spinor_cb(want)) < 10 * tol<Real>());
  }
}

TEMPLATE_LIST_TEST_CASE("SIMD block of right-hand sides, one per lane, matches the scalar hopping term for each, with every link "
                        "reconstruction",
                        "[simd][multi][compress]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Single = typename WilsonDslash<Real, ES>::spinor_type;
  constexpr int n = SIMDBlockWilsonDslash<Real, ES>::rhs_per_spinor;
  const Lattice lat({4, 6, 4, 8});
  auto u_host = random_host_gauge(lat, 71);
  const auto u = device_gauge<Real, ES>(lat, u_host);
  auto check = [&]<class Recon>(std::type_identity<Recon>, const BoundaryPhases& bc) {
    CAPTURE(Recon::name);
    using Block = SIMDBlockWilsonDslash<Real, ES, Recon>;
    const Block block(u, bc);
    const WilsonDslash<Real, ES> scalar(u, bc);
    // Compressed links are fewer bytes; reconstruct-8 rebuilds each link from two phases and a
    // division (QUDA's accuracy).
    if constexpr (!std::is_same_v<Recon, Recon18>) REQUIRE(block.bytes() < SIMDBlockWilsonDslash<Real, ES>(u, bc).bytes());
    const double limit = (Recon::pairs == 4 ? 50 : 5) * tol<Real>();
    for (int isign : {1, -1})
      for (int cb : {0, 1})
        for (bool xpay : {false, true}) {
          CAPTURE(n, isign, cb, xpay);
          auto in = block.create_spinor(1 - cb), x = block.create_spinor(cb), out = block.create_spinor(cb);
          std::vector<Single> ins, xs;
          for (int r = 0; r < n; ++r) {
            ins.emplace_back(lat, 1 - cb);
            xs.emplace_back(lat, cb);
            random_spinor(ins.back(), 300 + std::uint64_t(r));
            random_spinor(xs.back(), 400 + std::uint64_t(r));
            in.insert(r, ins.back());
            x.insert(r, xs.back());
          }
          if (xpay) block.apply_xpay(out, in, isign, cb, Real(0.7), x, Real(-0.3));
          else block.apply(out, in, isign, cb);
          for (int r = 0; r < n; ++r) {
            CAPTURE(r);
            Single want(lat, cb), got(lat, cb);
            if (xpay) scalar.apply_xpay(want, ins[std::size_t(r)], isign, cb, Real(0.7), xs[std::size_t(r)], Real(-0.3));
            else scalar.apply(want, ins[std::size_t(r)], isign, cb);
            out.extract(r, got);
            const auto g = export_spinor_cb(got), w = export_spinor_cb(want);
            REQUIRE(ref::rel_diff(g, w) < limit);
          }
        }
    // A lane that does not exist, a spinor of the wrong parity: errors naming them.
    auto b = block.create_spinor(0);
    Single s(lat, 0), odd(lat, 1);
    CHECK_THROWS_AS(b.insert(n, s), kqcd::invalid_argument);
    CHECK_THROWS_AS(b.insert(0, odd), kqcd::invalid_argument);
    auto o = block.create_spinor(1);
    CHECK_THROWS_AS(block.apply(b, b, 1, 0), kqcd::invalid_argument);
    CHECK_THROWS_AS(block.apply(o, b, 2, 1), kqcd::invalid_argument);
  };
  for (const auto& bc : {mixed_bc(), parse_boundary_phases("0,p,a,0")}) {
    check(std::type_identity<Recon18>{}, bc);
    check(std::type_identity<Recon12>{}, bc);
    check(std::type_identity<Recon8>{}, bc);
  }
  // Links outside SU(3) cannot be rebuilt from two rows or eight reals: refused.
  u_host[5 * 36 + 2 * 9 + 4] *= 1.01;
  const auto bad = device_gauge<Real, ES>(lat, u_host);
  REQUIRE_THROWS_AS((SIMDBlockWilsonDslash<Real, ES, Recon12>(bad, mixed_bc())), kqcd::invalid_argument);
  REQUIRE_THROWS_AS((SIMDBlockWilsonDslash<Real, ES, Recon8>(bad, mixed_bc())), kqcd::invalid_argument);
  REQUIRE_NOTHROW(SIMDBlockWilsonDslash<Real, ES>(bad, mixed_bc()));
}

TEMPLATE_LIST_TEST_CASE("BLAS on the SIMD layout equals the BLAS on the plain layout", "[simd][blas]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Plain = CBSpinor<Kokkos::complex<Real>, Ns, ES>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string());
    const SIMDGeometry g(lat, V::lanes, split);
    Plain x(lat, 1), y(lat, 1), w(lat, 1), back(lat, 1);
    random_spinor(x, 81);
    random_spinor(y, 82);
    random_spinor(w, 83);
    SIMDSpinor<V, ES> sx(g, 1), sy(g, 1), sw(g, 1);
    to_simd(sx, x);
    to_simd(sy, y);
    to_simd(sw, w);
    const double eps = 10 * tol<Real>();
    REQUIRE(std::abs(blas::norm2(sx) - blas::norm2(x)) <= eps * blas::norm2(x));
    const auto d = blas::cdot(sx, sy), dp = blas::cdot(x, y);
    REQUIRE(Kokkos::abs(d - dp) <= eps * std::sqrt(blas::norm2(x) * blas::norm2(y)));
    blas::axpby(0.3, sx, -1.2, sy);
    blas::axpby(0.3, x, -1.2, y);
    blas::caxpy({0.2, -0.7}, sw, sy);
    blas::caxpy({0.2, -0.7}, w, y);
    blas::cxpaypbz(sx, {0.5, 0.1}, sy, {-0.3, 0.4}, sw, sw);
    blas::cxpaypbz(x, {0.5, 0.1}, y, {-0.3, 0.4}, w, w);
    blas::axpy_zpbx_shifts({0.4}, {&sy}, {&sx}, sw, {0.7}, {-0.5});
    blas::axpy_zpbx_shifts({0.4}, {&y}, {&x}, w, {0.7}, {-0.5});
    from_simd(back, sx);
    REQUIRE(ref::rel_diff(export_spinor_cb(back), export_spinor_cb(x)) < eps);
    from_simd(back, sw);
    REQUIRE(ref::rel_diff(export_spinor_cb(back), export_spinor_cb(w)) < eps);
    if (lat.dim(0) != 4 || lat.dim(2) != 12) continue;
    // Another lane layout of the same sites (x split instead of z): a copy moves each site to its new lane.
    const SIMDGeometry other(lat, V::lanes, V::lanes == 8 ? std::array<int, Nd>{2, 2, 1, 2} : V::lanes == 4 ? std::array<int, Nd>{2, 1, 1, 2} : std::array<int, Nd>{2, 1, 1, 1});
    REQUIRE(!(other == g));
    SIMDSpinor<V, ES> moved(other, 1);
    blas::copy(moved, sw);
    Plain moved_back(lat, 1);
    from_simd(moved_back, moved);
    REQUIRE(ref::rel_diff(export_spinor_cb(moved_back), export_spinor_cb(back)) == 0.0); // back: sw in the plain layout
    CHECK_THROWS_AS(blas::axpy(1.0, moved, sw), kqcd::invalid_argument); // different layouts do not combine
  }
}

TEMPLATE_LIST_TEST_CASE("CG and BiCGStab on the SIMD layout solve the scalar operator's system", "[simd][solver]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  const Lattice lat({8, 4, 8, 8});
  const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 91));
  const auto bc = mixed_bc();
  const double mass = 0.2;
  const SIMDEvenOddOperator<WilsonMassTerm<Real, ES>> simd(SIMDGeometry(lat, V::lanes), u, bc, mass);
  const WilsonEOOperator<Real, ES> scalar(u, bc, mass);
  typename WilsonEOOperator<Real, ES>::vector_type b(lat, 0), x(lat, 0), t(lat, 0);
  random_spinor(b, 92);
  auto sb = simd.create_vector(), sx = simd.create_vector();
  to_simd(sb, b);
  SolverParams params;
  params.tol = std::is_same_v<Real, float> ? 1e-5 : 1e-10;
  params.max_iter = 2000;
  // The residual of the SIMD solution, measured with the scalar operator.
  const auto scalar_residual = [&] {
    from_simd(x, sx);
    scalar.apply(t, x, 1);
    blas::axpby(1.0, b, -1.0, t);
    return std::sqrt(blas::norm2(t) / blas::norm2(b));
  };
  for (const char* solver : {"cg", "bicgstab"}) {
    CAPTURE(solver);
    blas::zero(sx);
    const SolverResult r = std::string(solver) == "cg" ? cg_normal(simd, sx, sb, params) : bicgstab(simd, sx, sb, params);
    REQUIRE(r.converged());
    REQUIRE(r.true_residual <= params.tol);
    REQUIRE(scalar_residual() <= 1.5 * params.tol);
    blas::zero(x);
    const SolverResult rs = std::string(solver) == "cg" ? cg_normal(scalar, x, b, params) : bicgstab(scalar, x, b, params);
    REQUIRE(rs.converged());
    CHECK(std::abs(r.iterations - rs.iterations) <= std::max(2, rs.iterations / 10));
  }
  if constexpr (std::is_same_v<Real, double> && precision_compiled<float>) {
    // Mixed precision: single-precision inner iterations on the float layout (twice the lanes).
    const auto uf = device_gauge<float, ES>(lat, random_host_gauge(lat, 91));
    using Vf = typename ArchTraits<ES>::template simd_complex<float>;
    const SIMDEvenOddOperator<WilsonMassTerm<float, ES>> sloppy(SIMDGeometry(lat, Vf::lanes), uf, bc, mass);
    blas::zero(sx);
    const SolverResult r = cg_normal(simd, sloppy, sx, sb, params);
    REQUIRE(r.converged());
    REQUIRE(scalar_residual() <= 1.5 * params.tol);
    CHECK(r.residual_updates > 1);
  }
}

TEMPLATE_LIST_TEST_CASE("block BLAS with one right-hand side per lane equals the plain block BLAS", "[simd][multi][blas]",
                        SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Plain = CBSpinor<Kokkos::complex<Real>, Ns, ES>;
  const Lattice lat({4, 6, 4, 8});
  for (const int n : {V::lanes, std::max(1, V::lanes - 1)}) {
    CAPTURE(n);
    SIMDBlockSpinor<V, ES> x(lat, 1, n, "x"), y(lat, 1, n, "y"), z(lat, 1, n, "z");
    MultiCBSpinor<Kokkos::complex<Real>, ES> xp(lat, 1, n), yp(lat, 1, n), zp(lat, 1, n);
    for (int r = 0; r < n; ++r) {
      Plain s(lat, 1);
      for (auto [lane, plain, seed] : {std::tuple{&x, &xp, 10}, std::tuple{&y, &yp, 20}}) {
        random_spinor(s, std::uint64_t(seed + r));
        lane->insert(r, s);
        plain->insert(r, s);
      }
    }
    const double eps = 20 * tol<Real>();
    const auto close = [&](const std::vector<double>& a, const std::vector<double>& b) {
      REQUIRE(a.size() == b.size());
      for (std::size_t r = 0; r < a.size(); ++r) REQUIRE(std::abs(a[r] - b[r]) <= eps * std::abs(b[r]));
    };
    close(blas::norm2_each(x), blas::norm2_each(xp));
    close(blas::rdot_each(x, y), blas::rdot_each(xp, yp));
    std::vector<double> a, b;
    for (int r = 0; r < n; ++r) {
      a.push_back(0.5 - 0.25 * r);
      b.push_back(-1.0 + 0.125 * r);
    }
    blas::axpby_each(a, x, b, y);
    blas::axpby_each(a, xp, b, yp);
    const auto m = blas::block_inner(x, y), mp = blas::block_inner(xp, yp);
    REQUIRE(int(m.extent(0)) == n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) REQUIRE(Kokkos::abs(m(i, j) - mp(i, j)) <= eps * Kokkos::abs(mp(i, j)));
    blas::block_combine(z, y, x, mp);
    blas::block_combine(zp, yp, xp, mp);
    // The fused updates of multi-RHS CG.
    close(blas::axpy_norm2_each(b, z, y), blas::axpy_norm2_each(b, zp, yp));
    blas::axpy_zpbx_each(a, x, z, b, y, a);
    blas::axpy_zpbx_each(a, xp, zp, b, yp, a);
    for (int r = 0; r < n; ++r) {
      CAPTURE(r);
      Plain got(lat, 1), want(lat, 1);
      for (auto [lane, plain] : {std::pair{&x, &xp}, std::pair{&y, &yp}, std::pair{&z, &zp}}) {
        lane->extract(r, got);
        plain->extract(r, want);
        REQUIRE(ref::rel_diff(export_spinor_cb(got), export_spinor_cb(want)) < eps);
      }
    }
    // The lanes beyond n stay zero.
    double beyond = 0.0;
    for (const auto* block : {&x, &y, &z}) {
      const auto v = block->view();
      for (int i = 0; i < lat.cb_volume(); ++i)
        for (int c = 0; c < Nc; ++c)
          for (int sp = 0; sp < Ns; ++sp)
            for (int k = 2 * n; k < 2 * V::lanes; ++k) beyond += std::abs(double(v(i, c, sp, k)));
    }
    REQUIRE(beyond == 0.0);
    const SIMDBlockSpinor<V, ES> other(lat, 1, V::lanes == 1 ? 1 : (n == 1 ? 2 : n - 1), "other");
    if (other.n_rhs() != n) CHECK_THROWS_AS(blas::rdot_each(x, other), kqcd::invalid_argument);
  }
  CHECK_THROWS_AS((SIMDBlockSpinor<V, ES>(lat, 0, V::lanes + 1, "too many")), kqcd::invalid_argument);
}

namespace {
/// Multi-RHS CG (block false) or block CG on the SIMD layout, a right-hand side per lane: each
/// system's residual with the scalar operator, and no more iterations than the scalar CG.
template <class Config> void check_lane_block_solver(bool block) {
  using ES = space_of<Config>;
  using Real = real_of<Config>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Plain = CBSpinor<Kokkos::complex<Real>, Ns, ES>;
  const Lattice lat({8, 4, 8, 8});
  const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 93));
  const auto bc = mixed_bc();
  const double mass = 0.2;
  const SIMDEvenOddOperator<WilsonMassTerm<Real, ES>> simd(SIMDGeometry(lat, V::lanes), u, bc, mass);
  const WilsonEOOperator<Real, ES> scalar(u, bc, mass);
  SolverParams params;
  params.tol = std::is_same_v<Real, float> ? 1e-5 : 1e-10;
  params.max_iter = 2000;
  for (const int n : {V::lanes, std::max(1, V::lanes - 1)}) {
    auto b = simd.create_multi(n), x = simd.create_multi(n);
    std::vector<Plain> b_s;
    for (int r = 0; r < n; ++r) {
      b_s.emplace_back(lat, 0);
      random_spinor(b_s.back(), 500 + std::uint64_t(r));
      b.insert(r, b_s.back());
    }
    CAPTURE(n, block);
    blas::axpby_each(std::vector<double>(std::size_t(n), 0.0), b, std::vector<double>(std::size_t(n), 0.0), x);
    const auto res = block ? block_cg_normal(simd, x, b, params) : cg_normal_multi(simd, x, b, params);
    REQUIRE(res.size() == std::size_t(n));
    for (int r = 0; r < n; ++r) {
      const auto ur = std::size_t(r);
      CAPTURE(r, res[ur].iterations, res[ur].true_residual);
      REQUIRE(res[ur].converged());
      // The residual with the scalar operator, and the iterations of the scalar single-RHS CG.
      Plain xr(lat, 0), t(lat, 0), x1(lat, 0);
      x.extract(r, xr);
      scalar.apply(t, xr, 1);
      blas::axpby(1.0, b_s[ur], -1.0, t);
      REQUIRE(std::sqrt(blas::norm2(t) / blas::norm2(b_s[ur])) <= 1.5 * params.tol);
      const auto single = cg_normal(scalar, x1, b_s[ur], params);
      REQUIRE(single.converged());
      CHECK(res[ur].iterations <= single.iterations + std::max(2, single.iterations / 10));
    }
  }
  CHECK_THROWS_AS(simd.create_multi(V::lanes + 1), kqcd::invalid_argument);
}
} // namespace

TEMPLATE_LIST_TEST_CASE("multi-RHS CG on the SIMD layout (one right-hand side per lane) solves each system",
                        "[simd][multi][solver]", SIMDConfigs) {
  check_lane_block_solver<TestType>(false);
}

TEMPLATE_LIST_TEST_CASE("block CG on the SIMD layout (one right-hand side per lane) solves each system",
                        "[simd][multi][solver]", SIMDConfigs) {
  if (std::is_same_v<real_of<TestType>, float>) SKIP("block CG solves in double precision only");
  check_lane_block_solver<TestType>(true);
}
