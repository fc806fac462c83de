// A plain host reference for the gauge observables of conventions.md, on lexicographic
// [site][mu][row][col] arrays: explicit matrix products and daggers, no checkerboarding, no Kokkos.
#pragma once

#include <array>
#include <complex>
#include <vector>

namespace kqcd::ref {

struct GaugeObservables {
  double plaquette, spatial, temporal, link_trace;
};

GaugeObservables gauge_observables(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u);
/// (1 / lines) sum over the lines in direction dir of tr prod U_dir / 3.
std::complex<double> polyakov_loop(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u, int dir);

} // namespace kqcd::ref
