// What a global sum of device data costs by each route over the ranks of a process grid: the
// local reduction alone, the reduction into host memory followed by MPI_Allreduce (how kqcd's BLAS
// sums), and, where the grid's transport is NCCL, the reduction left in device memory, summed by
// NCCL's all-reduce on the compute stream and read back. Each is one dot product of a solver.
#include "bench.hpp"

#include <kqcd/comm/device_comm.hpp>
#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/execution_spaces.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace kqcd::bench {

namespace {
template <class ES> nlohmann::json time_global_sums_on(const Lattice& lat, bool quick) {
  using Mem = typename ES::memory_space;
  const std::int64_t n = std::int64_t(lat.cb_volume()) * 24; // the reals of one parity of a spinor field
  Kokkos::View<double*, Mem> x("kqcd::bench::global_sum_x", n);
  Kokkos::deep_copy(x, 1.0);
  const Kokkos::RangePolicy<ES, Kokkos::IndexType<std::int64_t>> policy(0, n);
  auto add = KOKKOS_LAMBDA(std::int64_t i, double& a) { a += x(i); };
  const double global = double(n) * double(lat.global_volume() / lat.volume());
  const int calls = quick ? 5 : 500;
  // Microseconds per call of once() (which returns the sum it computed), the slowest rank's.
  auto per_call_us = [&](const char* route, double expected, auto&& once) {
    if (const double s = once(); s != expected)
      throw error(std::string("global sum by ") + route + ": " + std::to_string(s) + ", expected " + std::to_string(expected));
    const double seconds = fenced_seconds<ES>([&] {
      for (int i = 0; i < calls; ++i) once();
    });
    return comm::max(lat, 1e6 * seconds / calls);
  };
  nlohmann::json r{{"reals", n}, {"calls", calls}};
  r["local"] = per_call_us("the local reduction", double(n), [&] {
    double s = 0;
    Kokkos::parallel_reduce("kqcd::bench::local_sum", policy, add, s);
    return s;
  });
  r["mpi"] = per_call_us("MPI", global, [&] {
    double s = 0;
    Kokkos::parallel_reduce("kqcd::bench::local_sum", policy, add, s);
    return comm::sum(lat, s);
  });
#if KQCD_HAVE_NCCL
  if constexpr (std::is_same_v<ES, Kokkos::Cuda>)
    if (const comm::DeviceCommunicator* device = lat.device_communicator()) {
      Kokkos::View<double, Mem> d("kqcd::bench::global_sum_d");
      const auto h = Kokkos::create_mirror_view(d);
      r["nccl"] = per_call_us("NCCL", global, [&] {
        Kokkos::parallel_reduce("kqcd::bench::local_sum", policy, add, d);
        device->sum_in_place(d.data(), 1, ES().cuda_stream());
        Kokkos::deep_copy(h, d);
        return h();
      });
    }
#endif
  return r;
}
} // namespace

nlohmann::json time_global_sums(const Lattice& local, const std::string& backend, bool quick) {
  nlohmann::json r;
  on_backend(backend, [&]<class ES>() { r = time_global_sums_on<ES>(local, quick); });
  return r;
}

} // namespace kqcd::bench
