// Boundary phases per direction (conventions.md): psi(x + L_mu) = b_mu psi(x). b = 1 periodic,
// -1 antiperiodic, 0 zero (links across the boundary removed), exp(i theta) twisted.
#pragma once

#include <kqcd/core/lattice.hpp>

#include <Kokkos_Complex.hpp>

#include <array>
#include <string>

namespace kqcd {

/// Phases a field picks up across the lattice boundary in each direction.
struct BoundaryPhases {
  /// Phase per direction (1: periodic, -1: antiperiodic).
  std::array<Kokkos::complex<double>, Nd> b{Kokkos::complex<double>(1), Kokkos::complex<double>(1),
                                            Kokkos::complex<double>(1), Kokkos::complex<double>(1)};

  /// Periodic in every direction.
  static BoundaryPhases periodic() { return {}; }
  /// Periodic in space, antiperiodic in time: the usual fermion choice.
  static BoundaryPhases antiperiodic_time() {
    BoundaryPhases p;
    p.b[3] = -1.0;
    return p;
  }
  /// The phase e^{i theta} of a twisted boundary.
  static Kokkos::complex<double> twist(double theta) { return {std::cos(theta), std::sin(theta)}; }
  /// Equal phases in every direction.
  bool operator==(const BoundaryPhases&) const = default;
};

/// Parse "BX,BY,BZ,BT", each "p", "a", "0" or "t:THETA" (phase exp(i THETA)).
BoundaryPhases parse_boundary_phases(const std::string& text);

/// The phase of a backward hop across the boundary is conj(b): the boundary links are in effect
/// multiplied by b, which keeps D^dag = g5 D g5 for every b (and is b^-1 for |b| = 1).

} // namespace kqcd
