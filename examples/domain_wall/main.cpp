// From a configuration to the Moebius domain-wall pion and residual mass: the 4D propagator of a
// point source from the 5D solves (mixed double-single CG on the 4D even-odd system), the pion
// correlator C_15(t) = sum_x |S|^2 and m_res(t) from the midpoint field (conventions.md).
// Usage: domain_wall CONFIG [LS] [MASS]   (defaults 8 and 0.05; M5 1.8, b5 1.5, c5 0.5)
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/solvers/propagator.hpp>
#include <kqcd/stencil/domain_wall.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace kqcd;
  if (argc < 2 || argc > 4) return std::fprintf(stderr, "usage: %s CONFIG [LS] [MASS]\n", argv[0]), 2;
  try {
    const auto u = load_gauge(argv[1]);
    const Lattice& lat = u.lattice();
    DomainWallParams p;
    p.Ls = argc > 2 ? std::stoi(argv[2]) : 8;
    p.M5 = 1.8;
    p.b5 = 1.5;
    p.c5 = 0.5;
    p.mf = argc > 3 ? std::stod(argv[3]) : 0.05;
    const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
    GaugeField<Kokkos::complex<float>> uf(lat);
    convert_gauge(uf, u);
    const DomainWallOperator<double> op(u, bc, p);     // the outer operator: true residuals in double
    const DomainWallOperator<float> sloppy(uf, bc, p); // the Krylov loop in single
    const SourceSpec source = parse_source("point:0,0,0,0", &lat);
    PropagatorField<double> S(lat), mid(lat);
    SolverParams params;
    params.tol = 1e-10;
    bool converged = true;
    solve_domain_wall_propagator(
        op, sloppy, S, &mid, [&](auto& eta, int spin, int colour) { make_source(eta, source, spin, colour); }, params,
        [&](int spin, int colour, const SolverResult& r) {
          converged = converged && r.converged();
          std::fprintf(stderr, "spin %d colour %d: %d iterations, true residual %.2e\n", spin, colour, r.iterations, r.true_residual);
        });
    const auto pion = propagator_correlator(S, source.origin);
    const ResidualMass mres = residual_mass(propagator_correlator(mid, source.origin), pion);
    std::printf("# %s, Moebius %s: t, C_15(t), m_res(t)\n", argv[1], p.to_string().c_str());
    for (std::size_t t = 0; t < pion.size(); ++t) std::printf("%2zu  %.9e  %.6e\n", t, pion[t], mres.by_t[t]);
    std::printf("# m_res %.6e (t = %d..%d)\n", mres.plateau, mres.t0, mres.t1);
    return converged ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "domain_wall: %s\n", e.what());
    return 2;
  }
}
