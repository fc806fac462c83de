// The NCCL transport (comm/device_comm.hpp): NCCL's communicator started at the first exchange
// (grids whose fields stay on the host never start it) and without blocking, so that a rank whose
// start fails can tell the others over MPI instead of leaving them waiting for it.
#include <kqcd/comm/device_comm.hpp>

#include <cuda_runtime.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace kqcd::comm {

namespace {
constexpr int failure_tag = 0x6b71; // a rank's notice that its NCCL did not start
constexpr double start_timeout_s = 120;

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw error(std::string("NCCL transport: ") + what + ": " + cudaGetErrorString(e));
}

// A call on a non-blocking communicator may return ncclInProgress: wait until it has been issued.
void check_nccl(ncclComm_t comm, ncclResult_t r, const char* what) {
  while (r == ncclInProgress) ncclCommGetAsyncError(comm, &r);
  if (r != ncclSuccess)
    throw error(std::string("NCCL transport: ") + what + ": " + ncclGetErrorString(r) + " (" + ncclGetLastError(comm) + ")");
}
} // namespace

struct DeviceCommunicator::Impl {
  handle mpi;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t ready = nullptr, arrived = nullptr;
  std::vector<Message> receives, sends; ///< the messages started and not yet posted
  void start_nccl();
};

DeviceCommunicator::DeviceCommunicator(handle mpi) : impl_(std::make_unique<Impl>()) { impl_->mpi = mpi; }

