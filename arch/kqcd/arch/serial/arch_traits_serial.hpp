// ArchTraits for Kokkos::Serial: one thread walks sites in order, so each site's data is kept
// contiguous (site index slowest) and blocks of sites form one team.
#pragma once

#include <kqcd/arch/arch_traits.hpp>

namespace kqcd {

template <> struct ArchTraits<Kokkos::Serial> {
  using execution_space = Kokkos::Serial;
  using memory_space = Kokkos::HostSpace;
  using spinor_layout = Kokkos::LayoutRight;
  using gauge_layout = Kokkos::LayoutRight;
  using launch_bounds = Kokkos::LaunchBounds<>;
  static constexpr int sites_per_team = 256;
  static constexpr int team_size = 1;
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::table;
};

} // namespace kqcd
