// The autotuner. A launcher that is Tunable names its kernel (a TuneKey), lists candidate launch
// configurations and can launch any of them; tuned_launch() looks the key up in the tune cache
// (core/tune_cache.hpp) and, on a miss, times every candidate (a warm-up and a few fenced repeats
// each), restores whatever the trial runs overwrote, stores the fastest and launches it.
// KQCD_TUNE=0 launches the default configuration and touches no cache.
//
// Launch helpers: site_candidates() fits team sizes to the iteration space and the warp size and
// caps them by Kokkos' team_size_max for the functor; launch_sites() runs a per-site functor
// (operator()(int site)) with a Range or Team policy.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/tune_cache.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <concepts>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>
#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#endif

namespace kqcd {

/// "single" or "double".
template <class Real> const char* precision_name() { return sizeof(Real) == 4 ? "single" : "double"; }

/// A readable name of T for tune keys (demangled where the C++ ABI offers it), computed once.
template <class T> const std::string& type_name() {
  static const std::string name = [] {
    const char* mangled = typeid(T).name();
#if __has_include(<cxxabi.h>)
    int status = 0;
    if (char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status)) {
      std::string s(d);
      std::free(d);
      return s;
    }
#endif
    return std::string(mangled);
  }();
  return name;
}

namespace detail {
/// Kokkos does not check kernel launches in release builds: a launch the device refuses (too much
/// shared memory or too many registers for the block) only sets CUDA's last error and looks like a
/// very fast kernel. Throws that error, naming `what`; a no-op on other backends.
template <class ES> void check_launch(const std::string& what) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ES, Kokkos::Cuda>) {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw std::runtime_error(what + ": CUDA refused the launch: " + cudaGetErrorString(e));
  }
#else
  (void)what;
#endif
}
} // namespace detail

/// A kernel launcher the autotuner can drive.
template <class T>
concept Tunable = requires(T& t, const T& ct, const LaunchConfig& c) {
  typename T::execution_space;
  { ct.tune_key() } -> std::convertible_to<TuneKey>;
  { ct.candidates() } -> std::convertible_to<std::vector<LaunchConfig>>;
  { ct.default_config() } -> std::convertible_to<LaunchConfig>;
  ct.launch(c);
  t.save_outputs();    ///< before the trial runs: keep what they will overwrite
  t.restore_outputs(); ///< after each trial run
};

/// Device copies of views, restored on request: the outputs trial launches overwrite (and the
/// inputs, where an output aliases one, e.g. xpay with out == x).
class OutputBackup {
public:
  /// Adds a view to back up.
  template <class View> void add(const View& v) {
    using Copy = Kokkos::View<typename View::non_const_data_type, typename View::array_layout, typename View::device_type>;
    if (v.size() == 0) return;
    Copy copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::tune_backup"), v.layout());
    Kokkos::deep_copy(copy, v);
    restore_.push_back([v, copy] { Kokkos::deep_copy(v, copy); });
  }
  /// Copies the backups into their views.
  void restore() const {
    for (const auto& r : restore_) r();
  }
  /// Drops the backups.
  void clear() { restore_.clear(); }

private:
  std::vector<std::function<void()>> restore_;
};

/// Times each candidate; returns the fastest (the default when none could be launched).
template <Tunable T> TuneEntry tune(T& t, int repeats = 3) {
  using ES = typename T::execution_space;
  TuneEntry best{t.tune_key(), t.default_config(), std::numeric_limits<double>::infinity()};
  t.save_outputs();
  for (const LaunchConfig& c : t.candidates()) {
    try {
      t.launch(c); // warm-up; also rejects shapes the backend cannot run
      Kokkos::fence("kqcd::tune warm-up"); // every instance: t may launch on one beside the default
      detail::check_launch<ES>(t.tune_key().kernel + " " + c.to_string());
      Kokkos::Timer timer;
      for (int r = 0; r < repeats; ++r) t.launch(c);
      Kokkos::fence("kqcd::tune trial");
      const double s = timer.seconds() / repeats;
      if (s < best.seconds) best = {best.key, c, s};
    } catch (const std::exception&) {
      Kokkos::fence("kqcd::tune rejected");
    }
    t.restore_outputs();
  }
  if (!(best.seconds < std::numeric_limits<double>::infinity())) best.seconds = 0;
  return best;
}

