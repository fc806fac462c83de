// Profiling of top-level calls: a ProfileScope is a Kokkos Tools region and, when profiling is on
// (KQCD_PROFILE=1 or `kqcd ... --profile`), records the time of its phases (init, host-to-device,
// compute, device-to-host, free) in a process-wide table printed at finalisation. With profiling on,
// each phase ends with a fence so device work is charged to the phase that launched it; off, a scope
// costs two cheap checks.
//
//   ProfileScope prof("kqcd::cg_normal");
//   { auto t = prof.phase(ProfilePhase::compute); ...iterate... }
#pragma once

#include <array>
#include <iosfwd>
#include <map>
#include <string>

namespace kqcd {

/// Phases a ProfileScope times.
enum class ProfilePhase { init, h2d, compute, d2h, free };
/// Number of ProfilePhase values.
inline constexpr int n_profile_phases = 5;
/// Name of phase p.
const char* profile_phase_name(ProfilePhase p);

/// Accumulated times of one top-level call name.
struct ProfileRecord {
  /// Times the region was entered.
  long calls = 0;
  /// Seconds in each phase.
  std::array<double, n_profile_phases> phase_seconds{};
  /// Seconds in the region.
  double total_seconds = 0;
};

/// Profiling on: KQCD_PROFILE set to anything but 0/off, or switched on by set_profiling().
bool profiling_enabled();
/// Switches profiling on or off for this process (overrides KQCD_PROFILE); on also arranges the
/// table to be printed to stderr when Kokkos finalises.
void set_profiling(bool on);
/// A copy of the table so far, by call name.
std::map<std::string, ProfileRecord> profile_records();
/// Clears the profile table.
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
    /// Opens phase p of scope.
    Phase(ProfileScope& scope, ProfilePhase p);
    ~Phase();
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

  private:
    ProfileScope& scope_;
    ProfilePhase phase_;
    double start_;
  };
  /// Opens phase p until the returned object is destroyed.
  [[nodiscard]] Phase phase(ProfilePhase p) { return Phase(*this, p); }

private:
  const char* name_;
  bool enabled_;
  bool regions_; ///< a Kokkos tool listens: push regions
  double start_;
  ProfileRecord record_;
};

} // namespace kqcd
