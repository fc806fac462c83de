// The stencil framework's launcher, shared by every stencil (QUDA's dslash_helper/dslash_policy): a
// stencil brings its site functor (an Arg with the sweep's sites, and site_kernel(k)) and the
// start and finish of its source halo; the launcher overlaps the halo with the interior sites of a
// distributed lattice, tunes the launch shape per kernel, variant and lattice, times the phases,
// sweeps blocks of right-hand sides in their tuned block shapes and captures launches into graphs.
// The interior/exterior split follows from the stencil's depth (its longest hop): a site is
// exterior when a hop of that length along a split direction leaves the sub-lattice.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/core/graph.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/core/tune.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd {

/// Seconds spent per phase of distributed hopping-term calls (set_timing(true) fences between
/// phases to measure them, which removes the overlap on asynchronous backends).
struct DslashTimes {
  /// Seconds packing and posting the faces, on the interior, waiting and unpacking, on the exterior.
  ///@{
  double pack_post = 0, interior = 0, wait_unpack = 0, exterior = 0;
  ///@}
  int calls = 0; ///< Calls recorded.
};

/// What a stencil is, for the framework: its longest hop (the ghost zone's depth), the complex
/// numbers per site of the field it reads, whether its faces may travel spin-projected, and its
/// arithmetic per output site.
struct StencilDescriptor {
  int depth = 1;              ///< Longest hop in sites: 1, or 3 with a Naik term.
  int components = 0;         ///< Complex numbers per site of the source field.
  bool spin_projected = false; ///< Faces travel spin-projected (Wilson-type stencils).
  double flops_per_site = 0;  ///< Flops per output site of the hopping term.
};

