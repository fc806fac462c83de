// Where a result came from: code version, Kokkos version, backend and device, compiler.
#pragma once

#include <string>

namespace kqcd {

/// The git commit this library was built from ("unknown" outside a checkout).
const char* git_commit() noexcept;

struct Provenance {
  std::string git;
  std::string kqcd_version;
  std::string kokkos_version;
  std::string backend;
  std::string device;
  int threads = 0;
  std::string compiler;
  std::string flags;
  std::string date; ///< ISO 8601, UTC
};

/// Provenance for work run on the named backend (an execution space name such as "OpenMP").
/// Requires Kokkos to be initialised.
Provenance make_provenance(const std::string& backend);

/// "major.minor.patch" of the Kokkos this was compiled against.
std::string kokkos_version_string();

} // namespace kqcd
