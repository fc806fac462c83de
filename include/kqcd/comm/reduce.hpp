// Global sums over the ranks that hold a lattice: every reduction of a distributed field goes
// through these, so solvers and observables see the same numbers on any process grid.
#pragma once

#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/lattice.hpp>

#include <Kokkos_Complex.hpp>

namespace kqcd::comm {

/// In-place sum of n doubles over the ranks of lat (nothing to do on one rank).
inline void sum_in_place(const Lattice& lat, double* values, int n) {
#if KQCD_HAVE_MPI
  if (lat.distributed()) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, lat.communicator());
#else
  (void)lat, (void)values, (void)n;
#endif
}
/// The largest v over the ranks of lat.
inline double max(const Lattice& lat, double v) {
#if KQCD_HAVE_MPI
  if (lat.distributed()) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, lat.communicator());
#else
  (void)lat;
#endif
  return v;
}
/// Sum of v over the ranks of lat.
inline double sum(const Lattice& lat, double v) {
  sum_in_place(lat, &v, 1);
  return v;
}
/// Sum of v over the ranks of lat.
inline Kokkos::complex<double> sum(const Lattice& lat, Kokkos::complex<double> v) {
  double re_im[2] = {v.real(), v.imag()};
  sum_in_place(lat, re_im, 2);
  return {re_im[0], re_im[1]};
}

} // namespace kqcd::comm
