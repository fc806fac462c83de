// The one place that includes MPI. Builds without MPI (KQCD_ENABLE_MPI=OFF, e.g. the CUDA build
// on a machine without an MPI library) get a placeholder handle and run on one rank.
#pragma once

#include <kqcd/build_info.hpp>

#include <Kokkos_Core.hpp>

#if KQCD_HAVE_MPI
#include <mpi.h>
#endif

namespace kqcd::comm {

#if KQCD_HAVE_MPI
using handle = MPI_Comm;
inline handle null_handle() { return MPI_COMM_NULL; }
#else
using handle = int;
KOKKOS_INLINE_FUNCTION constexpr handle null_handle() { return 0; }
#endif

/// MPI is compiled in and initialised (MPI_Init was called and MPI_Finalize was not).
inline bool mpi_active() {
#if KQCD_HAVE_MPI
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
#else
  return false;
#endif
}

} // namespace kqcd::comm