void DeviceCommunicator::Impl::start_nccl() {
  // NVLink multicast (NVLS) can take the shared host's GPUs out of service: never let NCCL use it.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int rank = 0, size = 1;
  MPI_Comm_rank(mpi, &rank);
  MPI_Comm_size(mpi, &size);

  ncclUniqueId id{};
  std::string failure;
  if (rank == 0)
    if (const ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess)
      failure = std::string("ncclGetUniqueId: ") + ncclGetErrorString(r) + " (" + ncclGetLastError(nullptr) + ")";
  MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, mpi);
  int id_ok = failure.empty();
  MPI_Bcast(&id_ok, 1, MPI_INT, 0, mpi);

  if (id_ok) {
    // Waits for a non-blocking call that makes communicator `c` to finish, a failure notice from
    // another rank, or the time limit; returns the call's result (ncclInProgress where it gave up).
    // A split sets `c` only once it is done: until then its parent reports failures.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(start_timeout_s);
    auto wait = [&](ncclComm_t& c, ncclResult_t r, ncclComm_t parent = nullptr) {
      while (r == ncclInProgress) {
        if (const ncclComm_t made = std::atomic_ref(c).load()) ncclCommGetAsyncError(made, &r);
        else if (parent) {
          ncclResult_t p = ncclInProgress;
          ncclCommGetAsyncError(parent, &p);
          if (p != ncclSuccess && p != ncclInProgress) r = p;
        }
        if (r != ncclInProgress) break;
        int notice = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, failure_tag, mpi, &notice, MPI_STATUS_IGNORE);
        if (notice) break; // another rank failed: this one gives up below
        if (std::chrono::steady_clock::now() > deadline) {
          failure = "no answer from the other ranks within " + std::to_string(int(start_timeout_s)) + " s";
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return r;
    };
    auto failed_call = [&](ncclComm_t c, ncclResult_t r, const char* what) {
      if (failure.empty() && r != ncclSuccess && r != ncclInProgress)
        failure = std::string(what) + ": " + ncclGetErrorString(r) + " (" + ncclGetLastError(c) + ")";
      return r != ncclSuccess;
    };
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t start = nullptr;
    ncclResult_t r = ncclCommInitRankConfig(&start, size, id, rank, &config);
    r = wait(start, r);
    if (!failed_call(start, r, "ncclCommInitRankConfig")) {
      // A non-blocking communicator hands each group of messages to a helper thread before they
      // leave: the halos travel on a blocking communicator of the same ranks.
      ncclConfig_t blocking = NCCL_CONFIG_INITIALIZER;
      blocking.blocking = 1;
      ncclComm_t child = nullptr;
      r = ncclCommSplit(start, 0, rank, &child, &blocking);
      if (r == ncclSuccess && !child) r = ncclInProgress;
      r = wait(child, r, start);
      if (!failed_call(child ? child : start, r, "ncclCommSplit")) comm = child;
      else if (child) ncclCommAbort(child);
    }
    if (start) (comm ? ncclCommDestroy(start) : ncclCommAbort(start));
  }

  // Every failed rank tells every other one, then all agree on the outcome; each rank collects the
  // notices addressed to it, so that no message is left behind.
  const int failed = failure.empty() ? 0 : 1;
  std::vector<MPI_Request> notices;
  if (failed && id_ok)
    for (int p = 0; p < size; ++p)
      if (p != rank) {
        notices.emplace_back();
        MPI_Isend(&failed, 1, MPI_INT, p, failure_tag, mpi, &notices.back());
      }
  int n_failed = 0;
  MPI_Allreduce(&failed, &n_failed, 1, MPI_INT, MPI_SUM, mpi);
  if (id_ok)
    for (int k = 0; k < n_failed - failed; ++k) {
      int ignored = 0;
      MPI_Recv(&ignored, 1, MPI_INT, MPI_ANY_SOURCE, failure_tag, mpi, MPI_STATUS_IGNORE);
    }
  MPI_Waitall(int(notices.size()), notices.data(), MPI_STATUSES_IGNORE);
  if (n_failed > 0) {
    int first = failed ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, mpi);
    char reason[512] = {};
    if (rank == first) std::strncpy(reason, failure.c_str(), sizeof reason - 1);
    MPI_Bcast(reason, int(sizeof reason), MPI_CHAR, first, mpi);
    if (comm) ncclCommAbort(comm);
    comm = nullptr;
    throw error("NCCL did not start on " + std::to_string(n_failed) + " of " + std::to_string(size) + " ranks; rank " +
                std::to_string(first) + ": " + reason + " (KQCD_TRANSPORT=mpi keeps the halos on MPI)");
  }

  check_cuda(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  check_cuda(cudaEventCreateWithFlags(&arrived, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  // The messages' stream has the highest priority: the packing, NCCL's kernels and the unpacking
  // take SMs as the interior's blocks finish instead of waiting behind the whole interior kernel.
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  check_cuda(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority");
}

DeviceCommunicator::~DeviceCommunicator() {
  if (impl_->stream) cudaStreamSynchronize(impl_->stream);
  if (impl_->ready) cudaEventDestroy(impl_->ready);
  if (impl_->arrived) cudaEventDestroy(impl_->arrived);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
  if (impl_->comm) {
    ncclResult_t r = ncclCommFinalize(impl_->comm);
    while (r == ncclInProgress) ncclCommGetAsyncError(impl_->comm, &r);
    ncclCommDestroy(impl_->comm);
  }
}

cudaStream_t DeviceCommunicator::stream() const {
  if (!impl_->stream) impl_->start_nccl(); // every rank reaches its first exchange together
  return impl_->stream;
}
void DeviceCommunicator::follow(cudaStream_t compute) const {
  const cudaStream_t messages = stream(); // starts NCCL, which makes the events, at the first call
  check_cuda(cudaEventRecord(impl_->ready, compute), "cudaEventRecord");
  check_cuda(cudaStreamWaitEvent(messages, impl_->ready, 0), "cudaStreamWaitEvent");
}
void DeviceCommunicator::start(const std::vector<Message>& receives, const std::vector<Message>& sends) const {
  // Several exchanges may start before the first is posted (a 16-bit field's rows and norms).
  impl_->receives.insert(impl_->receives.end(), receives.begin(), receives.end());
  impl_->sends.insert(impl_->sends.end(), sends.begin(), sends.end());
}
void DeviceCommunicator::post() const {
  // Posted after the caller queued the interior's kernels, so that the host's cost of posting
  // overlaps the interior on the GPU. Every message started so far goes at once; a later post()
  // has none left.
  if (impl_->receives.empty() && impl_->sends.empty()) return;
  check_nccl(impl_->comm, ncclGroupStart(), "ncclGroupStart");
  for (const auto& m : impl_->receives)
    check_nccl(impl_->comm, ncclRecv(m.data, m.bytes, ncclChar, m.peer, impl_->comm, impl_->stream), "ncclRecv");
  for (const auto& m : impl_->sends)
    check_nccl(impl_->comm, ncclSend(m.data, m.bytes, ncclChar, m.peer, impl_->comm, impl_->stream), "ncclSend");
  check_nccl(impl_->comm, ncclGroupEnd(), "ncclGroupEnd");
  impl_->receives.clear();
  impl_->sends.clear();
}
void DeviceCommunicator::join(cudaStream_t compute) const {
  check_cuda(cudaEventRecord(impl_->arrived, stream()), "cudaEventRecord");
  check_cuda(cudaStreamWaitEvent(compute, impl_->arrived, 0), "cudaStreamWaitEvent");
}
void DeviceCommunicator::sum_in_place(double* values, int n, cudaStream_t compute) const {
  if (!impl_->stream) impl_->start_nccl();
  check_nccl(impl_->comm, ncclAllReduce(values, values, std::size_t(n), ncclDouble, ncclSum, impl_->comm, compute), "ncclAllReduce");
}

} // namespace kqcd::comm
