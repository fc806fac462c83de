// The Wilson, twisted-mass, clover (stored and dynamic inverse) and twisted-clover operators on the
// SIMD layout (SIMDEvenOddOperator, SIMDFullOperator) against the same operators on the plain layout
// and against the host reference (tests/reference/clover_reference.hpp), on lattices with every kind of lane split;
// CG and mixed-precision CG on the SIMD layout against the plain operator's residual; blocks with
// one right-hand side per lane against the single-spinor operator, and multi-RHS CG on them; 16-bit
// spinors and links on the lanes (the hopping term on every lane split and reconstruction, every
// even-odd operator, mixed double-half CG and BiCGStab) against double precision and the host
// reference, 16-bit clover blocks against float ones, the 16-bit BLAS on lanes against the plain
// layout's; 16-bit lane blocks of right-hand sides (the hopping term, the block BLAS, mixed multi-RHS CG);
// the default layout (ArchTraits' choice) and the run-time fallback (with_even_odd_operator, with_full_operator) on every
// backend, solving D x = b and applying D against the host reference.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/stencil/operators.hpp>

#include "host_fields.hpp"
#include "simd_cases.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <clover_reference.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;
using cd = std::complex<double>;

namespace {
constexpr double mass = 0.1, csw = 1.3, mu = 0.27;

/// f(term tag, mu, c_sw, constructor arguments after the mass) for every term with a SIMD form.
template <class Real, class ES, class F> void for_each_term(F&& f) {
  f(std::type_identity<WilsonMassTerm<Real, ES>>{}, 0.0, 0.0);
  f(std::type_identity<TwistedMassTerm<Real, ES>>{}, mu, 0.0, mu);
  f(std::type_identity<CloverTerm<Real, ES>>{}, 0.0, csw, csw);
  f(std::type_identity<CloverTerm<Real, ES, CloverInverse::dynamic>>{}, 0.0, csw, csw);
  f(std::type_identity<TwistedCloverTerm<Real, ES>>{}, mu, csw, csw, mu);
}

/// Term in another storage precision P (the same operator, other spinors and links).
template <class Term, class P> struct rebind_precision;
template <class R, class ES, class P> struct rebind_precision<WilsonMassTerm<R, ES>, P> {
  using type = WilsonMassTerm<P, ES>;
};
template <class R, class ES, class P> struct rebind_precision<TwistedMassTerm<R, ES>, P> {
  using type = TwistedMassTerm<P, ES>;
};
template <class R, class ES, class P> struct rebind_precision<TwistedCloverTerm<R, ES>, P> {
  using type = TwistedCloverTerm<P, ES>;
};
template <class R, class ES, CloverInverse inv, class P> struct rebind_precision<CloverTerm<R, ES, inv>, P> {
  using type = CloverTerm<P, ES, inv>;
};
template <class Term, class P> using rebind_precision_t = typename rebind_precision<Term, P>::type;

} // namespace

TEMPLATE_LIST_TEST_CASE("SIMD even-odd Wilson-type operators match the plain layout's", "[simd][clover]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  const double eps = 5 * tol<Real>();
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string(), split[0], split[1], split[2], split[3]);
    const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 81));
    const auto bc = mixed_bc();
    for_each_term<Real, ES>([&]<class Term>(std::type_identity<Term>, double, double, auto... args) {
      CAPTURE(Term::name);
      const SIMDEvenOddOperator<Term> simd(SIMDGeometry(lat, V::lanes, split), u, bc, mass, args...);
      const PlainEvenOddOperator<Term> scalar(u, bc, mass, args...);
      SpinorField<Kokkos::complex<Real>, Ns, ES> psi(lat), b(lat), x(lat);
      random_spinor(psi[0], 82);
      random_spinor(psi[1], 83);
      random_spinor(b[1], 84);
      auto in_e = simd.create_spinor(0), in_o = simd.create_spinor(1), b_o = simd.create_spinor(1);
      auto out_e = simd.create_spinor(0), out_o = simd.create_spinor(1);
      to_simd(in_e, psi[0]);
      to_simd(in_o, psi[1]);
      to_simd(b_o, b[1]);
      typename PlainEvenOddOperator<Term>::vector_type want_e(lat, 0), want_o(lat, 1);
      for (int isign : {1, -1}) {
        CAPTURE(isign);
        simd.apply(out_e, in_e, isign);
        scalar.apply(want_e, psi[0], isign);
        REQUIRE(ref::rel_diff(export_spinor_cb(plain(out_e)), export_spinor_cb(want_e)) < eps);
        // A^-1 H on each target parity: the stored inverse of the term on both parities.
        simd.apply_hopping_inverse(out_o, in_e, isign, 1);
        scalar.apply_hopping_inverse(want_o, psi[0], isign, 1);
        REQUIRE(ref::rel_diff(export_spinor_cb(plain(out_o)), export_spinor_cb(want_o)) < eps);
        simd.apply_hopping_inverse(out_e, in_o, isign, 0);
        scalar.apply_hopping_inverse(want_e, psi[1], isign, 0);
        REQUIRE(ref::rel_diff(export_spinor_cb(plain(out_e)), export_spinor_cb(want_e)) < eps);
        // Source preparation with b = (psi_e, b_o) and the odd-site reconstruction from psi_e.
        SpinorField<Kokkos::complex<Real>, Ns, ES> bf(lat);
        blas::copy(bf[0], psi[0]);
        blas::copy(bf[1], b[1]);
        simd.prepare_source(out_e, in_e, b_o, isign);
        scalar.prepare_source(want_e, bf, isign);
        REQUIRE(ref::rel_diff(export_spinor_cb(plain(out_e)), export_spinor_cb(want_e)) < eps);
        simd.reconstruct(out_o, in_e, b_o, isign);
        scalar.reconstruct(x, psi[0], bf, isign);
        REQUIRE(ref::rel_diff(export_spinor_cb(plain(out_o)), export_spinor_cb(x[1])) < eps);
      }
      simd.apply_normal(out_e, in_e);
      scalar.apply_normal(want_e, psi[0]);
      REQUIRE(ref::rel_diff(export_spinor_cb(plain(out_e)), export_spinor_cb(want_e)) < 2 * eps);
    });
  }
}

