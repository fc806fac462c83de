// The hopping-term benchmarks' shared pieces: timing, rates, random fills and the dispatch to a
// backend and precision. Each family of cases is its own translation unit (bench_dslash.cpp: the
// dispatch and the Wilson hopping term on the plain layout; bench_dslash_simd.cpp: the SIMD layout;
// bench_dslash_local.cpp: the site-local operators; bench_dslash_colour.cpp: the colour-hop
// stencils), so that they compile side by side.
#pragma once

#include "bench.hpp"

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/stencil/stencil_launch.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <Kokkos_Graph.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace kqcd::bench {

/// Seconds per call and the iteration count: grows the count until one batch takes min_seconds
/// (on every rank: the count and the time are the slowest rank's).
template <class ES, class Call> std::pair<double, int> time_calls(const DslashOptions& opts, const Call& call) {
  call();
  ES().fence();
  int iters = 1;
  double seconds = 0;
  for (;;) {
    Kokkos::Timer t;
    for (int i = 0; i < iters; ++i) call();
    ES().fence();
    seconds = comm::max(opts.lattice, t.seconds());
    if (opts.quick || seconds >= opts.min_seconds || iters >= (1 << 20)) break;
    iters = std::max(2 * iters, int(iters * 1.2 * opts.min_seconds / std::max(seconds, 1e-6)));
  }
  return {seconds / iters, iters};
}

/// Where a distributed hopping term spends its time: a few calls with fences between the phases.
template <class ES, class Dslash, class Call>
nlohmann::json phase_times(const DslashOptions& opts, const Dslash& d, const Call& call, int n_rhs = 1) {
  if (!opts.lattice.distributed()) return nullptr;
  d.set_timing(true);
  d.reset_times();
  const int n = opts.quick ? 2 : 20;
  for (int i = 0; i < n; ++i) call();
  d.set_timing(false);
  const DslashTimes t = d.times();
  const double per = 1.0 / std::max(t.calls, 1);
  return {{"calls_timed", t.calls},
          {"pack_post_s", comm::max(opts.lattice, t.pack_post * per)},
          {"interior_s", comm::max(opts.lattice, t.interior * per)},
          {"wait_unpack_s", comm::max(opts.lattice, t.wait_unpack * per)},
          {"exterior_s", comm::max(opts.lattice, t.exterior * per)},
          {"halo_bytes_per_rank", d.halo_bytes(n_rhs)},
          {"halo_spin_projected", d.spin_projection()},
          {"halo_path", d.halo_path()},
          {"exterior_sites_per_rank", d.exterior_sites(0)}};
}

/// GFLOP/s and GB/s of `flops` and `bytes` per call on this rank, totalled over the ranks (the same
/// local volume on each); on a distributed lattice also this rank's rate and the overlap setting.
inline void add_rates(nlohmann::json& r, const Lattice& lat, double flops, double bytes, double per_call, bool overlap) {
  const double ranks = double(lat.global_volume() / lat.volume());
  r["gflops"] = ranks * flops / per_call * 1e-9;
  r["gbytes_per_s"] = ranks * bytes / per_call * 1e-9;
  if (lat.distributed()) {
    r["gflops_per_rank"] = flops / per_call * 1e-9;
    r["overlap"] = overlap;
  }
}

/// Random spinor of any storage: drawn in float or double, converted to half where needed.
template <class Spinor> void fill_random(Spinor& s, std::uint64_t seed) {
  if constexpr (blas::HalfStorage<Spinor> && !requires { s.geometry(); }) {
    CBSpinor<Kokkos::complex<float>, Ns, typename Spinor::execution_space> f(s.lattice(), s.parity());
    random_spinor(f, seed);
    blas::copy(s, f);
  } else {
    random_spinor(s, seed);
  }
}

/// The Wilson hopping term D on a block of opts.rhs random right-hand sides, one pass over the
/// links per call (GFLOP/s and GB/s count the opts.rhs filled ones): blocks as rows of the plain
/// layout or as SIMD lanes. make_block(d, parity, label): the block; One: the spinor each
/// right-hand side is drawn in; configure(d): the layout's own switches.
template <class ES, class D, class One, class MakeBlock, class Configure>
nlohmann::json time_wilson_block(const DslashOptions& opts, const MakeBlock& make_block, const Configure& configure) {
  typename D::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  D d(u, BoundaryPhases::antiperiodic_time());
  if (opts.sites_per_team > 0) d.set_sites_per_team(opts.sites_per_team);
  d.set_overlap(opts.overlap);
  d.set_spin_projection(opts.spin_projection);
  configure(d);
  auto in = make_block(d, 1, "bench_in"), out = make_block(d, 0, "bench_out");
  One one(opts.lattice, 1);
  for (int r = 0; r < opts.rhs; ++r) {
    fill_random(one, 42 + std::uint64_t(r));
    in.insert(r, one);
  }
  const auto call = [&] { d.apply(out, in, 1, 0); };
  const auto [per_call, iters] = time_calls<ES>(opts, call);
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"time_per_rhs_s", per_call / opts.rhs},
                   {"iterations", iters},
                   {"neighbours", D::layout_type::neighbour_mode == NeighbourMode::table ? "table" : "on-the-fly"},
                   {"sites_per_team", d.sites_per_team()},
                   {"launch", d.last_launch_config().to_string()}};
  add_rates(r, opts.lattice, d.flops(false, opts.rhs), d.bytes(false, opts.rhs), per_call, opts.overlap);
  if (opts.lattice.distributed()) r["phases"] = phase_times<ES>(opts, d, call, opts.rhs);
  return r;
}

