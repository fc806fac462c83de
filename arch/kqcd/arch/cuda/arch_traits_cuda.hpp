// ArchTraits for Kokkos::Cuda: one site per thread, site index fastest in memory (LayoutLeft) so
// that neighbouring threads read neighbouring addresses.
#pragma once

#include <kqcd/arch/arch_traits.hpp>

#include <type_traits>

namespace kqcd {

template <> struct ArchTraits<Kokkos::Cuda> {
  using execution_space = Kokkos::Cuda;
  using memory_space = Kokkos::CudaSpace;
  using spinor_layout = Kokkos::LayoutLeft;
  using gauge_layout = Kokkos::LayoutLeft;
  static constexpr int sites_per_team = 128;
  /// Register budget per precision: single precision fits two 256-thread blocks per SM within
  /// 128 registers; double precision needs more registers than that cap allows without spilling.
  template <class Real>
  using launch_bounds_for = std::conditional_t<sizeof(Real) == 4, Kokkos::LaunchBounds<256, 2>, Kokkos::LaunchBounds<256, 1>>;
  /// One site per thread: a team holds sites_per_team threads.
  static constexpr int max_team_size = 1024;
  /// Threads that run in lockstep: team sizes are fitted to multiples of it.
  static constexpr int warp_size = 32;
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::on_the_fly;
  /// One site per thread: no SIMD layout; the one-lane type keeps the interface.
  static constexpr bool simd_layout = false;
  template <class Real> using simd_complex = GPUSIMDComplex<Real>;
};

} // namespace kqcd