TEMPLATE_LIST_TEST_CASE("SIMD even-odd Wilson-type operators satisfy the Schur identity with the host reference",
                        "[simd][clover]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  const auto [lat, split] = split_cases<V::lanes>().back();
  const auto u_host = random_host_gauge(lat, 91);
  const auto psi_host = random_host_spinor(lat, 92);
  const auto u = device_gauge<Real, ES>(lat, u_host);
  const auto bc = mixed_bc();
  SpinorField<Kokkos::complex<Real>, Ns, ES> psi(lat);
  import_spinor(psi, psi_host);
  // With x = (psi_e, x_o), x_o = A_oo^-1 H_oe psi_e / 2 (reconstruct with b_o = 0), the host
  // operator gives [D x]_o = 0 and [D x]_e = D_hat psi_e.
  for_each_term<Real, ES>([&]<class Term>(std::type_identity<Term>, double mu_, double csw_, auto... args) {
    CAPTURE(Term::name);
    const SIMDEvenOddOperator<Term> op(SIMDGeometry(lat, V::lanes, split), u, bc, mass, args...);
    auto xe = op.create_spinor(0), xo = op.create_spinor(1), zero = op.create_spinor(1), out = op.create_spinor(0);
    to_simd(xe, psi[0]);
    blas::zero(zero);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      op.reconstruct(xo, xe, zero, isign);
      std::vector<cd> x(psi_host.size(), 0.0);
      export_spinor(plain(xe), x);
      export_spinor(plain(xo), x);
      const auto dx = ref::clover_wilson(lat.dims(), u_host, x, mass, csw_, mu_, host_bc(bc), isign);
      std::vector<cd> want_e(x.size(), 0.0), odd(x.size(), 0.0);
      for (int s = 0; s < lat.cb_volume(); ++s)
        for (int p = 0; p < 2; ++p) {
          const auto site = std::size_t(lat.lex_index(lat.cb_coords(s, p)));
          for (int k = 0; k < 12; ++k) (p == 0 ? want_e : odd)[site * 12 + k] = dx[site * 12 + k];
        }
      op.apply(out, xe, isign);
      REQUIRE(std::sqrt(ref::norm2(odd) / ref::norm2(x)) < 10 * tol<Real>());
      REQUIRE(ref::rel_diff(export_spinor_cb(plain(out)), want_e) < 10 * tol<Real>());
    }
  });
}

TEMPLATE_LIST_TEST_CASE("SIMD full Wilson-type operators match the plain layout's and the host reference", "[simd][clover]",
                        SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string(), split[0], split[1], split[2], split[3]);
    const auto u_host = random_host_gauge(lat, 101);
    const auto psi_host = random_host_spinor(lat, 102);
    const auto u = device_gauge<Real, ES>(lat, u_host);
    const auto bc = mixed_bc();
    SpinorField<Kokkos::complex<Real>, Ns, ES> psi(lat), want(lat), got(lat);
    import_spinor(psi, psi_host);
    for_each_term<Real, ES>([&]<class Term>(std::type_identity<Term>, double mu_, double csw_, auto... args) {
      CAPTURE(Term::name);
      const SIMDFullOperator<Term> simd(SIMDGeometry(lat, V::lanes, split), u, bc, mass, args...);
      const PlainFullOperator<Term> scalar(u, bc, mass, args...);
      auto in = simd.create_vector(), out = simd.create_vector();
      to_simd(in, psi);
      for (int isign : {1, -1}) {
        CAPTURE(isign);
        simd.apply(out, in, isign);
        scalar.apply(want, psi, isign);
        from_simd(got, out);
        const auto got_host = export_spinor(got);
        REQUIRE(ref::rel_diff(got_host, export_spinor(want)) < 5 * tol<Real>());
        const auto d_psi = ref::clover_wilson(lat.dims(), u_host, psi_host, mass, csw_, mu_, host_bc(bc), isign);
        REQUIRE(ref::rel_diff(got_host, d_psi) < 10 * tol<Real>());
      }
    });
  }
}

TEMPLATE_LIST_TEST_CASE("SIMD layout refuses what it cannot hold", "[simd][clover]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  const Lattice lat({8, 8, 8, 8}), other({8, 8, 8, 4});
  const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 3));
  const CloverTerm<Real, ES> term(u, mass, csw);
  // The blocks of another lattice.
  const SIMDGeometry wrong(other, V::lanes);
  REQUIRE_THROWS_AS((SIMDHermitianBlocks<V, ES>(term.field().term(0), wrong, 0)), invalid_argument);
  const SIMDEvenOddOperator<CloverTerm<Real, ES>> op(u, mixed_bc(), mass, csw);
  auto a = op.create_spinor(0), b = op.create_spinor(1);
  REQUIRE_THROWS_AS(op.apply(a, b), invalid_argument); // an odd vector
  // Four packed matrices (the term and its inverse on each parity) in lanes: 2 blocks of 21 slots.
  const double lane_bytes = 4 * 2 * 21 * 2 * sizeof(Real) * double(lat.cb_volume());
  REQUIRE(op.layout().memory_bytes() == lane_bytes);
  // Besides the lanes, the plain clover field: A and A^-1, two 6x6 Hermitian blocks (72 reals) per site.
  REQUIRE(op.memory_bytes() == lane_bytes + 2 * 72 * sizeof(Real) * double(lat.volume()));
}

