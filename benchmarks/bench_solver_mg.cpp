// Time to solution of the even-odd Wilson or clover system (--solver mg, --operator wilson | clover) by
// flexible GCR preconditioned with the two-level multigrid cycle (multigrid/multigrid.hpp, smoothing
// on the Schur complement), beside kqcd's Krylov solvers on the same system (BiCGStab and CG on the
// normal equations): a random source, a gauge file or a random gauge field, the scalar layout; on a
// process grid (under mpiexec) each rank its part of the lattice.
// --precision double runs everything in double; mixed runs the cycle and the Krylov solvers' inner
// iterations in single under double outer residuals. The setup is timed apart from the solves.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/multigrid/multigrid.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/cg.hpp>

#include <cstdio>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace kqcd::bench {

namespace {
template <class ES, class Term, class SingleTerm, class... Args>
nlohmann::json time_mg_solve(const SolverOptions& o, const HostGaugeConfig* cfg, const Args&... args) {
  const Lattice lattice = cfg ? cfg->lattice : o.lattice;
  GaugeField<Kokkos::complex<double>, ES> u(lattice);
  if (cfg) import_gauge(u, cfg->links, HostGaugeOrder::milc);
  else random_gauge(u, 2024);
  GaugeField<Kokkos::complex<float>, ES> uf(lattice);
  convert_gauge(uf, u);
  const auto bc = BoundaryPhases::antiperiodic_time();
  const PlainEvenOddOperator<Term> eo(u, bc, args...);
  const PlainEvenOddOperator<SingleTerm> eof(uf, bc, args...);
  const bool mixed = o.precision == "mixed";
  // Progress on stderr from the rank of the grid's origin alone.
  const bool talk = !o.quick && lattice.grid_coord(0) + lattice.grid_coord(1) + lattice.grid_coord(2) + lattice.grid_coord(3) == 0;
  mg::MultigridParams p = o.mg;
  p.verbosity = talk ? 1 : 0;
  SolverParams params;
  params.tol = o.tol;
  params.max_iter = 20000;
  params.label = "bench";
  auto b = eo.create_vector(), x = eo.create_vector();
  random_spinor(b, 7);
  // Multigrid: the best of three solves (one with --quick); the Krylov solvers, many times slower, once.
  const int solves = o.quick ? 1 : 3;
  auto best = [&](const char* what, int reps, auto&& solve) {
    SolverResult res;
    double seconds = 1e300;
    for (int rep = 0; rep < reps; ++rep) {
      blas::zero(x);
      SolverResult r;
      const double t = fenced_seconds<ES>([&] { r = solve(); });
      if (t < seconds) res = r, seconds = t;
      if (talk) std::fprintf(stderr, "[kqcd bench] %s: %d iterations, %.3f s\n", what, r.iterations, t);
    }
    return std::pair(res, seconds);
  };
  // The setup and the multigrid solves of the cycle on the full operator `full` and the even-odd
  // `smoother` (MR on its Schur complement) of links `links`.
  nlohmann::json r;
  auto run_multigrid = [&](const auto& full, const auto& smoother, const auto& links) {
    std::optional<mg::Multigrid<std::decay_t<decltype(full)>, std::decay_t<decltype(smoother)>>> cycle;
    const double setup_s = fenced_seconds<ES>([&] { cycle.emplace(full, smoother, links, bc, p); });
    const std::vector<long> before = cycle->iterations_per_level();
    const auto [res, seconds] = best("multigrid", solves, [&] { return mg::multigrid(eo, x, b, *cycle, params); });
    std::vector<long> per_level = cycle->iterations_per_level();
    for (std::size_t l = 0; l < per_level.size(); ++l) per_level[l] = (per_level[l] - before[l]) / solves;
    r = {{"time_to_solution_s", seconds},
         {"setup_s", setup_s},
         {"iterations", res.iterations},
         {"iterations_per_level", per_level},
         {"mg_coarse_even_odd_used", cycle->coarsest_even_odd()},
         {"true_residual", res.true_residual},
         {"converged", res.converged()},
         {"status", to_string(res.status)}};
  };
  // The cycle in single with --precision mixed, else in double.
  if (mixed) run_multigrid(PlainFullOperator<SingleTerm>(uf, bc, args...), eof, uf);
  else run_multigrid(PlainFullOperator<Term>(u, bc, args...), eo, u);
  // kqcd's Krylov solvers on the same system, in the same precision (mixed: single inner iterations).
  nlohmann::json krylov;
  std::string best_name;
  double best_s = 1e300;
  auto krylov_case = [&](const std::string& name, auto&& solve) {
    const auto [res, seconds] = best(name.c_str(), 1, solve);
    krylov[name] = {{"time_to_solution_s", seconds}, {"iterations", res.iterations}, {"converged", res.converged()}};
    if (res.converged() && seconds < best_s) best_s = seconds, best_name = name;
  };
  krylov_case("bicgstab", [&] { return mixed ? bicgstab(eo, eof, x, b, params) : bicgstab(eo, x, b, params); });
  krylov_case("cg_normal", [&] { return mixed ? cg_normal(eo, eof, x, b, params) : cg_normal(eo, x, b, params); });
  const double t_mg = r["time_to_solution_s"].get<double>(), setup = r["setup_s"].get<double>();
  r["krylov"] = krylov;
  if (!best_name.empty()) {
    r["best_krylov"] = best_name;
    r["speedup_over_krylov"] = best_s / t_mg;
    // One propagator: twelve solves, the setup once.
    r["speedup_over_krylov_12_solves_with_setup"] = 12.0 * best_s / (setup + 12.0 * t_mg);
  }
  r["layout"] = "scalar";
  return r;
}
} // namespace

