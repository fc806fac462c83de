// The kqcd command-line tool. Exit codes: 0 success, 2 bad input (options, files, parameters),
// 1 any other failure.
#include "commands.hpp"

#include <kqcd/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
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

  // Kokkos takes its own --kokkos-* options out of argv first; CLI11 parses the rest.
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return e.get_exit_code() == 0 ? 0 : 2;
  }
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
