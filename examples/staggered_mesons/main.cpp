// From a configuration to HISQ (or asqtad) meson correlators for several quark masses at once:
// the fat and long links built on the device, one multi-shift solve per source colour, MILC's local
// meson correlators. Usage: staggered_mesons CONFIG [hisq|asqtad] [MASS,MASS,...]
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/staggered_links.hpp>
#include <kqcd/measure/staggered_spectrum.hpp>
#include <kqcd/stencil/operator_handle.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace kqcd;
  if (argc < 2 || argc > 4) return std::fprintf(stderr, "usage: %s CONFIG [hisq|asqtad] [MASS,MASS,...]\n", argv[0]), 2;
  try {
    const auto u = load_gauge(argv[1]);
    const StaggeredAction action = parse_staggered_action(argc > 2 ? argv[2] : "hisq");
    std::vector<double> masses;
    std::stringstream list(argc > 3 ? argv[3] : "0.01,0.05");
    for (std::string m; std::getline(list, m, ',');) masses.push_back(std::stod(m));
    // MILC's conventions: links from the thin links (u0 = 1, no Naik epsilon), antiperiodic in time.
    const auto links = make_staggered_links(u, StaggeredLinkParams{action, 1.0, 0.0});
    const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
    const auto A = make_staggered_operator<double>(links.fat, bc, masses.front(), links.long_links());
    SolverParams params;
    params.tol = 1e-10;
    const SourceSpec source = parse_source("point:0,0,0,0", &u.lattice());
    bool converged = true;
    const StaggeredMesons m = staggered_mesons(A, source, masses, params, [&](int colour, const MultiShiftResult& r) {
      converged = converged && r.converged();
      std::fprintf(stderr, "colour %d: %d iterations for %zu masses\n", colour, r.iterations, masses.size());
    });
    std::printf("# %s, %s, layout %s: pion5(t) per mass\n", argv[1], to_string(action), A.layout_name().c_str());
    for (std::size_t t = 0; t < m.correlators[0][0].size(); ++t) {
      std::printf("%2zu", t);
      for (std::size_t i = 0; i < masses.size(); ++i) std::printf("  %.9e", m.correlators[i][0][t]);
      std::printf("\n");
    }
    return converged ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "staggered_mesons: %s\n", e.what());
    return 2;
  }
}
