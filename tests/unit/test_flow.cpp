// Wilson flow and clover observables: monotonic energy, third-order convergence of the integrator,
// the Euler limit against stout smearing, gauge invariance of E and Q, near-integer charge after
// flowing a thermalised configuration.
#include "test_harness.hpp"

#include <smear_reference.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/ops/gradient_flow.hpp>
#include <kqcd/ops/smearing.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <cmath>

using namespace kqcd;
using Catch::Matchers::WithinAbs;

namespace {
/// Haar-random gauge transformation matrices, one per site, from the mu = 0 links of a random field.
std::vector<std::complex<double>> random_transformation(const Lattice& lat, std::uint64_t seed) {
  GaugeField<Kokkos::complex<double>, Kokkos::DefaultHostExecutionSpace> r(lat);
  random_gauge(r, seed);
  const auto links = export_gauge(r);
  std::vector<std::complex<double>> g(std::size_t(lat.volume()) * 9);
  for (std::size_t s = 0; s < std::size_t(lat.volume()); ++s)
    for (int k = 0; k < 9; ++k) g[s * 9 + k] = links[s * 36 + std::size_t(k)];
  return g;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("flow energy decreases monotonically; E and Q are gauge invariant", "[smear][flow]",
                        kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const double tol = sizeof(Real) == 4 ? 1e-4 : 1e-10;
  const auto cfg = read_gauge(kqcd::test::shared_data("milc-l4444.milc"));
  GaugeField<Kokkos::complex<Real>, ES> u(cfg.lattice), g(cfg.lattice);
  import_gauge(u, cfg.links);
  import_gauge(g, ref::gauge_transform(cfg.lattice.dims(), cfg.links, random_transformation(cfg.lattice, 4)));
  const auto cu = clover_observables(u), cg = clover_observables(g);
  REQUIRE_THAT(cg.energy, WithinAbs(cu.energy, tol * cu.energy));
  REQUIRE_THAT(cg.charge, WithinAbs(cu.charge, tol));

  FlowMeasurement last;
  int n = 0;
  wilson_flow(u, 0.02, 0.6, [&](const FlowMeasurement& m) {
    if (n++ > 0) {
      REQUIRE(m.e_plaq < last.e_plaq);
      REQUIRE(m.e_clover < last.e_clover);
    }
    REQUIRE(m.e_plaq > 0);
    last = m;
  });
  REQUIRE(n == 31);
  REQUIRE_THAT(last.t, WithinAbs(0.6, 1e-12));
  // The file holds float32 links (deviation ~1e-7 from SU(3)); exp(A) W keeps that, adding no more.
  REQUIRE(max_su3_deviation(export_gauge(u)) < max_su3_deviation(cfg.links) + (sizeof(Real) == 4 ? 1e-5 : 1e-12));

  unit_gauge(u);
  const auto m = flow_measure(u, 1.0);
  REQUIRE(m.e_plaq == 0.0);
  REQUIRE_THAT(m.e_clover, WithinAbs(0.0, 1e-12));
  REQUIRE_THAT(m.charge, WithinAbs(0.0, 1e-12));
  REQUIRE_THROWS_AS(wilson_flow(u, 0.0, 1.0), invalid_argument);
  REQUIRE_THROWS_AS(wilson_flow(u, 0.1, -1.0), invalid_argument);
}

TEST_CASE("Runge-Kutta flow converges at third order; Euler step is stout with rho = eps", "[smear][flow]") {
  using ES = Kokkos::DefaultExecutionSpace;
  const auto cfg = read_gauge(kqcd::test::shared_data("milc-l4444.milc"));
  auto flowed = [&](double eps) {
    GaugeField<Kokkos::complex<double>, ES> u(cfg.lattice);
    import_gauge(u, cfg.links);
    wilson_flow(u, eps, 0.4);
    return export_gauge(u);
  };
  const auto fine = flowed(0.01);
  auto error = [&](double eps) {
    const auto a = flowed(eps);
    double e = 0;
    for (std::size_t k = 0; k < a.size(); ++k) e = std::max(e, std::abs(a[k] - fine[k]));
    return e;
  };
  const double e1 = error(0.1), e2 = error(0.05);
  INFO("errors " << e1 << " at eps 0.1, " << e2 << " at eps 0.05");
  REQUIRE(e1 / e2 > 6.0); // third order: 8
  REQUIRE(e1 / e2 < 13.0);

  // The Euler step of the flow is a stout step with rho = eps (Z = TA(C U^dag)): one Runge-Kutta
  // step and one stout step agree to first order, so their difference falls as eps^2.
  auto rk_vs_stout = [&](double eps) {
    GaugeField<Kokkos::complex<double>, ES> u(cfg.lattice);
    import_gauge(u, cfg.links);
    SmearParams sp;
    sp.method = SmearMethod::stout;
    sp.rho = eps;
    const auto stout = export_gauge(smear(u, sp));
    WilsonFlow<Kokkos::complex<double>, ES> flow(cfg.lattice);
    flow.step(u, eps);
    const auto rk = export_gauge(u);
    double d = 0;
    for (std::size_t k = 0; k < rk.size(); ++k) d = std::max(d, std::abs(rk[k] - stout[k]));
    return d;
  };
  const double d1 = rk_vs_stout(1e-3), d2 = rk_vs_stout(5e-4);
  INFO("RK3 - stout: " << d1 << " at eps 1e-3, " << d2 << " at 5e-4");
  REQUIRE(d1 < 1e-4);
  REQUIRE(d1 / d2 > 3.5);
  REQUIRE(d1 / d2 < 4.5);
}

TEST_CASE("flowed 8^4 beta 6.0 configuration: t^2 E and a near-integer charge", "[smear][flow]") {
  using ES = Kokkos::DefaultExecutionSpace;
  const auto cfg = read_gauge(kqcd::test::shared_data("milc-l8888-b6.0.milc"));
  GaugeField<Kokkos::complex<double>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  const auto ms = wilson_flow(u, 0.05, 3.0);
  const auto& end = ms.back();
  WARN("8^4 beta 6.0 at t = " << end.t << ": t^2 E plaq " << end.t2e_plaq << ", clover " << end.t2e_clover << ", Q "
                               << end.charge << "; t = 1: t^2 E plaq " << ms[20].t2e_plaq << ", clover " << ms[20].t2e_clover);
  REQUIRE(std::abs(end.charge - std::round(end.charge)) < 0.15);
  REQUIRE(end.t2e_clover > 0.05);
  REQUIRE(end.t2e_clover < 0.6);
  REQUIRE_THAT(end.e_clover / end.e_plaq, WithinAbs(1.0, 0.1)); // both discretisations agree on a smooth field
}
