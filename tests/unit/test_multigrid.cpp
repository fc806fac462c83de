// Aggregation-based multigrid: the plain host reference (tests/reference/multigrid_reference.hpp),
// which kqcd's transfer operators and coarse operator are to be tested against, checked on its own
// terms: the prolongator's columns orthonormal on every aggregate (P^dag P = 1) and of one
// chirality each (g5 P = P g5_c), the coarse stencil built from the fine operator's structure equal
// to P^dag D P applied through the fine operator, and the coarse operator gamma5-Hermitian. kqcd's
// transfer and coarse operator (multigrid/) against it on every backend and precision.
#include "test_harness.hpp"

#include "host_fields.hpp"
#include <clover_reference.hpp>
#include <multigrid_reference.hpp>

#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/multigrid/multigrid.hpp>

#include <random>

using namespace kqcd;
using namespace kqcd::test;

namespace {
using cvec = std::vector<std::complex<double>>;
cvec random_coarse(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist;
  cvec v(n);
  for (auto& z : v) z = {dist(gen), dist(gen)};
  return v;
}
struct Setup {
  // Coarse extents 3 and 4 along x and t: a forward and a backward neighbour are different aggregates.
  Lattice lat{{6, 4, 4, 8}};
  cvec u = random_host_gauge(lat, 41);
  std::array<std::complex<double>, 4> b = host_bc(mixed_bc());
  ref::Aggregation agg{lat.dims(), {2, 2, 2, 2}};
  ref::Transfer t{agg, {random_host_spinor(lat, 1), random_host_spinor(lat, 2), random_host_spinor(lat, 3)}};
};
} // namespace

TEST_CASE("multigrid reference: the transfer is orthonormal on every aggregate and keeps chirality", "[multigrid][reference]") {
  const Setup s;
  REQUIRE(s.t.n() == 6);
  const cvec phi = random_coarse(std::size_t(ref::volume(s.agg.coarse) * s.t.n()), 7);
  CHECK(ref::rel_diff(s.t.restrict_to_coarse(s.t.prolong(phi)), phi) < 1e-13);
  CHECK(ref::rel_diff(ref::apply_g5(s.t.prolong(phi)), s.t.prolong(ref::coarse_g5(phi, s.t.nv))) < 1e-13);
  // P P^dag projects: a fine field in the range of P is unchanged, a random one is not.
  const cvec psi = random_host_spinor(s.lat, 9);
  const cvec proj = s.t.prolong(s.t.restrict_to_coarse(psi));
  CHECK(ref::rel_diff(s.t.prolong(s.t.restrict_to_coarse(proj)), proj) < 1e-13);
  CHECK(ref::rel_diff(proj, psi) > 0.5);
  REQUIRE_THROWS_AS(ref::Aggregation(s.lat.dims(), {4, 2, 2, 2}), std::invalid_argument); // 4 does not divide 6
  REQUIRE_THROWS_AS(ref::Aggregation(s.lat.dims(), {6, 2, 2, 2}), std::invalid_argument); // one block along x
}

TEST_CASE("multigrid reference: the coarse stencil equals P^dag D P and is gamma5-Hermitian", "[multigrid][reference]") {
  const Setup s;
  const double mass = -0.3;
  const ref::CoarseOperator dc = ref::coarse_wilson(s.lat.dims(), s.u, mass, s.b, s.t);
  const std::size_t nc = std::size_t(ref::volume(s.agg.coarse) * s.t.n());
  const cvec phi = random_coarse(nc, 11), chi = random_coarse(nc, 12);
  const cvec galerkin = s.t.restrict_to_coarse(ref::wilson(s.lat.dims(), s.u, s.t.prolong(phi), mass, s.b, 1));
  CHECK(ref::rel_diff(dc.apply(phi), galerkin) < 1e-13);
  // <chi, D_c phi> = <g5 D_c g5 chi, phi>: D_c^dag = g5_c D_c g5_c, from D^dag = g5 D g5 and g5 P = P g5_c.
  const auto lhs = ref::dot(chi, dc.apply(phi));
  const auto rhs = ref::dot(ref::coarse_g5(dc.apply(ref::coarse_g5(chi, s.t.nv)), s.t.nv), phi);
  CHECK(std::abs(lhs - rhs) < 1e-12 * std::abs(lhs));
  // The mass enters X only, as (4 + m) on the diagonal (P^dag P = 1).
  const ref::CoarseOperator heavier = ref::coarse_wilson(s.lat.dims(), s.u, mass + 0.5, s.b, s.t);
  cvec diff = heavier.apply(phi);
  const cvec base = dc.apply(phi);
  for (std::size_t i = 0; i < diff.size(); ++i) diff[i] -= base[i] + 0.5 * phi[i];
  CHECK(std::sqrt(ref::norm2(diff) / ref::norm2(phi)) < 1e-13);
}

