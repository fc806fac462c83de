#include <kqcd/build_info.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/core/provenance.hpp>
#include <kqcd/core/simd_check.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <format>

namespace kqcd {

std::string library_simd_isa() { return simd_isa_name(); }

std::string kokkos_version_string() {
  return std::format("{}.{}.{}", KOKKOS_VERSION / 10000, (KOKKOS_VERSION / 100) % 100, KOKKOS_VERSION % 100);
}

namespace {
/// The target options that shaped the generated code, beyond CMAKE_CXX_FLAGS: kqcd's own target
/// options (-march=native, -ffp-contract=fast, sanitizers), the Kokkos architecture Kokkos was
/// configured for (it adds e.g. -arch=sm_90 through its own target), the CUDA compiler, and the
/// instruction set the host compiler actually targeted (its predefined macros).
std::string target_description() {
  std::string s;
  auto add = [&s](const std::string& item) {
    if (item.empty()) return;
    if (!s.empty()) s += ' ';
    s += item;
  };
  add(build_info::target_options);
  std::string arch;
  auto add_arch = [&arch](const char* name) { arch += arch.empty() ? name : std::string(",") + name; };
#if defined(KOKKOS_ARCH_HOPPER90)
  add_arch("HOPPER90(sm_90)");
#endif
#if defined(KOKKOS_ARCH_AMPERE80)
  add_arch("AMPERE80(sm_80)");
#endif
#if defined(KOKKOS_ARCH_AMPERE86)
  add_arch("AMPERE86(sm_86)");
#endif
#if defined(KOKKOS_ARCH_ADA89)
  add_arch("ADA89(sm_89)");
#endif
#if defined(KOKKOS_ARCH_VOLTA70)
  add_arch("VOLTA70(sm_70)");
#endif
#if defined(KOKKOS_ARCH_BLACKWELL100)
  add_arch("BLACKWELL100(sm_100)");
#endif
#if defined(KOKKOS_ARCH_AVX512XEON)
  add_arch("AVX512XEON");
#endif
#if defined(KOKKOS_ARCH_AVX2)
  add_arch("AVX2");
#endif
#if defined(KOKKOS_ARCH_NATIVE)
  add_arch("NATIVE");
#endif
#if defined(KOKKOS_ARCH_AMD_ZEN3)
  add_arch("AMD_ZEN3");
#endif
#if defined(KOKKOS_ARCH_AMD_ZEN4)
  add_arch("AMD_ZEN4");
#endif
  (void)add_arch; // unused when Kokkos was configured for no particular architecture
  add("kokkos_arch=" + (arch.empty() ? std::string("generic") : arch));
#if defined(__CUDACC_VER_MAJOR__)
  add(std::format("nvcc={}.{}", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__));
#endif
#if defined(__AVX512F__)
  add("host_isa=avx512f");
#elif defined(__AVX2__)
  add("host_isa=avx2");
#elif defined(__x86_64__)
  add("host_isa=x86-64");
#endif
#if defined(__FMA__)
  add("fma");
#endif
  return s;
}

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
  // Threads of the backend that ran the work when it is a host backend (Serial: 1), else the host's.
  p.threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  with_execution_space(backend, [&]<class ES>() {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ES::memory_space>::accessible) p.threads = ES().concurrency();
  });
  p.compiler = build_info::compiler;
  p.flags = std::string(build_info::cxx_flags) + " " + target_description();
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  p.date = std::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
  return p;
}

} // namespace kqcd
