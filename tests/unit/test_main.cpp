// Catch2 main that brings Kokkos up for the whole test run.
#include <catch2/catch_session.hpp>

#include <Kokkos_Core.hpp>

#include <cstdlib>

int main(int argc, char** argv) {
  // Tests tune into the build tree's cache, not the user's (unless told otherwise).
  ::setenv("KQCD_TUNE_CACHE", KQCD_TEST_TUNE_CACHE, 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return Catch::Session().run(argc, argv);
}
