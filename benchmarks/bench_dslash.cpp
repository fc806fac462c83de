// Wilson hopping term and even-odd operator throughput, and the hopping term with the site-local
// term of the preconditioned clover / twisted-mass / twisted-clover operators (A^-1 H on one parity,
// QUDA's "Dslash" count: clover 1872, twisted mass 1368, twisted clover 1872 flops per site), on the
// plain layout or the SIMD layout (--layout; auto: SIMD where the backend has it and the lattice splits).
// Every case also runs in half precision (16-bit spinors, links and clover blocks; on either
// layout); the Wilson cases also with gauge reconstruct-12/8 and with a block of
// right-hand sides (multi-RHS hopping term); bytes count the stored sizes (no-reuse model).
// The colour-hop stencils (--operator staggered, improved-staggered, asqtad, hisq, laplace, covdev) run on colour
// vectors on either layout, with bytes also in the perfect-reuse model. This file: the dispatch and
// the Wilson cases on the plain layout; the other families beside it (dslash_cases.hpp).
#include "dslash_cases.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/stencil/local_operators.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <map>
#include <optional>

namespace kqcd::bench {

namespace {
template <class ES, class Real, NeighbourMode mode, class Recon = Recon18>
nlohmann::json time_dslash(const DslashOptions& opts) {
  using Op = WilsonEOOperator<Real, ES, mode, Recon>;
  typename Op::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, BoundaryPhases::antiperiodic_time(), 0.1);
  if (opts.sites_per_team > 0) op.set_sites_per_team(opts.sites_per_team);
  op.set_overlap(opts.overlap);
  op.set_spin_projection(opts.spin_projection);
  typename Op::vector_type in(opts.lattice, 1, "bench_in"), out(opts.lattice, 0, "bench_out");
  typename Op::vector_type in_e(opts.lattice, 0, "bench_in_e"), out_e(opts.lattice, 0, "bench_out_e");
  fill_random(in, 42);
  fill_random(in_e, 43);
  const bool eo = opts.op == "eo";
  auto graph =
      eo_graph<ES, std::is_same_v<Recon, Recon18> && mode == ArchTraits<ES>::neighbour_mode && !std::is_same_v<Real, kqcd::half>>(
          opts, op, out_e, in_e);
  auto call = [&] {
    if (graph) graph->submit();
    else if (eo) op.apply(out_e, in_e, 1);
    else op.dslash().apply(out, in, 1, 0);
  };
  const auto [per_call, iters] = time_calls<ES>(opts, call);
  // Flops and bytes per call by the conventions: the hopping term counts 1320 per site; the
  // even-odd operator two hopping terms, one with xpay.
  const double flops = eo ? op.flops() : op.dslash().flops(false);
  const double bytes = eo ? op.dslash().bytes(false) + op.dslash().bytes(true) : op.dslash().bytes(false);
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"iterations", iters},
                   {"neighbours", mode == NeighbourMode::table ? "table" : "on-the-fly"},
                   {"sites_per_team", op.dslash_sites_per_team()},
                   {"launch", op.dslash().last_launch_config().to_string()},
                   {"graph", opts.graph}};
  add_rates(r, opts.lattice, flops, bytes, per_call, opts.overlap);
  if (opts.lattice.distributed()) r["phases"] = phase_times<ES>(opts, op.dslash(), call);
  return r;
}

