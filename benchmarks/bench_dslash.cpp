// Wilson hopping term and even-odd operator throughput, and the hopping term with the site-local
// term of the preconditioned clover / twisted-mass / twisted-clover operators (A^-1 H on one parity,
// QUDA's "Dslash" count: clover 1872, twisted mass 1368, twisted clover 1872 flops per site), on the
// plain layout or the SIMD layout (--layout; auto: SIMD where the backend has it and the lattice splits).
// Every case also runs in half precision (16-bit spinors, links and clover blocks; on either
// layout); the Wilson cases also with gauge reconstruct-12/8 and with a block of
// right-hand sides (multi-RHS hopping term); bytes count the stored sizes (no-reuse model).
// The colour-hop stencils (--operator staggered, improved-staggered, laplace, covdev) run on colour
// vectors on either layout, with bytes also in the perfect-reuse model.
#include "bench.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/stencil/operators.hpp>
#include <kqcd/stencil/simd_wilson.hpp>
#include <kqcd/stencil/staggered.hpp>

#include <bit>
#include <cstdio>
#include <map>
#include <optional>

namespace kqcd::bench {

namespace {
/// The largest value over the ranks of a distributed lattice (the slowest rank sets the pace).
double max_over_ranks(const Lattice& lat, double v) {
#if KQCD_HAVE_MPI
  if (lat.distributed()) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, lat.communicator());
#else
  (void)lat;
#endif
  return v;
}

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
    seconds = max_over_ranks(opts.lattice, t.seconds());
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
          {"pack_post_s", max_over_ranks(opts.lattice, t.pack_post * per)},
          {"interior_s", max_over_ranks(opts.lattice, t.interior * per)},
          {"wait_unpack_s", max_over_ranks(opts.lattice, t.wait_unpack * per)},
          {"exterior_s", max_over_ranks(opts.lattice, t.exterior * per)},
          {"halo_bytes_per_rank", d.halo_bytes(n_rhs)},
          {"halo_spin_projected", d.spin_projection()},
          {"halo_path", d.halo_path()},
          {"exterior_sites_per_rank", d.exterior_sites(0)}};
}

/// GFLOP/s and GB/s of `flops` and `bytes` per call on this rank, totalled over the ranks (the same
/// local volume on each); on a distributed lattice also this rank's rate and the overlap setting.
void add_rates(nlohmann::json& r, const Lattice& lat, double flops, double bytes, double per_call, bool overlap) {
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

/// out_o = A_oo^-1 H_oe in_e with the site-local term of Op's term (m = 0.1, c_sw = 1, mu = 0.1), Op
/// an EvenOddOperator on the plain or the SIMD layout.
template <class Op, class... Args> nlohmann::json time_local(const DslashOptions& opts, Args... args) {
  using Term = typename Op::term_type;
  using ES = typename Term::execution_space;
  typename Op::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, BoundaryPhases::antiperiodic_time(), args...);
  op.set_overlap(opts.overlap);
  op.set_spin_projection(opts.spin_projection);
  constexpr bool plain = !requires { op.layout().geometry(); };
  if (opts.sites_per_team > 0) op.set_sites_per_team(opts.sites_per_team);
  auto in = op.create_spinor(0, "bench_in"), out = op.create_spinor(1, "bench_out");
  if constexpr (plain) {
    fill_random(in, 42);
  } else {
    CBSpinor<Kokkos::complex<compute_t<typename Term::precision>>, Ns, ES> plain_in(opts.lattice, 0);
    random_spinor(plain_in, 42);
    op.layout().to_layout(in, plain_in);
  }
  const auto [per_call, iters] = time_calls<ES>(opts, [&] { op.apply_hopping_inverse(out, in, 1, 1); });
  nlohmann::json r = {{"time_per_call_s", per_call},
                      {"iterations", iters},
                      {"flops_per_site", WilsonDslash<double>::flops_per_site + Term::local_flops},
                      {"site_local_memory_bytes", op.memory_bytes()}};
  add_rates(r, opts.lattice, op.hopping_flops(), op.hopping_bytes(), per_call, opts.overlap);
  if constexpr (plain) {
    constexpr NeighbourMode mode = ArchTraits<ES>::neighbour_mode;
    r.update({{"layout", "scalar"},
              {"neighbours", mode == NeighbourMode::table ? "table" : "on-the-fly"},
              {"sites_per_team", op.dslash_sites_per_team()},
              {"launch", op.dslash().last_launch_config().to_string()}});
  } else {
    const auto split = op.layout().geometry().split();
    r.update({{"layout", "simd"},
              {"isa", Op::dslash_type::simd_type::isa::name},
              {"simd_lanes", Op::dslash_type::simd_type::lanes},
              {"lane_split", {split[0], split[1], split[2], split[3]}},
              {"neighbours", "table"},
              {"sites_per_team", op.dslash_sites_per_team()},
              {"launch", op.dslash().last_launch_config().to_string()}});
  }
  return r;
}

