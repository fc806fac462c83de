// Catch2 main for the tests run under mpiexec: MPI, then Kokkos, then the tests on every rank.
// Only rank 0 reports; every rank's failures count, so the exit status is the same on all ranks.
#include <kqcd/comm/device_comm.hpp>

#include <catch2/catch_session.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  {
    // One GPU per rank (node-local rank), as the kqcd tool does.
    std::vector<char*> args(argv, argv + argc);
    const std::string device = kqcd::comm::device_argument(std::vector<std::string>(argv + 1, argv + argc));
    if (!device.empty()) args.push_back(const_cast<char*>(device.c_str()));
    int kokkos_argc = int(args.size());
    Kokkos::ScopeGuard kokkos(kokkos_argc, args.data());
    Catch::Session session;
    if (const int rc = session.applyCommandLine(kokkos_argc, args.data()); rc != 0) failed = rc; // Kokkos took its own arguments
    if (rank != 0 && !failed) session.configData().showSuccessfulTests = false;
    if (!failed) failed = session.run();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed && rank != 0) std::fprintf(stderr, "rank %d: %d test(s) failed\n", rank, failed);
  MPI_Finalize();
  return any ? 1 : 0;
}
