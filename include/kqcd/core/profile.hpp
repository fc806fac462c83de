// Profiling as QUDA's interface functions do it: each top-level call (operator application, solve,
// smearing, contraction, I/O) opens a ProfileScope, which is a Kokkos Tools region (so nsys, ncu
// and Kokkos' own tools see it) and, when profiling is on, records the time spent in its phases
// (init, host-to-device, compute, device-to-host, free) and in total into a process-wide table,
// printed on request: KQCD_PROFILE=1 prints it to stderr when Kokkos finalises; `kqcd ... --profile`
// does the same for the tool.
//
//   ProfileScope prof("kqcd::cg_normal");
//   { auto t = prof.phase(ProfilePhase::init); ...allocate... }
//   { auto t = prof.phase(ProfilePhase::compute); ...iterate... }
//
// Phases are nested regions "<name>:<phase>"; with profiling on, each phase ends with a fence so
// that device work is charged to the phase that launched it. Off and without a Kokkos tool, a
// scope costs two getenv-style checks: no strings, no fences.
#pragma once

#include <array>
#include <iosfwd>
#include <map>
#include <string>

namespace kqcd {

enum class ProfilePhase { init, h2d, compute, d2h, free };
inline constexpr int n_profile_phases = 5;
const char* profile_phase_name(ProfilePhase p);

/// Accumulated times of one top-level call name.
struct ProfileRecord {
  long calls = 0;
  std::array<double, n_profile_phases> phase_seconds{};
  double total_seconds = 0;
};

/// Profiling on: KQCD_PROFILE set to anything but 0/off, or switched on by set_profiling().
bool profiling_enabled();
/// Switches profiling on or off for this process (overrides KQCD_PROFILE); on also arranges the
/// table to be printed to stderr when Kokkos finalises.
void set_profiling(bool on);
/// A copy of the table so far, by call name.
std::map<std::string, ProfileRecord> profile_records();
void reset_profile();
/// The table: calls, total and per-phase seconds, and the time outside the phases.
void print_profile(std::ostream& os);

/// One top-level call: a Kokkos Tools region for its lifetime, and (profiling on) its timings.
class ProfileScope {
public:
  /// name: a string literal (it is kept, not copied).
  explicit ProfileScope(const char* name);
  ~ProfileScope();
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;

  /// A phase of this call, timed until the returned object is destroyed.
  class Phase {
  public:
    Phase(ProfileScope& scope, ProfilePhase p);
    ~Phase();
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

  private:
    ProfileScope& scope_;
    ProfilePhase phase_;
    double start_;
  };
  [[nodiscard]] Phase phase(ProfilePhase p) { return Phase(*this, p); }

private:
  const char* name_;
  bool enabled_;
  bool regions_; ///< a Kokkos tool listens: push regions
  double start_;
  ProfileRecord record_;
};

} // namespace kqcd