/// --graph: the even-odd operator's two kernels captured once (with the shapes tuned by a first
/// apply) and submitted as one graph per call; empty without --graph. Only where `graphable` (recon
/// 18, single or double, the backend's neighbour mode: each graph compiles the kernels again), for
/// --operator eo, on one process.
template <class ES, bool graphable, class Op, class Vector>
std::optional<Kokkos::Experimental::Graph<ES>> eo_graph(const DslashOptions& opts, Op& op, Vector& out_e, Vector& in_e) {
  std::optional<Kokkos::Experimental::Graph<ES>> graph;
  if (!opts.graph) return graph;
  if (opts.op != "eo" || opts.lattice.distributed())
    throw invalid_argument("--graph times the even-odd operator (--operator eo) on one process");
  if constexpr (graphable) {
    op.apply(out_e, in_e, 1);
    graph = op.make_graph(out_e, in_e, 1);
    graph->instantiate();
    return graph;
  } else {
    throw invalid_argument("--graph runs with --recon 18, single or double, and the backend's neighbour mode");
  }
}

/// f.template operator()<ES>() on the execution space --backend names.
template <class F> nlohmann::json with_backend(const DslashOptions& opts, F&& f) {
  nlohmann::json r;
  on_backend(opts.backend, [&]<class ES>() { r = f.template operator()<ES>(); });
  return r;
}

/// f.template operator()<Real>() where the build compiles storage precision Real; otherwise
/// not_compiled, and f (a generic lambda) is never instantiated for Real, so none of its kernels is.
template <class Real, class F> nlohmann::json if_precision_compiled(const DslashOptions& opts, F&& f) {
  if constexpr (!precision_compiled<Real>) throw not_compiled("precision " + opts.precision, compiled_precisions, "KQCD_PRECISIONS");
  else return f.template operator()<Real>();
}

/// f.template operator()<Real>() for the storage precision --precision names (float, double or
/// kqcd::half; a precision the build leaves out: not_compiled).
template <class F> nlohmann::json with_precision(const DslashOptions& opts, F&& f) {
  auto with = [&]<class Real>() { return if_precision_compiled<Real>(opts, f); };
  if (opts.precision == "single") return with.template operator()<float>();
  if (opts.precision == "half") return with.template operator()<half>();
  return with.template operator()<double>();
}

/// f.template operator()<ES, Real>() for the backend and precision opts names.
template <class F> nlohmann::json with_backend_and_precision(const DslashOptions& opts, F&& f) {
  return with_precision(opts, [&]<class Real>() { return with_backend(opts, [&]<class ES>() { return f.template operator()<ES, Real>(); }); });
}

/// The families of cases, for the rank's part of the lattice (opts.lattice).
///@{
/// The Wilson hopping term or even-odd operator on the SIMD layout, where --layout takes it (null
/// where the plain layout runs).
nlohmann::json time_wilson_simd(const DslashOptions& opts);
/// A site-local operator's A^-1 H (clover, clover-dynamic, twisted, twisted-clover).
nlohmann::json time_local_dslash(const DslashOptions& opts);
/// A colour-hop stencil (staggered, improved-staggered, asqtad, hisq, laplace, covdev).
nlohmann::json time_colour_hop_dslash(const DslashOptions& opts);
/// The domain-wall operator (shamir, moebius): the preconditioned operator and its hopping term.
nlohmann::json time_domain_wall_dslash(const DslashOptions& opts);
///@}

/// Whether an operator is a domain-wall one (stencil/domain_wall.hpp).
inline bool domain_wall_operator(const std::string& op) { return op == "shamir" || op == "moebius"; }

/// Whether an operator is a colour-hop stencil (stencil/colour_hop_stencil.hpp).
inline bool colour_hop_operator(const std::string& op) {
  return op == "staggered" || op == "improved-staggered" || op == "asqtad" || op == "hisq" || op == "laplace" || op == "covdev";
}

} // namespace kqcd::bench
