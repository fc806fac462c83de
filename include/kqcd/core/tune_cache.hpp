// The persistent tune cache: the fastest launch configuration found for each kernel, keyed by
// kernel name (and variant), lattice, precision, backend, device and kqcd version, stored as JSON
// at $KQCD_TUNE_CACHE (default $XDG_CACHE_HOME/kqcd/tunecache.json, else ~/.cache/kqcd/...).
// Writers take an flock on "<path>.lock", merge with what is on disk, write a temporary file and
// rename it, so concurrent processes never leave a torn file. A corrupt file is ignored with a
// warning on stderr (and rewritten by the next insert).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kqcd {

/// How a kernel's iteration space is mapped onto the backend: a RangePolicy, a TeamPolicy, a
/// TeamPolicy whose functor stages data in team scratch, or an MDRangePolicy.
enum class PolicyKind { range, team, team_scratch, mdrange };
/// Name of policy kind k.
const char* policy_kind_name(PolicyKind k);

/// One candidate launch shape. Team (and team_scratch): league of ceil(n / sites_per_team) teams of
/// team_size threads; Range: a RangePolicy with chunk size sites_per_team (0: Kokkos' choice);
/// MDRange: tiles of sites_per_team sites (by the kernel's other extent). rhs_per_thread: right-hand
/// sides of a block that one thread computes together (the MDRange shape of the multi-RHS Dslash).
struct LaunchConfig {
  /// Launch policy kind.
  PolicyKind kind = PolicyKind::range;
  /// Threads per team (0: the backend's choice).
  int team_size = 0;
  /// Sites per team.
  int sites_per_team = 0;
  /// Right-hand sides per thread.
  int rhs_per_thread = 1;
  /// Same shape.
  bool operator==(const LaunchConfig&) const = default;
  /// The shape as text.
  std::string to_string() const;
};

/// Functor entry points of the launch shapes of a block of right-hand sides (a plain team shape
/// calls the untagged operator()): the links staged in team scratch (PolicyKind::team_scratch), an
/// MDRange over (lane, entry of the sweep) with NR right-hand sides per thread, a flat range over
/// entry x right-hand side.
///@{
struct CachedLinksTag {};
template <int NR> struct SiteRhsTag {};
struct FlatSiteRhsTag {};
///@}

/// What a tuned shape is cached under: kernel, problem and device.
struct TuneKey {
  std::string kernel;    ///< e.g. "kqcd::WilsonDslash"
  std::string aux;       ///< variant: epilogue, parity, ...
  std::string lattice;   ///< "16x16x16x32"
  std::string precision; ///< "single" or "double"
  std::string backend;   ///< Kokkos execution space name
  /// The device the shape was tuned on.
  std::string device;
  std::string version;   ///< kqcd version
  std::string str() const; ///< the cache's lookup key
};

/// A cached shape and its key.
struct TuneEntry {
  /// The key.
  TuneKey key;
  /// The tuned shape.
  LaunchConfig config;
  double seconds = 0; ///< time per launch of the chosen configuration when it was tuned
};

/// A key for this build's kqcd version and the named backend's device (memoised per backend).
TuneKey make_tune_key(std::string kernel, std::string aux, std::string lattice, std::string precision,
                      const std::string& backend);

/// False when KQCD_TUNE is set to 0 (or "off", "false"): kernels run their default launch shape.
bool tuning_enabled();
/// $KQCD_TUNE_CACHE, else $XDG_CACHE_HOME/kqcd/tunecache.json, else $HOME/.cache/kqcd/tunecache.json.
std::string tune_cache_path();

/// Tuned launch shapes, kept in a JSON file.
class TuneCache {
public:
  /// Reads `path` if it exists; a file that is not a valid cache is ignored with a warning.
  explicit TuneCache(std::string path);
  /// The cache file's path.
  const std::string& path() const { return path_; }
  /// The entry of key, if any.
  std::optional<TuneEntry> find(const TuneKey& key) const;
  /// Adds (or replaces) an entry and persists it, merged with the file's current content.
  /// A cache that cannot be written is kept in memory, with one warning.
  void insert(const TuneEntry& entry);
  /// Every entry.
  std::vector<TuneEntry> entries() const;

private:
  mutable std::mutex mutex_;
  std::string path_;
  std::map<std::string, TuneEntry> entries_;
  bool write_warned_ = false;
};

/// The process's cache at tune_cache_path() (re-opened when that path changes). One per process
/// because every launcher shares it and the file is the unit of persistence.
std::shared_ptr<TuneCache> tune_cache();

} // namespace kqcd
