// Catch2 main that brings Kokkos up for the whole test run.
#include <catch2/catch_session.hpp>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  return Catch::Session().run(argc, argv);
}
