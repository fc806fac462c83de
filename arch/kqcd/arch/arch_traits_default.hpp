// The primary template of ArchTraits: the defaults of a backend without its own specialisation.
// The backends' headers specialise it; code includes arch_traits.hpp, which has them all (a
// backend's ArchTraits used before its specialisation is seen would be these defaults).
#pragma once

#include <kqcd/arch/simd_complex.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd {

/// How a kernel finds a site's neighbours: a precomputed table, or index arithmetic.
enum class NeighbourMode { table, on_the_fly };

/// Defaults for any backend without its own specialisation: site-major storage, teams of one
/// thread that walk their sites in order.
template <class ExecSpace> struct ArchTraits {
  /// Kokkos execution space the traits describe.
  using execution_space = ExecSpace;
  /// Memory space of the fields.
  using memory_space = typename ExecSpace::memory_space;
  /// Layout of spinor views.
  using spinor_layout = Kokkos::LayoutRight;
  /// Layout of gauge views.
  using gauge_layout = Kokkos::LayoutRight;
  /// Sites per team of a team launch.
  static constexpr int sites_per_team = 32;
  /// Kokkos launch bounds of the hopping kernel for storage precision P, reconstruction Recon.
  template <class P, class Recon, int rhs_per_thread = 1> using launch_bounds_for = Kokkos::LaunchBounds<>;
  /// Kokkos launch bounds of the colour-hop kernels for storage precision P, n_spin spin components per site.
  template <class P, int n_spin> using colour_hop_launch_bounds_for = Kokkos::LaunchBounds<>;
  /// One thread per team walks the team's sites in order.
  static constexpr int max_team_size = 1;
  /// Threads that run in lockstep: team sizes are fitted to multiples of it.
  static constexpr int warp_size = 1;
  /// How kernels find neighbours on this backend.
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::table;
  /// Kernels launched in several shapes (the hopping term's per-site and block launches) inline
  /// their site body into each shape (true), or call one out-of-line copy of it from all of them
  /// (false): on a CPU the body then compiles once instead of once per shape, for a call per site.
  static constexpr bool inline_site_kernels = false;
  /// Whether the virtual-node SIMD layout (stencil/simd_wilson.hpp) applies, and its complex type.
  static constexpr bool simd_layout = false;
  /// Complex type of the SIMD layout's site vectors.
  template <class Real> using simd_complex = GPUSIMDComplex<Real>;
};

} // namespace kqcd
