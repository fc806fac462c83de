#include <kqcd/build_info.hpp>
#include <kqcd/core/provenance.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <format>

namespace kqcd {

std::string kokkos_version_string() {
  return std::format("{}.{}.{}", KOKKOS_VERSION / 10000, (KOKKOS_VERSION / 100) % 100, KOKKOS_VERSION % 100);
}

namespace {
std::string device_description(const std::string& backend) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (backend == Kokkos::Cuda::name()) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, Kokkos::Cuda().cuda_device()) == cudaSuccess)
      return std::format("{} (sm_{}{}, {} SMs)", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    return "CUDA device";
  }
#endif
  (void)backend;
  std::string cpu = "host CPU";
  if (FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
      std::string l(line);
      if (l.rfind("model name", 0) == 0) {
        cpu = l.substr(l.find(':') + 2);
        if (!cpu.empty() && cpu.back() == '\n') cpu.pop_back();
        break;
      }
    }
    std::fclose(f);
  }
  return cpu;
}
} // namespace

Provenance make_provenance(const std::string& backend) {
  Provenance p;
  p.git = git_commit();
  p.kqcd_version = build_info::version;
  p.kokkos_version = kokkos_version_string();
  p.backend = backend;
  p.device = device_description(backend);
  p.threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  p.compiler = build_info::compiler;
  p.flags = build_info::cxx_flags;
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  p.date = std::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
  return p;
}

} // namespace kqcd
