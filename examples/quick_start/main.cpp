// Read a configuration, build the even-odd Wilson-clover operator, solve the propagator from a
// point source and print the pion correlator. Usage: quick_start CONFIG
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/solvers/propagator.hpp>
#include <kqcd/stencil/operator_handle.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace kqcd;
  if (argc != 2) return std::fprintf(stderr, "usage: %s CONFIG\n", argv[0]), 2;
  try {
    const auto u = load_gauge(argv[1]); // format detected from the content, checksums verified
    const Lattice lat = u.lattice();
    const SourceSpec source = parse_source("point:0,0,0,0", &lat);
    PropagatorField<double> S(lat);
    SolverParams params;
    params.tol = 1e-8;
    const double kappa = 0.125, csw = 1.0;
    // The layout is chosen at run time: SIMD lanes on CPUs where the lattice splits into them, else plain.
    const auto D = make_even_odd_operator<CloverTerm<double>>(u, BoundaryPhases::antiperiodic_time(), wilson_mass_from_kappa(kappa), csw);
    const auto results = solve_propagator(D, S, [&](auto& b, int spin, int colour) { make_source(b, source, spin, colour); }, params);
    for (const SolverResult& r : results)
      if (!r.converged()) return std::fprintf(stderr, "solve failed: %s\n", r.message.c_str()), 1;
    const auto corr = meson_correlators(S, source.origin)[0]; // [t][n]: Gamma(n) at zero momentum
    std::printf("# %s, %s, clover kappa %g c_sw %g, pion C(t) = C_15(t)\n", argv[1], lat.to_string().c_str(), kappa, csw);
    for (int t = 0; t < lat.dim(3); ++t) std::printf("%2d %.12e\n", t, corr[std::size_t(t)][15].real());
  } catch (const kqcd::error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
