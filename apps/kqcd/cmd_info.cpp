// kqcd info: what this build runs on and how it was configured.
#include "commands.hpp"

#include <bench.hpp>
#include <kqcd/build_info.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/core/provenance.hpp>
#include <kqcd/core/tune_cache.hpp>
#include <kqcd/arch/simd_complex.hpp>

#include <nlohmann/json.hpp>

#include <iostream>

namespace kqcd::cli {

namespace {
std::string host_isa() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__)
  return "AVX2";
#elif defined(__x86_64__)
  return "x86-64 baseline (SSE2)";
#else
  return "generic";
#endif
}

nlohmann::json info_json() {
  nlohmann::json j;
  j["kqcd_version"] = build_info::version;
  j["git"] = git_commit();
  j["kokkos_version"] = kokkos_version_string();
  j["default_backend"] = Kokkos::DefaultExecutionSpace::name();
  j["backends"] = nlohmann::json::array();
  for (const auto& name : enabled_backend_names()) {
    with_execution_space(name, [&]<class ES>() {
      const auto p = make_provenance(name);
      j["backends"].push_back({{"name", name}, {"device", p.device}, {"concurrency", ES().concurrency()}});
    });
  }
  j["host_threads"] = Kokkos::DefaultHostExecutionSpace().concurrency();
  j["host_isa"] = host_isa();
  j["simd"] = {{"isa", simd_isa_name()},
               {"float_lanes", NativeSIMDComplex<float>::lanes},
               {"double_lanes", NativeSIMDComplex<double>::lanes},
               {"note", "virtual-node SIMD layout on host backends (kqcd bench dslash --layout simd)"}};
  j["build"] = {{"compiler", build_info::compiler},
                {"build_type", build_info::build_type},
                {"flags", build_info::cxx_flags},
                {"target_options", build_info::target_options},
                {"native", build_info::native},
                {"kokkos_kernels", build_info::kokkos_kernels},
                {"mpi", build_info::mpi},
                {"nccl", build_info::nccl}};
  j["provenance"] = bench::provenance_json();
  j["tune_cache"] = {{"path", tune_cache_path()}, {"tuning", tuning_enabled()}};
  return j;
}
} // namespace

void add_info_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("info", "Print the Kokkos version, backends, devices, threads and build options");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  cmd->callback([&action, json] {
    action = [json] {
      const auto j = info_json();
      if (*json) {
        std::cout << j.dump(2) << "\n";
        return 0;
      }
      std::cout << "kqcd " << j["kqcd_version"].get<std::string>() << " (git " << j["git"].get<std::string>() << ")\n"
                << "Kokkos " << j["kokkos_version"].get<std::string>() << ", default backend "
                << j["default_backend"].get<std::string>() << "\n";
      for (const auto& b : j["backends"])
        std::cout << "  backend " << b["name"].get<std::string>() << ": " << b["device"].get<std::string>()
                  << ", concurrency " << b["concurrency"].get<int>() << "\n";
      std::cout << "host threads " << j["host_threads"].get<int>() << ", host ISA " << j["host_isa"].get<std::string>()
                << ", SIMD " << j["simd"]["isa"].get<std::string>() << " lanes float/double "
                << j["simd"]["float_lanes"].get<int>() << "/" << j["simd"]["double_lanes"].get<int>() << "\n"
                << "build: " << j["build"]["compiler"].get<std::string>() << ", "
                << j["build"]["build_type"].get<std::string>() << ", native "
                << (j["build"]["native"].get<bool>() ? "on" : "off") << ", Kokkos Kernels "
                << (j["build"]["kokkos_kernels"].get<bool>() ? "on" : "off") << ", MPI "
                << (j["build"]["mpi"].get<bool>() ? "on" : "off") << ", NCCL "
                << (j["build"]["nccl"].get<bool>() ? "on" : "off") << "\n"
                << "tune cache " << j["tune_cache"]["path"].get<std::string>() << ", tuning "
                << (j["tune_cache"]["tuning"].get<bool>() ? "on" : "off") << " (kqcd tune lists the entries)\n";
      return 0;
    };
  });
}

} // namespace kqcd::cli
