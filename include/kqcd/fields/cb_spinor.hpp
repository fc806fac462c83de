// Checkerboarded spinor: one parity's sites, each 3 colours x nspin spins of complex numbers,
// stored in a Kokkos::View<ST*[3][nspin]> whose layout comes from ArchTraits. On a distributed
// lattice the view has lattice.ghost_sites() more rows after sites(): the halo (comm/halo.hpp).
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/spinor.hpp>

namespace kqcd {

/// Complex numbers ST in the backend's spinor layout, a site per row.
template <class ST, int nspin, class ExecSpace> struct SiteStorage : detail::LatticeRows<ExecSpace> {
  /// The storage policy's types (fields/spinor.hpp): stored complex number, precision, views.
  ///@{
  using value_type = ST;
  using real_type = typename ST::value_type;
  using view_type = Kokkos::View<ST* [Nc][nspin], typename ArchTraits<ExecSpace>::spinor_layout, typename ArchTraits<ExecSpace>::memory_space>;
  using norm_view_type = NoNorm;
  ///@}
  /// Spin components per site, and the default label.
  ///@{
  static constexpr int n_spin = nspin;
  static constexpr const char* label = "cb_spinor";
  ///@}
};

/// One parity of a spinor field of complex ST, nspin components.
template <class ST, int nspin = Ns, class ExecSpace = Kokkos::DefaultExecutionSpace>
using CBSpinor = Spinor<SiteStorage<ST, nspin, ExecSpace>>;

/// A full (both parities) spinor field of complex ST.
template <class ST, int nspin = Ns, class ExecSpace = Kokkos::DefaultExecutionSpace>
using SpinorField = FullSpinor<CBSpinor<ST, nspin, ExecSpace>>;

} // namespace kqcd
