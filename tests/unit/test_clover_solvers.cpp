// Solves with the clover and twisted operators (residuals checked with the host reference
// operator in double) and the free field: clover is Wilson on the unit field, twisted-mass and
// twisted-clover propagators match the momentum-space sum. Split from test_clover.cpp so the two
// halves compile in parallel (one nvcc process each).
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/stencil/operators.hpp>

#include "host_fields.hpp"

#include <catch2/catch_approx.hpp>

#include <clover_reference.hpp>

#include <numbers>
#include <type_traits>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;
using cd = std::complex<double>;

namespace {
/// A term's precision as its only template parameter (the execution space bound).
template <template <class, class> class T, class ES> struct TermOn {
  template <class P> using type = T<P, ES>;
};
template <class ES> struct CloverTermOn {
  template <class P> using stored = CloverTerm<P, ES>;
  template <class P> using dynamic = CloverTerm<P, ES, CloverInverse::dynamic>;
};

/// Solve D x = b through the Schur system of Op (CG on the normal equations, or BiCGStab) and return
/// |D x - b| / |b| with the host reference operator in double.
template <class Op, class... Args>
double solve_residual(bool use_bicgstab, double tol, double csw_, double mu_, SolverResult& res, Args... args) {
  const Lattice lat({4, 4, 4, 8});
  typename Op::gauge_type u(lat);
  random_gauge(u, 5);
  const auto bc = BoundaryPhases::antiperiodic_time();
  Op op(u, bc, args...);
  typename Op::field_type b(lat), x(lat);
  random_spinor(b, 6);
  auto b_hat = op.create_vector(), x_e = op.create_vector();
  op.prepare_source(b_hat, b);
  SolverParams params;
  params.tol = tol;
  res = use_bicgstab ? bicgstab(op, x_e, b_hat, params) : cg_normal(op, x_e, b_hat, params);
  op.reconstruct(x, x_e, b);
  const std::array<cd, 4> hb{1.0, 1.0, 1.0, -1.0};
  const auto dx = ref::clover_wilson(lat.dims(), export_gauge(u), export_spinor(x), -0.2, csw_, mu_, hb, 1);
  return ref::rel_diff(dx, export_spinor(b));
}
} // namespace

TEMPLATE_LIST_TEST_CASE("solvers with the clover and twisted operators", "[clover][solvers]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const double tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  SolverResult res;
  for (bool bicg : {false, true}) {
    CAPTURE(bicg);
    double r = solve_residual<CloverEOOperator<Real, ES>>(bicg, tol, 1.0, 0.0, res, -0.2, 1.0);
    REQUIRE(res.converged());
    REQUIRE(r < 10 * tol);
    r = solve_residual<DynamicCloverEOOperator<Real, ES>>(bicg, tol, 1.0, 0.0, res, -0.2, 1.0);
    REQUIRE(res.converged());
    REQUIRE(r < 10 * tol);
    r = solve_residual<TwistedMassEOOperator<Real, ES>>(bicg, tol, 0.0, 0.1, res, -0.2, 0.1);
    REQUIRE(res.converged());
    REQUIRE(r < 10 * tol);
    r = solve_residual<TwistedCloverEOOperator<Real, ES>>(bicg, tol, 1.0, 0.1, res, -0.2, 1.0, 0.1);
    REQUIRE(res.converged());
    REQUIRE(r < 10 * tol);
  }
}

