// The kqcd command-line tool. Exit codes: 0 success, 2 bad input (options, files, parameters),
// 1 any other failure.
#include "commands.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/simd_complex.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
  // Before anything else: a binary built for AVX-512/AVX2 (-march=native) on a CPU without it.
  try {
    kqcd::check_simd_isa();
  } catch (const kqcd::error& e) {
    std::fprintf(stderr, "kqcd: error: %s\n", e.what());
    return 2;
  }
  CLI::App app{"kqcd: lattice QCD on Kokkos (Dirac operators, solvers, gauge fields, correlators)", "kqcd"};
  app.require_subcommand(1, 1);
  app.set_help_all_flag("--help-all", "Show the help of every subcommand");
  kqcd::cli::Action action;
  kqcd::cli::add_info_command(app, action);
  kqcd::cli::add_bench_command(app, action);
  kqcd::cli::add_plaquette_command(app, action);
  kqcd::cli::add_convert_command(app, action);
  kqcd::cli::add_measure_command(app, action);
  kqcd::cli::add_smear_command(app, action);
  kqcd::cli::add_flow_command(app, action);
  kqcd::cli::add_generate_command(app, action);

  // --kokkos-* options go to Kokkos, everything else to CLI11. Kokkos starts only after parsing,
  // so that `--help` prints kqcd's help (Kokkos would answer it with its own).
  std::vector<char*> kokkos_args{argv[0]}, cli_args{argv[0]};
  for (int i = 1; i < argc; ++i)
    (std::string_view(argv[i]).starts_with("--kokkos-") ? kokkos_args : cli_args).push_back(argv[i]);
  try {
    app.parse(int(cli_args.size()), cli_args.data());
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return e.get_exit_code() == 0 ? 0 : 2;
  }
  int kokkos_argc = int(kokkos_args.size());
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
  try {
    return action ? action() : 0;
  } catch (const kqcd::error& e) {
    std::fprintf(stderr, "kqcd: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kqcd: internal error: %s\n", e.what());
    return 1;
  }
}
