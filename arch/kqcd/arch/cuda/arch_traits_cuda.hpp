// ArchTraits for Kokkos::Cuda: one site per thread, site index fastest in memory (LayoutLeft) so
// that neighbouring threads read neighbouring addresses.
#pragma once

#include <kqcd/arch/arch_traits.hpp>

namespace kqcd {

template <> struct ArchTraits<Kokkos::Cuda> {
  using execution_space = Kokkos::Cuda;
  using memory_space = Kokkos::CudaSpace;
  using spinor_layout = Kokkos::LayoutLeft;
  using gauge_layout = Kokkos::LayoutLeft;
  using launch_bounds = Kokkos::LaunchBounds<256, 2>;
  static constexpr int sites_per_team = 128;
  static constexpr int team_size = 128;
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::on_the_fly;
};

} // namespace kqcd