/// Whether a site-local operator runs on the SIMD layout: --layout simd (refused where it cannot),
/// or auto where the backend has the layout and the lattice splits into its lanes.
template <class Term> bool local_on_simd(const DslashOptions& opts) {
  using ES = typename Term::execution_space;
  return choose_simd_layout<ES>(opts.layout, [&] { return simd_split_misfit<ES, typename Term::precision>(opts.lattice); });
}

template <bool compiled, class Term, class... Args> nlohmann::json time_local_if(const DslashOptions& opts, Args... args) {
  if constexpr (compiled) {
    using ES = typename Term::execution_space;
    return visit_layout<ES>(local_on_simd<Term>(opts), [&]<class Tag>(Tag) {
      return time_local<EvenOddOperator<Term, typename Tag::template layout<typename Term::precision, ES>>>(opts, args...);
    });
  } else {
    ((void)args, ...);
    throw not_compiled("operator " + opts.op, compiled_operators, "KQCD_OPERATORS");
  }
}

template <class ES, class Real> nlohmann::json time_local_op(const DslashOptions& opts) {
  if (opts.neighbours != "auto")
    throw invalid_argument("--operator " + opts.op + " runs with the backend's neighbour mode only (--neighbours auto)");
  const double mass = 0.1, csw = 1.0, mu = 0.1;
  if (opts.op == "clover") return time_local_if<operator_compiled("clover"), CloverTerm<Real, ES>>(opts, mass, csw);
  if (opts.op == "clover-dynamic")
    return time_local_if<operator_compiled("clover-dynamic"), CloverTerm<Real, ES, CloverInverse::dynamic>>(opts, mass, csw);
  if (opts.op == "twisted") return time_local_if<operator_compiled("twisted"), TwistedMassTerm<Real, ES>>(opts, mass, mu);
  return time_local_if<operator_compiled("twisted-clover"), TwistedCloverTerm<Real, ES>>(opts, mass, csw, mu);
}

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
  // --graph: the operator's two kernels captured once (with the shapes tuned by a first apply) and
  // submitted as one graph per call.
  // Only for recon 18 in the backend's neighbour mode: each graph compiles the kernels again.
  std::optional<Kokkos::Experimental::Graph<ES>> graph;
  if (opts.graph) {
    if (!eo || opts.lattice.distributed())
      throw invalid_argument("--graph times the even-odd operator (--operator eo) on one process");
    if constexpr (std::is_same_v<Recon, Recon18> && mode == ArchTraits<ES>::neighbour_mode && !std::is_same_v<Real, kqcd::half>) {
      op.apply(out_e, in_e, 1);
      graph = op.make_graph(out_e, in_e, 1);
      graph->instantiate();
    } else {
      throw invalid_argument("--graph runs with --recon 18, single or double, and the backend's neighbour mode");
    }
  }
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
  typename D::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  D d(u, BoundaryPhases::antiperiodic_time());
  if (opts.sites_per_team > 0) d.set_sites_per_team(opts.sites_per_team);
  d.set_overlap(opts.overlap);
  d.set_spin_projection(opts.spin_projection);
  if (!opts.block_launch.empty()) {
    // The shapes the tuner tries, at one size: 256 threads on the GPU, 8 sites per team on the CPU.
    const bool gpu = ArchTraits<ES>::max_team_size > 1;
    const int spt = gpu ? 256 / detail::vector_lanes(opts.rhs) : 8;
    const std::map<std::string, LaunchConfig> shapes = {{"team", {PolicyKind::team, gpu ? spt : 1, spt}},
                                                        {"team-scratch", {PolicyKind::team_scratch, gpu ? spt : 1, spt}},
                                                        {"mdrange", {PolicyKind::mdrange, 0, spt}},
                                                        {"mdrange-pairs", {PolicyKind::mdrange, 0, std::max(1, 128 / ((opts.rhs + 1) / 2)), 2}},
                                                        {"range", {PolicyKind::range, 0, 0}}};
    d.set_block_launch(shapes.at(opts.block_launch));
  }
  typename D::multi_spinor_type in(opts.lattice, 1, opts.rhs, "bench_in"), out(opts.lattice, 0, opts.rhs, "bench_out");
  typename D::spinor_type one(opts.lattice, 1);
  for (int r = 0; r < opts.rhs; ++r) {
    fill_random(one, 42 + std::uint64_t(r));
    in.insert(r, one);
  }
  const auto call = [&] { d.apply(out, in, 1, 0); };
  const auto [per_call, iters] = time_calls<ES>(opts, call);
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"time_per_rhs_s", per_call / opts.rhs},
                   {"iterations", iters},
                   {"neighbours", ArchTraits<ES>::neighbour_mode == NeighbourMode::table ? "table" : "on-the-fly"},
                   {"sites_per_team", d.sites_per_team()},
                   {"launch", d.last_launch_config().to_string()}};
  add_rates(r, opts.lattice, d.flops(false, opts.rhs), d.bytes(false, opts.rhs), per_call, opts.overlap);
  if (opts.lattice.distributed()) r["phases"] = phase_times<ES>(opts, d, call, opts.rhs);
  return r;
}