TEMPLATE_LIST_TEST_CASE("SIMD lane blocks of every Wilson-type operator equal the operator on each right-hand side",
                        "[simd][clover][multi]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  const double eps = 5 * tol<Real>();
  const Lattice lat({4, 4, 4, 8});
  const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 97));
  const auto bc = mixed_bc();
  for_each_term<Real, ES>([&]<class Term>(std::type_identity<Term>, double, double, auto... args) {
    CAPTURE(Term::name);
    const SIMDEvenOddOperator<Term> simd(u, bc, mass, args...);
    const PlainEvenOddOperator<Term> scalar(u, bc, mass, args...);
    // A full block and one with its last lane unused.
    for (int n : {V::lanes, std::max(1, V::lanes - 1)}) {
      CAPTURE(n);
      auto in = simd.create_multi(n), out = simd.create_multi(n);
      std::vector<typename PlainEvenOddOperator<Term>::vector_type> psi;
      for (int r = 0; r < n; ++r) {
        psi.emplace_back(lat, 0);
        random_spinor(psi.back(), 98 + std::uint64_t(r));
        in.insert(r, psi.back());
      }
      for (int isign : {1, -1}) {
        CAPTURE(isign);
        simd.apply(out, in, isign);
        typename PlainEvenOddOperator<Term>::vector_type want(lat, 0), got(lat, 0);
        for (int r = 0; r < n; ++r) {
          CAPTURE(r);
          scalar.apply(want, psi[std::size_t(r)], isign);
          out.extract(r, got);
          blas::axpy(-1.0, want, got);
          REQUIRE(std::sqrt(blas::norm2(got) / blas::norm2(want)) < eps);
        }
      }
    }
  });
}

TEMPLATE_LIST_TEST_CASE("The default layout is ArchTraits' choice, with the plain layout as the run-time fallback; both solve D x = b",
                        "[simd][clover][solver]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Term = CloverTerm<Real, ES>;
  using Default = EvenOddOperator<Term>;
  STATIC_REQUIRE(std::is_same_v<Default, EvenOddOperator<Term, NativeLayout<Real, ES>>>);
  if constexpr (ArchTraits<ES>::simd_layout) {
    STATIC_REQUIRE(std::is_same_v<typename Default::vector_type, SIMDSpinor<typename ArchTraits<ES>::template simd_complex<Real>, ES>>);
  } else {
    STATIC_REQUIRE(std::is_same_v<Default, PlainEvenOddOperator<Term>>);
  }
  const auto bc = mixed_bc();
  SolverParams params;
  params.tol = std::is_same_v<Real, float> ? 1e-5 : 1e-10;
  params.max_iter = 2000;
  // Solves D x = b on op, checks |D x - b| / |b| with the host reference operator (in double), and
  // names the layout that ran.
  auto solve = [&](const auto& op, const auto& u_host) {
    const Lattice& lat = op.lattice();
    typename std::remove_cvref_t<decltype(op)>::field_type b(lat), x(lat);
    random_spinor(b, 98);
    auto b_hat = op.create_vector(), x_even = op.create_vector();
    op.prepare_source(b_hat, b);
    REQUIRE(cg_normal(op, x_even, b_hat, params).converged());
    op.reconstruct(x, x_even, b);
    const auto dx = ref::clover_wilson(lat.dims(), u_host, export_spinor(x), mass, csw, 0.0, host_bc(bc), 1);
    CHECK(ref::rel_diff(dx, export_spinor(b)) <= 20 * params.tol);
    return std::string(std::remove_cvref_t<decltype(op)>::layout_type::name);
  };
  // D psi on a full operator against the host reference; names the layout that ran.
  auto apply_full = [&](const auto& op, const auto& u_host) {
    const Lattice& lat = op.lattice();
    const auto psi_host = random_host_spinor(lat, 100);
    auto in = op.create_vector(), out = op.create_vector();
    import_spinor(in, psi_host);
    op.apply(out, in, 1);
    const auto want = ref::clover_wilson(lat.dims(), u_host, psi_host, mass, csw, 0.0, host_bc(bc), 1);
    CHECK(ref::rel_diff(export_spinor(out), want) < 10 * tol<Real>());
    return std::string(std::remove_cvref_t<decltype(op)>::layout_type::name);
  };
  const std::string native = ArchTraits<ES>::simd_layout ? "simd" : "scalar";
  SECTION("a lattice the lanes split") {
    const Lattice lat({8, 4, 8, 8});
    const auto u_host = random_host_gauge(lat, 97);
    const auto u = device_gauge<Real, ES>(lat, u_host);
    CHECK(solve(Default(u, bc, mass, csw), u_host) == native);
    for (const auto choice : {LayoutChoice::automatic, LayoutChoice::plain, LayoutChoice::simd}) {
      CAPTURE(int(choice));
      if (choice == LayoutChoice::simd && !ArchTraits<ES>::simd_layout) {
        CHECK_THROWS_AS(with_even_odd_operator<Term>(choice, [&](const auto& op) { return solve(op, u_host); }, u, bc, mass, csw),
                        invalid_argument);
        continue;
      }
      const std::string want = choice == LayoutChoice::plain ? "scalar" : native;
      CHECK(with_even_odd_operator<Term>(choice, [&](const auto& op) { return solve(op, u_host); }, u, bc, mass, csw) == want);
      CHECK(with_full_operator<Term>(choice, [&](const auto& op) { return apply_full(op, u_host); }, u, bc, mass, csw) == want);
    }
  }
  SECTION("a lattice the lanes cannot split: the default refuses it, the run-time choice falls back") {
    const Lattice lat({6, 6, 6, 6});
    const auto u_host = random_host_gauge(lat, 99);
    const auto u = device_gauge<Real, ES>(lat, u_host);
    if constexpr (ArchTraits<ES>::simd_layout) {
      REQUIRE_THROWS_WITH(Default(u, bc, mass, csw), Catch::Matchers::ContainsSubstring("lattice 6x6x6x6 cannot be split"));
    } else {
      CHECK(solve(Default(u, bc, mass, csw), u_host) == "scalar");
    }
    CHECK(with_even_odd_operator<Term>(LayoutChoice::automatic, [&](const auto& op) { return solve(op, u_host); }, u, bc, mass, csw) ==
          "scalar");
    CHECK(with_full_operator<Term>(LayoutChoice::automatic, [&](const auto& op) { return apply_full(op, u_host); }, u, bc, mass, csw) ==
          "scalar");
    CHECK_THROWS_AS(with_even_odd_operator<Term>(LayoutChoice::simd, [&](const auto& op) { return solve(op, u_host); }, u, bc, mass, csw),
                    invalid_argument);
  }
}

