// Host-side test inputs shared by the operator tests: the unequal-extent lattice, boundary phases
// of every kind, and random fields exported to lexicographic host arrays for the references.
#pragma once

#include <kqcd/core/boundary.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>

#include <array>
#include <complex>
#include <vector>

namespace kqcd::test {

inline const Lattice test_lattice({4, 6, 2, 8});

/// Twisted, antiperiodic, periodic and twisted again: every kind of non-zero phase.
inline BoundaryPhases mixed_bc() {
  BoundaryPhases bc;
  bc.b[0] = BoundaryPhases::twist(0.7);
  bc.b[1] = -1.0;
  bc.b[2] = 1.0;
  bc.b[3] = BoundaryPhases::twist(-2.1);
  return bc;
}
inline std::array<std::complex<double>, 4> host_bc(const BoundaryPhases& bc) {
  std::array<std::complex<double>, 4> b;
  for (int mu = 0; mu < 4; ++mu) b[mu] = {bc.b[mu].real(), bc.b[mu].imag()};
  return b;
}
inline std::vector<std::complex<double>> random_host_gauge(const Lattice& lat, std::uint64_t seed) {
  GaugeField<Kokkos::complex<double>, Kokkos::DefaultHostExecutionSpace> u(lat);
  random_gauge(u, seed);
  return export_gauge(u);
}
inline std::vector<std::complex<double>> random_host_spinor(const Lattice& lat, std::uint64_t seed) {
  SpinorField<Kokkos::complex<double>, Ns, Kokkos::DefaultHostExecutionSpace> s(lat);
  random_spinor(s, seed);
  return export_spinor(s);
}

} // namespace kqcd::test