/// The same on the virtual-node SIMD layout (fields/simd_fields.hpp).
/// A block of right-hand sides, one per SIMD lane (SIMDBlockWilsonDslash): opts.rhs of the
/// register's lanes are filled (the rest compute zeros); GFLOP/s and GB/s count the filled ones.
/// P: float, double or half (16-bit lanes, float links); Recon: how the links are stored.
template <class ES, class P, class Recon> nlohmann::json time_block_simd(const DslashOptions& opts) {
  using D = SIMDBlockWilsonDslash<P, ES, Recon>;
  using Real = compute_t<P>;
  GaugeField<Kokkos::complex<Real>, ES> u(opts.lattice);
  random_gauge(u, 1234);
  D d(u, BoundaryPhases::antiperiodic_time());
  d.set_overlap(opts.overlap);
  d.set_spin_projection(opts.spin_projection);
  if (opts.sites_per_team > 0) d.set_sites_per_team(opts.sites_per_team);
  auto in = d.create_spinor(1, "bench_in"), out = d.create_spinor(0, "bench_out");
  CBSpinor<Kokkos::complex<Real>, Ns, ES> one(opts.lattice, 1);
  for (int r = 0; r < opts.rhs; ++r) {
    fill_random(one, 42 + std::uint64_t(r));
    in.insert(r, one);
  }
  const auto call = [&] { d.apply(out, in, 1, 0); };
  const auto [per_call, iters] = time_calls<ES>(opts, call);
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"time_per_rhs_s", per_call / opts.rhs},
                   {"iterations", iters},
                   {"layout", "simd (right-hand sides in lanes)"},
                   {"lanes", D::n_rhs},
                   {"isa", D::simd_type::isa::name},
                   {"neighbours", "table"},
                   {"sites_per_team", d.sites_per_team()},
                   {"launch", d.last_launch_config().to_string()}};
  add_rates(r, opts.lattice, d.flops(false, opts.rhs), d.bytes(false, opts.rhs), per_call, opts.overlap);
  if (opts.lattice.distributed()) r["phases"] = phase_times<ES>(opts, d, call, opts.rhs);
  return r;
}