TEMPLATE_LIST_TEST_CASE("blocks of right-hand sides with the clover and twisted operators: apply and multi-RHS CG",
                        "[clover][multi][solvers]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const double tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  const Lattice lat({4, 4, 4, 8});
  typename CloverEOOperator<Real, ES>::gauge_type u(lat);
  random_gauge(u, 5);
  const auto bc = BoundaryPhases::antiperiodic_time();
  const std::array<cd, 4> hb{1.0, 1.0, 1.0, -1.0};
  const int n = 3;
  auto check = [&]<class Op>(std::type_identity<Op>, double csw_, double mu_, auto... args) {
    const Op op(u, bc, -0.2, args...);
    CAPTURE(Op::term_type::name);
    // A block of prepared sources; the block apply against the single apply of each.
    std::vector<typename Op::field_type> b;
    std::vector<typename Op::vector_type> b_hat;
    auto block = op.create_multi(n), out = op.create_multi(n);
    for (int r = 0; r < n; ++r) {
      b.emplace_back(lat);
      random_spinor(b.back(), 60 + std::uint64_t(r));
      b_hat.push_back(op.create_vector());
      op.prepare_source(b_hat.back(), b.back());
      block.insert(r, b_hat.back());
    }
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      op.apply(out, block, isign);
      for (int r = 0; r < n; ++r) {
        auto want = op.create_vector(), got = op.create_vector();
        op.apply(want, b_hat[std::size_t(r)], isign);
        out.extract(r, got);
        blas::axpy(-1.0, want, got);
        REQUIRE(std::sqrt(blas::norm2(got) / blas::norm2(want)) < 10 * kqcd::test::tol<Real>());
      }
    }
    // Multi-RHS CG: each system's solution, reconstructed, solves D x = b with the host reference.
    auto x = op.create_multi(n);
    SolverParams params;
    params.tol = tol;
    const auto res = cg_normal_multi(op, x, block, params);
    REQUIRE(res.size() == std::size_t(n));
    for (int r = 0; r < n; ++r) {
      CAPTURE(r, res[std::size_t(r)].iterations);
      REQUIRE(res[std::size_t(r)].converged());
      auto x_e = op.create_vector();
      x.extract(r, x_e);
      typename Op::field_type xr(lat);
      op.reconstruct(xr, x_e, b[std::size_t(r)]);
      const auto dx = ref::clover_wilson(lat.dims(), export_gauge(u), export_spinor(xr), -0.2, csw_, mu_, hb, 1);
      REQUIRE(ref::rel_diff(dx, export_spinor(b[std::size_t(r)])) < 10 * tol);
    }
  };
  check(std::type_identity<CloverEOOperator<Real, ES>>{}, 1.0, 0.0, 1.0);
  check(std::type_identity<DynamicCloverEOOperator<Real, ES>>{}, 1.0, 0.0, 1.0);
  check(std::type_identity<TwistedMassEOOperator<Real, ES>>{}, 0.0, 0.1, 0.1);
  check(std::type_identity<TwistedCloverEOOperator<Real, ES>>{}, 1.0, 0.1, 1.0, 0.1);
}