/// Launches t with its cached configuration, tuning it first on a cache miss.
template <Tunable T> LaunchConfig tuned_launch(T& t) {
  if (!tuning_enabled()) {
    const LaunchConfig c = t.default_config();
    t.launch(c);
    return c;
  }
  auto cache = tune_cache();
  LaunchConfig c;
  if (auto hit = cache->find(t.tune_key())) { // the key names device and version: a hit fits
    c = hit->config;
  } else {
    const TuneEntry e = tune(t);
    cache->insert(e);
    c = e.config;
  }
  t.launch(c);
  return c;
}

/// The launch hint of the site and stencil kernels: Kokkos' light-weight property, so that on CUDA
/// the functor travels as a kernel argument. Without it Kokkos copies functors of 512 bytes or more
/// into constant memory, and each such launch waits until the previous one has finished: the
/// host's launch latency is then added to every call instead of hidden behind the kernel before it.
using LightWeight = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;

/// Team of threads walking sites_per_team consecutive sites of a per-site functor.
template <class F> struct TeamOverSites {
  F f; ///< the site kernel
  int n_sites; ///< sites in all
  int sites_per_team; ///< sites per team
  /// Runs the team's sites.
  template <class Member> KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int base = team.league_rank() * sites_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, sites_per_team), [&](int i) {
      if (base + i < n_sites) f(base + i);
    });
  }
};

/// Runs f(site) for site in [0, n_sites) with the given launch shape on instance `space`.
template <class ES, class LaunchBounds = Kokkos::LaunchBounds<>, class F>
void launch_sites(const std::string& label, int n_sites, const LaunchConfig& c, const F& f, const ES& space = ES()) {
  if (c.kind == PolicyKind::range) {
    Kokkos::RangePolicy<ES, LaunchBounds, LightWeight> policy(space, 0, n_sites);
    if (c.sites_per_team > 0) policy.set_chunk_size(c.sites_per_team);
    Kokkos::parallel_for(label, policy, f);
  } else {
    const int spt = std::max(1, c.sites_per_team);
    Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight> policy(space, (n_sites + spt - 1) / spt, std::max(1, c.team_size));
    Kokkos::parallel_for(label, policy, TeamOverSites<F>{f, n_sites, spt});
  }
}

/// Largest team the backend runs for this functor (capped by ArchTraits' max_team_size).
template <class ES, class LaunchBounds, class F> int team_size_max_for(const F& f, int n_sites) {
  const int spt = 32;
  Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight> policy((n_sites + spt - 1) / spt, 1);
  const int kokkos_max = policy.team_size_max(TeamOverSites<F>{f, n_sites, spt}, Kokkos::ParallelForTag());
  return std::max(1, std::min(ArchTraits<ES>::max_team_size, kokkos_max));
}

/// A team size trimmed to the iteration space and fitted to the warp: a multiple of the warp
/// size, no larger than the rounded-up site count or team_max.
template <class ES> int fit_team_size(int requested, int n_sites, int team_max) {
  constexpr int warp = ArchTraits<ES>::warp_size;
  const int cover = (std::max(1, n_sites) + warp - 1) / warp * warp;
  int t = std::min({requested, cover, team_max});
  if (t >= warp) t = t / warp * warp;
  return std::max(1, t);
}

/// Candidate shapes for a per-site kernel: Range with Kokkos' chunking, and Team shapes. With
/// multi-thread teams (GPUs) one site per thread and team sizes from one warp to team_max; with
/// one-thread teams (CPUs) 8 to 512 sites per team, trimmed so every thread gets work.
template <class ES, class LaunchBounds = Kokkos::LaunchBounds<>, class F>
std::vector<LaunchConfig> site_candidates(const F& f, int n_sites) {
  std::vector<LaunchConfig> out{{PolicyKind::range, 0, 0}};
  auto add = [&](LaunchConfig c) {
    if (std::ranges::find(out, c) == out.end()) out.push_back(c);
  };
  const int team_max = team_size_max_for<ES, LaunchBounds>(f, n_sites);
  if (team_max > 1) {
    for (int t = ArchTraits<ES>::warp_size; t <= team_max; t *= 2) {
      const int ts = fit_team_size<ES>(t, n_sites, team_max);
      add({PolicyKind::team, ts, ts});
    }
  } else {
    const int per_thread = std::max(1, n_sites / std::max(1, ES().concurrency()));
    for (int spt = 8; spt <= 512; spt *= 2)
      if (spt <= per_thread || spt == 8) add({PolicyKind::team, 1, spt});
  }
  return out;
}

