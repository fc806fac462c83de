// The clover block inverse through Kokkos Kernels' batched dense routines (KokkosBatched::SerialLU
// and SerialInverseLU, no pivoting: the blocks are Hermitian and, for the masses in use, positive
// definite), one 6x6 block per thread. A policy of CloverBuildFunctor beside kqcd's own
// LDLBlockInverse; compiled only where kqcd found Kokkos Kernels (KQCD_HAVE_KOKKOS_KERNELS).
#pragma once

#include <kqcd/build_info.hpp>
#include <kqcd/kernels/clover_term.hpp>

#if KQCD_HAVE_KOKKOS_KERNELS
#include <KokkosBatched_InverseLU_Decl.hpp>
#include <KokkosBatched_LU_Decl.hpp>

namespace kqcd {

/// Inverts 6x6 clover blocks by Kokkos Kernels' batched LU.
struct BatchedLUBlockInverse {
  static constexpr const char* name = "Kokkos Kernels LU"; ///< The inverter's name (benchmarks, messages).
  /// inv = m^-1 of a 6x6 block.
  KOKKOS_INLINE_FUNCTION static void invert(const detail::cd m[6][6], detail::cd inv[6][6]) {
    // Unmanaged views over the thread's own arrays: the form KokkosBatched's serial routines take.
    detail::cd work[36];
    Kokkos::View<detail::cd**, Kokkos::LayoutRight, Kokkos::AnonymousSpace> a(&inv[0][0], 6, 6);
    Kokkos::View<detail::cd*, Kokkos::AnonymousSpace> w(work, 36);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) a(i, j) = m[i][j];
    KokkosBatched::SerialLU<KokkosBatched::Algo::LU::Unblocked>::invoke(a);
    KokkosBatched::SerialInverseLU<KokkosBatched::Algo::InverseLU::Unblocked>::invoke(a, w);
  }
};

} // namespace kqcd
#endif