/// P: float, double or half (16-bit spinors and links on float lanes); mode: the vector sites'
/// neighbours.
template <class ES, class P, class Recon, NeighbourMode mode = ArchTraits<ES>::neighbour_mode>
nlohmann::json time_dslash_simd(const DslashOptions& opts) {
  using Op = EvenOddOperator<WilsonMassTerm<P, ES>, SIMDLayout<P, ES, Recon, mode>>;
  using Real = compute_t<P>;
  GaugeField<Kokkos::complex<Real>, ES> u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, BoundaryPhases::antiperiodic_time(), 0.1);
  op.set_overlap(opts.overlap);
  op.set_spin_projection(opts.spin_projection);
  if (opts.sites_per_team > 0) op.set_sites_per_team(opts.sites_per_team);
  const auto& d = op.dslash();
  auto in = d.create_spinor(1, "bench_in"), out = d.create_spinor(0, "bench_out");
  auto in_e = op.create_vector("bench_in_e"), out_e = op.create_vector("bench_out_e");
  CBSpinor<Kokkos::complex<Real>, Ns, ES> tmp_o(opts.lattice, 1), tmp_e(opts.lattice, 0);
  random_spinor(tmp_o, 42);
  random_spinor(tmp_e, 43);
  to_simd(in, tmp_o);
  to_simd(in_e, tmp_e);
  const bool eo = opts.op == "eo";
  // --graph: as time_dslash's, on the lanes.
  std::optional<Kokkos::Experimental::Graph<ES>> graph;
  if (opts.graph) {
    if (!eo || opts.lattice.distributed())
      throw invalid_argument("--graph times the even-odd operator (--operator eo) on one process");
    if constexpr (std::is_same_v<Recon, Recon18> && mode == ArchTraits<ES>::neighbour_mode && !std::is_same_v<P, kqcd::half>) {
      op.apply(out_e, in_e, 1);
      graph = op.make_graph(out_e, in_e, 1);
      graph->instantiate();
    } else {
      throw invalid_argument("--graph runs with --recon 18, single or double, and the backend's neighbour mode");
    }
  }
  const auto call = [&] {
    if (graph) graph->submit();
    else if (eo) op.apply(out_e, in_e, 1);
    else d.apply(out, in, 1, 0);
  };
  const auto [per_call, iters] = time_calls<ES>(opts, call);
  const auto split = d.geometry().split();
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"iterations", iters},
                   {"layout", "simd"},
                   {"isa", Op::dslash_type::simd_type::isa::name},
                   {"simd_lanes", Op::dslash_type::simd_type::lanes},
                   {"lane_split", {split[0], split[1], split[2], split[3]}},
                   {"recon", Recon::name},
                   {"neighbours", mode == NeighbourMode::table ? "table" : "on-the-fly"},
                   {"sites_per_team", d.sites_per_team()},
                   {"launch", d.last_launch_config().to_string()},
                   {"graph", opts.graph}};
  add_rates(r, opts.lattice, eo ? op.flops() : d.flops(false), eo ? op.bytes() : d.bytes(false), per_call, opts.overlap);
  if (opts.lattice.distributed()) r["phases"] = phase_times<ES>(opts, d, call);
  return r;
}

/// Whether an operator is a colour-hop stencil (stencil/colour_hop_stencil.hpp).
bool colour_hop_operator(const std::string& op) {
  return op == "staggered" || op == "improved-staggered" || op == "laplace" || op == "covdev";
}

