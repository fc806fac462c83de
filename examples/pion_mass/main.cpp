// From a gauge configuration to the pion effective mass: read the configuration, APE-smear its
// spatial links, solve the 12 spin-colour columns of the Wilson propagator from a Gaussian-smeared
// point source, smear the sink, contract the pion correlator C_15(t) on the device and print the
// effective mass m_eff(t) from C(t) / C(t + 1) = cosh(m (t - T/2)) / cosh(m (t + 1 - T/2)).
//
// Usage: pion_mass CONFIG [KAPPA]   (e.g. ../shared/data/milc-l8888-b6.0.milc 0.135)
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/gaussian_smear.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/solvers/propagator.hpp>
#include <kqcd/stencil/operator_handle.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
/// The m solving C(t) / C(t + 1) = cosh(m (t - T/2)) / cosh(m (t + 1 - T/2)) (periodic meson
/// correlator), by bisection; NaN where the ratio has no solution.
double cosh_mass(double ratio, int t, int T) {
  const auto f = [&](double m) { return std::cosh(m * (t - 0.5 * T)) / std::cosh(m * (t + 1 - 0.5 * T)) - ratio; };
  double lo = 1e-8, hi = 10.0;
  if (f(lo) * f(hi) > 0) return std::nan("");
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(lo) * f(mid) <= 0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}
} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace kqcd;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CONFIG [KAPPA]\n", argv[0]);
    return 2;
  }
  const double kappa = argc > 2 ? std::atof(argv[2]) : 0.135;
  try {
    // 1. The configuration (format detected from the content, checksums verified).
    const HostGaugeConfig cfg = read_gauge(argv[1]);
    GaugeField<Kokkos::complex<double>> u(cfg.lattice);
    import_gauge(u, cfg.links, HostGaugeOrder::milc);
    const Lattice lat = cfg.lattice;

    // 2. Smeared links for the quark smearing: 10 steps of spatial APE smearing.
    SmearParams ape;
    ape.method = SmearMethod::ape;
    ape.steps = 10;
    ape.ape_c = 2.5;
    ape.spatial_only = true;
    const auto u_smeared = smear(u, ape);
    const GaussianSmearParams quark_smear{3.0, 20};

    // 3. The propagator from a smeared point source at the origin, antiperiodic in time, solved on
    //    the layout the machine prefers (SIMD lanes on CPUs where the lattice splits into them),
    //    chosen at run time by make_even_odd_operator.
    const auto bc = BoundaryPhases::antiperiodic_time();
    const SourceSpec source = parse_source("point:0,0,0,0", &lat);
    PropagatorField<double> S(lat);
    SolverParams params;
    params.tol = 1e-7;
    const auto D = make_even_odd_operator<WilsonMassTerm<double>>(u, bc, wilson_mass_from_kappa(kappa));
    const auto results = solve_propagator(
        D, S,
        [&](auto& b, int spin, int colour) {
          make_source(b, source, spin, colour);
          gaussian_smear(b, u_smeared, quark_smear);
        },
        params,
        [](int spin, int colour, const SolverResult& r) {
          std::fprintf(stderr, "solve spin %d colour %d: %d iterations, true residual %.2e\n", spin, colour, r.iterations,
                       r.true_residual);
        });
    for (const auto& r : results)
      if (!r.converged()) {
        std::fprintf(stderr, "a solve did not converge: %s\n", r.message.c_str());
        return 1;
      }
    gaussian_smear(S, u_smeared, quark_smear);

    // 4. The pion correlator C_15(t) (Gamma(15) = g5) and its effective mass.
    const auto corr = meson_correlators(S, source.origin)[0];
    std::printf("%s: %s, kappa %.4f, smeared-smeared pion correlator\n", argv[1], lat.to_string().c_str(), kappa);
    std::printf("%3s %20s %12s\n", "t", "C_pi(t)", "m_eff(t) (cosh)");
    const int Lt = lat.dim(3);
    for (int t = 0; t < Lt; ++t) {
      const double c = corr[std::size_t(t)][15].real();
      if (t < Lt / 2) std::printf("%3d %20.12e %12.6f\n", t, c, cosh_mass(c / corr[std::size_t(t + 1)][15].real(), t, Lt));
      else std::printf("%3d %20.12e\n", t, c);
    }
  } catch (const kqcd::error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
