// Where a result came from: code version, Kokkos version, backend and device, compiler.
#pragma once

#include <string>

namespace kqcd {

/// The git commit this library was built from ("unknown" outside a checkout).
const char* git_commit() noexcept;

/// Where and how a result was produced: build, backend, device.
struct Provenance {
  /// Git commit of the build.
  std::string git;
  /// kqcd version.
  std::string kqcd_version;
  /// Kokkos version.
  std::string kokkos_version;
  /// Kokkos backend of the default execution space.
  std::string backend;
  /// Device or host CPU name.
  std::string device;
  /// Threads of a host backend.
  int threads = 0;
  /// Compiler and version.
  std::string compiler;
  /// Compiler flags.
  std::string flags;
  std::string date; ///< ISO 8601, UTC
};

/// Provenance for work run on the named backend (an execution space name such as "OpenMP").
/// Requires Kokkos to be initialised.
Provenance make_provenance(const std::string& backend);

/// "major.minor.patch" of the Kokkos this was compiled against.
std::string kokkos_version_string();

} // namespace kqcd
