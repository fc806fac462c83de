// ArchTraits for Kokkos::Cuda: one site per thread, site index fastest in memory (LayoutLeft) so
// that neighbouring threads read neighbouring addresses.
#pragma once

#include <kqcd/arch/arch_traits_default.hpp>

#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
namespace kqcd {

/// ArchTraits of the CUDA backend (members as in the primary template).
template <> struct ArchTraits<Kokkos::Cuda> {
  /// @cond
  using execution_space = Kokkos::Cuda;
  using memory_space = Kokkos::CudaSpace;
  using spinor_layout = Kokkos::LayoutLeft;
  using gauge_layout = Kokkos::LayoutLeft;
  static constexpr int sites_per_team = 128;
  /// Register budget of the hopping kernel per storage precision P (float, double, kqcd::half) and
  /// gauge reconstruction: single precision fits two 256-thread blocks per SM within 128 registers;
  /// double needs more registers than that cap allows without spilling. More resident warps pay
  /// where a kernel is latency-bound: recon-8 in float arithmetic (16-bit and single storage: sincos
  /// and a square root per link) runs three 256-thread blocks (80 registers); 16-bit recon-18 and
  /// -12 run five 128-thread blocks (102 registers).
  /// A thread that computes two right-hand sides of a block (rhs_per_thread = 2) holds both
  /// accumulators: 128-thread blocks, three per SM in single precision (168 registers), two in double.
  /// (P is float, double or the 16-bit tag kqcd::half, computed in float: arch sees only the type.)
  template <class P> static constexpr bool float_arithmetic = !std::is_same_v<P, double>;
  template <class P> static constexpr bool storage_16bit = !std::is_floating_point_v<P>;
  template <class P, class Recon, int rhs_per_thread = 1>
  using launch_bounds_for = std::conditional_t<
      (rhs_per_thread > 1),
      std::conditional_t<float_arithmetic<P>, Kokkos::LaunchBounds<128, 3>, Kokkos::LaunchBounds<128, 2>>,
      std::conditional_t<
          (float_arithmetic<P> && Recon::pairs < 6), Kokkos::LaunchBounds<256, 3>,
          std::conditional_t<storage_16bit<P>, Kokkos::LaunchBounds<128, 5>,
                             std::conditional_t<float_arithmetic<P>, Kokkos::LaunchBounds<256, 2>, Kokkos::LaunchBounds<256, 1>>>>>;
  /// Launch bounds of the colour-hop kernels: where a site is one colour vector stored in float, a
  /// target of 1024 resident threads per multiprocessor (256 x 4) makes the compiler keep more of a
  /// hop's loads in flight (docs/operators/staggered-and-laplace.md, "Launch bounds on GPUs");
  /// double and four-spinor sites would spill under it.
  template <class P, int n_spin>
  using colour_hop_launch_bounds_for =
      std::conditional_t<std::is_same_v<P, float> && n_spin == 1, Kokkos::LaunchBounds<256, 4>, Kokkos::LaunchBounds<>>;
  /// One site per thread: a team holds sites_per_team threads.
  static constexpr int max_team_size = 1024;
  /// Threads that run in lockstep: team sizes are fitted to multiples of it.
  static constexpr int warp_size = 32;
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::on_the_fly;
  /// Each launch shape inlines the hopping term's site body: a call per site costs registers and
  /// the compiler's view across the hops.
  static constexpr bool inline_site_kernels = true;
  /// One site per thread: no SIMD layout; the one-lane type keeps the interface.
  static constexpr bool simd_layout = false;
  template <class Real> using simd_complex = GPUSIMDComplex<Real>;
/// @endcond
};

} // namespace kqcd
#endif // KOKKOS_ENABLE_CUDA
