// How halos travel between ranks: MPI (host memory, host staging or a GPU-aware MPI) or NCCL's
// point-to-point calls GPU to GPU, chosen at run time (KQCD_TRANSPORT). The NCCL transport is a
// DeviceCommunicator a ProcessGrid owns: one NCCL communicator over the grid's ranks, bootstrapped
// through MPI, with its own stream on which the faces are packed, sent, received and unpacked while
// the interior is computed on the compute stream; events order the two streams.
#pragma once

#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if KQCD_HAVE_NCCL
#include <cuda_runtime_api.h>
#endif

namespace kqcd::comm {

/// How the faces of a halo reach the neighbouring ranks.
enum class Transport {
  mpi, ///< MPI point-to-point messages (device faces staged through host memory unless MPI is GPU-aware)
  nccl ///< NCCL point-to-point calls between the GPUs, on CUDA streams
};

/// "mpi" or "nccl".
inline const char* transport_name(Transport t) { return t == Transport::nccl ? "nccl" : "mpi"; }

/// KQCD_TRANSPORT: "mpi", "nccl", "auto" or unset (nullopt: auto). Anything else is an error naming
/// the variable.
inline std::optional<Transport> parse_transport_setting(const char* value) {
  const std::string v = value ? value : "auto";
  if (v == "auto" || v.empty()) return std::nullopt;
  if (v == "mpi") return Transport::mpi;
  if (v == "nccl") return Transport::nccl;
  throw invalid_argument("KQCD_TRANSPORT must be mpi, nccl or auto, found '" + v + "'");
}

/// The transport of a process grid of `ranks` ranks: KQCD_TRANSPORT where set; otherwise (auto)
/// NCCL where it was built, several ranks run and Kokkos' default execution space computes in
/// device memory, MPI elsewhere. Asking for NCCL in a build without it is an error.
inline Transport choose_transport(int ranks) {
  const auto forced = parse_transport_setting(std::getenv("KQCD_TRANSPORT"));
  if (forced == Transport::nccl && !KQCD_HAVE_NCCL)
    throw invalid_argument("KQCD_TRANSPORT=nccl, but this kqcd was built without NCCL (KQCD_ENABLE_NCCL needs CUDA, MPI and NCCL)");
  if (forced) return *forced;
  constexpr bool device_memory =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;
  return KQCD_HAVE_NCCL && device_memory && ranks > 1 ? Transport::nccl : Transport::mpi;
}

#if KQCD_HAVE_NCCL
/// An NCCL communicator over the ranks of an MPI communicator, the stream its messages travel on
/// and the events that order that stream with the compute stream of a halo exchange.
class DeviceCommunicator {
public:
  /// The transport over the ranks of `mpi`. NCCL starts at the first start(), collectively: rank
  /// 0's NCCL id is broadcast, every rank joins on its current GPU, NVLink multicast stays off
  /// (NCCL_NVLS_ENABLE=0 is set before NCCL starts). If any rank fails to start NCCL, every rank
  /// throws kqcd::error naming the first failed rank and its reason.
  explicit DeviceCommunicator(handle mpi);
  ~DeviceCommunicator();
  DeviceCommunicator(const DeviceCommunicator&) = delete;
  DeviceCommunicator& operator=(const DeviceCommunicator&) = delete;

  /// A message of `bytes` bytes of device memory from or to rank `peer` of the communicator.
  struct Message {
    void* data;
    std::size_t bytes;
    int peer;
  };
  /// The stream the messages travel on, of the highest priority (the first call on each rank
  /// starts NCCL): work queued there takes SMs as the compute stream's blocks retire.
  cudaStream_t stream() const;
  /// Work queued on stream() from now on waits for the work queued on `compute` so far (the source
  /// of the faces).
  void follow(cudaStream_t compute) const;
  /// Takes the receives and sends of an exchange whose faces are the work queued on stream() so far
  /// and returns without waiting. They are posted by the next post(), after the caller queued its
  /// interior work, so that the host's posting overlaps it; exchanges started before that post()
  /// are posted together. Both ranks of a pair post their messages to each other in the same order
  /// (NCCL matches them by order, not by tag).
  void start(const std::vector<Message>& receives, const std::vector<Message>& sends) const;
  /// Posts the messages started so far on stream(); work queued there from now on finds them arrived.
  void post() const;
  /// Work queued on `compute` from now on waits for the work queued on stream() so far (the
  /// messages and their unpacking).
  void join(cudaStream_t compute) const;
  /// Sums n doubles of device memory over the ranks, in place, by NCCL's all-reduce queued on
  /// `compute` after the work there (the first call on each rank starts NCCL); returns without waiting.
  void sum_in_place(double* values, int n, cudaStream_t compute) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
#else
class DeviceCommunicator {}; // no NCCL in this build: halos travel through MPI
#endif

/// This rank's number among the ranks of its node (MPI's shared-memory split of MPI_COMM_WORLD);
/// 0 without MPI.
inline int node_local_rank() {
  int local = 0;
#if KQCD_HAVE_MPI
  if (mpi_active()) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
  }
#endif
  return local;
}

/// One GPU per rank: the Kokkos argument "--kokkos-device-id=N" with N the node-local rank modulo
/// the GPUs this process sees, to call Kokkos::initialize with after MPI_Init; empty where MPI is
/// not running, Kokkos has no GPU backend, or `args` (the command line) already choose a device.
inline std::string device_argument(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a.starts_with("--kokkos-device-id") || a.starts_with("--kokkos-map-device-id-by")) return "";
  if (std::getenv("KOKKOS_DEVICE_ID") || std::getenv("KOKKOS_MAP_DEVICE_ID_BY") || !mpi_active()) return "";
  const int devices = Kokkos::num_devices();
  if (devices < 1) return "";
  return "--kokkos-device-id=" + std::to_string(node_local_rank() % devices);
}

} // namespace kqcd::comm
