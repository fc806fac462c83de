// The colour-hop stencils of the stencil framework: staggered fermions (naive, and with a Naik term of
// random long links), the covariant Laplacian and the covariant derivative, on every layout in the
// arithmetic precisions and in 16-bit storage, against the plain host references of
// tests/reference/stencil_reference.hpp and physical identities: anti-Hermiticity of
// the staggered D, gauge covariance, the free staggered propagator's momentum-space sum. And the
// run-time operator handle (make_even_odd_operator) against the compile-time operator. Each stencil
// test runs on every layout of the backend (stencil_layouts.hpp).
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/multi_shift_cg.hpp>
#include <kqcd/solvers/staggered_solve.hpp>
#include <kqcd/stencil/laplace.hpp>
#include <kqcd/stencil/operator_handle.hpp>
#include <kqcd/stencil/staggered.hpp>

#include "host_fields.hpp"
#include "stencil_layouts.hpp"
#include <stencil_reference.hpp>
#include <wilson_reference.hpp>

#include <numbers>

using namespace kqcd;
using namespace kqcd::test;

namespace {
using cvec = std::vector<std::complex<double>>;
template <int n_spin> cvec random_host_field(const Lattice& lat, std::uint64_t seed) {
  SpinorField<Kokkos::complex<double>, n_spin, Kokkos::DefaultHostExecutionSpace> s(lat);
  random_spinor(s, seed);
  return export_spinor(s);
}
/// A random SU(3) matrix per site: the mu = 0 links of a random gauge field.
cvec random_host_transform(const Lattice& lat, std::uint64_t seed) {
  const cvec gfield = random_host_gauge(lat, seed);
  cvec g(std::size_t(lat.volume()) * 9);
  for (std::size_t i = 0; i < std::size_t(lat.volume()); ++i)
    for (int k = 0; k < 9; ++k) g[i * 9 + k] = gfield[i * 36 + k];
  return g;
}
template <class Gauge> Gauge device_gauge(const Lattice& lat, const cvec& host) {
  Gauge u(lat);
  import_gauge(u, host);
  return u;
}
/// The field's values on the host, sites in lexicographic order.
template <class Field> cvec host(const Field& f) { return export_spinor(f); }
/// A field made by op.create_field() holding h.
template <class Op> auto device_field(const Op& op, const cvec& h) {
  auto f = op.create_field();
  import_spinor(f, h);
  return f;
}
/// |a - b| / |b| over the sites of two spinors of one parity on a host backend (any storage).
template <class S> double rel_diff_sites(const S& a, const S& b) {
  const auto ra = SpinorAccess<S>::template read<double>(a), rb = SpinorAccess<S>::template read<double>(b);
  double d = 0, n = 0;
  for (int i = 0; i < a.lattice().cb_volume(); ++i) {
    Kokkos::complex<double> va[Nc][S::n_spin], vb[Nc][S::n_spin];
    ra.load(i, va);
    rb.load(i, vb);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < S::n_spin; ++sp) {
        d += Kokkos::abs(va[c][sp] - vb[c][sp]) * Kokkos::abs(va[c][sp] - vb[c][sp]);
        n += Kokkos::abs(vb[c][sp]) * Kokkos::abs(vb[c][sp]);
      }
  }
  return std::sqrt(d / n);
}
/// The same layout in single precision (a mixed-precision solve's sloppy operator).
template <class Layout> struct in_single;
template <class P, class ES, class R, NeighbourMode m> struct in_single<PlainStencilLayout<P, ES, R, m>> {
  using type = PlainStencilLayout<float, ES, R, m>;
};
template <class P, class ES, class R, NeighbourMode m, class V> struct in_single<SIMDStencilLayout<P, ES, R, m, V>> {
  using type = SIMDStencilLayout<float, ES, R, m>;
};
cvec axpy(std::complex<double> a, const cvec& x, const cvec& y) {
  cvec out(y);
  for (std::size_t i = 0; i < y.size(); ++i) out[i] += a * x[i];
  return out;
}

