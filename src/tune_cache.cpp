#include <kqcd/build_info.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/provenance.hpp>
#include <kqcd/core/tune_cache.hpp>
#include <kqcd/io/atomic_file.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace kqcd {

namespace {
constexpr const char* format_name = "kqcd-tunecache";
constexpr int format_version = 1;

constexpr PolicyKind all_kinds[] = {PolicyKind::range, PolicyKind::team, PolicyKind::team_scratch, PolicyKind::mdrange};

nlohmann::json to_json(const TuneEntry& e) {
  return {{"kernel", e.key.kernel},         {"aux", e.key.aux},
          {"lattice", e.key.lattice},       {"precision", e.key.precision},
          {"backend", e.key.backend},       {"device", e.key.device},
          {"kqcd_version", e.key.version},  {"policy", policy_kind_name(e.config.kind)},
          {"team_size", e.config.team_size}, {"sites_per_team", e.config.sites_per_team},
          {"rhs_per_thread", e.config.rhs_per_thread},
          {"seconds", e.seconds}};
}

TuneEntry from_json(const nlohmann::json& j) {
  TuneEntry e;
  e.key = {j.at("kernel").get<std::string>(),    j.at("aux").get<std::string>(),
           j.at("lattice").get<std::string>(),   j.at("precision").get<std::string>(),
           j.at("backend").get<std::string>(),   j.at("device").get<std::string>(),
           j.at("kqcd_version").get<std::string>()};
  const auto policy = j.at("policy").get<std::string>();
  const auto kind = std::ranges::find_if(all_kinds, [&](PolicyKind k) { return policy == policy_kind_name(k); });
  if (kind == std::end(all_kinds))
    throw std::runtime_error("policy '" + policy + "' is none of range, team, team-scratch, mdrange");
  e.config.kind = *kind;
  e.config.team_size = j.at("team_size").get<int>();
  e.config.sites_per_team = j.at("sites_per_team").get<int>();
  e.config.rhs_per_thread = j.value("rhs_per_thread", 1); // absent in caches written before it existed
  if (e.config.team_size < 0 || e.config.sites_per_team < 0) throw std::runtime_error("negative launch size");
  if (e.config.rhs_per_thread < 1) throw std::runtime_error("rhs_per_thread below 1");
  e.seconds = j.at("seconds").get<double>();
  return e;
}

/// The entries in the file at `path` (none if it does not exist); a file that is not a valid
/// cache gives none and a warning naming the file and the problem.
std::map<std::string, TuneEntry> read_cache_file(const std::string& path) {
  std::map<std::string, TuneEntry> out;
  std::ifstream f(path, std::ios::binary);
  if (!f) return out;
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    const auto j = nlohmann::json::parse(ss.str());
    if (!j.is_object() || j.value("format", "") != format_name)
      throw std::runtime_error(std::string("field 'format' is not \"") + format_name + "\"");
    if (j.at("format_version").get<int>() != format_version)
      throw std::runtime_error("format_version " + j.at("format_version").dump() + ", expected " +
                               std::to_string(format_version));
    for (const auto& item : j.at("entries")) {
      auto e = from_json(item);
      out[e.key.str()] = std::move(e);
    }
  } catch (const std::exception& e) {
    std::cerr << "kqcd: warning: ignoring the tune cache '" << path << "' (not a valid kqcd tune cache: " << e.what()
              << "); it will be rewritten\n";
    out.clear();
  }
  return out;
}

std::string dump_cache(const std::map<std::string, TuneEntry>& entries) {
  nlohmann::json j{{"format", format_name}, {"format_version", format_version}, {"entries", nlohmann::json::array()}};
  for (const auto& [k, e] : entries) j["entries"].push_back(to_json(e));
  return j.dump(1) + "\n";
}

/// Holds an exclusive flock on "<path>.lock" for its lifetime (fd < 0: no lock could be had).
class FileLock {
public:
  explicit FileLock(const std::string& path) : fd_(::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_); // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return fd_ >= 0; }

private:
  int fd_;
};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
} // namespace