namespace detail {
/// The sites of one parity with (exterior) and without (interior) an off-rank neighbour.
struct SiteSplit {
  std::vector<int> interior, exterior;
};
/// The split for hops up to `depth` sites long: exterior sites lie within depth of a face of a
/// split direction.
inline SiteSplit split_sites(const Lattice& lat, int parity, int depth = 1) {
  SiteSplit split;
  for (int s = 0; s < lat.cb_volume(); ++s) {
    const Coords c = lat.cb_coords(s, parity);
    bool off_rank = false;
    for (int mu = 0; mu < Nd; ++mu)
      off_rank = off_rank || (lat.partitioned(mu) && (c.x[mu] < depth || c.x[mu] >= lat.dim(mu) - depth));
    (off_rank ? split.exterior : split.interior).push_back(s);
  }
  return split;
}
/// A hopping term's halo overlapped with its interior, written once for every layout: the sites of
/// each target parity with and without an off-rank neighbour, and the sequence halo start, interior
/// sweep, halo finish, exterior sweep (overlap off: every site after the exchange). Where the faces
/// land on a stream of their own (finish() returns it as a SideStream), the exterior runs there,
/// beside the interior (their sites are disjoint), and the compute stream joins it after. Site
/// indices are those of `sites` (a lattice of sites, or of SIMD vector sites); a split along the
/// slowest direction sweeps runs of sites, others lists (SweepSites).
template <class ES> class OverlapSweep {
public:
  using sweep_type = SweepSites<typename ES::memory_space>;
  /// The phases, in order, that run() reports to its lap hook (DslashTimes' fields).
  enum class Phase { pack_post, interior, wait_unpack, exterior };
  OverlapSweep() = default;
  explicit OverlapSweep(const Lattice& sites, int depth = 1) : n_sites_(sites.cb_volume()) {
    if (!sites.distributed()) return;
    for (int p = 0; p < 2; ++p) {
      const SiteSplit split = split_sites(sites, p, depth);
      interior_[p] = sweep_type::of(split.interior, n_sites_, "kqcd::interior_sites");
      exterior_[p] = sweep_type::of(split.exterior, n_sites_, "kqcd::exterior_sites");
    }
  }
  /// Points a hopping-functor argument at the sites of a sweep (nullptr: every site).
  template <class Arg> void point(Arg& arg, const sweep_type* sites) const {
    arg.sweep = sites ? *sites : sweep_type::all(n_sites_);
  }
  /// start() and finish() drive the halo (finish() may return the SideStream<ES> the faces landed
  /// on), sweep(sites, space) runs the kernel on the sites of a sweep (nullptr: every site) on
  /// instance `space`, lap(phase) follows each phase.
  template <class Start, class Sweep, class Finish, class Lap>
  void run(int target_cb, Start&& start, Sweep&& sweep, Finish&& finish, Lap&& lap) const {
    start();
    lap(Phase::pack_post);
    if (overlap_) sweep(&interior_[target_cb], ES());
    lap(Phase::interior);
    SideStream<ES> side;
    if constexpr (std::is_void_v<std::invoke_result_t<Finish&>>) finish();
    else side = finish();
    if (!overlap_) { // every site after the exchange, on the compute stream
      side.join();
      side = {};
    }
    lap(Phase::wait_unpack);
    sweep(overlap_ ? &exterior_[target_cb] : nullptr, side.space);
    side.join();
    lap(Phase::exterior);
  }
  /// run() with the phases timed into `times` where `timing` (fences between them), the call counted.
  template <class Start, class Sweep, class Finish>
  void run_timed(int target_cb, Start&& start, Sweep&& sweep, Finish&& finish, bool timing, DslashTimes& times) const {
    using clock = std::chrono::steady_clock;
    auto t = clock::now();
    run(target_cb, start, sweep, finish, [&](Phase phase) {
      if (!timing) return;
      Kokkos::fence("kqcd::OverlapSweep::timing"); // every stream: the faces may travel on their own
      const auto now = clock::now();
      double* acc[] = {&times.pack_post, &times.interior, &times.wait_unpack, &times.exterior};
      *acc[int(phase)] += std::chrono::duration<double>(now - t).count();
      t = now;
    });
    ++times.calls;
  }
  void set_overlap(bool on) { overlap_ = on; }
  bool overlap() const { return overlap_; }
  int exterior_sites(int p) const { return exterior_[p].count; }

private:
  int n_sites_ = 0;
  sweep_type interior_[2], exterior_[2];
  bool overlap_ = true;
};
/// Vector lanes per site of a block: the next power of two >= n_rhs (one lane per right-hand side).
inline int vector_lanes(int n_rhs) {
  int v = 1;
  while (v < n_rhs) v *= 2;
  return v;
}

/// A stencil's sweep over a block of right-hand sides as a Tunable (core/tune.hpp): team with the
/// right-hand sides in vector lanes, team with the links cached in scratch, MDRange with one or two
/// right-hand sides per thread (PairLaunchBounds: the latter's) and flat range, at two team sizes on
/// the GPU; the autotuner keeps the fastest. The functor has the entry points of the block shapes
/// (CachedLinksTag, SiteRhsTag<1>, SiteRhsTag<2>, FlatSiteRhsTag), team_scratch_bytes(sites per
/// team), and arg.n_rhs, arg.sweep (its count: the sites), arg.sites_per_team.
template <class ES, class LaunchBounds, class PairLaunchBounds, class Functor> class BlockSweepLaunch {
public:
  using execution_space = ES;
  BlockSweepLaunch(std::string label, TuneKey key, const Functor& f, LaunchConfig default_config)
      : label_(std::move(label)), key_(std::move(key)), f_(f), default_(default_config) {}
  template <class... Views> BlockSweepLaunch& overwrites(const Views&... v) {
    out_ = [v...](OutputBackup& b) { (b.add(v), ...); };
    return *this;
  }
  /// Launches on instance `space` from now on (the default instance unless set).
  BlockSweepLaunch& on(const ES& space) {
    space_ = space;
    return *this;
  }
  TuneKey tune_key() const { return key_; }
  LaunchConfig default_config() const { return default_; }
  std::vector<LaunchConfig> candidates() const {
    const int lanes = vector_lanes(f_.arg.n_rhs);
    std::vector<LaunchConfig> out;
    if (ArchTraits<ES>::max_team_size > 1) {
      for (int threads : {128, 256}) {
        const int spt = std::max(1, threads / lanes);
        out.push_back({PolicyKind::team, spt, spt});
        if (scratch_fits(spt)) out.push_back({PolicyKind::team_scratch, spt, spt});
        out.push_back({PolicyKind::mdrange, 0, spt});
      }
      // Two right-hand sides per thread in blocks of 128 threads (the pair kernel's launch bounds).
      out.push_back({PolicyKind::mdrange, 0, std::max(1, 128 / pair_lanes(f_.arg.n_rhs)), 2});
    } else {
      for (int spt : {8, 32}) {
        out.push_back({PolicyKind::team, 1, spt});
        if (scratch_fits(spt)) out.push_back({PolicyKind::team_scratch, 1, spt});
      }
      out.push_back({PolicyKind::mdrange, 0, 8});
      out.push_back({PolicyKind::mdrange, 0, 8, 2});
    }
    out.push_back({PolicyKind::range, 0, 0});
    return out;
  }
  /// Whether the functor caches links in team scratch (not where each site holds its hops' matrices
  /// as the SIMD lanes do), and whether the links of spt sites fit the backend's team scratch.
  static constexpr bool caches_links = Functor::caches_links;
  static bool scratch_fits(int spt) {
    if constexpr (!caches_links) return false;
    else return Functor::team_scratch_bytes(spt) <= std::size_t(Kokkos::TeamPolicy<ES>::scratch_size_max(0));
  }
  void launch(const LaunchConfig& c) const {
    launch_unchecked(c);
    detail::check_launch<ES>(label_ + " " + c.to_string());
  }
  void save_outputs() {
    backup_.clear();
    if (out_) out_(backup_);
  }
  void restore_outputs() { backup_.restore(); }

private:
  void launch_unchecked(const LaunchConfig& c) const {
    Functor f = f_;
    const int n = f.arg.sweep.count, r = f.arg.n_rhs;
    switch (c.kind) {
      case PolicyKind::team:
      case PolicyKind::team_scratch: {
        f.arg.sites_per_team = std::max(1, c.sites_per_team);
        const int league = (n + f.arg.sites_per_team - 1) / f.arg.sites_per_team;
        // A team of team_size x lanes threads: fitted down to what the backend can launch for
        // this kernel (a set_block_launch() shape sized for fewer right-hand sides).
        const int lanes = vector_lanes(r);
        const int team = std::clamp(c.team_size, 1, std::max(1, max_team_size(f, c.kind, lanes)));
        if (c.kind == PolicyKind::team || !caches_links) {
          Kokkos::parallel_for(label_, Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight>(space_, league, team, lanes), f);
        } else if constexpr (caches_links) {
          Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight, CachedLinksTag> policy(space_, league, team, lanes);
          policy.set_scratch_size(0, Kokkos::PerTeam(Functor::team_scratch_bytes(f.arg.sites_per_team)));
          Kokkos::parallel_for(label_ + "_cached_links", policy, f);
        }
        return;
      }
      case PolicyKind::mdrange: {
        const int spt = std::max(1, c.sites_per_team);
        if (c.rhs_per_thread == 1) {
          using MD = Kokkos::MDRangePolicy<ES, Kokkos::Rank<2>, LaunchBounds, LightWeight, SiteRhsTag<1>>;
          Kokkos::parallel_for(label_ + "_mdrange", MD(space_, {0, 0}, {r, n}, {r, spt}), f);
        } else if (c.rhs_per_thread == 2) {
          const int lanes = pair_lanes(r);
          using MD = Kokkos::MDRangePolicy<ES, Kokkos::Rank<2>, PairLaunchBounds, LightWeight, SiteRhsTag<2>>;
          Kokkos::parallel_for(label_ + "_mdrange_pairs", MD(space_, {0, 0}, {lanes, n}, {lanes, spt}), f);
        } else {
          throw invalid_argument(label_ + ": a block launch computes 1 or 2 right-hand sides per thread, found " +
                                 std::to_string(c.rhs_per_thread));
        }
        return;
      }
      case PolicyKind::range:
        Kokkos::parallel_for(label_ + "_flat", Kokkos::RangePolicy<ES, LaunchBounds, LightWeight, FlatSiteRhsTag>(space_, 0, n * r), f);
        return;
    }
  }

  /// Threads per site when each computes two right-hand sides.
  static int pair_lanes(int n_rhs) { return (n_rhs + 1) / 2; }
  static int max_team_size(const Functor& f, PolicyKind kind, int lanes) {
    if constexpr (caches_links) {
      if (kind != PolicyKind::team) {
        Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight, CachedLinksTag> policy(1, 1, lanes);
        policy.set_scratch_size(0, Kokkos::PerTeam(Functor::team_scratch_bytes(f.arg.sites_per_team)));
        return policy.team_size_max(f, Kokkos::ParallelForTag());
      }
    }
    return Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight>(1, 1, lanes).team_size_max(f, Kokkos::ParallelForTag());
  }

  std::string label_;
  TuneKey key_;
  Functor f_;
  LaunchConfig default_;
  ES space_{};
  std::function<void(OutputBackup&)> out_;
  OutputBackup backup_;
};
} // namespace detail

