// The kqcd command-line tool. Exit codes: 0 success, 2 bad input (options, files, parameters),
// 1 any other failure.
#include "commands.hpp"

#include <kqcd/comm/device_comm.hpp>
#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/core/simd_check.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
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
  bool profile = false;
  app.add_flag("--profile", profile,
               "Print the time of each top-level call (init, h2d, compute, d2h, free, total) to stderr at exit "
               "(also KQCD_PROFILE=1)");
  app.fallthrough(); // --profile after the subcommand too
  kqcd::cli::Action action;
  kqcd::cli::add_info_command(app, action);
  kqcd::cli::add_bench_command(app, action);
  kqcd::cli::add_plaquette_command(app, action);
  kqcd::cli::add_convert_command(app, action);
  kqcd::cli::add_measure_command(app, action);
  kqcd::cli::add_smear_command(app, action);
  kqcd::cli::add_flow_command(app, action);
  kqcd::cli::add_generate_command(app, action);
  kqcd::cli::add_tune_command(app, action);

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
  // Under mpiexec every rank runs the command; only rank 0 writes to stdout. Distributed commands
  // (bench dslash, bench cg, plaquette, smear, flow, measure, generate, convert) split the lattice over the
  // ranks; the others run on rank 0 alone.
  const bool distributed_command = (app.get_subcommand("bench")->parsed() &&
                                    (app.get_subcommand("bench")->get_subcommand("dslash")->parsed() ||
                                     app.get_subcommand("bench")->get_subcommand("cg")->parsed())) ||
                                   app.get_subcommand("plaquette")->parsed() || app.get_subcommand("smear")->parsed() ||
                                   app.get_subcommand("flow")->parsed() || app.get_subcommand("measure")->parsed() ||
                                   app.get_subcommand("generate")->parsed() || app.get_subcommand("convert")->parsed();
  int rank = 0, ranks = 1;
#if KQCD_HAVE_MPI
  // MPI only when a process manager started us (mpiexec sets PMI_* or PMIX_*): a plain `kqcd`
  // stays a plain process.
  const bool use_mpi = std::getenv("PMI_RANK") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK") ||
                       std::getenv("OMPI_COMM_WORLD_SIZE");
  if (use_mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (rank != 0 && !std::freopen("/dev/null", "w", stdout)) return 1;
  }
#endif
  // One GPU per rank, chosen by the node-local rank (unless the command line chooses).
  const std::string device = kqcd::comm::device_argument(std::vector<std::string>(kokkos_args.begin() + 1, kokkos_args.end()));
  if (!device.empty()) kokkos_args.push_back(const_cast<char*>(device.c_str()));
  int rc = 0;
  {
    int kokkos_argc = int(kokkos_args.size());
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
    if (profile) kqcd::set_profiling(true); // the table prints when Kokkos finalises
    try {
      if (ranks > 1 && !distributed_command && rank == 0)
        std::fprintf(stderr, "kqcd: this command is not distributed; it runs on rank 0 while %d ranks wait\n", ranks - 1);
      if (action && (distributed_command || rank == 0)) rc = action();
    } catch (const kqcd::error& e) {
      std::fprintf(stderr, "kqcd: error: %s\n", e.what());
      rc = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kqcd: internal error: %s\n", e.what());
      rc = 1;
    }
  }
#if KQCD_HAVE_MPI
  if (use_mpi) MPI_Finalize();
#endif
  return rc;
}
