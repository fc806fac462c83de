// ArchTraits for Kokkos::Serial: one thread walks sites in order, so each site's data is kept
// contiguous (site index slowest) and blocks of sites form one team.
#pragma once

#include <kqcd/arch/arch_traits_default.hpp>

#if defined(KOKKOS_ENABLE_SERIAL)
namespace kqcd {

/// ArchTraits of the Serial backend (members as in the primary template).
template <> struct ArchTraits<Kokkos::Serial> {
  /// @cond
  using execution_space = Kokkos::Serial;
  using memory_space = Kokkos::HostSpace;
  using spinor_layout = Kokkos::LayoutRight;
  using gauge_layout = Kokkos::LayoutRight;
  static constexpr int sites_per_team = 256;
  template <class P, class Recon, int rhs_per_thread = 1> using launch_bounds_for = Kokkos::LaunchBounds<>;
  /// Kokkos launch bounds of the colour-hop kernels for storage precision P, n_spin spin components per site.
  template <class P, int n_spin> using colour_hop_launch_bounds_for = Kokkos::LaunchBounds<>;
  /// One thread per team walks the team's sites in order.
  static constexpr int max_team_size = 1;
  /// Threads that run in lockstep: team sizes are fitted to multiples of it.
  static constexpr int warp_size = 1;
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::table;
  /// One out-of-line copy of the hopping term's site body, called by every launch shape.
  static constexpr bool inline_site_kernels = false;
  /// Virtual-node SIMD layout: one site per lane of the host's widest register (AVX-512, AVX2).
  static constexpr bool simd_layout = true;
  template <class Real> using simd_complex = NativeSIMDComplex<Real>;
/// @endcond
};

} // namespace kqcd
#endif // KOKKOS_ENABLE_SERIAL