TEMPLATE_LIST_TEST_CASE("CG on the SIMD clover and twisted-clover operators solves the plain operator's system",
                        "[simd][clover][solver]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const Lattice lat({8, 4, 8, 8});
  const auto u = device_gauge<Real, ES>(lat, random_host_gauge(lat, 95));
  const auto bc = mixed_bc();
  SolverParams params;
  params.tol = std::is_same_v<Real, float> ? 1e-5 : 1e-10;
  params.max_iter = 2000;
  auto check = [&]<class Term, class SloppyTerm>(std::type_identity<Term>, std::type_identity<SloppyTerm>, auto... args) {
    CAPTURE(Term::name);
    const SIMDEvenOddOperator<Term> simd(u, bc, mass, args...);
    const PlainEvenOddOperator<Term> scalar(u, bc, mass, args...);
    typename PlainEvenOddOperator<Term>::vector_type b(lat, 0), x(lat, 0), t(lat, 0);
    random_spinor(b, 96);
    auto sb = simd.create_vector(), sx = simd.create_vector();
    to_simd(sb, b);
    const auto scalar_residual = [&] {
      from_simd(x, sx);
      scalar.apply(t, x, 1);
      blas::axpby(1.0, b, -1.0, t);
      return std::sqrt(blas::norm2(t) / blas::norm2(b));
    };
    blas::zero(sx);
    const SolverResult r = cg_normal(simd, sx, sb, params);
    REQUIRE(r.converged());
    REQUIRE(scalar_residual() <= 1.5 * params.tol);
    blas::zero(x);
    const SolverResult rs = cg_normal(scalar, x, b, params);
    CHECK(std::abs(r.iterations - rs.iterations) <= std::max(2, rs.iterations / 10));
    // Multi-RHS CG on a block with one right-hand side per lane: each system to tol.
    using V = typename ArchTraits<ES>::template simd_complex<Real>;
    auto bb = simd.create_multi(V::lanes), xb = simd.create_multi(V::lanes);
    for (int r = 0; r < V::lanes; ++r) {
      random_spinor(t, 200 + std::uint64_t(r));
      bb.insert(r, t);
    }
    const auto rb = cg_normal_multi(simd, xb, bb, params);
    for (int r = 0; r < V::lanes; ++r) {
      CAPTURE(r, rb[std::size_t(r)].iterations);
      REQUIRE(rb[std::size_t(r)].converged());
      xb.extract(r, x);
      bb.extract(r, b);
      scalar.apply(t, x, 1);
      blas::axpby(1.0, b, -1.0, t);
      REQUIRE(std::sqrt(blas::norm2(t) / blas::norm2(b)) <= 1.5 * params.tol);
    }
    random_spinor(b, 96);
    if constexpr (std::is_same_v<Real, double> && precision_compiled<float>) {
      // Mixed precision: single-precision inner iterations on the float layout (twice the lanes).
      const auto uf = device_gauge<float, ES>(lat, random_host_gauge(lat, 95));
      const SIMDEvenOddOperator<SloppyTerm> sloppy(uf, bc, mass, args...);
      blas::zero(sx);
      const SolverResult rm = cg_normal(simd, sloppy, sx, sb, params);
      REQUIRE(rm.converged());
      REQUIRE(scalar_residual() <= 1.5 * params.tol);
    }
  };
  check(std::type_identity<CloverTerm<Real, ES>>{}, std::type_identity<CloverTerm<float, ES>>{}, csw);
  check(std::type_identity<TwistedCloverTerm<Real, ES>>{}, std::type_identity<TwistedCloverTerm<float, ES>>{}, csw, mu);
}