const char* policy_kind_name(PolicyKind k) {
  switch (k) {
    case PolicyKind::range: return "range";
    case PolicyKind::team: return "team";
    case PolicyKind::team_scratch: return "team-scratch";
    case PolicyKind::mdrange: return "mdrange";
  }
  return "?";
}

std::string LaunchConfig::to_string() const {
  if (kind == PolicyKind::range)
    return sites_per_team > 0 ? "range(chunk " + std::to_string(sites_per_team) + ")" : "range";
  if (kind == PolicyKind::mdrange)
    return "mdrange(tile " + std::to_string(sites_per_team) + " sites" +
           (rhs_per_thread > 1 ? ", " + std::to_string(rhs_per_thread) + " right-hand sides per thread" : "") + ")";
  return std::string(policy_kind_name(kind)) + "(" + std::to_string(team_size) + " threads, " + std::to_string(sites_per_team) +
         " sites)";
}

std::string TuneKey::str() const {
  return kernel + "|" + aux + "|" + lattice + "|" + precision + "|" + backend + "|" + device + "|" + version;
}

TuneKey make_tune_key(std::string kernel, std::string aux, std::string lattice, std::string precision,
                      const std::string& backend) {
  static std::mutex mutex;
  static std::map<std::string, std::string> devices; // device names are fixed for the process
  std::string device;
  {
    std::lock_guard lock(mutex);
    auto it = devices.find(backend);
    if (it == devices.end()) it = devices.emplace(backend, make_provenance(backend).device).first;
    device = it->second;
  }
  return {std::move(kernel), std::move(aux), std::move(lattice), std::move(precision), backend, std::move(device),
          build_info::version};
}

bool tuning_enabled() {
  const std::string v = env("KQCD_TUNE");
  return !(v == "0" || v == "off" || v == "OFF" || v == "false" || v == "no");
}

std::string tune_cache_path() {
  if (auto p = env("KQCD_TUNE_CACHE"); !p.empty()) return p;
  if (auto x = env("XDG_CACHE_HOME"); !x.empty()) return x + "/kqcd/tunecache.json";
  if (auto h = env("HOME"); !h.empty()) return h + "/.cache/kqcd/tunecache.json";
  return "kqcd-tunecache.json";
}

TuneCache::TuneCache(std::string path) : path_(std::move(path)), entries_(read_cache_file(path_)) {}

std::optional<TuneEntry> TuneCache::find(const TuneKey& key) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key.str());
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<TuneEntry> TuneCache::entries() const {
  std::lock_guard lock(mutex_);
  std::vector<TuneEntry> r;
  for (const auto& [k, e] : entries_) r.push_back(e);
  return r;
}

void TuneCache::insert(const TuneEntry& entry) {
  std::lock_guard lock(mutex_);
  entries_[entry.key.str()] = entry;
  try {
    namespace fs = std::filesystem;
    const fs::path target(path_);
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    FileLock file_lock(path_);
    if (!file_lock.locked()) throw io_error("cannot lock '" + path_ + ".lock'");
    // Merge: other processes' entries survive; ours win where both tuned the same key.
    auto merged = read_cache_file(path_);
    for (const auto& [k, e] : entries_) merged[k] = e;
    write_file_atomically(path_, dump_cache(merged), true);
    entries_ = std::move(merged);
  } catch (const std::exception& e) {
    if (!write_warned_)
      std::cerr << "kqcd: warning: cannot write the tune cache '" << path_ << "' (" << e.what()
                << "); tuned launch shapes are kept for this run only\n";
    write_warned_ = true;
  }
}

std::shared_ptr<TuneCache> tune_cache() {
  static std::mutex mutex;
  static std::shared_ptr<TuneCache> cache;
  const std::string path = tune_cache_path();
  std::lock_guard lock(mutex);
  if (!cache || cache->path() != path) cache = std::make_shared<TuneCache>(path);
  return cache;
}

} // namespace kqcd