/// A colour-hop stencil on colour vectors, one parity, on Layout: the staggered D (naive: 570 flops
/// per site; improved, random fat and long links: 1146), the 4D Laplacian (its xpay form a x + H in)
/// or the forward covariant derivative along t.
template <class ES, class Real, class Layout> nlohmann::json time_colour_hops_on(const DslashOptions& opts) {
  using Stencil = ColourHopStencil<StaggeredSigns, 1, Real, ES, Layout>;
  using Unit = ColourHopStencil<UnitSigns, 1, Real, ES, Layout>;
  typename Stencil::gauge_type u(opts.lattice), w(opts.lattice);
  random_gauge(u, 1234);
  const bool staggered = opts.op == "staggered" || opts.op == "improved-staggered";
  if (opts.op == "improved-staggered") random_gauge(w, 1235);
  const auto bc = BoundaryPhases::antiperiodic_time();
  auto run = [&](auto& d, unsigned mask, Real a) {
    d.launcher().set_overlap(opts.overlap);
    if (opts.sites_per_team > 0) d.launcher().set_sites_per_team(opts.sites_per_team);
    auto in = d.create_spinor(1, "bench_in"), out = d.create_spinor(0, "bench_out");
    random_spinor(in, 42);
    random_spinor(out, 43);
    const bool xpay = a != Real(0);
    auto call = [&] { d.apply(out, in, 0, mask, a, &out, Real(1)); };
    const auto [per_call, iters] = time_calls<ES>(opts, call);
    const double flops = d.flops(mask, xpay), bytes = d.bytes(mask, xpay);
    nlohmann::json r{{"time_per_call_s", per_call},
                     {"iterations", iters},
                     {"layout", Layout::name},
                     {"spins", 1},
                     {"hops", std::popcount(mask)},
                     {"xpay", xpay},
                     {"flops_per_site", flops / opts.lattice.cb_volume()},
                     {"neighbours", ArchTraits<ES>::neighbour_mode == NeighbourMode::table ? "table" : "on-the-fly"},
                     {"launch", d.launcher().last_launch_config().to_string()}};
    add_rates(r, opts.lattice, flops, bytes, per_call, opts.overlap);
    const double ranks = double(opts.lattice.global_volume() / opts.lattice.volume());
    r["gbytes_per_s_reuse"] = ranks * d.bytes_reuse(mask, xpay) / per_call * 1e-9;
    if (opts.lattice.distributed()) {
      const auto& l = d.launcher();
      l.set_timing(true);
      l.reset_times();
      for (int i = 0; i < (opts.quick ? 2 : 20); ++i) call();
      l.set_timing(false);
      const DslashTimes t = l.times();
      const double per = 1.0 / std::max(t.calls, 1);
      r["phases"] = {{"calls_timed", t.calls},
                     {"pack_post_s", max_over_ranks(opts.lattice, t.pack_post * per)},
                     {"interior_s", max_over_ranks(opts.lattice, t.interior * per)},
                     {"wait_unpack_s", max_over_ranks(opts.lattice, t.wait_unpack * per)},
                     {"exterior_s", max_over_ranks(opts.lattice, t.exterior * per)},
                     {"halo_bytes_per_rank", d.halo_bytes()},
                     {"ghost_depth", d.descriptor().depth},
                     {"exterior_sites_per_rank", l.exterior_sites(0)}};
    }
    return r;
  };
  if (staggered) {
    Stencil d("StaggeredDslash", u, bc, opts.op == "improved-staggered" ? &w : nullptr);
    return run(d, d.available_hops(), Real(0));
  }
  Unit d(opts.op == "laplace" ? "Laplacian" : "CovariantDerivative", u, bc);
  if (opts.op == "laplace") return run(d, hops::one_site, Real(-8));
  return run(d, hop_bit(3, +1), Real(0));
}

/// A colour-hop stencil on the layout --layout asks for: auto takes the SIMD lanes where the backend
/// has them and they split the lattice (with long links: into sub-lattices at least 3 sites long).
template <class ES, class Real> nlohmann::json time_colour_hops(const DslashOptions& opts) {
  if (opts.recon != 18 || opts.rhs > 1 || opts.neighbours != "auto" || opts.graph)
    throw invalid_argument("--operator " + opts.op + " runs with --recon 18, --rhs 1, --neighbours auto, no --graph");
  const bool simd = use_simd_layout<ES>(parse_layout_choice(opts.layout), [&]() -> std::string {
    if constexpr (ArchTraits<ES>::simd_layout) return SIMDStencilLayout<Real, ES>::misfit(opts.lattice, opts.op == "improved-staggered" ? 3 : 1);
    else return "";
  });
  if constexpr (ArchTraits<ES>::simd_layout)
    if (simd) return time_colour_hops_on<ES, Real, SIMDStencilLayout<Real, ES>>(opts);
  return time_colour_hops_on<ES, Real, PlainStencilLayout<Real, ES>>(opts);
}

