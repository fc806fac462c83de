// The one place that includes MPI, and the communicator handle a Lattice carries. Builds without
// MPI (KQCD_ENABLE_MPI=OFF, e.g. the CUDA build on a machine without an MPI library) get a
// placeholder handle and run on one rank. What runs over MPI is in comm/.
#pragma once

#include <kqcd/build_info.hpp>

#include <Kokkos_Core.hpp>

#if KQCD_HAVE_MPI
#include <mpi.h>
// Open MPI declares its CUDA query in mpi-ext.h (MPICH >= 4 in mpi.h).
#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

/// Communication between ranks (MPI, or one rank without it).
namespace kqcd::comm {

#if KQCD_HAVE_MPI
/// The communicator type (MPI_Comm, or int without MPI).
using handle = MPI_Comm;
/// The null communicator.
inline handle null_handle() { return MPI_COMM_NULL; }
#else
using handle = int;
KOKKOS_INLINE_FUNCTION constexpr handle null_handle() { return 0; }
#endif

/// The GPU-to-GPU transport of a process grid (comm/device_comm.hpp); a Lattice points to it where
/// the grid's halos travel through NCCL.
class DeviceCommunicator;


} // namespace kqcd::comm
