// Comparisons the tests under mpiexec share: each is reduced over the ranks before it is
// checked, so every rank takes the same path (a one-sided failure cannot deadlock a collective).
#pragma once

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/core/lattice.hpp>

#include <mpi.h>

#include <algorithm>
#include <string>

namespace kqcd::test {

inline double global_max(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

/// True on every rank if the condition holds on every rank.
inline bool all_ranks(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return v != 0;
}

/// True on every rank if s is the same text on every rank.
inline bool same_on_all_ranks(const std::string& s) {
  std::string root = s;
  int n = int(root.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  root.resize(std::size_t(n));
  MPI_Bcast(root.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return all_ranks(root == s);
}

/// max over the links of `a` of |a - global| at the global site global_of(coordinates), over
/// the ranks.
template <class Gauge, class Map> double link_diff(const Gauge& a, const Gauge& global, Map global_of) {
  const Lattice& la = a.lattice();
  const Lattice& gl = global.lattice();
  double diff = 0;
  for (int p = 0; p < 2; ++p) {
    auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[p].view());
    auto g0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global[0].view());
    auto g1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global[1].view());
    for (int s = 0; s < la.cb_volume(); ++s) {
      const Coords g = global_of(la.cb_coords(s, p));
      const auto& gh = Lattice::parity(g) == 0 ? g0 : g1;
      const int gs = gl.cb_index(g);
      for (int mu = 0; mu < Nd; ++mu)
        for (int i = 0; i < Nc; ++i)
          for (int j = 0; j < Nc; ++j) diff = std::max(diff, double(Kokkos::abs(ah(s, mu, i, j) - gh(gs, mu, i, j))));
    }
  }
  return global_max(diff);
}

/// max |local - global| over the links of this rank's sub-lattice, over the ranks.
template <class Gauge> double gauge_diff(const Gauge& local, const Gauge& global) {
  const Lattice& ll = local.lattice();
  return link_diff(local, global, [&](Coords c) {
    for (int mu = 0; mu < Nd; ++mu) c.x[mu] += ll.origin(mu);
    return c;
  });
}

} // namespace kqcd::test