/// Calls a functor's site_kernel(site): runs kernels written per site under launch_sites().
template <class F> struct SiteKernelOf {
  F f; ///< the site kernel
  /// Runs one site.
  KOKKOS_INLINE_FUNCTION void operator()(int site) const { f.site_kernel(site); }
};

/// A per-site kernel as a Tunable: label, key, site count, functor, default shape and the views
/// trial launches overwrite.
template <class ES, class LaunchBounds, class F> class SiteKernelLaunch {
public:
  /// The execution space of the launch.
  using execution_space = ES;
  /// A launch of f over n_sites under the cache key key.
  SiteKernelLaunch(std::string label, TuneKey key, int n_sites, F f, LaunchConfig default_config)
      : label_(std::move(label)), key_(std::move(key)), n_sites_(n_sites), f_(std::move(f)), default_(default_config) {}
  /// Views to save before tuning and restore after each trial (outputs, and inputs an output aliases).
  template <class... Views> SiteKernelLaunch& overwrites(const Views&... v) {
    savers_.push_back([v...](OutputBackup& b) { (b.add(v), ...); });
    return *this;
  }
  /// The key of the tune cache.
  TuneKey tune_key() const { return key_; }
  /// Launch shapes the tuner tries.
  std::vector<LaunchConfig> candidates() const { return site_candidates<ES, LaunchBounds>(f_, n_sites_); }
  /// The shape used without tuning.
  LaunchConfig default_config() const { return default_; }
  /// Launches on instance `space` from now on (the default instance unless set).
  SiteKernelLaunch& on(const ES& space) {
    space_ = space;
    return *this;
  }
  /// Launches under shape c.
  void launch(const LaunchConfig& c) const { launch_sites<ES, LaunchBounds>(label_, n_sites_, c, f_, space_); }
  /// Backs up the outputs before tuning launches overwrite them.
  void save_outputs() {
    backup_.clear();
    for (const auto& s : savers_) s(backup_);
  }
  /// Restores the outputs after tuning.
  void restore_outputs() { backup_.restore(); }

private:
  std::string label_;
  TuneKey key_;
  int n_sites_;
  F f_;
  LaunchConfig default_;
  ES space_{};
  std::vector<std::function<void(OutputBackup&)>> savers_;
  OutputBackup backup_;
};

/// Tunes (first time) and runs a per-site kernel of precision Real on a lattice that writes views
/// it also reads (in place): the views in `overwritten` are saved before the tuner's trial launches
/// and restored after each, so that the kernel runs once on its inputs. kernel is the label, aux
/// distinguishes variants that share it.
template <class ES, class Real, class LaunchBounds = Kokkos::LaunchBounds<>, class F, class... Views>
LaunchConfig tuned_site_launch_in_place(const std::string& kernel, const std::string& aux, const std::string& lattice, int n_sites,
                                        const F& f, LaunchConfig default_config, const Views&... overwritten) {
  SiteKernelLaunch<ES, LaunchBounds, F> l(kernel, make_tune_key(kernel, aux, lattice, precision_name<Real>(), ES::name()),
                                          n_sites, f, default_config);
  if constexpr (sizeof...(Views) > 0) l.overwrites(overwritten...);
  return tuned_launch(l);
}

/// The same for a kernel whose outputs alias none of its inputs.
template <class ES, class Real, class LaunchBounds = Kokkos::LaunchBounds<>, class F>
LaunchConfig tuned_site_launch(const std::string& kernel, const std::string& aux, const std::string& lattice, int n_sites,
                               const F& f, LaunchConfig default_config = {}) {
  return tuned_site_launch_in_place<ES, Real, LaunchBounds>(kernel, aux, lattice, n_sites, f, default_config);
}

} // namespace kqcd