/// f(sign) with isign (+1 or -1) as a std::integral_constant: a hopping functor's compile-time
/// sign chosen at run time (its target parity is a run-time argument).
template <class F> void with_sign(int isign, F&& f) {
  if (isign > 0) f(std::integral_constant<int, 1>{});
  else f(std::integral_constant<int, -1>{});
}

/// Launches any stencil's site functor over one parity: the halo overlapped with the interior on a
/// distributed lattice, the launch shape tuned (or fixed by set_sites_per_team()), the phases
/// timed on request; blocks of right-hand sides in the block shapes (launch_block), and a graph
/// node instead of a launch (then_launch). A functor F has a member `arg` with a sweep (the
/// sweep's sites, SweepSites: count entries), and site_kernel(k) for entry k of the sweep. The tune key is
/// (kernel, variant, lattice, precision); `outs` are the views the tuner's trial launches
/// overwrite; LB are the kernel's launch bounds.
template <class ES> class StencilLauncher {
public:
  using execution_space = ES; ///< The execution space.
  using sweep_type = typename detail::OverlapSweep<ES>::sweep_type; ///< The sites of a sweep.

  StencilLauncher() = default;
  /// The launcher of a stencil on lat, whose ghost zone is as deep as the stencil's longest hop
  /// (Lattice::with_ghost_depth; one rank has no ghost zone and no split).
  explicit StencilLauncher(const Lattice& lat) : lat_(lat), overlap_(lat, lat.ghost_depth()) {}

  /// Runs f on every site of parity target_cb: start() posts the source's halo, finish() completes
  /// it and may return the SideStream<ES> its faces landed on, where the exterior then runs
  /// (OverlapSweep::run; neither is called on one rank).
  template <class LB = Kokkos::LaunchBounds<>, class F, class Start, class Finish, class... Outs>
  void launch(const std::string& kernel, const std::string& variant, const char* precision, F f, int target_cb, Start&& start,
              Finish&& finish, const Outs&... outs) const {
    over_sites(f, target_cb, false, start, finish, [&](const ES& space) {
      using K = SiteKernelOf<F>;
      const LaunchConfig fixed = fixed_config(sites_per_team());
      SiteKernelLaunch<ES, LB, K> l(kernel, key(kernel, variant, precision), f.arg.sweep.count, K{f}, fixed);
      l.overwrites(outs...).on(space);
      if (sites_per_team_ > 0) {
        LaunchConfig c = fixed;
        c.team_size = std::min(c.team_size, team_size_max_for<ES, LB>(K{f}, f.arg.sweep.count));
        l.launch(c);
        last_config_ = c;
      } else {
        last_config_ = tuned_launch(l);
      }
    });
  }
  /// The same for a functor over a block of f.arg.n_rhs right-hand sides in the block shapes
  /// (detail::BlockSweepLaunch; tuned, or set_block_launch()'s, or the fixed team of
  /// f.arg.sites_per_team sites where sites per team are set); one rank sweeps the sites tile by
  /// tile (tiled_site_order). Tune key and labels: kernel + "::multi_rhs".
  template <class LB, class PairLB, class F, class Start, class Finish, class... Outs>
  void launch_block(const std::string& kernel, const std::string& variant, const char* precision, F f, int target_cb,
                    Start&& start, Finish&& finish, const Outs&... outs) const {
    over_sites(f, target_cb, true, start, finish, [&](const ES& space) {
      const std::string label = kernel + "::multi_rhs";
      const LaunchConfig fixed = fixed_config(f.arg.sites_per_team);
      detail::BlockSweepLaunch<ES, LB, PairLB, F> l(label, key(label, variant, precision), f, fixed);
      l.overwrites(outs...).on(space);
      if (block_launch_ || sites_per_team_ > 0) {
        last_config_ = block_launch_ ? *block_launch_ : fixed;
        l.launch(last_config_);
      } else {
        last_config_ = tuned_launch(l);
      }
    });
  }
  /// f on every site of one parity as a graph node after `node`, in the shape the tune cache holds
  /// for it (tune first with an ordinary call; else the default), with launch bounds LB. One process.
  template <class LB = Kokkos::LaunchBounds<>, class F>
  GraphNode<ES> then_launch(const GraphNode<ES>& node, const std::string& kernel, const std::string& variant,
                            const char* precision, F f) const {
    if (lat_.distributed())
      throw invalid_argument(kernel + ": graph capture runs on one process; lattice " + lat_.to_string() + " is distributed");
    overlap_.point(f.arg, nullptr);
    using K = SiteKernelOf<F>;
    const LaunchConfig fixed = fixed_config(sites_per_team());
    SiteKernelLaunch<ES, LB, K> l(kernel, key(kernel, variant, precision), f.arg.sweep.count, K{f}, fixed);
    last_config_ = sites_per_team_ > 0 ? fixed : cached_or_default_config(l);
    // The light-weight hint (LightWeight) makes a graph node take the functor as its kernel
    // argument, which the bounded launcher of Kokkos 4.6 compiles under nvcc 13 (its bounded
    // global-memory launcher, the default for graph nodes of large functors, does not).
    return then_launch_sites<ES, LB>(node, kernel, f.arg.sweep.count, last_config_, K{f});
  }

  /// The lattice.
  const Lattice& lattice() const { return lat_; }
  /// Interior computed while the halo is in flight (default), or everything after it.
  void set_overlap(bool on) { overlap_.set_overlap(on); }
  /// Whether the interior overlaps the halo exchange.
  bool overlap() const { return overlap_.overlap(); }
  /// Record DslashTimes per call (fences between the phases); a diagnostic switch, hence const.
  void set_timing(bool on) const { timing_ = on; }
  /// The recorded times.
  const DslashTimes& times() const { return times_; }
  /// Clears the recorded times.
  void reset_times() const { times_ = {}; }
  /// Sites of parity p whose hops leave the sub-lattice.
  int exterior_sites(int p) const { return overlap_.exterior_sites(p); }
  /// Sites per team of the untuned launch (a value set here also switches tuning off).
  int sites_per_team() const { return sites_per_team_ > 0 ? sites_per_team_ : ArchTraits<ES>::sites_per_team; }
  /// Fixes the sites per team (and switches tuning off).
  void set_sites_per_team(int n) {
    if (n < 1) throw invalid_argument("sites_per_team must be positive, found " + std::to_string(n));
    sites_per_team_ = n;
  }
  /// Blocks of right-hand sides run with shape c (any PolicyKind) instead of the tuned one.
  void set_block_launch(const LaunchConfig& c) { block_launch_ = c; }
  /// The launch shape of the latest call.
  LaunchConfig last_launch_config() const { return last_config_; }

private:
  TuneKey key(const std::string& kernel, const std::string& variant, const char* precision) const {
    return make_tune_key(kernel, variant, lat_.to_string(), precision, ES::name());
  }
  /// A team of spt sites (one thread each on the GPU, up to its team size).
  static LaunchConfig fixed_config(int spt) { return {PolicyKind::team, std::min(ArchTraits<ES>::max_team_size, spt), spt}; }
  /// run(space) on the sites of parity target_cb, f pointed at each sweep's sites: all of them on
  /// one rank (tile by tile where `tiled`, else by index), else interior and exterior around the
  /// halo (OverlapSweep::run).
  template <class F, class Start, class Finish, class Run>
  void over_sites(F& f, int target_cb, bool tiled, Start& start, Finish& finish, Run&& run) const {
    auto sweep = [&](const sweep_type* sites, const ES& space) {
      overlap_.point(f.arg, sites);
      if (f.arg.sweep.count > 0) run(space);
    };
    if (!lat_.distributed()) return sweep(tiled ? tiled_order() : nullptr, ES());
    overlap_.run_timed(target_cb, start, sweep, finish, timing_, times_);
  }
  /// The sites in tiled order (nullptr where that is index order), built on first use.
  const sweep_type* tiled_order() const {
    if (!tiled_order_) tiled_order_ = sweep_type::of(detail::tiled_site_order(lat_), lat_.cb_volume(), "kqcd::tiled_site_order");
    return tiled_order_->count > 0 ? &*tiled_order_ : nullptr;
  }

  Lattice lat_;
  detail::OverlapSweep<ES> overlap_;
  int sites_per_team_ = 0; ///< 0: tuned
  std::optional<LaunchConfig> block_launch_;
  mutable LaunchConfig last_config_{};
  mutable bool timing_ = false;
  mutable DslashTimes times_;
  mutable std::optional<sweep_type> tiled_order_;
};

} // namespace kqcd
