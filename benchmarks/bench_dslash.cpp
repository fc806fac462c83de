// Wilson hopping term and even-odd operator throughput.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/ops/wilson_operator.hpp>

#include <cstdio>

namespace kqcd::bench {

namespace {
template <class ES, class Real, NeighbourMode mode>
nlohmann::json time_dslash(const DslashOptions& opts) {
  using Op = WilsonEOOperator<Real, ES, mode>;
  typename Op::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, 0.1, BoundaryPhases::antiperiodic_time());
  if (opts.sites_per_team > 0) op.set_sites_per_team(opts.sites_per_team);
  typename Op::vector_type in(opts.lattice, 1, "bench_in"), out(opts.lattice, 0, "bench_out");
  typename Op::vector_type in_e(opts.lattice, 0, "bench_in_e"), out_e(opts.lattice, 0, "bench_out_e");
  random_spinor(in, 42);
  random_spinor(in_e, 43);
  const bool eo = opts.op == "eo";
  auto call = [&] {
    if (eo) op.apply(out_e, in_e, 1);
    else op.dslash().apply(out, in, 1, 0);
  };
  call();
  ES().fence();
  // Grow the iteration count until one batch takes at least min_seconds.
  int iters = 1;
  double seconds = 0;
  for (;;) {
    Kokkos::Timer t;
    for (int i = 0; i < iters; ++i) call();
    ES().fence();
    seconds = t.seconds();
    if (opts.quick || seconds >= opts.min_seconds || iters >= (1 << 20)) break;
    iters = std::max(2 * iters, int(iters * 1.2 * opts.min_seconds / std::max(seconds, 1e-6)));
  }
  const double per_call = seconds / iters;
  // Flops and bytes per call by the conventions: the hopping term counts 1320 per site; the
  // even-odd operator two hopping terms, one with xpay.
  const double flops = eo ? op.flops() : op.dslash().flops(false);
  const double bytes = eo ? op.dslash().bytes(false) + op.dslash().bytes(true) : op.dslash().bytes(false);
  return {{"time_per_call_s", per_call},
          {"iterations", iters},
          {"gflops", flops / per_call * 1e-9},
          {"gbytes_per_s", bytes / per_call * 1e-9},
          {"neighbours", mode == NeighbourMode::table ? "table" : "on-the-fly"},
          {"sites_per_team", op.dslash_sites_per_team()}};
}

template <class ES, class Real> nlohmann::json time_dslash_mode(const DslashOptions& opts) {
  const std::string& n = opts.neighbours;
  if (n == "table") return time_dslash<ES, Real, NeighbourMode::table>(opts);
  if (n == "on-the-fly") return time_dslash<ES, Real, NeighbourMode::on_the_fly>(opts);
  if (n == "auto") return time_dslash<ES, Real, ArchTraits<ES>::neighbour_mode>(opts);
  throw invalid_argument("neighbours '" + n + "': expected auto, table or on-the-fly");
}
} // namespace

nlohmann::json run_dslash(const DslashOptions& opts, double copy_gbytes_per_s) {
  const std::string backend = opts.backend.empty() ? std::string(Kokkos::DefaultExecutionSpace::name()) : opts.backend;
  if (opts.op != "dslash" && opts.op != "eo") throw invalid_argument("operator '" + opts.op + "': expected dslash or eo");
  if (opts.precision != "single" && opts.precision != "double")
    throw invalid_argument("precision '" + opts.precision + "': expected single or double");
  nlohmann::json r;
  const bool found = with_execution_space(backend, [&]<class ES>() {
    r = opts.precision == "single" ? time_dslash_mode<ES, float>(opts) : time_dslash_mode<ES, double>(opts);
  });
  if (!found) throw invalid_argument("backend '" + backend + "' is not enabled in this build");
  const auto dims = opts.lattice.dims();
  r["benchmark"] = opts.op == "eo" ? "wilson_eo_operator" : "wilson_dslash";
  r["lattice"] = {dims[0], dims[1], dims[2], dims[3]};
  r["precision"] = opts.precision;
  r["backend"] = backend;
  r["byte_model"] = "no-reuse";
  r["flops_per_site"] = opts.op == "eo" ? 2688 : 1320;
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  r["percent_of_copy"] = 100.0 * r["gbytes_per_s"].get<double>() / copy_gbytes_per_s;
  r["provenance"] = to_json(make_provenance(backend));
  return r;
}

} // namespace kqcd::bench