template <class ES, class Real> nlohmann::json time_dslash_layout(const DslashOptions& opts);

template <class ES, class Real> nlohmann::json time_dslash_mode(const DslashOptions& opts) {
  if (opts.layout != "auto" && opts.layout != "scalar" && opts.layout != "simd")
    throw invalid_argument("layout '" + opts.layout + "': expected auto, scalar or simd");
  if constexpr (ArchTraits<ES>::simd_layout) {
    // The SIMD layout is the faster one where it exists; it has its own neighbour table.
    // --rhs with --layout simd: a block with one right-hand side per lane (up to the lanes of
    // the register of this precision's arithmetic).
    constexpr int lanes = ArchTraits<ES>::template simd_complex<compute_t<Real>>::lanes;
    if (opts.layout == "simd" && opts.rhs > 1) {
      if (opts.rhs > lanes || opts.graph || (opts.op != "dslash" && opts.op != "wilson") || opts.neighbours != "auto")
        throw invalid_argument("--layout simd with --rhs runs the hopping term (--operator dslash) on "
                               "up to " + std::to_string(lanes) + " right-hand sides, one per SIMD lane in this precision; found --rhs " +
                               std::to_string(opts.rhs));
      if (opts.recon == 12) return time_block_simd<ES, Real, Recon12>(opts);
      if (opts.recon == 8) return time_block_simd<ES, Real, Recon8>(opts);
      return time_block_simd<ES, Real, Recon18>(opts);
    }
    const bool plain = opts.rhs == 1;
    if (opts.layout == "simd" && !plain)
      throw invalid_argument("--layout simd runs with --rhs 1 (or up to the lanes, --operator dslash)");
    // auto takes the lanes for a call of one right-hand side.
    const bool may_simd = opts.layout == "simd" || plain;
    if (may_simd && choose_simd_layout<ES>(opts.layout, [&] { return simd_split_misfit<ES, Real>(opts.lattice); })) {
      // As on the plain layout: both neighbour modes with recon 18 in single and double.
      if (opts.neighbours != "auto" && (opts.recon != 18 || std::is_same_v<Real, half>))
        throw invalid_argument("--recon 12/8 and --precision half run with --neighbours auto only");
      if (opts.recon == 12) return time_dslash_simd<ES, Real, Recon12>(opts);
      if (opts.recon == 8) return time_dslash_simd<ES, Real, Recon8>(opts);
      if constexpr (!std::is_same_v<Real, half>) {
        if (opts.neighbours == "table") return time_dslash_simd<ES, Real, Recon18, NeighbourMode::table>(opts);
        if (opts.neighbours == "on-the-fly") return time_dslash_simd<ES, Real, Recon18, NeighbourMode::on_the_fly>(opts);
      }
      return time_dslash_simd<ES, Real, Recon18>(opts);
    }
  } else if (opts.layout == "simd") {
    throw invalid_argument(std::string("--layout simd: backend ") + ES::name() + " has no SIMD layout (host backends only)");
  }
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
      if constexpr (!recon_compiled<Recon>)
        throw not_compiled(std::string("reconstruction ") + Recon::name, compiled_reconstructions, "KQCD_RECONSTRUCT");
      else return opts.rhs > 1 ? time_multi<ES, Real, Recon>(opts) : time_dslash<ES, Real, native, Recon>(opts);
    };
    if (opts.recon == 12) return with_recon.template operator()<Recon12>();
    if (opts.recon == 8) return with_recon.template operator()<Recon8>();
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
  const bool colour_hops = colour_hop_operator(opts.op);
  if (!wilson && !colour_hops && opts.op != "clover" && opts.op != "clover-dynamic" && opts.op != "twisted" && opts.op != "twisted-clover")
    throw invalid_argument("operator '" + opts.op + "': expected dslash (or wilson), eo, clover, clover-dynamic, twisted, twisted-clover, "
                           "staggered, improved-staggered, laplace or covdev");
  if (opts.layout != "auto" && opts.layout != "scalar" && opts.layout != "simd")
    throw invalid_argument("layout '" + opts.layout + "': expected auto, scalar or simd");
  if (opts.precision != "single" && opts.precision != "double" && opts.precision != "half")
    throw invalid_argument("precision '" + opts.precision + "': expected single, double or half");
  if (opts.recon != 18 && opts.recon != 12 && opts.recon != 8)
    throw invalid_argument("recon " + std::to_string(opts.recon) + ": expected 18, 12 or 8");
  if (opts.rhs < 1 || opts.rhs > MultiCBSpinor<Kokkos::complex<float>>::max_rhs)
    throw invalid_argument("rhs " + std::to_string(opts.rhs) + ": expected 1 to 16");
  if (!wilson && (opts.recon != 18 || opts.rhs > 1))
    throw invalid_argument("operator '" + opts.op + "' runs with --recon 18 and --rhs 1 only");
  nlohmann::json r;
  // On MPI ranks the lattice is split over a process grid; the timed kernels see the local part.
  const ProcessGrid grid(opts.lattice, opts.grid);
  DslashOptions local = opts;
  local.lattice = grid.lattice();
  const bool found = with_execution_space(backend, [&]<class ES>() {
    auto with_precision = [&]<class Real>() {
      if constexpr (!precision_compiled<Real>) throw not_compiled("precision " + opts.precision, compiled_precisions, "KQCD_PRECISIONS");
      else if constexpr (std::is_same_v<Real, half>) {
        if (colour_hops) throw invalid_argument("--operator " + opts.op + " runs in single or double precision");
        r = wilson ? time_dslash_mode<ES, Real>(local) : time_local_op<ES, Real>(local);
      } else {
        r = colour_hops ? time_colour_hops<ES, Real>(local) : wilson ? time_dslash_mode<ES, Real>(local) : time_local_op<ES, Real>(local);
      }
    };
    if (opts.precision == "single") with_precision.template operator()<float>();
    else if (opts.precision == "half") with_precision.template operator()<half>();
    else with_precision.template operator()<double>();
  });
  if (!found) throw invalid_argument("backend '" + backend + "' is not enabled in this build");
  const auto dims = opts.lattice.dims();
  // The staggered hopping term with fat and Naik links is QUDA's asqtad Dslash (HISQ's too): its name there.
  r["benchmark"] = opts.op == "eo"                   ? "wilson_eo_operator"
                   : wilson                          ? "wilson_dslash"
                   : opts.op == "improved-staggered" ? "asqtad_dslash"
                                                     : opts.op + "_dslash";
  r["case"] = opts.op;
  r["lattice"] = {dims[0], dims[1], dims[2], dims[3]};
  r["precision"] = opts.precision;
  r["ranks"] = grid.size();
  r["grid"] = grid.grid();
  r["backend"] = backend;
  r["byte_model"] = wilson ? "no-reuse (stored sizes: links as reconstructed reals, spinors 24 reals + half norm)"
                   : colour_hops ? "no-reuse (a link and a colour vector per hop; gbytes_per_s_reuse: each once per site)"
                                 : "no-reuse";
  r["recon"] = opts.recon;
  r["rhs"] = opts.rhs;
  if (wilson) r["flops_per_site"] = opts.op == "eo" ? 2688 : 1320;
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  r["percent_of_copy"] = 100.0 * r["gbytes_per_s"].get<double>() / copy_gbytes_per_s;
  if (colour_hops) r["percent_of_copy_reuse"] = 100.0 * r["gbytes_per_s_reuse"].get<double>() / copy_gbytes_per_s;
  finish_record(r, "dslash", backend);
  return r;
}

} // namespace kqcd::bench
