#include <kqcd/core/profile.hpp>

#include <Kokkos_Core.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <format>
#include <iostream>
#include <mutex>
#include <ostream>

namespace kqcd {

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// The process-wide table: one per process because the top-level calls it times are.
struct ProfileTable {
  std::mutex mutex;
  std::map<std::string, ProfileRecord> records;
  std::atomic<int> forced{-1}; ///< -1: follow KQCD_PROFILE; 0/1: set_profiling()
  std::once_flag print_hook;
};
ProfileTable& table() {
  static ProfileTable t;
  return t;
}

bool env_enabled() {
  const char* v = std::getenv("KQCD_PROFILE");
  if (!v || !*v) return false;
  const std::string s(v);
  return !(s == "0" || s == "off" || s == "OFF" || s == "false" || s == "no");
}

void arrange_print_at_finalize() {
  std::call_once(table().print_hook, [] {
    Kokkos::push_finalize_hook([] {
      if (profiling_enabled()) print_profile(std::cerr);
    });
  });
}
} // namespace

const char* profile_phase_name(ProfilePhase p) {
  switch (p) {
  case ProfilePhase::init: return "init";
  case ProfilePhase::h2d: return "h2d";
  case ProfilePhase::compute: return "compute";
  case ProfilePhase::d2h: return "d2h";
  case ProfilePhase::free: return "free";
  }
  return "?";
}

bool profiling_enabled() {
  const int f = table().forced.load();
  return f < 0 ? env_enabled() : f == 1;
}

void set_profiling(bool on) {
  table().forced = on ? 1 : 0;
  if (on && Kokkos::is_initialized()) arrange_print_at_finalize();
}

std::map<std::string, ProfileRecord> profile_records() {
  std::lock_guard lock(table().mutex);
  return table().records;
}

void reset_profile() {
  std::lock_guard lock(table().mutex);
  table().records.clear();
}

void print_profile(std::ostream& os) {
  const auto records = profile_records();
  if (records.empty()) return;
  os << std::format("kqcd profile (seconds)\n{:<36} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "call",
                    "calls", "total", "init", "h2d", "compute", "d2h", "free", "other");
  for (const auto& [name, r] : records) {
    double phases = 0;
    for (double s : r.phase_seconds) phases += s;
    os << std::format("{:<36} {:>7} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g}\n", name,
                      r.calls, r.total_seconds, r.phase_seconds[0], r.phase_seconds[1], r.phase_seconds[2],
                      r.phase_seconds[3], r.phase_seconds[4], r.total_seconds - phases);
  }
}

ProfileScope::ProfileScope(const char* name)
    : name_(name), enabled_(profiling_enabled()), regions_(Kokkos::Tools::profileLibraryLoaded()), start_(0) {
  if (regions_) Kokkos::Profiling::pushRegion(name_);
  if (enabled_) {
    arrange_print_at_finalize();
    start_ = now();
  }
}

ProfileScope::~ProfileScope() {
  if (enabled_) Kokkos::fence("kqcd::profile");
  if (regions_) Kokkos::Profiling::popRegion();
  if (!enabled_) return;
  record_.total_seconds = now() - start_;
  record_.calls = 1;
  std::lock_guard lock(table().mutex);
  auto& r = table().records[name_];
  r.calls += 1;
  r.total_seconds += record_.total_seconds;
  for (int i = 0; i < n_profile_phases; ++i) r.phase_seconds[std::size_t(i)] += record_.phase_seconds[std::size_t(i)];
}

ProfileScope::Phase::Phase(ProfileScope& scope, ProfilePhase p) : scope_(scope), phase_(p), start_(0) {
  if (scope_.regions_) Kokkos::Profiling::pushRegion(std::string(scope_.name_) + ":" + profile_phase_name(p));
  if (scope_.enabled_) start_ = now();
}

ProfileScope::Phase::~Phase() {
  if (scope_.enabled_) {
    Kokkos::fence("kqcd::profile");
    scope_.record_.phase_seconds[std::size_t(phase_)] += now() - start_;
  }
  if (scope_.regions_) Kokkos::Profiling::popRegion();
}

} // namespace kqcd
