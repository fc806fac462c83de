// ArchTraits<ExecutionSpace>: the compile-time layout and launch policy of each backend, as
// Cabana's PerformanceTraits. Each backend's specialisation lives in its own folder and is
// selected by Kokkos' own backend macros.
#pragma once

#include <Kokkos_Core.hpp>

namespace kqcd {

/// How a kernel finds a site's neighbours: a precomputed table, or index arithmetic.
enum class NeighbourMode { table, on_the_fly };

/// Defaults for any backend without its own specialisation: site-major storage, one site per
/// thread of a team whose size Kokkos chooses.
template <class ExecSpace> struct ArchTraits {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using spinor_layout = Kokkos::LayoutRight;
  using gauge_layout = Kokkos::LayoutRight;
  using launch_bounds = Kokkos::LaunchBounds<>;
  static constexpr int sites_per_team = 32;
  static constexpr int team_size = 0; // 0: Kokkos::AUTO
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::table;
};

} // namespace kqcd

#if defined(KOKKOS_ENABLE_SERIAL)
#include <kqcd/arch/serial/arch_traits_serial.hpp>
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#include <kqcd/arch/openmp/arch_traits_openmp.hpp>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <kqcd/arch/cuda/arch_traits_cuda.hpp>
#endif
