// Catch2 main for the tests run under mpiexec: MPI, then Kokkos, then the tests on every rank.
// Only rank 0 reports; every rank's failures count, so the exit status is the same on all ranks.
#include <catch2/catch_session.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    Catch::Session session;
    if (const int rc = session.applyCommandLine(argc, argv); rc != 0) failed = rc;
    if (rank != 0 && !failed) session.configData().showSuccessfulTests = false;
    if (!failed) failed = session.run();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed && rank != 0) std::fprintf(stderr, "rank %d: %d test(s) failed\n", rank, failed);
  MPI_Finalize();
  return any ? 1 : 0;
}