TEMPLATE_LIST_TEST_CASE("16-bit SIMD hopping term matches double precision to 16-bit accuracy on every lane split",
                        "[simd][half]", SIMDHalfSpaces) {
  using ES = TestType;
  using V = typename ArchTraits<ES>::template simd_complex<float>;
  using VS = SIMDSpinor<V, ES>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string(), split[0], split[1], split[2], split[3]);
    const auto u_host = random_host_gauge(lat, 171);
    const auto u = device_gauge<double, ES>(lat, u_host);
    const auto uf = device_gauge<float, ES>(lat, u_host);
    const auto bc = mixed_bc();
    const WilsonDslash<double, ES> exact(u, bc);
    SpinorField<Kokkos::complex<double>, Ns, ES> psi(lat);
    import_spinor(psi, random_host_spinor(lat, 172));
    SpinorField<Kokkos::complex<float>, Ns, ES> psif(lat);
    for (int p = 0; p < 2; ++p) blas::copy(psif[p], psi[p]);
    const SIMDGeometry geom(lat, V::lanes, split);
    // 16-bit storage of a site: 2^-15 of its largest real; a round trip loses no more.
    VS in_f(geom, 0), back(geom, 0);
    to_simd(in_f, psif[0]);
    SIMDHalfSpinor<V, ES> h(geom, 0);
    blas::copy(h, in_f);
    blas::copy(back, h);
    const double trip = ref::rel_diff(export_spinor_cb(plain(back)), export_spinor_cb(psif[0]));
    CAPTURE(trip);
    REQUIRE(trip < 4e-5);
    REQUIRE(trip > 1e-8);
    auto check = [&]<class Recon>(std::type_identity<Recon>) {
      CAPTURE(Recon::name);
      const SIMDWilsonDslash<kqcd::half, ES, Recon> d(uf, bc, geom);
      static_assert(std::is_same_v<typename decltype(d)::spinor_type, SIMDHalfSpinor<V, ES>>);
      REQUIRE(d.bytes() < SIMDWilsonDslash<float, ES, Recon>(uf, bc, geom).bytes());
      for (int isign : {1, -1})
        for (int cb : {0, 1}) {
          CAPTURE(isign, cb);
          VS src(geom, 1 - cb), addend(geom, cb), res(geom, cb);
          to_simd(src, psif[1 - cb]);
          to_simd(addend, psif[cb]);
          auto in = d.create_spinor(1 - cb), x = d.create_spinor(cb), out = d.create_spinor(cb);
          blas::copy(in, src);
          blas::copy(x, addend);
          CBSpinor<Kokkos::complex<double>, Ns, ES> want(lat, cb);
          d.apply_xpay(out, in, isign, cb, 0.7f, x, -0.3f);
          exact.apply_xpay(want, psi[1 - cb], isign, cb, 0.7, psi[cb], -0.3);
          blas::copy(res, out);
          const double diff = ref::rel_diff(export_spinor_cb(plain(res)), export_spinor_cb(want));
          CAPTURE(diff);
          REQUIRE(diff < (Recon::pairs == 4 ? 1e-3 : 3e-4));
          REQUIRE(diff > 1e-6); // really 16-bit
          d.apply(out, in, isign, cb);
          exact.apply(want, psi[1 - cb], isign, cb);
          blas::copy(res, out);
          REQUIRE(ref::rel_diff(export_spinor_cb(plain(res)), export_spinor_cb(want)) < (Recon::pairs == 4 ? 1e-3 : 3e-4));
        }
    };
    check(std::type_identity<Recon18>{});
    check(std::type_identity<Recon12>{});
    check(std::type_identity<Recon8>{});
  }
}

TEMPLATE_LIST_TEST_CASE("16-bit SIMD even-odd operators: their apply to 16-bit accuracy, mixed double-half CG and BiCGStab to 1e-10",
                        "[simd][half][solver]", SIMDHalfSpaces) {
  using ES = TestType;
  const Lattice lat({8, 4, 8, 8});
  const auto u_host = random_host_gauge(lat, 181);
  const auto u = device_gauge<double, ES>(lat, u_host);
  const auto uf = device_gauge<float, ES>(lat, u_host);
  const auto bc = mixed_bc();
  SpinorField<Kokkos::complex<double>, Ns, ES> b(lat), x(lat);
  import_spinor(b, random_host_spinor(lat, 182));
  for_each_term<double, ES>([&]<class Term>(std::type_identity<Term>, double mu_, double csw_, auto... args) {
    CAPTURE(Term::name);
    using Single = SIMDEvenOddOperator<rebind_precision_t<Term, float>>;
    using Half = SIMDEvenOddOperator<rebind_precision_t<Term, kqcd::half>>;
    static_assert(std::is_same_v<typename Half::vector_type, SIMDHalfSpinor<typename ArchTraits<ES>::template simd_complex<float>, ES>>);
    const SIMDEvenOddOperator<Term> op(u, bc, mass, args...);
    const Single single(uf, bc, mass, args...);
    const Half sloppy(uf, bc, mass, args...);
    for (int isign : {1, -1}) {
      auto in_f = single.create_vector(), out_f = single.create_vector(), got = single.create_vector();
      to_simd(in_f, [&] {
        CBSpinor<Kokkos::complex<float>, Ns, ES> t(lat, 0);
        random_spinor(t, 183);
        return t;
      }());
      auto in_h = sloppy.create_vector(), out_h = sloppy.create_vector();
      blas::copy(in_h, in_f);
      single.apply(out_f, in_f, isign);
      sloppy.apply(out_h, in_h, isign);
      blas::copy(got, out_h);
      blas::axpy(-1.0, out_f, got);
      const double d = std::sqrt(blas::norm2(got) / blas::norm2(out_f));
      CAPTURE(isign, d);
      REQUIRE(d < 3e-4);
      REQUIRE(d > 1e-7);
    }
    for (bool use_bicgstab : {false, true}) {
      CAPTURE(use_bicgstab);
      auto b_hat = op.create_vector(), x_e = op.create_vector();
      op.prepare_source(b_hat, b);
      SolverParams params;
      params.tol = 1e-10;
      params.max_iter = 4000;
      const auto res = use_bicgstab ? bicgstab(op, sloppy, x_e, b_hat, params) : cg_normal(op, sloppy, x_e, b_hat, params);
      op.reconstruct(x, x_e, b);
      const auto dx = ref::clover_wilson(lat.dims(), u_host, export_spinor(x), mass, csw_, mu_, host_bc(bc), 1);
      const double r = ref::rel_diff(dx, export_spinor(b));
      CAPTURE(res.iterations, res.residual_updates, res.true_residual, r);
      REQUIRE(res.converged());
      REQUIRE(res.residual_updates > 2);
      REQUIRE(r < 1e-9);
    }
  });
}