/// The hopping term on a block of opts.rhs right-hand sides: one pass over the links per call.
template <class ES, class Real, class Recon> nlohmann::json time_multi(const DslashOptions& opts) {
  using D = WilsonDslash<Real, ES, ArchTraits<ES>::neighbour_mode, Recon>;
  auto configure = [&](D& d) {
    if (opts.block_launch.empty()) return;
    // The shapes the tuner tries, at one size: 256 threads on the GPU, 8 sites per team on the CPU.
    const bool gpu = ArchTraits<ES>::max_team_size > 1;
    const int spt = gpu ? 256 / detail::vector_lanes(opts.rhs) : 8;
    const std::map<std::string, LaunchConfig> shapes = {{"team", {PolicyKind::team, gpu ? spt : 1, spt}},
                                                        {"team-scratch", {PolicyKind::team_scratch, gpu ? spt : 1, spt}},
                                                        {"mdrange", {PolicyKind::mdrange, 0, spt}},
                                                        {"mdrange-pairs", {PolicyKind::mdrange, 0, std::max(1, 128 / ((opts.rhs + 1) / 2)), 2}},
                                                        {"range", {PolicyKind::range, 0, 0}}};
    d.set_block_launch(shapes.at(opts.block_launch));
  };
  auto make_block = [&](const D&, int parity, const char* label) {
    return typename D::multi_spinor_type(opts.lattice, parity, opts.rhs, label);
  };
  return time_wilson_block<ES, D, typename D::spinor_type>(opts, make_block, configure);
}

template <class ES, class Real> nlohmann::json time_dslash_layout(const DslashOptions& opts);

template <class ES, class Real> nlohmann::json time_dslash_mode(const DslashOptions& opts) {
  if constexpr (!ArchTraits<ES>::simd_layout)
    if (opts.layout == "simd")
      throw invalid_argument(std::string("--layout simd: backend ") + ES::name() + " has no SIMD layout (host backends only)");
  auto r = time_dslash_layout<ES, Real>(opts);
  r["layout"] = "scalar";
  return r;
}

template <class ES, class Real> nlohmann::json time_dslash_layout(const DslashOptions& opts) {
  const std::string& n = opts.neighbours;
  constexpr NeighbourMode native = ArchTraits<ES>::neighbour_mode;
  // Compression, half precision and multi-RHS run in the backend's neighbour mode only (compile time).
  if (opts.recon != 18 || std::is_same_v<Real, half> || opts.rhs > 1) {
    if (n != "auto") throw invalid_argument("--recon 12/8, --precision half and --rhs > 1 run with --neighbours auto only");
    if (opts.rhs > 1 && opts.op != "dslash" && opts.op != "wilson")
      throw invalid_argument("--rhs > 1 runs with --operator dslash only");
    auto with_recon = [&]<class Recon>() -> nlohmann::json {
      return opts.rhs > 1 ? time_multi<ES, Real, Recon>(opts) : time_dslash<ES, Real, native, Recon>(opts);
    };
    if (opts.recon == 12) return if_recon_compiled<Recon12>(with_recon);
    if (opts.recon == 8) return if_recon_compiled<Recon8>(with_recon);
    return with_recon.template operator()<Recon18>();
  }
  if constexpr (!std::is_same_v<Real, kqcd::half>) {
    if (n == "table") return time_dslash<ES, Real, NeighbourMode::table>(opts);
    if (n == "on-the-fly") return time_dslash<ES, Real, NeighbourMode::on_the_fly>(opts);
    if (n == "auto") return time_dslash<ES, Real, ArchTraits<ES>::neighbour_mode>(opts);
  }
  throw invalid_argument("neighbours '" + n + "': expected auto, table or on-the-fly");
}
} // namespace

