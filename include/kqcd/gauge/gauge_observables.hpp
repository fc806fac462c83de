// Gauge observables as Kokkos reductions on the field's execution space, normalised as in
// conventions.md: plaquette (total, spatial, temporal) = Re tr / 3 averaged (unit field: 1), link
// trace = Re tr U / 3 averaged, Polyakov loop in any direction = tr of the line / 3 averaged.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/gauge_observables.hpp>

#include <string>
#include <vector>

namespace kqcd {

/// Average plaquette: total, spatial and temporal.
struct PlaquetteValues {
  /// Average over all planes, the spatial planes and the temporal planes.
  ///@{
  double total = 0, spatial = 0, temporal = 0;
  ///@}
};

namespace detail {
/// Plaquette sums over the local sites of map, read from w on the extended lattice map.ext.
template <class GT, class ES> PlaquetteValues plaquette_over(const GaugeField<GT, ES>& w, const InteriorMap& map) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  using F = PlaquetteFunctor<View>;
  double sums[2] = {0, 0}; // spatial, temporal
  for (int p = 0; p < 2; ++p) {
    double s = 0, t = 0;
    Kokkos::parallel_reduce("kqcd::plaquette", Kokkos::RangePolicy<ES>(0, map.local.cb_volume()),
                            InteriorReduce<F>{F{{w[0].view(), w[1].view()}, map.ext, map.ext_parity(p)}, map, p}, s, t);
    sums[0] += s;
    sums[1] += t;
  }
  comm::sum_in_place(map.local, sums, 2);
  const double per_plane = double(map.local.global_volume()) * Nc;
  return {(sums[0] + sums[1]) / (6 * per_plane), sums[0] / (3 * per_plane), sums[1] / (3 * per_plane)};
}
} // namespace detail

/// On a distributed lattice the forward neighbours come from an extended field of depth 1.
template <class GT, class ES> PlaquetteValues plaquette(const GaugeField<GT, ES>& u) {
  const LatticeExtension ext(u.lattice(), 1);
  if (u.lattice().distributed()) return detail::plaquette_over(ext.extend(u), ext.map());
  return detail::plaquette_over(u, ext.map());
}

/// Average of Re tr U / 3 over all links.
template <class GT, class ES> double link_trace(const GaugeField<GT, ES>& u) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  double sum = 0;
  for (int p = 0; p < 2; ++p) {
    double s = 0;
    Kokkos::parallel_reduce("kqcd::link_trace", Kokkos::RangePolicy<ES>(0, u.lattice().cb_volume()),
                            LinkTraceFunctor<View>{u[p].view()}, s);
    sum += s;
  }
  return comm::sum(u.lattice(), sum) / (double(u.lattice().global_volume()) * Nd * Nc);
}

namespace detail {
/// The Polyakov loop sum over the lines of a distributed lattice: each rank multiplies its
/// segments, the ranks along dir gather theirs in grid order, and the first of them multiplies
/// and traces; the traces are then summed over all ranks.
template <class GT, class ES> Kokkos::complex<double> polyakov_sum_distributed(const GaugeField<GT, ES>& u, int dir) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  using Out = Kokkos::View<Kokkos::complex<double>* [1][Nc][Nc], Kokkos::LayoutRight, typename View::memory_space>;
  const Lattice& lat = u.lattice();
  const int lines = int(lat.volume() / lat.dim(dir));
  Out seg("kqcd::polyakov_segments", lines);
  Kokkos::parallel_for("kqcd::polyakov_segments", Kokkos::RangePolicy<ES>(0, lines),
                       PolyakovSegmentFunctor<View, Out>{{u[0].view(), u[1].view()}, lat, dir, seg});
  auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), seg);
  double re_im[2] = {0, 0};
#if KQCD_HAVE_MPI
  // One sub-communicator per line of ranks along dir, ranked by the grid coordinate in dir.
  int colour = 0;
  for (int mu = Nd - 1; mu >= 0; --mu)
    if (mu != dir) colour = colour * lat.grid(mu) + lat.grid_coord(mu);
  MPI_Comm line_comm;
  MPI_Comm_split(lat.communicator(), colour, lat.grid_coord(dir), &line_comm);
  const int n = lines * Nc * Nc * 2, ranks = lat.grid(dir);
  std::vector<double> all(std::size_t(n) * ranks);
  MPI_Allgather(mine.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, line_comm);
  MPI_Comm_free(&line_comm);
  if (lat.grid_coord(dir) == 0) {
    const auto* m = reinterpret_cast<const Kokkos::complex<double>*>(all.data());
    for (int i = 0; i < lines; ++i) {
      auto line = SU3<double>::identity();
      for (int r = 0; r < ranks; ++r) {
        SU3<double> s;
        for (int a = 0; a < Nc; ++a)
          for (int b = 0; b < Nc; ++b) s.m[a][b] = m[(std::size_t(r) * lines + i) * Nc * Nc + a * Nc + b];
        line = line * s;
      }
      for (int a = 0; a < Nc; ++a) {
        re_im[0] += line.m[a][a].real();
        re_im[1] += line.m[a][a].imag();
      }
    }
  }
#endif
  comm::sum_in_place(lat, re_im, 2);
  return {re_im[0], re_im[1]};
}
} // namespace detail

/// Polyakov loop in direction dir (3 = t): average over the lines of tr prod U_dir / 3.
template <class GT, class ES> Kokkos::complex<double> polyakov_loop(const GaugeField<GT, ES>& u, int dir = Nd - 1) {
  if (dir < 0 || dir >= Nd) throw invalid_argument("Polyakov loop direction must be 0..3, found " + std::to_string(dir));
  using View = typename CBGaugeField<GT, ES>::view_type;
  const Lattice& lat = u.lattice();
  const double norm = double(lat.global_volume() / lat.global_dim(dir)) * Nc;
  if (lat.distributed()) return detail::polyakov_sum_distributed(u, dir) / norm;
  const int lines = int(lat.volume() / lat.dim(dir));
  double re = 0, im = 0;
  Kokkos::parallel_reduce("kqcd::polyakov_loop", Kokkos::RangePolicy<ES>(0, lines),
                          PolyakovFunctor<View>{{u[0].view(), u[1].view()}, lat, dir}, re, im);
  return {re / norm, im / norm};
}

} // namespace kqcd