TEMPLATE_LIST_TEST_CASE("16-bit SIMD clover blocks apply the clover term and its inverses to 16-bit accuracy",
                        "[simd][half][clover]", SIMDHalfSpaces) {
  using ES = TestType;
  using V = typename ArchTraits<ES>::template simd_complex<float>;
  const Lattice lat({8, 4, 8, 8});
  const auto uf = device_gauge<float, ES>(lat, random_host_gauge(lat, 191));
  const SIMDGeometry geom(lat, V::lanes);
  // Clover blocks (A, the twisted X = B A and the small W = mu B) of one twisted-clover field.
  const TwistedCloverTerm<float, ES> term(uf, mass, csw, mu);
  for (int p = 0; p < 2; ++p) {
    CAPTURE(p);
    SIMDSpinor<V, ES> in(geom, p), want(geom, p), got(geom, p);
    CBSpinor<Kokkos::complex<float>, Ns, ES> t(lat, p);
    random_spinor(t, 192 + std::uint64_t(p));
    to_simd(in, t);
    const auto relative = [&] {
      blas::axpy(-1.0, want, got);
      return std::sqrt(blas::norm2(got) / blas::norm2(want));
    };
    for (const auto& view : {term.field().term(p), term.field().inverse(p), term.field().inverse_twist(p)}) {
      const SIMDHermitianBlocks<V, ES> f(view, geom, p);
      const SIMDHermitianBlocks<V, ES, short> h(view, geom, p);
      // 21 slots of 2 reals per block and lane, and one unit per block and lane.
      REQUIRE(f.memory_bytes() == 2 * 21 * 2 * sizeof(float) * double(lat.cb_volume()));
      REQUIRE(h.memory_bytes() == (2 * 21 * 2 * sizeof(short) + 2 * sizeof(float)) * double(lat.cb_volume()));
      const LaneHermitianBlocks<V> exact{f.view().data()};
      const LaneHermitianBlocks<V, short> sixteen{h.view().data(), h.unit().data()};
      // The block product (stored integers, scaled once per block).
      apply_site_local(want, in, PackedHermitianLocal<float, LaneHermitianBlocks<V>>{exact});
      apply_site_local(got, in, PackedHermitianLocal<float, LaneHermitianBlocks<V, short>>{sixteen});
      const double d = relative();
      CAPTURE(d);
      REQUIRE(d < 1e-4);
      REQUIRE(d > 1e-7); // really 16-bit
    }
    // Entries read one by one, scaled (the in-kernel Cholesky solve of the dynamic inverse).
    const SIMDHermitianBlocks<V, ES> f(term.field().term(p), geom, p);
    const SIMDHermitianBlocks<V, ES, short> h(term.field().term(p), geom, p);
    apply_site_local(want, in, CholeskyInverseLocal<float, LaneHermitianBlocks<V>>{{f.view().data()}});
    apply_site_local(got, in, CholeskyInverseLocal<float, LaneHermitianBlocks<V, short>>{{h.view().data(), h.unit().data()}});
    const double d = relative();
    CAPTURE(d);
    REQUIRE(d < 1e-4);
    REQUIRE(d > 1e-7);
  }
  // The 16-bit clover operator holds its lane blocks in 16 bits (A and A^-1 on both parities).
  const SIMDEvenOddOperator<CloverTerm<kqcd::half, ES>> op(uf, mixed_bc(), mass, csw);
  REQUIRE(op.layout().memory_bytes() == 4 * (2 * 21 * 2 * sizeof(short) + 2 * sizeof(float)) * double(lat.cb_volume()));
}

TEMPLATE_LIST_TEST_CASE("16-bit BLAS on SIMD lanes equals the 16-bit BLAS on the plain layout", "[simd][half][blas]", SIMDHalfSpaces) {
  using ES = TestType;
  using V = typename ArchTraits<ES>::template simd_complex<float>;
  using Plain = CBSpinor<Kokkos::complex<float>, Ns, ES>;
  for (const auto& [lat, split] : split_cases<V::lanes>()) {
    CAPTURE(lat.to_string());
    const SIMDGeometry geom(lat, V::lanes, split);
    Plain p[3] = {Plain(lat, 0), Plain(lat, 0), Plain(lat, 0)};
    HalfCBSpinor<ES> h[3] = {HalfCBSpinor<ES>(lat, 0), HalfCBSpinor<ES>(lat, 0), HalfCBSpinor<ES>(lat, 0)};
    SIMDHalfSpinor<V, ES> l[3] = {SIMDHalfSpinor<V, ES>(geom, 0), SIMDHalfSpinor<V, ES>(geom, 0), SIMDHalfSpinor<V, ES>(geom, 0)};
    for (int k = 0; k < 3; ++k) {
      random_spinor(p[k], 190 + std::uint64_t(k));
      blas::scale(1.0 + k, p[k]);
      blas::copy(h[k], p[k]);
      to_simd(l[k], p[k]);
    }
    // Both 16-bit spinors hold the same numbers (to 16-bit rounding): every operation agrees to it.
    const auto agree = [&](const HalfCBSpinor<ES>& a, const SIMDHalfSpinor<V, ES>& b) {
      Plain pa(lat, 0), pb(lat, 0);
      blas::copy(pa, a);
      from_simd(pb, b);
      return ref::rel_diff(export_spinor_cb(pb), export_spinor_cb(pa));
    };
    REQUIRE(agree(h[0], l[0]) < 1e-4);
    CHECK(blas::norm2(l[1]) == Catch::Approx(blas::norm2(h[1])).epsilon(1e-4));
    const auto dl = blas::cdot(l[0], l[1]), dh = blas::cdot(h[0], h[1]);
    CHECK(std::abs(std::complex<double>(dl.real() - dh.real(), dl.imag() - dh.imag())) < 1e-4 * std::sqrt(blas::norm2(h[0]) * blas::norm2(h[1])));
    const Kokkos::complex<double> a(0.3, -0.7), b(-1.1, 0.2);
    blas::axpby(0.5, l[0], -2.0, l[1]);
    blas::axpby(0.5, h[0], -2.0, h[1]);
    CHECK(agree(h[1], l[1]) < 2e-4);
    blas::caxpy(a, l[2], l[0]);
    blas::caxpy(a, h[2], h[0]);
    CHECK(agree(h[0], l[0]) < 2e-4);
    blas::cxpaypbz(l[0], a, l[1], b, l[2], l[2]);
    blas::cxpaypbz(h[0], a, h[1], b, h[2], h[2]);
    CHECK(agree(h[2], l[2]) < 4e-4);
  }
}

