// MPI's state and its GPU awareness (the handle and the one include of MPI: core/communicator.hpp).
#pragma once

#include <kqcd/core/communicator.hpp>
#include <kqcd/core/error.hpp>

#include <cstdlib>
#include <optional>
#include <string>

namespace kqcd::comm {

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

/// KQCD_GPU_AWARE_MPI: "1" (MPI takes device pointers), "0" (it does not), "auto" or unset (ask
/// MPI). Anything else is an error naming the variable.
inline std::optional<bool> parse_gpu_aware_setting(const char* value) {
  const std::string v = value ? value : "auto";
  if (v == "auto" || v.empty()) return std::nullopt;
  if (v == "1") return true;
  if (v == "0") return false;
  throw invalid_argument("KQCD_GPU_AWARE_MPI must be 0, 1 or auto, found '" + v + "'");
}

/// Whether MPI reads and writes the device memory of Kokkos' GPU backend directly (a GPU-aware
/// MPI): KQCD_GPU_AWARE_MPI decides when set; otherwise MPI's run-time query (MPICH >= 4:
/// MPIX_GPU_query_support; Open MPI: MPIX_Query_cuda_support), false where neither exists.
inline bool gpu_aware_mpi() {
  if (const auto forced = parse_gpu_aware_setting(std::getenv("KQCD_GPU_AWARE_MPI"))) return *forced;
#if KQCD_HAVE_MPI && defined(MPIX_GPU_SUPPORT_CUDA) && defined(KOKKOS_ENABLE_CUDA)
  int supported = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS && supported;
#elif KQCD_HAVE_MPI && defined(MPIX_GPU_SUPPORT_HIP) && defined(KOKKOS_ENABLE_HIP)
  int supported = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &supported) == MPI_SUCCESS && supported;
#elif KQCD_HAVE_MPI && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT && defined(KOKKOS_ENABLE_CUDA)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

} // namespace kqcd::comm
