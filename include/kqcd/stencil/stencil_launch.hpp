// The stencil framework's launcher, shared by every stencil (QUDA's dslash_helper/dslash_policy): a
// stencil brings its site functor (an Arg with the sweep's site list, and site_kernel(k)) and the
// start and finish of its source halo; the launcher overlaps the halo with the interior sites of a
// distributed lattice, tunes the launch shape per kernel, variant and lattice, and times the phases.
// The interior/exterior split follows from the stencil's depth (its longest hop): a site is
// exterior when a hop of that length along a split direction leaves the sub-lattice.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/tune.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <string>
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
template <class ListView> ListView to_device(const std::vector<int>& v, const char* label) {
  typename ListView::non_const_type d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}
/// A hopping term's halo overlapped with its interior, written once for every layout: the sites of
/// each target parity with and without an off-rank neighbour, and the sequence halo start, interior
/// sweep, halo finish, exterior sweep (overlap off: every site after the exchange). Site indices
/// are those of `sites` (a lattice of sites, or of SIMD vector sites).
template <class ES> class OverlapSweep {
public:
  using site_list_type = Kokkos::View<const int*, typename ES::memory_space>;
  /// The phases, in order, that run() reports to its lap hook (DslashTimes' fields).
  enum class Phase { pack_post, interior, wait_unpack, exterior };
  OverlapSweep() = default;
  explicit OverlapSweep(const Lattice& sites, int depth = 1) : n_sites_(sites.cb_volume()) {
    if (!sites.distributed()) return;
    for (int p = 0; p < 2; ++p) {
      const SiteSplit split = split_sites(sites, p, depth);
      interior_[p] = to_device<site_list_type>(split.interior, "kqcd::interior_sites");
      exterior_[p] = to_device<site_list_type>(split.exterior, "kqcd::exterior_sites");
    }
  }
  /// Points a hopping-functor argument at a site list (nullptr: every site).
  template <class Arg> void point(Arg& arg, const site_list_type* list) const {
    arg.use_list = list != nullptr;
    arg.site_list = list ? *list : site_list_type();
    arg.n_sites = list ? int(list->size()) : n_sites_;
  }
  /// start() and finish() drive the halo, sweep(list) runs the kernel on a site list (nullptr:
  /// every site), lap(phase) follows each phase.
  template <class Start, class Sweep, class Finish, class Lap>
  void run(int target_cb, Start&& start, Sweep&& sweep, Finish&& finish, Lap&& lap) const {
    start();
    lap(Phase::pack_post);
    if (overlap_) sweep(&interior_[target_cb]);
    lap(Phase::interior);
    finish();
    lap(Phase::wait_unpack);
    sweep(overlap_ ? &exterior_[target_cb] : nullptr);
    lap(Phase::exterior);
  }
  /// run() with the phases timed into `times` where `timing` (fences between them), the call counted.
  template <class Start, class Sweep, class Finish>
  void run_timed(int target_cb, Start&& start, Sweep&& sweep, Finish&& finish, bool timing, DslashTimes& times) const {
    using clock = std::chrono::steady_clock;
    auto t = clock::now();
    run(target_cb, start, sweep, finish, [&](Phase phase) {
      if (!timing) return;
      ES().fence("kqcd::OverlapSweep::timing");
      const auto now = clock::now();
      double* acc[] = {&times.pack_post, &times.interior, &times.wait_unpack, &times.exterior};
      *acc[int(phase)] += std::chrono::duration<double>(now - t).count();
      t = now;
    });
    ++times.calls;
  }
  void set_overlap(bool on) { overlap_ = on; }
  bool overlap() const { return overlap_; }
  int exterior_sites(int p) const { return int(exterior_[p].size()); }

private:
  int n_sites_ = 0;
  site_list_type interior_[2], exterior_[2];
  bool overlap_ = true;
};
} // namespace detail

/// Launches any stencil's site functor over one parity: the halo overlapped with the interior on a
/// distributed lattice, the launch shape tuned (or fixed by set_sites_per_team()), the phases
/// timed on request. A functor F has a member `arg` with n_sites, site_list and use_list (the
/// sweep's sites), and site_kernel(k) for entry k of the sweep.
template <class ES> class StencilLauncher {
public:
  using execution_space = ES; ///< The execution space.
  using site_list_type = typename detail::OverlapSweep<ES>::site_list_type; ///< A device list of sites.

  StencilLauncher() = default;
  /// The launcher of a stencil on lat, whose ghost zone is as deep as the stencil's longest hop
  /// (Lattice::with_ghost_depth; one rank has no ghost zone and no split).
  explicit StencilLauncher(const Lattice& lat) : lat_(lat), overlap_(lat, lat.ghost_depth()) {}

  /// Runs f on every site of parity target_cb: start() posts the source's halo, finish() completes
  /// it (neither is called on one rank). The tune key is (kernel, variant, lattice, precision);
  /// `outs` are the views the tuner's trial launches overwrite.
  template <class F, class Start, class Finish, class... Outs>
  void launch(const std::string& kernel, const std::string& variant, const char* precision, F f, int target_cb, Start&& start,
              Finish&& finish, const Outs&... outs) const {
    const LaunchConfig fixed{PolicyKind::team, std::min(ArchTraits<ES>::max_team_size, sites_per_team()), sites_per_team()};
    auto sweep = [&](const site_list_type* list) {
      overlap_.point(f.arg, list);
      if (f.arg.n_sites == 0) return;
      using K = SiteKernelOf<F>;
      SiteKernelLaunch<ES, Kokkos::LaunchBounds<>, K> l(kernel, make_tune_key(kernel, variant, lat_.to_string(), precision, ES::name()),
                                                       f.arg.n_sites, K{f}, fixed);
      l.overwrites(outs...);
      if (sites_per_team_ > 0) {
        LaunchConfig c = fixed;
        c.team_size = std::min(c.team_size, team_size_max_for<ES, Kokkos::LaunchBounds<>>(K{f}, f.arg.n_sites));
        l.launch(c);
        last_config_ = c;
      } else {
        last_config_ = tuned_launch(l);
      }
    };
    if (!lat_.distributed()) return sweep(nullptr);
    overlap_.run_timed(target_cb, start, sweep, finish, timing_, times_);
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
  /// The launch shape of the latest call.
  LaunchConfig last_launch_config() const { return last_config_; }

private:
  Lattice lat_;
  detail::OverlapSweep<ES> overlap_;
  int sites_per_team_ = 0; ///< 0: tuned
  mutable LaunchConfig last_config_{};
  mutable bool timing_ = false;
  mutable DslashTimes times_;
};

} // namespace kqcd