TEMPLATE_LIST_TEST_CASE("16-bit lane blocks: the hopping term to 16-bit accuracy, the block BLAS against the plain 16-bit blocks",
                        "[simd][half][multi]", SIMDHalfSpaces) {
  using ES = TestType;
  using V = typename ArchTraits<ES>::template simd_complex<float>;
  using HalfBlock = SIMDBlockSpinor<V, ES, short>;
  static_assert(std::is_same_v<typename SIMDBlockWilsonDslash<kqcd::half, ES>::spinor_type, HalfBlock>);
  const Lattice lat({4, 4, 4, 8});
  const auto u_host = random_host_gauge(lat, 211);
  const auto u = device_gauge<double, ES>(lat, u_host);
  const auto uf = device_gauge<float, ES>(lat, u_host);
  const auto bc = mixed_bc();
  const SIMDBlockWilsonDslash<kqcd::half, ES> dh(uf, bc);
  const WilsonDslash<double, ES> dd(u, bc);
  using Plain = CBSpinor<Kokkos::complex<double>, Ns, ES>;
  // A partly filled block (3 of AVX-512's 8 float lanes; 1 of the portable type's 2) and a full one.
  for (int n : {std::max(1, std::min(3, V::lanes - 1)), V::lanes}) {
    CAPTURE(n);
    // Right-hand sides of very different magnitudes: each site's lane has its own norm.
    std::vector<Plain> in, x;
    HalfBlock in_h(lat, 1, n, "in"), x_h(lat, 0, n, "x"), out_h(lat, 0, n, "out");
    for (int r = 0; r < n; ++r) {
      in.emplace_back(lat, 1);
      x.emplace_back(lat, 0);
      import_spinor(in.back(), random_host_spinor(lat, 212 + 2 * r));
      import_spinor(x.back(), random_host_spinor(lat, 213 + 2 * r));
      blas::scale(std::pow(10.0, 2 * (r % 4) - 3), in.back());
      in_h.insert(r, in.back());
      x_h.insert(r, x.back());
    }
    for (int isign : {1, -1})
      for (bool xpay : {false, true}) {
        CAPTURE(isign, xpay);
        if (xpay) dh.apply_xpay(out_h, in_h, isign, 0, 0.7f, x_h, -0.3f);
        else dh.apply(out_h, in_h, isign, 0);
        for (int r = 0; r < n; ++r) {
          Plain want(lat, 0), got(lat, 0);
          if (xpay) dd.apply_xpay(want, in[std::size_t(r)], isign, 0, 0.7, x[std::size_t(r)], -0.3);
          else dd.apply(want, in[std::size_t(r)], isign, 0);
          out_h.extract(r, got);
          const double d = ref::rel_diff(export_spinor_cb(got), export_spinor_cb(want));
          CAPTURE(r, d);
          REQUIRE(d < 1e-3);
          REQUIRE(d > 1e-7); // really 16 bits
        }
        // The lanes past n stay zero.
        bool unused_zero = true;
        for (int i = 0; i < lat.cb_volume(); ++i)
          for (int c = 0; c < Nc; ++c)
            for (int sp = 0; sp < Ns; ++sp)
              for (int k = 2 * n; k < 2 * V::lanes; ++k) unused_zero = unused_zero && out_h.view()(i, c, sp, k) == 0;
        REQUIRE(unused_zero);
      }

    // The block BLAS against the same operations on plain 16-bit blocks (HalfMultiCBSpinor).
    HalfBlock a(lat, 0, n, "a"), b(lat, 0, n, "b");
    HalfMultiCBSpinor<ES> pa(lat, 0, n, "pa"), pb(lat, 0, n, "pb");
    for (int r = 0; r < n; ++r) {
      a.insert(r, x[std::size_t(r)]);
      HalfCBSpinor<ES> t(lat, 0);
      blas::copy(t, x[std::size_t(r)]);
      pa.insert(r, t);
      Plain s(lat, 0);
      random_spinor(s, 230 + std::uint64_t(r));
      blas::scale(1.0 + r, s);
      b.insert(r, s);
      blas::copy(t, s);
      pb.insert(r, t);
    }
    const auto close = [](const std::vector<double>& p, const std::vector<double>& q) {
      for (std::size_t r = 0; r < p.size(); ++r)
        if (std::abs(p[r] - q[r]) > 1e-4 * std::max(std::abs(p[r]), std::abs(q[r]))) return false;
      return true;
    };
    const auto agree = [&](const HalfBlock& l, const HalfMultiCBSpinor<ES>& p) {
      double worst = 0.0;
      for (int r = 0; r < n; ++r) {
        Plain pl(lat, 0), pp(lat, 0);
        HalfCBSpinor<ES> t(lat, 0);
        l.extract(r, pl);
        p.extract(r, t);
        blas::copy(pp, t);
        worst = std::max(worst, ref::rel_diff(export_spinor_cb(pl), export_spinor_cb(pp)));
      }
      return worst;
    };
    REQUIRE(agree(a, pa) < 1e-4);
    CHECK(close(blas::norm2_each(a), blas::norm2_each(pa)));
    CHECK(close(blas::rdot_each(a, b), blas::rdot_each(pa, pb)));
    std::vector<double> ca, cb, cc;
    for (int r = 0; r < n; ++r) {
      ca.push_back(0.5 - 0.25 * r);
      cb.push_back(-2.0 + r);
      cc.push_back(1.0 + 0.1 * r);
    }
    blas::axpby_each(ca, a, cb, b);
    blas::axpby_each(ca, pa, cb, pb);
    CHECK(agree(b, pb) < 2e-4);
    CHECK(close(blas::axpy_norm2_each(cb, b, a), blas::axpy_norm2_each(cb, pb, pa)));
    CHECK(agree(a, pa) < 4e-4);
    blas::axpy_zpbx_each(ca, a, b, cc, a, cb);
    blas::axpy_zpbx_each(ca, pa, pb, cc, pa, cb);
    CHECK(agree(b, pb) < 4e-4);
    CHECK(agree(a, pa) < 4e-4);
    // Precision change: double lane blocks to 16 bits and back, lane by lane.
    using Vd = typename ArchTraits<ES>::template simd_complex<double>;
    if (n <= Vd::lanes) {
      SIMDBlockSpinor<Vd, ES> d(lat, 0, n, "d"), back(lat, 0, n, "back");
      for (int r = 0; r < n; ++r) d.insert(r, x[std::size_t(r)]);
      HalfBlock h(lat, 0, n, "h");
      blas::copy(h, d);
      blas::copy(back, h);
      for (int r = 0; r < n; ++r) {
        Plain got(lat, 0);
        back.extract(r, got);
        const double e = ref::rel_diff(export_spinor_cb(got), export_spinor_cb(x[std::size_t(r)]));
        CHECK(e < 5e-5);
        CHECK(e > 1e-8);
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("mixed multi-RHS CG with 16-bit lane blocks reaches 1e-10 in every system", "[simd][half][multi][solver]",
                        SIMDHalfSpaces) {
  using ES = TestType;
  using Vd = typename ArchTraits<ES>::template simd_complex<double>;
  const Lattice lat({8, 4, 8, 8});
  const auto u_host = random_host_gauge(lat, 221);
  const auto u = device_gauge<double, ES>(lat, u_host);
  const auto uf = device_gauge<float, ES>(lat, u_host);
  const auto bc = mixed_bc();
  auto check = [&]<class Term>(std::type_identity<Term>, double mu_, double csw_, auto... args) {
    CAPTURE(Term::name);
    const SIMDEvenOddOperator<Term> op(u, bc, mass, args...);
    const SIMDEvenOddOperator<rebind_precision_t<Term, kqcd::half>> sloppy(uf, bc, mass, args...);
    const int n = std::min(3, Vd::lanes);
    const PlainEvenOddOperator<Term> plain(u, bc, mass, args...); // prepares the sources, reconstructs the solutions
    std::vector<SpinorField<Kokkos::complex<double>, Ns, ES>> b;
    auto bb = op.create_multi(n), xb = op.create_multi(n);
    for (int r = 0; r < n; ++r) {
      b.emplace_back(lat);
      import_spinor(b.back(), random_host_spinor(lat, 222 + r));
      blas::scale(std::pow(10.0, 2 * r), b.back()[0]);
      blas::scale(std::pow(10.0, 2 * r), b.back()[1]);
      typename PlainEvenOddOperator<Term>::vector_type b_hat(lat, 0);
      plain.prepare_source(b_hat, b.back());
      bb.insert(r, b_hat);
    }
    SolverParams params;
    params.tol = 1e-10;
    params.max_iter = 4000;
    const auto res = cg_normal_multi(op, sloppy, xb, bb, params);
    for (int r = 0; r < n; ++r) {
      const auto& e = res[std::size_t(r)];
      typename PlainEvenOddOperator<Term>::vector_type x_e(lat, 0);
      xb.extract(r, x_e);
      SpinorField<Kokkos::complex<double>, Ns, ES> x(lat);
      plain.reconstruct(x, x_e, b[std::size_t(r)]);
      const auto dx = ref::clover_wilson(lat.dims(), u_host, export_spinor(x), mass, csw_, mu_, host_bc(bc), 1);
      const double rel = ref::rel_diff(dx, export_spinor(b[std::size_t(r)]));
      CAPTURE(r, e.iterations, e.residual_updates, e.true_residual, rel);
      REQUIRE(e.converged());
      REQUIRE(e.residual_updates > 2);
      REQUIRE(rel < 1e-9);
    }
  };
  check(std::type_identity<WilsonMassTerm<double, ES>>{}, 0.0, 0.0);
  check(std::type_identity<TwistedCloverTerm<double, ES>>{}, mu, csw, csw, mu);
}
