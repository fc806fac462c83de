// Time to solution of staggered fermions (--operator staggered | improved-staggered): M x = b through
// the even-site system 4m^2 - D_eo D_oe, by CG for one mass or by multi-shift CG for several
// (--masses: staggered_multi_mass_solve, each mass refined to the tolerance), in double, single or
// mixed precision (the Krylov loop in single, reliable updates in double), on either layout, on a
// gauge file (its thin links) or a random gauge field; improved-staggered adds random long links. The
// source is random on the even sites.
#include "bench.hpp"
#include "solver_layout.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/gauge/staggered_links.hpp>
#include <kqcd/solvers/staggered_solve.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace kqcd::bench {

namespace {
template <class P, class ES> using PlainSolverLayout = PlainStencilLayout<P, ES>;
template <class P, class ES> using SIMDSolverLayout = SIMDStencilLayout<P, ES>;

/// The solve with outer operator op (the true residuals) and sloppy operator sop (the Krylov loops).
template <class ES, class Outer, class Sloppy>
nlohmann::json solve_staggered(const SolverOptions& o, const Outer& op, const Sloppy& sop, const SolverParams& params) {
  // A random source on the even sites (as a point or even-wall source is): one multi-shift solve
  // serves every mass (a source on both parities takes two, staggered_multi_mass_solve).
  auto b = op.create_field("b");
  random_spinor(b[0], 5);
  blas::zero(b[1]);
  std::vector<typename Outer::field_type> x;
  for (std::size_t i = 0; i < o.masses.size(); ++i) x.push_back(op.create_field("x"));
  auto once = [&] {
    MultiShiftResult res;
    const double t = fenced_seconds<ES>([&] {
      if (o.masses.size() > 1) {
        res = staggered_multi_mass_solve(op, sop, x, b, o.masses, params);
      } else { // one mass: CG with reliable updates on the operator's own system
        auto be = op.create_vector("be");
        op.prepare(be, b);
        blas::zero(x[0][0]);
        res.shifts = {cg(op, sop, x[0][0], be, params)};
        op.reconstruct(x[0], b);
      }
    });
    return std::pair(res, t);
  };
  auto [res, seconds] = once();
  for (int rep = 0; rep < (o.quick ? 0 : 3); ++rep) { // best of three after the warm-up
    auto [again, t] = once();
    if (t < seconds) std::tie(res, seconds) = std::pair(again, t);
  }
  int iterations = res.iterations; // the shared loops' (multi-shift), then each mass's own
  nlohmann::json masses = nlohmann::json::array();
  for (std::size_t i = 0; i < o.masses.size(); ++i) {
    const SolverResult& s = res.shifts[i];
    iterations += s.iterations;
    masses.push_back({{"mass", o.masses[i]},
                      {"converged", s.converged()},
                      {"status", to_string(s.status)},
                      {o.masses.size() > 1 ? "refinement_iterations" : "iterations", s.iterations},
                      {"residual_updates", s.residual_updates},
                      {"true_residual", s.true_residual}});
  }
  // One application of the even-site operator per Krylov iteration (the shared loops' and each
  // mass's refinement); the linear algebra and the true residuals are not counted.
  const double flops = double(iterations) * op.flops();
  const double ranks = double(op.lattice().global_volume() / op.lattice().volume());
  return {{"time_to_solution_s", seconds},
          {"iterations", res.iterations},
          {"residual_updates", res.residual_updates},
          {"total_iterations", iterations},
          {"converged", res.converged()},
          {"masses", masses},
          {"gflops", ranks * flops / seconds * 1e-9},
          {"layout", Outer::layout_type::name},
          {"flops_note", "per iteration one application of 4m^2 - D_eo D_oe: " + std::to_string(int(op.flops() / op.lattice().cb_volume())) +
                             " flops per even site (QUDA's staggered count); linear algebra not counted"}};
}

template <class ES> nlohmann::json time_staggered(const SolverOptions& o, const HostGaugeConfig* cfg) {
  const Lattice lattice = cfg ? cfg->lattice : o.lattice;
  GaugeField<Kokkos::complex<double>, ES> u(lattice), w;
  if (cfg) import_gauge(u, cfg->links, HostGaugeOrder::milc);
  else random_gauge(u, 2024);
  const bool naik = improved_staggered_operator(o.op);
  if (o.op == "improved-staggered") {
    w = GaugeField<Kokkos::complex<double>, ES>(lattice);
    random_gauge(w, 2025);
  } else if (naik) {
    const auto links = make_staggered_links(u, StaggeredLinkParams{parse_staggered_action(o.op), 1.0, 0.0});
    u = links.fat;
    w = links.lng;
  }
  GaugeField<Kokkos::complex<float>, ES> uf, wf;
  if (o.precision != "double") {
    uf = GaugeField<Kokkos::complex<float>, ES>(lattice);
    convert_gauge(uf, u);
    if (naik) {
      wf = GaugeField<Kokkos::complex<float>, ES>(lattice);
      convert_gauge(wf, w);
    }
  }
  const auto bc = BoundaryPhases::antiperiodic_time();
  const double m0 = *std::min_element(o.masses.begin(), o.masses.end()); // the operators' mass: the base system's
  SolverParams params;
  params.tol = o.precision == "single" ? std::max(o.tol, 1e-6) : o.tol;
  params.reliable_delta = o.reliable_delta;
  params.max_iter = 20000;
  params.label = "bench";
  const bool simd = choose_simd_layout<ES>(o.layout, [&] { return solver_simd_misfit<ES>(o.precision, lattice, naik ? 3 : 1); });
  auto on = [&]<template <class, class> class Layout>() -> nlohmann::json {
    using Od = StaggeredEvenOddOperator<double, ES, Layout<double, ES>>;
    using Of = StaggeredEvenOddOperator<float, ES, Layout<float, ES>>;
    if (o.precision == "single") {
      const Of opf(uf, bc, m0, naik ? &wf : nullptr);
      return solve_staggered<ES>(o, opf, opf, params);
    }
    const Od opd(u, bc, m0, naik ? &w : nullptr);
    if (o.precision == "double") return solve_staggered<ES>(o, opd, opd, params);
    const Of opf(uf, bc, m0, naik ? &wf : nullptr);
    return solve_staggered<ES>(o, opd, opf, params);
  };
  if constexpr (ArchTraits<ES>::simd_layout)
    if (simd) return on.template operator()<SIMDSolverLayout>();
  return on.template operator()<PlainSolverLayout>();
}
} // namespace