TEMPLATE_LIST_TEST_CASE("16-bit clover blocks apply the clover term and its inverses to 16-bit accuracy", "[clover][half]",
                        kqcd::test::HalfSpaces) {
  using ES = TestType;
  const Lattice lat({4, 4, 4, 8});
  GaugeField<Kokkos::complex<float>, ES> u(lat);
  random_gauge(u, 15);
  // A, the twisted X = B A and the small W = mu B of one twisted-clover field.
  const TwistedCloverTerm<float, ES> term(u, -0.2, 1.0, 0.1);
  for (int p = 0; p < 2; ++p) {
    CAPTURE(p);
    CBSpinor<Kokkos::complex<float>, Ns, ES> in(lat, p), want(lat, p), got(lat, p);
    random_spinor(in, 16 + std::uint64_t(p));
    const auto relative = [&] {
      blas::axpy(-1.0, want, got);
      return std::sqrt(blas::norm2(got) / blas::norm2(want));
    };
    for (const auto& view : {term.field().term(p), term.field().inverse(p), term.field().inverse_twist(p)}) {
      const HalfHermitianBlocks<ES> h(view);
      REQUIRE(h.memory_bytes() == (72 * sizeof(short) + 2 * sizeof(float)) * double(lat.cb_volume()));
      using Blocks16 = detail::HalfPackedBlocks<typename HalfHermitianBlocks<ES>::view_type, typename HalfHermitianBlocks<ES>::unit_type>;
      const Blocks16 sixteen{h.view(), h.unit()};
      // The block product (stored integers, scaled once per block).
      apply_site_local(want, in, PackedHermitianLocal<float, std::remove_cvref_t<decltype(view)>>{view});
      apply_site_local(got, in, PackedHermitianLocal<float, Blocks16>{sixteen});
      const double d = relative();
      CAPTURE(d);
      REQUIRE(d < 1e-4);
      REQUIRE(d > 1e-7); // really 16-bit
    }
    // Entries read one by one, scaled: the in-kernel Cholesky solve of A.
    const auto a = term.field().term(p);
    const HalfHermitianBlocks<ES> h(a);
    apply_site_local(want, in, CholeskyInverseLocal<float, std::remove_cvref_t<decltype(a)>>{a});
    apply_site_local(got, in,
                     CholeskyInverseLocal<float, detail::HalfPackedBlocks<typename HalfHermitianBlocks<ES>::view_type,
                                                                  typename HalfHermitianBlocks<ES>::unit_type>>{{h.view(), h.unit()}});
    const double d = relative();
    CAPTURE(d);
    REQUIRE(d < 1e-4);
    REQUIRE(d > 1e-7);
  }
  // The 16-bit operators hold 16-bit copies of every block view their policies read (76 bytes a
  // block against the term's 144 in float).
  const PlainEvenOddOperator<TwistedCloverTerm<kqcd::half, ES>> op(u, BoundaryPhases::antiperiodic_time(), -0.2, 1.0, 0.1);
  REQUIRE(op.layout().memory_bytes() * 144 == Catch::Approx(op.term().memory_bytes() * 76));
  const PlainEvenOddOperator<CloverTerm<kqcd::half, ES>> clover(u, BoundaryPhases::antiperiodic_time(), -0.2, 1.0);
  REQUIRE(clover.layout().memory_bytes() * 144 == Catch::Approx(clover.term().memory_bytes() * 76));
  REQUIRE(PlainEvenOddOperator<CloverTerm<float, ES>>(u, BoundaryPhases::antiperiodic_time(), -0.2, 1.0).layout().memory_bytes() == 0);
}

TEMPLATE_LIST_TEST_CASE("16-bit clover and twisted operators: their apply to half accuracy, mixed double-half solves to 1e-10",
                        "[clover][half][solvers]", kqcd::test::HalfSpaces) {
  using ES = TestType;
  const Lattice lat({4, 4, 4, 8});
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  random_gauge(u, 5);
  GaugeField<Kokkos::complex<float>, ES> uf(lat);
  convert_gauge(uf, u);
  const auto bc = BoundaryPhases::antiperiodic_time();
  const std::array<cd, 4> hb{1.0, 1.0, 1.0, -1.0};
  // Term<P> for P = double, float, half; c_sw and mu of the host reference, then the term's arguments.
  auto check = [&]<template <class> class Term>(double csw_, double mu_, auto... args) {
    using Double = PlainEvenOddOperator<Term<double>>;
    using Single = PlainEvenOddOperator<Term<float>>;
    using Half = PlainEvenOddOperator<Term<kqcd::half>>;
    static_assert(std::is_same_v<typename Half::vector_type, HalfCBSpinor<ES>>, "the half operator's spinors are 16-bit");
    const Double op(u, bc, -0.2, args...);
    const Single single(uf, bc, -0.2, args...);
    const Half sloppy(uf, bc, -0.2, args...);
    CAPTURE(Double::term_type::name);
    // D_hat on 16-bit spinors against single precision: 16-bit accuracy (2^-15 = 3e-5 relative).
    for (int isign : {1, -1}) {
      auto in_f = single.create_vector(), out_f = single.create_vector(), got = single.create_vector();
      random_spinor(in_f, 7);
      auto in_h = sloppy.create_vector(), out_h = sloppy.create_vector();
      blas::copy(in_h, in_f);
      single.apply(out_f, in_f, isign);
      sloppy.apply(out_h, in_h, isign);
      blas::copy(got, out_h);
      blas::axpy(-1.0, out_f, got);
      const double d = std::sqrt(blas::norm2(got) / blas::norm2(out_f));
      CAPTURE(isign, d);
      REQUIRE(d < 3e-4);
      REQUIRE(d > 1e-7); // really 16-bit storage, not a float copy
    }
    typename Double::field_type b(lat), x(lat);
    random_spinor(b, 6);
    for (bool use_bicgstab : {false, true}) {
      CAPTURE(use_bicgstab);
      auto b_hat = op.create_vector(), x_e = op.create_vector();
      op.prepare_source(b_hat, b);
      SolverParams params;
      params.tol = 1e-10;
      const auto res = use_bicgstab ? bicgstab(op, sloppy, x_e, b_hat, params) : cg_normal(op, sloppy, x_e, b_hat, params);
      op.reconstruct(x, x_e, b);
      const auto dx = ref::clover_wilson(lat.dims(), export_gauge(u), export_spinor(x), -0.2, csw_, mu_, hb, 1);
      const double r = ref::rel_diff(dx, export_spinor(b));
      CAPTURE(res.iterations, res.residual_updates, res.true_residual, r);
      REQUIRE(res.converged());
      REQUIRE(res.residual_updates > 2);
      REQUIRE(r < 1e-9);
    }
  };
  check.template operator()<CloverTermOn<ES>::template stored>(1.0, 0.0, 1.0);
  check.template operator()<CloverTermOn<ES>::template dynamic>(1.0, 0.0, 1.0);
  check.template operator()<TermOn<TwistedMassTerm, ES>::template type>(0.0, 0.1, 0.1);
  check.template operator()<TermOn<TwistedCloverTerm, ES>::template type>(1.0, 0.1, 1.0, 0.1);
}

