// Krylov solvers: solutions checked by applying the full operator, mixed precision to 1e-12, and
// the free-field propagator with twisted boundaries against the analytic values in
// shared/data/README.md.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/local_operators.hpp>

#include <wilson_reference.hpp>

#include <numbers>

using namespace kqcd;

namespace {
const Lattice solver_lattice({4, 4, 4, 8});
constexpr double kappa = 0.12;

/// Solve D x = b through the even-odd system with `solve` and return |D x - b| / |b| of the full
/// operator in double precision.
template <class ES, class Real, class Solve> double full_residual(const Solve& solve, SolverResult& result) {
  using EO = WilsonEOOperator<Real, ES>;
  typename EO::gauge_type u(solver_lattice);
  random_gauge(u, 5);
  const double mass = wilson_mass_from_kappa(kappa);
  const auto bc = BoundaryPhases::antiperiodic_time();
  EO eo(u, bc, mass);
  typename EO::field_type b(solver_lattice), x(solver_lattice);
  random_spinor(b, 6);
  auto b_hat = eo.create_vector(), x_e = eo.create_vector();
  eo.prepare_source(b_hat, b);
  result = solve(eo, u, x_e, b_hat);
  eo.reconstruct(x, x_e, b);
  // Check in double with the host reference operator.
  const auto u_host = export_gauge(u);
  const auto x_host = export_spinor(x), b_host = export_spinor(b);
  std::array<std::complex<double>, 4> hb{1.0, 1.0, 1.0, -1.0};
  const auto dx = ref::wilson(solver_lattice.dims(), u_host, x_host, mass, hb, 1);
  return ref::rel_diff(dx, b_host);
}
} // namespace

TEMPLATE_LIST_TEST_CASE("CG and BiCGStab solve the Wilson system", "[solvers]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const double tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  SolverParams params;
  params.tol = tol;
  SolverResult res;
  SECTION("CG on the normal equations") {
    const double r = full_residual<ES, Real>([&](auto& eo, auto&, auto& x, auto& b) { return cg_normal(eo, x, b, params); }, res);
    CAPTURE(res.iterations, res.true_residual, res.message);
    REQUIRE(res.converged());
    REQUIRE(res.true_residual <= tol);
    REQUIRE(r < 10 * tol);
  }
  SECTION("BiCGStab") {
    const double r = full_residual<ES, Real>([&](auto& eo, auto&, auto& x, auto& b) { return bicgstab(eo, x, b, params); }, res);
    CAPTURE(res.iterations, res.true_residual, res.message);
    REQUIRE(res.converged());
    REQUIRE(r < 10 * tol);
  }
  SECTION("an iteration limit is reported, not hidden") {
    params.max_iter = 3;
    full_residual<ES, Real>([&](auto& eo, auto&, auto& x, auto& b) { return cg_normal(eo, x, b, params); }, res);
    REQUIRE(res.status == SolverStatus::max_iterations);
    REQUIRE(res.true_residual > tol);
  }
}

TEMPLATE_LIST_TEST_CASE("mixed precision solvers reach 1e-12", "[solvers]", kqcd::test::MixedSpaces) {
  using ES = TestType;
  SolverParams params;
  params.tol = 1e-12;
  SolverResult res;
  auto mixed = [&](auto method) {
    return [&, method](auto& eo, auto& u, auto& x, auto& b) {
      GaugeField<Kokkos::complex<float>, ES> uf(u.lattice());
      convert_gauge(uf, u);
      WilsonEOOperator<float, ES> sloppy(uf, BoundaryPhases::antiperiodic_time(), eo.mass());
      return method(eo, sloppy, x, b, params);
    };
  };
  SECTION("CG") {
    const double r = full_residual<ES, double>(
        mixed([](auto& a, auto& s, auto& x, auto& b, auto& p) { return cg_normal(a, s, x, b, p); }), res);
    CAPTURE(res.iterations, res.residual_updates, res.true_residual);
    REQUIRE(res.converged());
    REQUIRE(res.residual_updates > 2); // the true residual really was recomputed along the way
    REQUIRE(r < 1e-11);
  }
  SECTION("BiCGStab") {
    const double r = full_residual<ES, double>(
        mixed([](auto& a, auto& s, auto& x, auto& b, auto& p) { return bicgstab(a, s, x, b, p); }), res);
    CAPTURE(res.iterations, res.residual_updates, res.true_residual);
    REQUIRE(res.converged());
    REQUIRE(r < 1e-11);
  }
}

TEMPLATE_LIST_TEST_CASE("free Wilson propagator with twisted boundaries", "[solvers][free]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  using EO = WilsonEOOperator<Real, ES>;
  // shared/data/README.md: unit gauge field, 4^3 x 8, kappa = 0.1 (m = 1), point source at the
  // origin, theta = (0.2 pi, 0.4 pi, 0), periodic time.
  const Lattice lat({4, 4, 4, 8});
  const std::vector<double> readme = {0.550448083033058, 0.018777681287702, 0.00191303562650173, 0.000304754934667099,
                                      0.000111618726903212};
  BoundaryPhases bc;
  bc.b[0] = BoundaryPhases::twist(0.2 * std::numbers::pi);
  bc.b[1] = BoundaryPhases::twist(0.4 * std::numbers::pi);
  typename EO::gauge_type u(lat);
  unit_gauge(u);
  EO eo(u, bc, wilson_mass_from_kappa(0.1));
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-6 : 1e-13;
  std::vector<double> corr(8, 0.0);
  for (int spin = 0; spin < 4; ++spin)
    for (int colour = 0; colour < 3; ++colour) {
      std::vector<std::complex<double>> src(std::size_t(lat.volume()) * 12, 0.0);
      src[std::size_t(spin * 3 + colour)] = 1.0;
      typename EO::field_type b(lat), x(lat);
      import_spinor(b, src);
      auto b_hat = eo.create_vector(), x_e = eo.create_vector();
      eo.prepare_source(b_hat, b);
      const auto res = cg_normal(eo, x_e, b_hat, params);
      REQUIRE(res.converged());
      eo.reconstruct(x, x_e, b);
      const auto sol = export_spinor(x);
      for (std::int64_t i = 0; i < lat.volume(); ++i)
        for (int k = 0; k < 12; ++k) corr[std::size_t(lat.lex_coords(i).x[3])] += std::norm(sol[std::size_t(i * 12 + k)]);
    }
  // Double: 1e-10 relative on every timeslice (the bar). Float: the solution carries
  // rounding of order 1e-7 relative to the largest components, i.e. 1e-5 to 1e-4 of the smallest
  // C(t) (which is 5000 times smaller than C(0)), depending on the threads' reduction order.
  const double tol = sizeof(Real) == 4 ? 2e-4 : 1e-10;
  const auto exact = ref::free_pion_correlator(lat.dims(), 1.0, {0.2 * std::numbers::pi, 0.4 * std::numbers::pi, 0.0});
  for (int t = 0; t < 8; ++t) {
    const double want = readme[std::size_t(t <= 4 ? t : 8 - t)];
    CAPTURE(t, corr[t], want);
    REQUIRE(std::abs(corr[std::size_t(t)] - want) <= tol * want);
    REQUIRE(std::abs(exact[std::size_t(t)] - want) <= 1e-12 * want); // the host formula agrees with README
  }
}
