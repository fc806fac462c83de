// Time to solution of the full Wilson or clover system (--solver mg, --operator wilson | clover) by
// flexible GCR preconditioned with the two-level multigrid cycle (multigrid/two_level.hpp), beside the
// same solve by GCR alone: a random source, a gauge file or a random gauge field, the scalar layout.
// --precision double runs the cycle in double, mixed in single (under the double GCR). The setup is
// timed apart from the solves.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/multigrid/two_level.hpp>

#include <chrono>
#include <optional>
#include <utility>

namespace kqcd::bench {

namespace {
/// Seconds of f(), fenced.
template <class ES, class F> double timed(F&& f) {
  ES().fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  ES().fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class ES, class Term, class SingleTerm, class... Args>
nlohmann::json time_mg_solve(const SolverOptions& o, const HostGaugeConfig* cfg, const Args&... args) {
  const Lattice lattice = cfg ? cfg->lattice : o.lattice;
  GaugeField<Kokkos::complex<double>, ES> u(lattice);
  if (cfg) import_gauge(u, cfg->links, HostGaugeOrder::milc);
  else random_gauge(u, 2024);
  const auto bc = BoundaryPhases::antiperiodic_time();
  const PlainFullOperator<Term> op(u, bc, args...);
  mg::TwoLevelParams p;
  p.block = o.mg_block;
  p.n_vec = o.mg_nvec;
  SolverParams params;
  params.tol = o.tol;
  params.max_iter = 20000;
  params.label = "bench";
  auto b = op.create_vector(), x = op.create_vector();
  random_spinor(b, 7);
  // The best of three solves (one with --quick).
  const int solves = o.quick ? 1 : 3;
  auto best = [&](const auto& precond) {
    SolverResult res;
    double seconds = 1e300;
    for (int rep = 0; rep < solves; ++rep) {
      blas::zero(x);
      SolverResult r;
      const double t = timed<ES>([&] { r = gcr(op, x, b, params, precond); });
      if (t < seconds) res = r, seconds = t;
    }
    return std::pair(res, seconds);
  };
  nlohmann::json r;
  auto record = [&](const auto& mg, double setup_s) {
    const long coarse_before = mg.coarse_iterations();
    const auto [res, seconds] = best(mg);
    r = {{"time_to_solution_s", seconds},
         {"setup_s", setup_s},
         {"iterations", res.iterations},
         {"coarse_iterations_per_solve", (mg.coarse_iterations() - coarse_before) / solves},
         {"true_residual", res.true_residual},
         {"converged", res.converged()},
         {"status", to_string(res.status)}};
  };
  if (o.precision == "mixed") {
    GaugeField<Kokkos::complex<float>, ES> uf(lattice);
    convert_gauge(uf, u);
    const PlainFullOperator<SingleTerm> opf(uf, bc, args...);
    std::optional<mg::TwoLevel<decltype(opf)>> mg;
    const double setup = timed<ES>([&] { mg.emplace(opf, uf, bc, p); });
    record(*mg, setup);
  } else {
    std::optional<mg::TwoLevel<decltype(op)>> mg;
    const double setup = timed<ES>([&] { mg.emplace(op, u, bc, p); });
    record(*mg, setup);
  }
  const auto [plain, plain_s] = best(NoPreconditioner{});
  r["gcr"] = {{"time_to_solution_s", plain_s}, {"iterations", plain.iterations}, {"converged", plain.converged()}};
  r["speedup_over_gcr"] = plain_s / r["time_to_solution_s"].get<double>();
  r["layout"] = "scalar";
  return r;
}
} // namespace

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
  const bool ok = with_execution_space(backend, [&]<class ES>() {
    if (o.op == "clover") r = time_mg_solve<ES, CloverTerm<double, ES>, CloverTerm<float, ES>>(o, c, mass, o.csw);
    else r = time_mg_solve<ES, WilsonMassTerm<double, ES>, WilsonMassTerm<float, ES>>(o, c, mass);
  });
  if (!ok) throw invalid_argument("backend '" + backend + "' is not enabled in this build");
  const auto d = (o.config.empty() ? o.lattice : cfg.lattice).dims();
  r["benchmark"] = o.op + "_mg_gcr";
  r["operator"] = o.op;
  r["lattice"] = {d[0], d[1], d[2], d[3]};
  r["gauge"] = o.config.empty() ? std::string("random (hot start, seed 2024)") : o.config;
  r["kappa"] = o.kappa;
  if (o.op == "clover") r["csw"] = o.csw;
  r["mg_block"] = o.mg_block;
  r["mg_nvec"] = o.mg_nvec;
  r["source"] = "random (seed 7)";
  r["precision"] = o.precision;
  r["tol"] = o.tol;
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  finish_record(r, "solver", backend);
  return r;
}

} // namespace kqcd::bench
