// MPI smoke test: Kokkos and MPI together; a reduction computed on every rank's device data
// and summed across ranks must equal the closed-form total.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const long n = 1000;
    double local = 0;
    Kokkos::parallel_reduce("sum", n, KOKKOS_LAMBDA(long i, double& acc) { acc += double(rank * n + i); }, local);
    double total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double N = double(n) * size;
    const double expect = N * (N - 1) / 2;
    if (total != expect) {
      std::fprintf(stderr, "rank %d: sum %.17g, expected %.17g\n", rank, total, expect);
      failures = 1;
    }
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("mpi smoke on %d ranks: %s\n", size, any ? "FAILED" : "passed");
  MPI_Finalize();
  return any;
}