namespace {
template <class C> void import_coarse(C& c, const cvec& h) {
  auto m = Kokkos::create_mirror_view(c.view());
  for (std::size_t i = 0; i < h.size(); ++i) m(i) = typename C::view_type::non_const_value_type(h[i].real(), h[i].imag());
  Kokkos::deep_copy(c.view(), m);
}
template <class C> cvec export_coarse(const C& c) {
  const auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.view());
  cvec h(std::size_t(c.sites() * c.n()));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = {double(m(i).real()), double(m(i).imag())};
  return h;
}
template <class Real> constexpr double mg_tol() { return sizeof(Real) == 4 ? 2e-5 : 1e-12; }
} // namespace

TEMPLATE_LIST_TEST_CASE("multigrid transfer and coarse Wilson, clover, twisted-mass and twisted-clover operators equal the host reference",
                        "[multigrid]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const Setup s;
  GaugeField<Kokkos::complex<Real>, ES> u(s.lat);
  random_gauge(u, 41);
  const cvec hu = export_gauge(u);
  // The same test vectors on both sides, rounded to Real first.
  std::vector<SpinorField<Kokkos::complex<Real>, Ns, ES>> tv;
  std::vector<cvec> htv;
  for (std::uint64_t seed : {1, 2, 3}) {
    tv.emplace_back(s.lat);
    import_spinor(tv.back(), random_host_spinor(s.lat, seed));
    htv.push_back(export_spinor(tv.back()));
  }
  const ref::Transfer rt{s.agg, htv};
  const mg::Aggregation<ES> agg(s.lat, {2, 2, 2, 2});
  const mg::Transfer<Real, ES> t(agg, tv);
  REQUIRE(t.n() == rt.n());
  const std::size_t nc = std::size_t(ref::volume(s.agg.coarse) * rt.n());
  const cvec phi = random_coarse(nc, 21);
  auto c = t.create_coarse(), c2 = t.create_coarse();
  import_coarse(c, phi);
  SpinorField<Kokkos::complex<Real>, Ns, ES> fine(s.lat);
  t.prolong(fine, c);
  CHECK(ref::rel_diff(export_spinor(fine), rt.prolong(phi)) < mg_tol<Real>());
  const cvec psi = random_host_spinor(s.lat, 22);
  import_spinor(fine, psi);
  t.restrict_to_coarse(c2, fine);
  CHECK(ref::rel_diff(export_coarse(c2), rt.restrict_to_coarse(psi)) < mg_tol<Real>());
  // The coarse Wilson operator, its adjoint (gamma5_c D_c gamma5_c) and the BLAS on coarse fields.
  const double mass = -0.3;
  const auto b = host_bc(mixed_bc());
  const ref::CoarseOperator rdc = ref::coarse_wilson(s.lat.dims(), hu, mass, b, rt);
  const auto dc = mg::CoarseOperator<Real, ES>::wilson(t, u, mass, mixed_bc());
  dc.apply(c2, c, 1);
  CHECK(ref::rel_diff(export_coarse(c2), rdc.apply(phi)) < 10 * mg_tol<Real>());
  dc.apply(c2, c, -1);
  CHECK(ref::rel_diff(export_coarse(c2), ref::coarse_g5(rdc.apply(ref::coarse_g5(phi, rt.nv)), rt.nv)) < 10 * mg_tol<Real>());
  CHECK(std::abs(blas::norm2(c) - ref::norm2(phi)) < 10 * mg_tol<Real>() * ref::norm2(phi));
  // Clover, twisted mass and twisted clover against P^dag D P through the reference's fine operator.
  const double csw = 1.2, mu = 0.15;
  const auto galerkin = [&](double c_sw, double twist) {
    return rt.restrict_to_coarse(ref::clover_wilson(s.lat.dims(), hu, rt.prolong(phi), mass, c_sw, twist, b, 1));
  };
  CHECK(ref::rel_diff(galerkin(0.0, 0.0), rdc.apply(phi)) < 1e-12);
  mg::CoarseOperator<Real, ES>::galerkin(t, u, mixed_bc(), CloverTerm<Real, ES>(u, mass, csw)).apply(c2, c, 1);
  CHECK(ref::rel_diff(export_coarse(c2), galerkin(csw, 0.0)) < 10 * mg_tol<Real>());
  mg::CoarseOperator<Real, ES>::galerkin(t, u, mixed_bc(), TwistedMassTerm<Real, ES>(u, mass, mu)).apply(c2, c, 1);
  CHECK(ref::rel_diff(export_coarse(c2), galerkin(0.0, mu)) < 10 * mg_tol<Real>());
  mg::CoarseOperator<Real, ES>::galerkin(t, u, mixed_bc(), TwistedCloverTerm<Real, ES>(u, mass, csw, mu)).apply(c2, c, 1);
  CHECK(ref::rel_diff(export_coarse(c2), galerkin(csw, mu)) < 10 * mg_tol<Real>());
  // Bad input is refused by name.
  REQUIRE_THROWS_AS(dc.apply(c, c, 1), kqcd::invalid_argument);
  REQUIRE_THROWS_AS((mg::CoarseEvenOddOperator<Real, ES>(dc)), kqcd::invalid_argument); // coarse extents 3x2x2x4
  // The site blocks' inversion: X Xinv = 1 on random blocks, a zero block reported as singular.
  {
    using EO = mg::CoarseEvenOddOperator<Real, ES>;
    const int n = 6, sites = 3;
    const auto X = mg::CoarseOperator<Real, ES>::site_blocks("X", sites, n), Xinv = mg::CoarseOperator<Real, ES>::site_blocks("Xinv", sites, n);
    auto hx = Kokkos::create_mirror_view(X);
    std::mt19937 gen(5);
    std::normal_distribution<double> dist;
    for (int c = 0; c < sites; ++c)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k) hx(c, j, k) = c == 2 ? Kokkos::complex<Real>(0) : Kokkos::complex<Real>(Real(dist(gen)), Real(dist(gen)));
    Kokkos::deep_copy(X, hx);
    CHECK(EO::invert(X, Xinv) == 1);
    const auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Xinv);
    double worst = 0;
    for (int c = 0; c < 2; ++c)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k) {
          std::complex<double> e(j == k ? -1.0 : 0.0);
          for (int l = 0; l < n; ++l)
            e += std::complex<double>(hx(c, j, l).real(), hx(c, j, l).imag()) * std::complex<double>(hi(c, l, k).real(), hi(c, l, k).imag());
          worst = std::max(worst, std::abs(e));
        }
    CHECK(worst < 10 * mg_tol<Real>());
  }
  REQUIRE_THROWS_AS((mg::Aggregation<ES>(s.lat, {4, 2, 2, 2})), kqcd::invalid_argument);
  std::vector<SpinorField<Kokkos::complex<Real>, Ns, ES>> dependent{tv[0], tv[0]};
  REQUIRE_THROWS_AS((mg::Transfer<Real, ES>(agg, dependent)), kqcd::invalid_argument);
}

