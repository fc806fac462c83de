// Host-side test inputs shared by the operator tests: the unequal-extent lattice, boundary phases
// of every kind, and random fields exported to lexicographic host arrays for the references.
#pragma once

#include <kqcd/core/boundary.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>

#include <array>
#include <complex>
#include <cstring>
#include <random>
#include <utility>
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
/// Whether two spinors of one parity hold the same values on this rank's sites, bit for bit (16-bit
/// storage: the stored integers and the norms).
template <class S> bool same_sites(const S& a, const S& b) {
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.view());
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.view());
  const auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  for (int i = 0; i < a.lattice().cb_volume(); ++i)
    for (int c = 0; c < int(ha.extent(1)); ++c) {
      if constexpr (decltype(ha)::rank() == 2) {
        if (!same(ha(i, c), hb(i, c))) return false;
      } else {
        for (int s = 0; s < int(ha.extent(2)); ++s)
          if (!same(ha(i, c, s), hb(i, c, s))) return false;
      }
    }
  if constexpr (S::has_norm) {
    const auto na = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.norm());
    const auto nb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.norm());
    for (int i = 0; i < a.lattice().cb_volume(); ++i)
      if (!same(na(i), nb(i))) return false;
  }
  return true;
}
/// A device view of n four-spinor sites (site, colour, spin) with components uniform in [-1, 1)
/// from `seed`, and its host mirror holding the same values.
template <class ES, class Real> auto random_spinor_view(int n, unsigned seed) {
  using C = Kokkos::complex<Real>;
  Kokkos::View<C* [Nc][Ns], typename ES::memory_space> v("random_spinor_view", n);
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int s = 0; s < n; ++s)
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Ns; ++sp) h(s, c, sp) = C(Real(dist(gen)), Real(dist(gen)));
  Kokkos::deep_copy(v, h);
  return std::pair(v, h);
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
/// A colour point source on the host: 1 in colour `colour` of site x0, colour vectors in lexicographic order.
inline std::vector<std::complex<double>> colour_point_source(const Lattice& lat, const std::array<int, 4>& x0, int colour) {
  std::vector<std::complex<double>> src(std::size_t(lat.volume()) * Nc, 0.0);
  src[std::size_t(lat.lex_index(Coords{{x0[0], x0[1], x0[2], x0[3]}}) * Nc + colour)] = 1.0;
  return src;
}
inline std::vector<std::complex<double>> random_host_spinor(const Lattice& lat, std::uint64_t seed) {
  SpinorField<Kokkos::complex<double>, Ns, Kokkos::DefaultHostExecutionSpace> s(lat);
  random_spinor(s, seed);
  return export_spinor(s);
}

} // namespace kqcd::test
