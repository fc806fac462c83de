// ArchTraits for Kokkos::OpenMP: each thread takes whole teams of consecutive sites, with each
// site's data contiguous (site index slowest), so a thread streams through memory.
#pragma once

#include <kqcd/arch/arch_traits.hpp>

namespace kqcd {

template <> struct ArchTraits<Kokkos::OpenMP> {
  using execution_space = Kokkos::OpenMP;
  using memory_space = Kokkos::HostSpace;
  using spinor_layout = Kokkos::LayoutRight;
  using gauge_layout = Kokkos::LayoutRight;
  using launch_bounds = Kokkos::LaunchBounds<>;
  static constexpr int sites_per_team = 64;
  static constexpr int team_size = 1;
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::table;
};

} // namespace kqcd