namespace {
/// The links of the beta 6.0 8^4 configuration in Real on ES.
template <class Real, class ES, class Cfg> GaugeField<Kokkos::complex<Real>, ES> beta6_gauge(const Cfg& cfg) {
  GaugeField<Kokkos::complex<Real>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  return u;
}
/// A random source, its solution by two-level-multigrid GCR (blocks 4x4x2x2, 8 test vectors) and
/// the parameters used.
template <class Op> struct MultigridSolve {
  typename Op::vector_type b, x;
  SolverResult result;
  mg::MultigridParams params;
  SolverParams solver;
};
/// GCR and multigrid GCR on op (links u, phases bc) for a random source to tol: both converge, the
/// multigrid one in under a quarter of GCR's iterations.
template <class Op, class Gauge> MultigridSolve<Op> multigrid_against_gcr(const Op& op, const Gauge& u, const BoundaryPhases& bc, double tol) {
  MultigridSolve<Op> m{op.create_vector(), op.create_vector(), {}, {}, {}};
  m.params.block = {4, 4, 2, 2};
  m.params.n_vec = 8;
  const mg::Multigrid mg(op, u, bc, m.params);
  auto x_gcr = op.create_vector();
  random_spinor(m.b, 5);
  m.solver.tol = tol;
  m.solver.max_iter = 4000;
  const SolverResult plain = gcr(op, x_gcr, m.b, m.solver);
  m.result = gcr(op, m.x, m.b, m.solver, mg);
  CAPTURE(plain.iterations, m.result.iterations, mg.coarse_iterations());
  REQUIRE(plain.converged());
  REQUIRE(m.result.converged());
  CHECK(4 * m.result.iterations < plain.iterations);
  return m;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("two-level multigrid GCR solves the Wilson and clover operators of a beta 6 configuration near the critical "
                        "mass in a fraction of GCR's iterations",
                        "[multigrid][solvers]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const auto cfg = read_gauge(shared_data("milc-l8888-b6.0.milc"));
  const auto u = beta6_gauge<Real, ES>(cfg);
  const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
  const double tol = sizeof(Real) == 4 ? 2e-5 : 1e-10;
  const double mass = -0.78;
  const PlainFullOperator<WilsonMassTerm<Real, ES>> op(u, bc, mass);
  const auto w = multigrid_against_gcr(op, u, bc, tol);
  // The solution solves D x = b of the host reference.
  CHECK(ref::rel_diff(ref::wilson(cfg.lattice.dims(), export_gauge(u), export_spinor(w.x), mass, host_bc(bc), 1), export_spinor(w.b)) <
        10 * tol);
  if constexpr (std::is_same_v<Real, double> && precision_compiled<float>) {
    // A single-precision cycle under the double solve converges as the double one does.
    GaugeField<Kokkos::complex<float>, ES> uf(cfg.lattice);
    convert_gauge(uf, u);
    const PlainFullOperator<WilsonMassTerm<float, ES>> opf(uf, bc, mass);
    const mg::Multigrid mgf(opf, uf, bc, w.params);
    auto x_mixed = op.create_vector();
    const SolverResult mixed = gcr(op, x_mixed, w.b, w.solver, mgf);
    CAPTURE(mixed.iterations, w.result.iterations);
    REQUIRE(mixed.converged());
    CHECK(mixed.iterations <= w.result.iterations + w.result.iterations / 2);
  }
  // Clover (c_sw 1) near its critical mass.
  const double clover_mass = -0.5, csw = 1.0;
  const PlainFullOperator<CloverTerm<Real, ES>> opc(u, bc, clover_mass, csw);
  const auto c = multigrid_against_gcr(opc, u, bc, tol);
  CHECK(ref::rel_diff(ref::clover_wilson(cfg.lattice.dims(), export_gauge(u), export_spinor(c.x), clover_mass, csw, 0.0, host_bc(bc), 1),
                      export_spinor(c.b)) < 10 * tol);
  // The even-odd system, the cycle smoothing on its Schur complement: a fraction of GCR's iterations
  // on D_hat, and with the odd sites reconstructed the solution of D x = b.
  const PlainEvenOddOperator<CloverTerm<Real, ES>> eoc(u, bc, clover_mass, csw);
  const mg::Multigrid mgs(opc, eoc, u, bc, c.params);
  auto b_hat = eoc.create_vector(), x_e = eoc.create_vector(), x_gcr = eoc.create_vector();
  eoc.prepare_source(b_hat, c.b);
  const SolverResult eo_plain = gcr(eoc, x_gcr, b_hat, c.solver);
  const SolverResult eo_mg = mg::multigrid(eoc, x_e, b_hat, mgs, c.solver);
  CAPTURE(eo_plain.iterations, eo_mg.iterations, c.result.iterations);
  REQUIRE(eo_plain.converged());
  REQUIRE(eo_mg.converged());
  CHECK(4 * eo_mg.iterations < eo_plain.iterations);
  CHECK(eo_mg.iterations <= c.result.iterations);
  auto x = opc.create_vector();
  eoc.reconstruct(x, x_e, c.b);
  CHECK(ref::rel_diff(ref::clover_wilson(cfg.lattice.dims(), export_gauge(u), export_spinor(x), clover_mass, csw, 0.0, host_bc(bc), 1),
                      export_spinor(c.b)) < 10 * tol);
}

TEMPLATE_LIST_TEST_CASE("multigrid on the even-odd Wilson system: the outer iterations hardly grow towards the critical mass, GCR's "
                        "do",
                        "[multigrid][solvers]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const auto cfg = read_gauge(shared_data("milc-l8888-b6.0.milc"));
  const auto u = beta6_gauge<Real, ES>(cfg);
  const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
  mg::MultigridParams p;
  p.block = {4, 4, 2, 2};
  p.n_vec = 16;
  SolverParams sp;
  sp.tol = sizeof(Real) == 4 ? 2e-5 : 1e-10;
  sp.max_iter = 4000;
  std::vector<int> mg_its, gcr_its;
  int inverse_its = 0, smoothed_its = 0;
  for (const double mass : {-0.6, -0.78}) {
    const PlainFullOperator<WilsonMassTerm<Real, ES>> op(u, bc, mass);
    const PlainEvenOddOperator<WilsonMassTerm<Real, ES>> eo(u, bc, mass);
    const mg::Multigrid cycle(op, eo, u, bc, p);
    auto b = eo.create_vector(), x = eo.create_vector(), y = eo.create_vector();
    random_spinor(b, 9);
    const SolverResult r = mg::multigrid(eo, x, b, cycle, sp), g = gcr(eo, y, b, sp);
    REQUIRE(r.converged());
    REQUIRE(g.converged());
    mg_its.push_back(r.iterations);
    gcr_its.push_back(g.iterations);
    if (mass == -0.78) {
      // With fewer test vectors, those of smoother sweeps alone span the near-null space less well
      // than those of the inverse iteration (the default setup): more outer iterations.
      mg::MultigridParams few = p, smoothed = p;
      few.n_vec = smoothed.n_vec = 6;
      smoothed.setup_sweeps = 12;
      smoothed.setup_iterations = 0;
      for (auto [params, its] : {std::pair{&few, &inverse_its}, std::pair{&smoothed, &smoothed_its}}) {
        const mg::Multigrid setup(op, eo, u, bc, *params);
        blas::zero(x);
        const SolverResult s = mg::multigrid(eo, x, b, setup, sp);
        REQUIRE(s.converged());
        *its = s.iterations;
      }
    }
  }
  CAPTURE(mg_its, gcr_its, inverse_its, smoothed_its);
  CHECK(mg_its[1] < 2 * mg_its[0]);
  CHECK(gcr_its[1] > 2 * gcr_its[0]);
  CHECK(inverse_its < smoothed_its);
}

TEMPLATE_LIST_TEST_CASE("a coarse level's Galerkin operator equals P^dag D_c P, is gamma5-Hermitian, and three-level multigrid "
                        "(the K-cycle) solves the even-odd Wilson system",
                        "[multigrid][solvers]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const auto cfg = read_gauge(shared_data("milc-l8888-b6.0.milc"));
  const auto u = beta6_gauge<Real, ES>(cfg);
  const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
  // Level 1: 4^4 aggregates of 2^4 sites, 4 random test vectors; level 2: 2^4 aggregates of it, 3 vectors.
  std::vector<SpinorField<Kokkos::complex<Real>, Ns, ES>> tv;
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    tv.emplace_back(cfg.lattice);
    random_spinor(tv.back(), seed);
  }
  const mg::Aggregation<ES> agg(cfg.lattice, {2, 2, 2, 2});
  const mg::Transfer<Real, ES> t(agg, tv);
  const auto dc = mg::CoarseOperator<Real, ES>::wilson(t, u, -0.5, bc);
  std::vector<mg::CoarseSpinor<Real, ES>> ctv;
  for (std::uint64_t seed : {5, 6, 7}) {
    ctv.push_back(dc.create_vector());
    mg::random_coarse(ctv.back(), seed);
  }
  const mg::Aggregation<ES> agg2(cfg.lattice, dc.coarse_geometry(), {2, 2, 2, 2});
  const mg::Transfer<Real, ES, mg::CoarseSpinor<Real, ES>> t2(agg2, ctv);
  REQUIRE(t2.n() == 6);
  REQUIRE(t2.fine_components() == dc.n());
  const auto dcc = mg::CoarseOperator<Real, ES>::galerkin(t2, dc);
  auto phi = t2.create_coarse(), psi = t2.create_coarse(), out = t2.create_coarse(), via = t2.create_coarse();
  mg::random_coarse(phi, 8);
  mg::random_coarse(psi, 9);
  auto f1 = dc.create_vector(), f2 = dc.create_vector();
  // P^dag P = 1.
  t2.prolong(f1, phi);
  t2.restrict_to_coarse(via, f1);
  blas::axpy(-1.0, phi, via);
  CHECK(std::sqrt(blas::norm2(via) / blas::norm2(phi)) < mg_tol<Real>());
  // D_cc phi = P^dag D_c P phi.
  dcc.apply(out, phi, 1);
  dc.apply(f2, f1, 1);
  t2.restrict_to_coarse(via, f2);
  blas::axpy(-1.0, out, via);
  CHECK(std::sqrt(blas::norm2(via) / blas::norm2(out)) < 10 * mg_tol<Real>());
  // <psi, D_cc phi> = <D_cc^dag psi, phi>, the adjoint gamma5_c D_cc gamma5_c of the chirality split.
  dcc.apply(via, psi, -1);
  const auto lhs = blas::cdot(psi, out), rhs = blas::cdot(via, phi);
  CHECK(Kokkos::abs(lhs - rhs) < 10 * mg_tol<Real>() * Kokkos::abs(lhs));
  // The even-odd preconditioned coarse operators: D_c x = b solved through S x_e = b_hat (GCR) and
  // x_o reconstructed, checked with D_c itself; S needs fewer iterations than D_c.
  auto even_odd_solve = [&](const auto& d) {
    const mg::CoarseEvenOddOperator<Real, ES> s(d);
    auto b = d.create_vector(), bh = s.create_vector(), x = s.create_vector(), y = d.create_vector(), r = d.create_vector();
    mg::random_coarse(b, 10);
    SolverParams cp;
    cp.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
    cp.max_iter = 2000;
    s.prepare_source(bh, b);
    const SolverResult eo = gcr(s, x, bh, cp);
    s.reconstruct(x, b);
    const SolverResult full = gcr(d, y, b, cp);
    CAPTURE(eo.iterations, full.iterations);
    REQUIRE(eo.converged());
    REQUIRE(full.converged());
    CHECK(eo.iterations < full.iterations);
    d.apply(r, x, 1);
    blas::axpy(-1.0, b, r);
    CHECK(std::sqrt(blas::norm2(r) / blas::norm2(b)) < 10 * cp.tol);
    REQUIRE_THROWS_AS(s.apply(x, bh, -1), kqcd::invalid_argument);
  };
  even_odd_solve(dc);
  even_odd_solve(dcc);
  // Three levels: the even-odd Wilson system near the critical mass, GCR on level 1 preconditioned by level 2's cycle.
  const double mass = -0.78;
  const PlainFullOperator<WilsonMassTerm<Real, ES>> op(u, bc, mass);
  const PlainEvenOddOperator<WilsonMassTerm<Real, ES>> eo(u, bc, mass);
  mg::MultigridParams p;
  p.block = {2, 2, 2, 2};
  p.n_vec = 8;
  p.levels = 3;
  p.coarse_block = {2, 2, 2, 2};
  const mg::Multigrid cycle(op, eo, u, bc, p);
  REQUIRE(cycle.next() != nullptr);
  REQUIRE(cycle.next()->next() == nullptr);
  REQUIRE(cycle.next()->coarse_even_odd() != nullptr); // the coarsest level solved on its even-odd operator
  SolverParams sp;
  sp.tol = sizeof(Real) == 4 ? 2e-5 : 1e-10;
  sp.max_iter = 4000;
  auto b = eo.create_vector(), x = eo.create_vector(), y = eo.create_vector();
  random_spinor(b, 9);
  const SolverResult r = mg::multigrid(eo, x, b, cycle, sp), g = gcr(eo, y, b, sp);
  const auto its = cycle.iterations_per_level();
  CAPTURE(r.iterations, g.iterations, its);
  REQUIRE(r.converged());
  REQUIRE(g.converged());
  CHECK(4 * r.iterations < g.iterations);
  REQUIRE(its.size() == 2);
  CHECK(its[1] > 0);
  // The solution against the host reference's D x = b, the odd sites reconstructed.
  auto full_b = op.create_vector(), full_x = op.create_vector();
  blas::copy(full_b[0], b);
  eo.reconstruct(full_x, x, full_b);
  CHECK(ref::rel_diff(ref::wilson(cfg.lattice.dims(), export_gauge(u), export_spinor(full_x), mass, host_bc(bc), 1), export_spinor(full_b)) <
        10 * sp.tol);
}
