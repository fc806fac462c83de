#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace kqcd::bench {

nlohmann::json to_json(const Provenance& p) {
  return {{"git", p.git},         {"kqcd_version", p.kqcd_version}, {"kokkos_version", p.kokkos_version},
          {"backend", p.backend}, {"device", p.device},             {"threads", p.threads},
          {"compiler", p.compiler}, {"flags", p.flags},             {"date", p.date}};
}

nlohmann::json provenance_json(const std::string& backend) { return to_json(make_provenance(backend_or_default(backend))); }

std::string backend_or_default(const std::string& backend) {
  return backend.empty() ? std::string(Kokkos::DefaultExecutionSpace::name()) : backend;
}

void finish_record(nlohmann::json& r, const std::string& family, const std::string& backend) {
  r["family"] = family;
  r["backend"] = backend;
  if (!r.contains("provenance")) r["provenance"] = provenance_json(backend);
}

namespace detail {
// Not in an anonymous namespace: CUDA extended lambdas need an enclosing function with linkage.
/// 16-byte elements so that each thread moves one vector (a GPU's widest load), as a
/// hand-written STREAM copy does; with one float per thread a GPU copy reaches half the bandwidth.
struct alignas(16) Float4 {
  float v[4];
};

template <class ES> double copy_bandwidth(bool quick) {
  // 512 MiB per array, to leave every cache: the GPU machine's host CPU has 300 MiB of L3.
  const std::size_t n = quick ? (std::size_t(1) << 18) : (std::size_t(1) << 25);
  Kokkos::View<Float4*, typename ES::memory_space> a("stream_a", n), b("stream_b", n);
  Kokkos::parallel_for("kqcd::stream_init", Kokkos::RangePolicy<ES>(0, n), KOKKOS_LAMBDA(std::size_t i) {
    b(i) = Float4{{1.0f, 2.0f, 3.0f, float(i)}};
  });
  double best = 1e30;
  const int reps = quick ? 2 : 20;
  for (int r = 0; r < reps + 1; ++r) {
    ES().fence();
    Kokkos::Timer t;
    Kokkos::parallel_for("kqcd::stream_copy", Kokkos::RangePolicy<ES>(0, n), KOKKOS_LAMBDA(std::size_t i) { a(i) = b(i); });
    ES().fence();
    if (r > 0) best = std::min(best, t.seconds());
  }
  return 2.0 * n * sizeof(Float4) / best * 1e-9;
}
} // namespace detail

double stream_copy_gbytes_per_s(const std::string& backend, bool quick) {
  double gbps = 0;
  on_backend(backend, [&]<class ES>() { gbps = detail::copy_bandwidth<ES>(quick); });
  return gbps;
}

} // namespace kqcd::bench
