// Half-precision checkerboarded spinor in QUDA's format: each site's 24 reals as 16-bit fixed point
// relative to a per-site float norm (the largest |real| of the site), so a site keeps ~4.5 decimal
// digits relative to its own magnitude. The four spins of one colour are packed together (QUDA's
// short8 order: one 16-byte load per colour, three per site, where one 16-bit pair per load took
// twelve). Kernels read and write it through HalfSpinorAccessor (fields/spinor_access.hpp) and
// compute in float. On a distributed lattice both views have the ghost zone's sites after the
// local ones (comm/halo.hpp).
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/fields/spinor.hpp>

namespace kqcd {

/// 16-bit fixed point in the backend's spinor layout, a site per row, a float norm per site; NS spin
/// components per site (4, or 1: a colour vector).
template <class ExecSpace, int NS = Ns> struct HalfSiteStorage : detail::LatticeRows<ExecSpace> {
  /// The spins of one colour of one site.
  using value_type = Packed<short2_t, NS>;
  using real_type = float; ///< arithmetic precision
  /// [site][colour] of packed spins.
  using view_type = Kokkos::View<value_type* [Nc], typename ArchTraits<ExecSpace>::spinor_layout, typename ArchTraits<ExecSpace>::memory_space>;
  /// A norm per site.
  using norm_view_type = Kokkos::View<float*, typename ArchTraits<ExecSpace>::memory_space>;
  /// Spin components per site, and the default label.
  ///@{
  static constexpr int n_spin = NS;
  static constexpr const char* label = NS == Ns ? "half_spinor" : "half_colour_vector";
  ///@}
};

/// One parity of a 16-bit spinor field (NS = 4) or colour-vector field (NS = 1) with a float norm per site.
template <class ExecSpace = Kokkos::DefaultExecutionSpace, int NS = Ns> using HalfCBSpinor = Spinor<HalfSiteStorage<ExecSpace, NS>>;

} // namespace kqcd