nlohmann::json run_dslash(const DslashOptions& opts, double copy_gbytes_per_s) {
  const std::string backend = backend_or_default(opts.backend);
  const bool wilson = opts.op == "dslash" || opts.op == "wilson" || opts.op == "eo";
  const bool colour_hops = colour_hop_operator(opts.op), dwf = domain_wall_operator(opts.op);
  if (!wilson && !colour_hops && !dwf && opts.op != "clover" && opts.op != "clover-dynamic" && opts.op != "twisted" &&
      opts.op != "twisted-clover")
    throw invalid_argument("operator '" + opts.op + "': expected dslash (or wilson), eo, clover, clover-dynamic, twisted, twisted-clover, "
                           "staggered, improved-staggered, asqtad, hisq, laplace, covdev, shamir or moebius");
  if (opts.layout != "auto" && opts.layout != "scalar" && opts.layout != "simd")
    throw invalid_argument("layout '" + opts.layout + "': expected auto, scalar or simd");
  if (opts.precision != "single" && opts.precision != "double" && opts.precision != "half")
    throw invalid_argument("precision '" + opts.precision + "': expected single, double or half");
  // The improved staggered operators' --recon is their long links' (QUDA's): the fat links stay whole.
  if (improved_staggered_operator(opts.op)) {
    if (opts.recon != 18 && opts.recon != 13 && opts.recon != 9)
      throw invalid_argument("recon " + std::to_string(opts.recon) + " of the long links of --operator " + opts.op +
                             ": expected 18, 13 or 9 (the fat links are stored whole)");
  } else if (opts.recon != 18 && opts.recon != 12 && opts.recon != 8) {
    throw invalid_argument("recon " + std::to_string(opts.recon) + ": expected 18, 12 or 8 (13 and 9: long links of asqtad, hisq or improved-staggered)");
  }
  constexpr int max_rhs = MultiCBSpinor<Kokkos::complex<float>>::max_rhs;
  if (opts.rhs < 1 || opts.rhs > max_rhs) throw invalid_argument("rhs " + std::to_string(opts.rhs) + ": expected 1 to " + std::to_string(max_rhs));
  if (!wilson && !colour_hops && (opts.recon != 18 || opts.rhs > 1))
    throw invalid_argument("operator '" + opts.op + "' runs with --recon 18 and --rhs 1 only");
  nlohmann::json r;
  // On MPI ranks the lattice is split over a process grid; the timed kernels see the local part.
  const ProcessGrid grid(opts.lattice, opts.grid);
  DslashOptions local = opts;
  local.lattice = grid.lattice();
  if (colour_hops) r = time_colour_hop_dslash(local);
  else if (dwf) r = time_domain_wall_dslash(local);
  else if (!wilson) r = time_local_dslash(local);
  else {
    r = time_wilson_simd(local);
    if (r.is_null()) r = with_backend_and_precision(local, [&]<class ES, class Real>() { return time_dslash_mode<ES, Real>(local); });
  }
  const auto dims = opts.lattice.dims();
  // The staggered hopping term with fat and Naik links is QUDA's asqtad Dslash (HISQ's too): its name there.
  r["benchmark"] = opts.op == "eo"                   ? "wilson_eo_operator"
                   : wilson                          ? "wilson_dslash"
                   : improved_staggered_operator(opts.op) ? (opts.op == "hisq" ? "hisq_dslash" : "asqtad_dslash")
                   : dwf                             ? opts.op + "_eo_operator"
                                                     : opts.op + "_dslash";
  r["case"] = opts.op;
  r["lattice"] = {dims[0], dims[1], dims[2], dims[3]};
  r["precision"] = opts.precision;
  r["ranks"] = grid.size();
  r["grid"] = grid.grid();
  if (grid.size() > 1) {
    r["transport"] = comm::transport_name(grid.transport());
    r["global_sum_us"] = time_global_sums(local.lattice, opts.backend, opts.quick);
  }
  r["backend"] = backend;
  r["byte_model"] = wilson ? "no-reuse (stored sizes: links as reconstructed reals, spinors 24 reals + half norm)"
                   : colour_hops ? "no-reuse (a link and a colour vector per hop; gbytes_per_s_reuse: each once per site)"
                   : dwf ? "no-reuse (stored sizes: per hop 8 links per 4D site, 8 neighbour rows and 1 written per 5D site; per "
                           "fifth-dimension polynomial of n terms n rows read and 1 written per 5D site)"
                         : "no-reuse";
  r["recon"] = opts.recon;
  if (improved_staggered_operator(opts.op)) r["fat_recon"] = 18;
  r["rhs"] = opts.rhs;
  if (wilson) r["flops_per_site"] = opts.op == "eo" ? 2688 : 1320;
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  r["percent_of_copy"] = 100.0 * r["gbytes_per_s"].get<double>() / copy_gbytes_per_s;
  if (colour_hops) r["percent_of_copy_reuse"] = 100.0 * r["gbytes_per_s_reuse"].get<double>() / copy_gbytes_per_s;
  finish_record(r, "dslash", backend);
  return r;
}

} // namespace kqcd::bench