nlohmann::json multigrid_json(const mg::MultigridParams& p, const std::string& prefix) {
  return {{prefix + "block", p.block},
          {prefix + "n_vec", p.n_vec},
          {prefix + "levels", p.levels},
          {prefix + "coarse_block", p.coarse_block},
          {prefix + "setup_sweeps", p.setup_sweeps},
          {prefix + "setup_iterations", p.setup_iterations},
          {prefix + "setup_tol", p.setup_tol},
          {prefix + "smoother_steps", p.smoother_steps},
          {prefix + "coarse_tol", p.coarse_tol},
          {prefix + "coarse_even_odd", p.coarse_even_odd}};
}

nlohmann::json run_multigrid_solver(const SolverOptions& o, double copy_gbytes_per_s) {
  if (o.op != "wilson" && o.op != "clover") throw invalid_argument("--solver mg solves --operator wilson or clover, not " + o.op);
  if (o.rhs != 1 || o.recon != 18) throw invalid_argument("--solver mg solves one right-hand side with recon 18");
  if (o.precision != "double" && o.precision != "mixed")
    throw invalid_argument("--solver mg: --precision double (the cycle in double) or mixed (in single), not " + o.precision);
  if (o.layout == "simd") throw invalid_argument("--solver mg runs on the scalar layout (--layout auto or scalar)");
  const std::string backend = backend_or_default(o.backend);
  const HostGaugeConfig cfg = solver_config(o);
  const HostGaugeConfig* c = o.config.empty() ? nullptr : &cfg;
  const double mass = 1.0 / (2.0 * o.kappa) - 4.0;
  nlohmann::json r;
  on_backend(backend, [&]<class ES>() {
    if (o.op == "clover") r = time_mg_solve<ES, CloverTerm<double, ES>, CloverTerm<float, ES>>(o, c, mass, o.csw);
    else r = time_mg_solve<ES, WilsonMassTerm<double, ES>, WilsonMassTerm<float, ES>>(o, c, mass);
  });
  const auto d = (o.config.empty() ? o.lattice : cfg.lattice).dims();
  r["benchmark"] = o.op + "_eo_mg_gcr";
  r["operator"] = o.op;
  r["lattice"] = {d[0], d[1], d[2], d[3]};
  r["gauge"] = o.config.empty() ? std::string("random (hot start, seed 2024)") : o.config;
  r["kappa"] = o.kappa;
  if (o.op == "clover") r["csw"] = o.csw;
  r.update(multigrid_json(o.mg, "mg_"));
  r["source"] = "random on the even sites (seed 7)";
  r["precision"] = o.precision;
  r["tol"] = o.tol;
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  finish_record(r, "solver", backend);
  return r;
}

} // namespace kqcd::bench