nlohmann::json run_staggered_solver(const SolverOptions& o, double copy_gbytes_per_s) {
  if (o.precision != "double" && o.precision != "single" && o.precision != "mixed")
    throw invalid_argument("--operator " + o.op + " solves in double, single or mixed precision, found " + o.precision);
  if (o.solver != "cg" || o.rhs != 1 || o.recon != 18)
    throw invalid_argument("--operator " + o.op + " solves with cg (multi-shift for several --masses), one right-hand side and recon 18");
  if (o.masses.empty()) throw invalid_argument("--operator " + o.op + " needs at least one mass (--masses)");
  for (const double m : o.masses)
    if (!(m > 0.0)) throw invalid_argument("--masses: every mass must be positive, found " + std::to_string(m));
  const std::string backend = backend_or_default(o.backend);
  const HostGaugeConfig cfg = solver_config(o);
  nlohmann::json r;
  on_backend(backend, [&]<class ES>() { r = time_staggered<ES>(o, o.config.empty() ? nullptr : &cfg); });
  const auto d = (o.config.empty() ? o.lattice : cfg.lattice).dims();
  r["benchmark"] = o.op + (o.masses.size() > 1 ? "_eo_multi_shift_cg" : "_eo_cg");
  r["operator"] = o.op;
  r["lattice"] = {d[0], d[1], d[2], d[3]};
  r["gauge"] = o.config.empty() ? std::string("random (hot start, seed 2024)") : o.config;
  if (o.op == "improved-staggered") r["long_links"] = "random (seed 2025)";
  if (o.op == "asqtad" || o.op == "hisq") r["links"] = o.op + " links of the gauge field (u0 = 1, Naik epsilon 0)";
  r["precision"] = o.precision;
  r["tol"] = o.precision == "single" ? std::max(o.tol, 1e-6) : o.tol;
  if (o.precision == "mixed") r["reliable_delta"] = o.reliable_delta;
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  finish_record(r, "solver", backend);
  return r;
}

} // namespace kqcd::bench
