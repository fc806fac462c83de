// ArchTraits for Kokkos::OpenMP: each thread takes whole teams of consecutive sites, with each
// site's data contiguous (site index slowest), so a thread streams through memory.
#pragma once

#include <kqcd/arch/arch_traits_default.hpp>

#if defined(KOKKOS_ENABLE_OPENMP)
namespace kqcd {

/// ArchTraits of the OpenMP backend (members as in the primary template).
template <> struct ArchTraits<Kokkos::OpenMP> {
  /// @cond
  using execution_space = Kokkos::OpenMP;
  using memory_space = Kokkos::HostSpace;
  using spinor_layout = Kokkos::LayoutRight;
  using gauge_layout = Kokkos::LayoutRight;
  static constexpr int sites_per_team = 64;
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
#endif // KOKKOS_ENABLE_OPENMP