/// 2m psi + D psi through StaggeredOperator (long links w where given).
template <class ES, class Real, class Layout>
cvec run_staggered(const Lattice& lat, const cvec& v, const cvec* w, const cvec& psi, double mass, const BoundaryPhases& bc, int isign) {
  using Op = StaggeredOperator<Real, ES, Layout>;
  using Gauge = typename Op::gauge_type;
  const Gauge V = device_gauge<Gauge>(lat, v);
  const Gauge W = w ? device_gauge<Gauge>(lat, *w) : Gauge();
  const Op M(V, bc, mass, w ? &W : nullptr);
  auto in = M.create_vector(), out = M.create_vector();
  import_spinor(in, psi);
  M.apply(out, in, isign);
  return host(out);
}
} // namespace

TEMPLATE_LIST_TEST_CASE("staggered operator matches the host reference", "[stencil][staggered]", StencilConfigsWithHalf) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  const double mass = 0.07;
  for (const bool naik : {false, true}) {
    const Lattice& lat = naik ? naik_lattice<Layout>() : small_lattice<Layout>();
    const cvec v = random_host_gauge(lat, 61), w = naik ? random_host_gauge(lat, 62) : cvec();
    const cvec psi = random_host_field<1>(lat, 63);
    for (const auto& bc : {mixed_bc(), parse_boundary_phases("0,p,a,0")}) {
      const cvec d = ref::staggered_dslash(lat.dims(), v, w, psi, host_bc(bc));
      for (int isign : {1, -1}) {
        CAPTURE(naik, isign);
        const cvec got = run_staggered<ES, Real, Layout>(lat, v, naik ? &w : nullptr, psi, mass, bc, isign);
        const cvec want = axpy(double(isign), d, axpy(2 * mass - 1.0, psi, psi)); // 2m psi + isign D psi
        REQUIRE(ref::rel_diff(got, want) < 10 * stencil_tol<TestType>());
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("staggered operator with compressed links and either neighbour mode matches the host reference",
                        "[stencil][staggered][recon]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  constexpr NeighbourMode native = Layout::neighbour_mode;
  constexpr NeighbourMode other = native == NeighbourMode::table ? NeighbourMode::on_the_fly : NeighbourMode::table;
  const Lattice& lat = naik_lattice<Layout>();
  const cvec v = random_host_gauge(lat, 71), w = random_host_gauge(lat, 72), psi = random_host_field<1>(lat, 73);
  const double mass = 0.05;
  const auto bc = mixed_bc();
  const cvec want = axpy(1.0, ref::staggered_dslash(lat.dims(), v, w, psi, host_bc(bc)), axpy(2 * mass - 1.0, psi, psi));
  auto check = [&]<class Stored>(const char* what, double slack) {
    CAPTURE(what);
    REQUIRE(ref::rel_diff(run_staggered<ES, Real, Stored>(lat, v, &w, psi, mass, bc, 1), want) < slack * tol<Real>());
  };
  check.template operator()<typename Layout::template with_storage<Recon12, native>>("recon 12", 50);
  check.template operator()<typename Layout::template with_storage<Recon8, native>>("recon 8", 50);
  check.template operator()<typename Layout::template with_storage<Recon18, other>>("other neighbour mode", 10);
  // Compression needs SU(3) links: 2 U is refused.
  cvec big(v);
  for (auto& z : big) z *= 2.0;
  using Op = StaggeredOperator<Real, ES, typename Layout::template with_storage<Recon12, native>>;
  const auto V = device_gauge<typename Op::gauge_type>(lat, big);
  REQUIRE_THROWS_AS(Op(V, bc, mass), kqcd::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("colour-hop stencils on blocks of right-hand sides (rows, or SIMD lanes) equal each right-hand side alone", "[stencil][rhs]",
                        StencilConfigsWithHalf) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  auto check = [&]<class Stencil>(const Stencil& d, unsigned mask, Real a, int n_rhs) {
    if constexpr (Stencil::has_blocks) {
      CAPTURE(Stencil::spins, mask, a, n_rhs);
      auto in = d.create_block(1, n_rhs), x = d.create_block(0, n_rhs), out = d.create_block(0, n_rhs);
      std::vector<typename Stencil::spinor_type> ins, xs;
      for (int r = 0; r < n_rhs; ++r) {
        ins.push_back(d.create_spinor(1));
        xs.push_back(d.create_spinor(0));
        random_spinor(ins[r], 500 + r);
        random_spinor(xs[r], 600 + r);
        in.insert(r, ins[r]);
        x.insert(r, xs[r]);
      }
      d.apply(out, in, 0, mask, a, &x, Real(0.5));
      for (int r = 0; r < n_rhs; ++r) {
        auto want = d.create_spinor(0), got = d.create_spinor(0);
        d.apply(want, ins[r], 0, mask, a, &xs[r], Real(0.5));
        out.extract(r, got);
        REQUIRE(same_sites(got, want));
      }
      REQUIRE(d.flops(mask, a != Real(0), n_rhs) == n_rhs * d.flops(mask, a != Real(0)));
      auto short_x = d.create_block(0, n_rhs + 1);
      REQUIRE_THROWS_AS(d.apply(out, in, 0, mask, a == Real(0) ? Real(1) : a, &short_x), kqcd::invalid_argument);
    }
  };
  // On SIMD lanes a block holds a right-hand side per lane (SIMDBlockStencilLayout): each lane equals
  // the plain layout's result for it, to rounding (the two sum in other orders).
  auto check_lanes = [&]<class Block, class Plain>(const Block& d, const Plain& p, unsigned mask, Real a) {
    constexpr int L = Block::rhs_per_spinor;
    CAPTURE(Block::spins, mask, a, L);
    auto in = d.create_spinor(1), x = d.create_spinor(0), out = d.create_spinor(0);
    std::vector<typename Plain::spinor_type> ins, xs;
    for (int r = 0; r < L; ++r) {
      ins.push_back(p.create_spinor(1));
      xs.push_back(p.create_spinor(0));
      random_spinor(ins[r], 500 + r);
      random_spinor(xs[r], 600 + r);
      in.insert(r, ins[r]);
      x.insert(r, xs[r]);
    }
    d.apply(out, in, 0, mask, a, &x, Real(0.5));
    for (int r = 0; r < L; ++r) {
      auto want = p.create_spinor(0), got = p.create_spinor(0);
      p.apply(want, ins[r], 0, mask, a, &xs[r], Real(0.5));
      out.extract(r, got);
      REQUIRE(rel_diff_sites(got, want) < 10 * stencil_tol<TestType>());
    }
    REQUIRE(d.flops(mask, a != Real(0), L) == L * p.flops(mask, a != Real(0)));
  };
  const Lattice& lat = naik_lattice<Layout>();
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  const Gauge V = device_gauge<Gauge>(lat, random_host_gauge(lat, 81)), W = device_gauge<Gauge>(lat, random_host_gauge(lat, 82));
  if constexpr (!is_simd_layout<Layout>) {
    const ColourHopStencil<StaggeredSigns, 1, Real, ES, Layout> staggered("StaggeredDslash", V, mixed_bc(), &W);
    check(staggered, staggered.available_hops(), Real(0), 3);
    const ColourHopStencil<UnitSigns, Ns, Real, ES, Layout> unit("Laplacian", V, mixed_bc());
    check(unit, hops::one_site, Real(-8), 2);
  } else {
    using Lanes = SIMDBlockStencilLayout<typename Layout::precision, ES, Recon18, typename Layout::simd_type>;
    using Plain = PlainStencilLayout<typename Layout::precision, ES>;
    const ColourHopStencil<StaggeredSigns, 1, Real, ES, Lanes> staggered("StaggeredDslash", V, mixed_bc(), &W);
    check_lanes(staggered, ColourHopStencil<StaggeredSigns, 1, Real, ES, Plain>("StaggeredDslash", V, mixed_bc(), &W),
                staggered.available_hops(), Real(0));
    const ColourHopStencil<UnitSigns, Ns, Real, ES, Lanes> unit("Laplacian", V, mixed_bc());
    check_lanes(unit, ColourHopStencil<UnitSigns, Ns, Real, ES, Plain>("Laplacian", V, mixed_bc()), hops::one_site, Real(-8));
  }
}

TEMPLATE_LIST_TEST_CASE("staggered D is anti-Hermitian and gauge covariant", "[stencil][staggered]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  const Lattice& lat = naik_lattice<Layout>();
  const cvec v = random_host_gauge(lat, 71), w = random_host_gauge(lat, 72);
  const cvec psi = random_host_field<1>(lat, 73), phi = random_host_field<1>(lat, 74);
  const auto bc = mixed_bc();
  const double mass = 0.1;
  // D = (M - M^dag) / 2 on the device.
  auto dslash = [&](const cvec& vv, const cvec& ww, const cvec& f) {
    const cvec mp = run_staggered<ES, Real, Layout>(lat, vv, &ww, f, mass, bc, 1);
    const cvec mm = run_staggered<ES, Real, Layout>(lat, vv, &ww, f, mass, bc, -1);
    return axpy(-1.0, mm, mp); // 2 D f
  };
  const cvec d_psi = dslash(v, w, psi), d_phi = dslash(v, w, phi);
  // <phi, D psi> = -<D phi, psi>
  const auto lhs = ref::dot(phi, d_psi), rhs = ref::dot(d_phi, psi);
  REQUIRE(std::abs(lhs + rhs) < 10 * tol<Real>() * std::sqrt(ref::norm2(phi) * ref::norm2(d_psi)));
  // D[U^g] g psi = g D[U] psi, with the long links transformed as three-site products are.
  const cvec g = random_host_transform(lat, 75);
  cvec gw(w.size());
  {
    // W_mu(x) -> g(x) W_mu(x) g(x + 3 mu)^dag.
    const auto d = lat.dims();
    for (std::int64_t i = 0; i < lat.volume(); ++i) {
      const Coords x = lat.lex_coords(i);
      for (int mu = 0; mu < Nd; ++mu) {
        Coords y = x;
        y.x[mu] = (y.x[mu] + 3) % d[std::size_t(mu)];
        const std::int64_t j = lat.lex_index(y);
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            std::complex<double> s = 0;
            for (int k = 0; k < 3; ++k)
              for (int l = 0; l < 3; ++l)
                s += g[std::size_t(i * 9 + a * 3 + k)] * w[std::size_t((i * 4 + mu) * 9 + k * 3 + l)] * std::conj(g[std::size_t(j * 9 + b * 3 + l)]);
            gw[std::size_t((i * 4 + mu) * 9 + a * 3 + b)] = s;
          }
      }
    }
  }
  const cvec transformed = dslash(ref::transform_gauge(lat.dims(), v, g), gw, ref::transform_field(psi, g, 1));
  REQUIRE(ref::rel_diff(transformed, ref::transform_field(d_psi, g, 1)) < 20 * tol<Real>());
}

TEMPLATE_LIST_TEST_CASE("free staggered propagator equals the momentum-space sum", "[stencil][staggered]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  const Lattice lat({4, 4, 4, 8});
  const double mass = 0.15;
  const std::array<double, 4> theta{0.3, 0.0, 0.0, std::numbers::pi};
  BoundaryPhases bc;
  for (int mu = 0; mu < Nd; ++mu) bc.b[mu] = BoundaryPhases::twist(theta[std::size_t(mu)]);
  using Op = StaggeredEvenOddOperator<Real, ES, Layout>;
  typename Op::gauge_type u(lat);
  unit_gauge(u);
  const Op op(u, bc, mass);
  const std::array<int, 4> x0{1, 2, 0, 3};
  const int colour = 1;
  // A colour point source at x0.
  auto b = op.create_field(), x = op.create_field();
  import_spinor(b, colour_point_source(lat, x0, colour));
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-12;
  const SolverResult res = staggered_solve(op, x, b, params);
  REQUIRE(res.status == SolverStatus::converged);
  const cvec got = host(x);
  const cvec g = ref::free_staggered_propagator(lat.dims(), mass, theta, x0);
  cvec want(got.size(), 0.0);
  for (std::size_t s = 0; s < g.size(); ++s) want[s * Nc + colour] = g[s];
  REQUIRE(ref::rel_diff(got, want) < (sizeof(Real) == 4 ? 2e-4 : 1e-10));
}

TEMPLATE_LIST_TEST_CASE("staggered even-odd solve solves M x = b", "[stencil][staggered]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  const Lattice& lat = naik_lattice<Layout>();
  const cvec v = random_host_gauge(lat, 81), w = random_host_gauge(lat, 82), bh = random_host_field<1>(lat, 83);
  const auto bc = mixed_bc();
  using EO = StaggeredEvenOddOperator<Real, ES, Layout>;
  using Full = StaggeredOperator<Real, ES, Layout>;
  using Gauge = typename EO::gauge_type;
  const Gauge V = device_gauge<Gauge>(lat, v), W = device_gauge<Gauge>(lat, w);
  const EO eo(V, bc, 0.3, &W);
  const Full M(V, bc, 0.3, &W);
  auto b = eo.create_field(), x = eo.create_field(), mx = eo.create_field();
  import_spinor(b, bh);
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-11;
  const SolverResult res = staggered_solve(eo, x, b, params);
  REQUIRE(res.status == SolverStatus::converged);
  M.apply(mx, x);
  // The odd sites follow exactly from the even ones, so the full residual is the even system's
  // times at most the norm of (2m)^-1 D: bounded by a modest factor.
  REQUIRE(ref::rel_diff(host(mx), bh) < 100 * params.tol);
  // Bad input names the problem.
  REQUIRE_THROWS_AS(EO(V, bc, 0.0), kqcd::invalid_argument);
  // Three-site hops on a (swept) extent of 2 would wrap twice: refused.
  const Gauge small(small_lattice<Layout>());
  REQUIRE_THROWS_AS(EO(small, bc, 0.3, &small), kqcd::invalid_argument);
  REQUIRE_THROWS_AS(M.apply(x, x), kqcd::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("multi-shift CG solves every shift; the staggered multi-mass solve solves M x = b for every mass",
                        "[stencil][staggered][multishift]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  const Lattice& lat = naik_lattice<Layout>();
  const auto bc = mixed_bc();
  using EO = StaggeredEvenOddOperator<Real, ES, Layout>;
  using Gauge = typename EO::gauge_type;
  const Gauge V = device_gauge<Gauge>(lat, random_host_gauge(lat, 84)), W = device_gauge<Gauge>(lat, random_host_gauge(lat, 85));
  const double m0 = 0.05;
  const EO A(V, bc, m0, &W);
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-4 : 1e-11; // single precision: CG's true residual stalls near 1e-5 at m = 0.05
  // (A + sigma) x = b, the shifts unsorted, the base (smallest) not first.
  const std::vector<double> shifts{0.3, 0.0, 2.5, 0.01};
  auto b = A.create_vector("b"), t = A.create_vector("t");
  random_spinor(b, 86);
  std::vector<typename EO::vector_type> x;
  for (std::size_t s = 0; s < shifts.size(); ++s) x.push_back(A.create_vector("x"));
  auto residual = [&](const typename EO::vector_type& xs, double sigma, const auto& src) {
    A.apply(t, xs);
    blas::axpy(sigma, xs, t);
    blas::axpby(1.0, src, -1.0, t);
    return std::sqrt(blas::norm2(t) / blas::norm2(src));
  };
  const MultiShiftResult res = multi_shift_cg(A, x, b, shifts, params);
  REQUIRE(res.converged());
  for (std::size_t s = 0; s < shifts.size(); ++s) {
    CAPTURE(s, shifts[s], res.iterations, res.shifts[s].iterations);
    REQUIRE(residual(x[s], shifts[s], b) < 2 * params.tol);
    // The shared loop did the work: a refinement takes a few iterations at most.
    REQUIRE(res.shifts[s].iterations <= 5);
  }
  // Per-shift tolerances with the base system's the loosest: it drives the loop until every shift is
  // done (the shared loop's own solutions, unrefined).
  const std::vector<double> loose_base{params.tol, 1e-3, params.tol, params.tol};
  const MultiShiftResult unrefined = multi_shift_cg(A, A, x, b, shifts, params, loose_base, false);
  REQUIRE(unrefined.converged());
  for (std::size_t s = 0; s < shifts.size(); ++s) {
    CAPTURE(s, shifts[s], unrefined.iterations);
    REQUIRE(residual(x[s], shifts[s], b) < 10 * loose_base[s]);
  }
  // Larger shifts converge first: the shared loop ran as long as the base system alone needs.
  std::vector<typename EO::vector_type> one{A.create_vector("x")};
  REQUIRE(std::abs(multi_shift_cg(A, one, b, {0.0}, params).iterations - res.iterations) <= 2);
  REQUIRE_THROWS_AS(multi_shift_cg(A, one, b, shifts, params), kqcd::invalid_argument);

  // Masses of one set: M_i x_i = b on both parities, b with odd sites too.
  using Full = StaggeredOperator<Real, ES, Layout>;
  const std::vector<double> masses{0.2, m0, 0.8};
  auto bf = A.create_field("bf"), mx = A.create_field("mx");
  const cvec bh = random_host_field<1>(lat, 87);
  import_spinor(bf, bh);
  std::vector<typename EO::field_type> xf;
  for (std::size_t i = 0; i < masses.size(); ++i) xf.push_back(A.create_field("xf"));
  const MultiShiftResult mm = staggered_multi_mass_solve(A, xf, bf, masses, params);
  REQUIRE(mm.converged());
  for (std::size_t i = 0; i < masses.size(); ++i) {
    CAPTURE(masses[i]);
    Full(V, bc, masses[i], &W).apply(mx, xf[i]);
    REQUIRE(ref::rel_diff(host(mx), bh) < 100 * params.tol);
  }
  if constexpr (std::is_same_v<Real, double> && precision_compiled<float>) {
    // Mixed precision: the shared loop in single, each mass refined in double with reliable updates.
    using Sloppy = StaggeredEvenOddOperator<float, ES, typename in_single<Layout>::type>;
    using SGauge = typename Sloppy::gauge_type;
    const SGauge Vs = device_gauge<SGauge>(lat, random_host_gauge(lat, 84)), Ws = device_gauge<SGauge>(lat, random_host_gauge(lat, 85));
    const Sloppy As(Vs, bc, m0, &Ws);
    const MultiShiftResult mixed = staggered_multi_mass_solve(A, As, xf, bf, masses, params);
    REQUIRE(mixed.converged());
    for (std::size_t i = 0; i < masses.size(); ++i) {
      CAPTURE(masses[i]);
      Full(V, bc, masses[i], &W).apply(mx, xf[i]);
      REQUIRE(ref::rel_diff(host(mx), bh) < 100 * params.tol);
    }
    // The shared loops' reliable updates take the base system (the smallest mass, m0) to the
    // tolerance: its refinement has next to nothing left (without them it starts near 1e-6).
    CAPTURE(mixed.iterations, mixed.residual_updates, mixed.shifts[1].iterations);
    REQUIRE(mixed.residual_updates > 0);
    REQUIRE(mixed.shifts[1].iterations <= 2);
  }
  REQUIRE_THROWS_AS(staggered_multi_mass_solve(A, xf, bf, {0.1, -0.2, 0.3}, params), kqcd::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("covariant Laplacian and derivative match the host reference and are gauge covariant", "[stencil][laplace]",
                        StencilConfigsWithHalf) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  const Lattice& lat = small_lattice<Layout>();
  const cvec u = random_host_gauge(lat, 91);
  const cvec g = random_host_transform(lat, 92);
  const cvec ug = ref::transform_gauge(lat.dims(), u, g);
  const auto bc = mixed_bc();
  auto check_spins = [&]<int n_spin>(std::integral_constant<int, n_spin>) {
    using Lap = Laplacian<n_spin, Real, ES, Layout>;
    using Cov = CovariantDerivative<n_spin, Real, ES, Layout>;
    using Gauge = typename Lap::gauge_type;
    const cvec psi = random_host_field<n_spin>(lat, 93 + n_spin);
    const cvec gpsi = ref::transform_field(psi, g, n_spin);
    const Gauge U = device_gauge<Gauge>(lat, u), UG = device_gauge<Gauge>(lat, ug);
    const Lap lap4(U, bc);
    const auto in = device_field(lap4, psi), ging = device_field(lap4, gpsi);
    auto out = lap4.create_field(), outg = lap4.create_field();
    for (int ndim : {3, 4}) {
      CAPTURE(n_spin, ndim);
      const Lap lap(U, bc, ndim), lapg(UG, bc, ndim);
      lap.apply(out, in);
      const cvec got = host(out);
      REQUIRE(ref::rel_diff(got, ref::laplacian(lat.dims(), u, psi, n_spin, ndim, host_bc(bc))) < 10 * stencil_tol<TestType>());
      lapg.apply(outg, ging);
      REQUIRE(ref::rel_diff(host(outg), ref::transform_field(got, g, n_spin)) < 20 * stencil_tol<TestType>());
    }
    const Cov cov(U, bc), covg(UG, bc);
    for (int mu = 0; mu < Nd; ++mu)
      for (int dir : {1, -1}) {
        CAPTURE(n_spin, mu, dir);
        cov.apply(out, in, mu, dir);
        const cvec got = host(out);
        REQUIRE(ref::rel_diff(got, ref::covariant_derivative(lat.dims(), u, psi, n_spin, mu, dir, host_bc(bc))) < 10 * stencil_tol<TestType>());
        covg.apply(outg, ging, mu, dir);
        REQUIRE(ref::rel_diff(host(outg), ref::transform_field(got, g, n_spin)) < 20 * stencil_tol<TestType>());
      }
    REQUIRE_THROWS_AS(cov.apply(out, in, 4, 1), kqcd::invalid_argument);
    REQUIRE_THROWS_AS(Lap(U, bc, 2), kqcd::invalid_argument);
  };
  check_spins(std::integral_constant<int, 1>{});
  check_spins(std::integral_constant<int, 4>{});
}

TEMPLATE_LIST_TEST_CASE("operator handle: the layout chosen at run time solves as the compile-time operator", "[stencil][handle]",
                        Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Term = WilsonMassTerm<Real, ES>;
  const Lattice lat({8, 4, 4, 8});
  typename EvenOddHandle<Term>::gauge_type u(lat);
  random_gauge(u, 101);
  const auto bc = BoundaryPhases::antiperiodic_time();
  const double mass = 0.5;
  typename EvenOddHandle<Term>::field_type b(lat), x(lat), want(lat);
  random_spinor(b, 102);
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  // The compile-time operator on the plain layout.
  {
    const EvenOddOperator<Term, PlainLayoutTag::layout<Real, ES>> op(u, bc, mass);
    auto bh = op.create_vector(), xe = op.create_vector();
    op.prepare_source(bh, b);
    REQUIRE(cg_normal(op, xe, bh, params).converged());
    op.reconstruct(want, xe, b);
  }
  for (const LayoutChoice choice : {LayoutChoice::automatic, LayoutChoice::plain}) {
    const auto D = make_even_odd_operator<Term>(choice, u, bc, mass);
    CAPTURE(D.layout_name());
    if (choice == LayoutChoice::plain) CHECK(D.layout_name() == "scalar");
    if (ArchTraits<ES>::simd_layout && choice == LayoutChoice::automatic) CHECK(D.layout_name() == "simd");
    auto bh = D.create_vector(), xe = D.create_vector();
    D.prepare_source(bh, b);
    const SolverResult r = cg_normal(D, xe, bh, params);
    REQUIRE(r.converged());
    D.reconstruct(x, xe, b);
    const double diff = ref::rel_diff(host(x), host(want));
    REQUIRE(diff < (sizeof(Real) == 4 ? 1e-3 : 1e-8));
  }
  // A vector of the other layout is refused.
  if constexpr (ArchTraits<ES>::simd_layout) {
    const auto simd = make_even_odd_operator<Term>(LayoutChoice::simd, u, bc, mass);
    const auto plain = make_even_odd_operator<Term>(LayoutChoice::plain, u, bc, mass);
    auto v = plain.create_vector(), w = simd.create_vector();
    REQUIRE_THROWS_AS(simd.apply(w, v), kqcd::invalid_argument);
  }
}

TEMPLATE_LIST_TEST_CASE("staggered operator handle: the layout chosen at run time solves M x = b", "[stencil][handle][staggered]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Handle = StaggeredEvenOddHandle<Real, ES>;
  using Gauge = typename Handle::gauge_type;
  // Splits into 8 lanes with sub-lattices at least 3 long (x, z, t halved).
  const Lattice lat({8, 6, 8, 8});
  Gauge V(lat), W(lat);
  random_gauge(V, 111);
  random_gauge(W, 112);
  const auto bc = mixed_bc();
  typename Handle::field_type b(lat), x(lat), mx(lat);
  random_spinor(b, 113);
  const StaggeredOperator<Real, ES> M(V, bc, 0.3, &W);
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-11;
  for (const LayoutChoice choice : {LayoutChoice::automatic, LayoutChoice::plain, LayoutChoice::simd}) {
    if (choice == LayoutChoice::simd && !ArchTraits<ES>::simd_layout) {
      REQUIRE_THROWS_AS(make_staggered_operator(V, bc, 0.3, &W, choice), kqcd::invalid_argument);
      continue;
    }
    const auto A = make_staggered_operator(V, bc, 0.3, &W, choice);
    CAPTURE(A.layout_name());
    CHECK(A.layout_name() == (choice == LayoutChoice::plain || !ArchTraits<ES>::simd_layout ? "scalar" : "simd"));
    for (int p = 0; p < 2; ++p) blas::zero(x[p]);
    REQUIRE(staggered_solve(A, x, b, params).converged());
    M.apply(mx, x);
    REQUIRE(ref::rel_diff(host(mx), host(b)) < 100 * params.tol);
  }
  // Long links on sub-lattices of 2: the lanes are refused, the automatic choice takes the plain layout.
  if constexpr (ArchTraits<ES>::simd_layout) {
    const Lattice small({4, 6, 4, 8});
    Gauge v(small);
    random_gauge(v, 114);
    CHECK(make_staggered_operator(v, bc, 0.3, &v).layout_name() == "scalar");
    REQUIRE_THROWS_AS(make_staggered_operator(v, bc, 0.3, &v, LayoutChoice::simd), kqcd::invalid_argument);
  }
}