namespace {
/// sum_x |S(x, t; 0)|^2 of the free twisted-mass propagator (Wilson mass m, twist mu), from the
/// momentum-space sum: S(p) = [M - i sum g sin p - i mu g5] / (M^2 + sum sin^2 p + mu^2) per
/// component, the 1, g_mu, g5 parts orthogonal under the spin trace.
std::vector<double> free_tm_pion(const ref::Dims& d, double m, double tm, const std::array<double, 3>& theta) {
  using std::numbers::pi;
  const int T = d[3];
  const double V3 = double(d[0]) * d[1] * d[2];
  std::vector<double> c(std::size_t(T), 0.0);
  for (int n0 = 0; n0 < d[0]; ++n0)
    for (int n1 = 0; n1 < d[1]; ++n1)
      for (int n2 = 0; n2 < d[2]; ++n2) {
        const double p[3] = {(2 * pi * n0 + theta[0]) / d[0], (2 * pi * n1 + theta[1]) / d[1], (2 * pi * n2 + theta[2]) / d[2]};
        for (int t = 0; t < T; ++t) {
          cd A(0), B[4] = {}, C(0);
          for (int n4 = 0; n4 < T; ++n4) {
            const double pm[4] = {p[0], p[1], p[2], 2 * pi * n4 / T};
            double M = m, den = tm * tm;
            for (double q : pm) M += 1 - std::cos(q);
            den += M * M;
            for (double q : pm) den += std::sin(q) * std::sin(q);
            const cd e = std::exp(cd(0, pm[3] * t)) / double(T);
            A += e * M / den;
            C += e * tm / den;
            for (int mu_ = 0; mu_ < 4; ++mu_) B[mu_] += e * std::sin(pm[mu_]) / den;
          }
          double s = std::norm(A) + std::norm(C);
          for (auto& bm : B) s += std::norm(bm);
          c[std::size_t(t)] += 12.0 / V3 * s;
        }
      }
  return c;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("free field: clover is Wilson, twisted propagators match momentum space", "[clover][free]",
                        kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice lat({4, 4, 4, 8});
  BoundaryPhases bc;
  bc.b[0] = BoundaryPhases::twist(0.2 * std::numbers::pi);
  bc.b[1] = BoundaryPhases::twist(0.4 * std::numbers::pi);
  typename WilsonEOOperator<Real, ES>::gauge_type u(lat);
  unit_gauge(u);
  // The clover term vanishes on the unit field: the clover operator is the Wilson operator.
  {
    PlainFullOperator<CloverTerm<Real, ES>> c(u, bc, 1.0, 1.7);
    PlainFullOperator<TwistedCloverTerm<Real, ES>> tc(u, bc, 1.0, 1.7, 0.3);
    PlainFullOperator<TwistedMassTerm<Real, ES>> tm(u, bc, 1.0, 0.3);
    WilsonOperator<Real, ES> w(u, bc, 1.0);
    auto in = w.create_vector(), o1 = w.create_vector(), o2 = w.create_vector();
    random_spinor(in, 7);
    c.apply(o1, in);
    w.apply(o2, in);
    REQUIRE(ref::rel_diff(export_spinor(o1), export_spinor(o2)) < 2 * kqcd::test::tol<Real>());
    tc.apply(o1, in);
    tm.apply(o2, in);
    REQUIRE(ref::rel_diff(export_spinor(o1), export_spinor(o2)) < 2 * kqcd::test::tol<Real>());
  }
  // Twisted mass and twisted clover propagators: the pion correlator of the exact momentum sum.
  const double tm = 0.3;
  const auto exact = free_tm_pion(lat.dims(), 1.0, tm, {0.2 * std::numbers::pi, 0.4 * std::numbers::pi, 0.0});
  // mu = 0 reproduces the Wilson reference formula (and so shared/data/README.md).
  const auto wilson = ref::free_pion_correlator(lat.dims(), 1.0, {0.2 * std::numbers::pi, 0.4 * std::numbers::pi, 0.0});
  const auto tm0 = free_tm_pion(lat.dims(), 1.0, 0.0, {0.2 * std::numbers::pi, 0.4 * std::numbers::pi, 0.0});
  for (int t = 0; t < 8; ++t) REQUIRE(std::abs(tm0[std::size_t(t)] - wilson[std::size_t(t)]) <= 1e-13 * wilson[std::size_t(t)]);
  auto pion = [&](const auto& op) {
    SolverParams params;
    params.tol = sizeof(Real) == 4 ? 1e-6 : 1e-13;
    std::vector<double> corr(8, 0.0);
    for (int k = 0; k < 12; ++k) {
      std::vector<cd> src(std::size_t(lat.volume()) * 12, 0.0);
      src[std::size_t(k)] = 1.0;
      typename std::decay_t<decltype(op)>::field_type b(lat), x(lat);
      import_spinor(b, src);
      auto b_hat = op.create_vector(), x_e = op.create_vector();
      op.prepare_source(b_hat, b);
      REQUIRE(cg_normal(op, x_e, b_hat, params).converged());
      op.reconstruct(x, x_e, b);
      const auto sol = export_spinor(x);
      for (std::int64_t i = 0; i < lat.volume(); ++i)
        for (int j = 0; j < 12; ++j) corr[std::size_t(lat.lex_coords(i).x[3])] += std::norm(sol[std::size_t(i * 12 + j)]);
    }
    return corr;
  };
  const double tol = sizeof(Real) == 4 ? 5e-5 : 1e-10;
  const auto c_tm = pion(TwistedMassEOOperator<Real, ES>(u, bc, 1.0, tm));
  const auto c_tc = pion(TwistedCloverEOOperator<Real, ES>(u, bc, 1.0, 1.7, tm));
  for (int t = 0; t < 8; ++t) {
    CAPTURE(t, c_tm[std::size_t(t)], c_tc[std::size_t(t)], exact[std::size_t(t)]);
    REQUIRE(std::abs(c_tm[std::size_t(t)] - exact[std::size_t(t)]) <= tol * exact[std::size_t(t)]);
    REQUIRE(std::abs(c_tc[std::size_t(t)] - exact[std::size_t(t)]) <= tol * exact[std::size_t(t)]);
  }
}
