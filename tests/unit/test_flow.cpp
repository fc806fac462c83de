// Wilson flow and clover observables: monotonic energy, third-order convergence of the integrator,
// the Euler limit against stout smearing, gauge invariance of E and Q, one step and its observables
// against the host reference, t^2 E and Q of a flowed thermalised configuration against values of
// the host reference.
#include "test_harness.hpp"

#include <smear_reference.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gradient_flow.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <algorithm>
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

TEMPLATE_LIST_TEST_CASE("one Wilson-flow step matches the host reference", "[smear][flow]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  // Double: the two differ by rounding only (exp_iQ against the Taylor series, summation order).
  // Float: every Runge-Kutta stage and generator is stored in single precision.
  const double tol = sizeof(Real) == 4 ? 1e-5 : 1e-12;
  const double obs_tol = sizeof(Real) == 4 ? 1e-5 : 1e-11;
  const auto cfg = read_gauge(kqcd::test::shared_data("milc-l4444.milc"));
  const auto d = cfg.lattice.dims();
  GaugeField<Kokkos::complex<Real>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  auto check_observables = [&](const std::vector<std::complex<double>>& links, double t) {
    const auto m = flow_measure(u, t);
    const double e_plaq = ref::flow_energy_plaq(d, links), e_clover = ref::flow_energy_clover(d, links);
    const double q = ref::topological_charge_clover(d, links);
    INFO("t = " << t << ": E plaq " << m.e_plaq << " (reference " << e_plaq << "), clover " << m.e_clover << " ("
                << e_clover << "), Q " << m.charge << " (" << q << ")");
    REQUIRE_THAT(m.e_plaq, WithinAbs(e_plaq, obs_tol * e_plaq));
    REQUIRE_THAT(m.e_clover, WithinAbs(e_clover, obs_tol * e_clover));
    REQUIRE_THAT(m.charge, WithinAbs(q, obs_tol));
  };
  check_observables(cfg.links, 0); // E plaq 14.585, clover 1.863, Q -0.0307

  const double eps = 0.1;
  WilsonFlow<Kokkos::complex<Real>, ES> flow(cfg.lattice);
  flow.step(u, eps);
  const auto got = export_gauge(u);
  const auto want = ref::wilson_flow_step(d, cfg.links, eps);
  double diff = 0, change = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    diff = std::max(diff, std::abs(got[k] - want[k]));
    change = std::max(change, std::abs(want[k] - cfg.links[k]));
  }
  INFO("links after one step: largest difference from the host reference " << diff << ", largest change " << change);
  REQUIRE(change > 0.1);
  REQUIRE(diff < tol);
  check_observables(want, eps); // E plaq 6.033, clover 1.228, Q -0.0230
}

TEST_CASE("flowed 8^4 beta 6.0 configuration: t^2 E and Q against the host reference", "[smear][flow]") {
  using ES = Kokkos::DefaultExecutionSpace;
  const auto cfg = read_gauge(kqcd::test::shared_data("milc-l8888-b6.0.milc"));
  GaugeField<Kokkos::complex<double>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  const auto ms = wilson_flow(u, 0.05, 3.0);
  REQUIRE(ms.size() == 61);
  // Source: tests/reference's Runge-Kutta flow (ref::wilson_flow_step, flow_energy_plaq,
  // flow_energy_clover, topological_charge_clover) in double on this file's float32 links as read,
  // eps = 0.05, 60 steps to t = 3.0. Perturbing the input links by 1e-14 (relative) moves these
  // values by < 3e-14, so the library, equal up to rounding, agrees far inside 1e-10.
  struct Want {
    std::size_t step;
    double t2e_plaq, t2e_clover, charge;
  };
  const Want want[] = {{20, 1.303174861305033e-01, 1.047384663403602e-01, -8.180915316263016e-03},  // t = 1
                       {40, 1.440679916072516e-01, 1.291613899927786e-01, -2.095794237324580e-03},  // t = 2
                       {60, 1.442515718248935e-01, 1.333674743460497e-01, -1.927111551836407e-04}}; // t = 3
  for (const auto& w : want) {
    const auto& m = ms[w.step];
    INFO("t = " << m.t << ": t^2 E plaq " << m.t2e_plaq << ", clover " << m.t2e_clover << ", Q " << m.charge);
    REQUIRE_THAT(m.t, WithinAbs(0.05 * double(w.step), 1e-12));
    REQUIRE_THAT(m.t2e_plaq, WithinAbs(w.t2e_plaq, 1e-10));
    REQUIRE_THAT(m.t2e_clover, WithinAbs(w.t2e_clover, 1e-10));
    REQUIRE_THAT(m.charge, WithinAbs(w.charge, 1e-10));
  }
  // The flowed field is in the trivial sector: Q = -1.9e-4 at t = 3.
  REQUIRE(std::abs(ms.back().charge - std::round(ms.back().charge)) < 0.15);
}
