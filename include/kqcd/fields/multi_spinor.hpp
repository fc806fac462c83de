// A block of n_rhs checkerboarded spinors for the multi-right-hand-side Dslash, in the storage of a
// single spinor (Single: CBSpinor in float or double, HalfCBSpinor in 16 bits with a norm per
// row): cb_volume * n_rhs rows, right-hand side r of site s at row s * n_rhs + r (on a distributed
// lattice followed by the ghost zone's sites, in the same order). With the backend's spinor layout
// this puts a site's right-hand sides next to each other: on the GPU consecutive vector lanes (one
// per right-hand side) read consecutive addresses, on the CPU a site's block is contiguous, and the
// link of a site is read once for the whole block. In 16 bits each right-hand side of a site has
// its own norm, so the kernels read a row exactly as a single spinor's site (fields/spinor_access.hpp).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/half_spinor.hpp>

#include <string>

namespace kqcd {

namespace detail {
/// dst(i) = src(j) for every component of a row (spinor rows, or the norms of 16-bit rows).
template <class Dst, class Src> KOKKOS_FORCEINLINE_FUNCTION void copy_row(const Dst& dst, std::size_t i, const Src& src, std::size_t j) {
  if constexpr (Dst::rank == 1) {
    dst(i) = src(j);
  } else {
    for (int c = 0; c < int(Dst::static_extent(1)); ++c) {
      if constexpr (Dst::rank == 2) {
        dst(i, c) = src(j, c);
      } else {
        for (int sp = 0; sp < int(Dst::static_extent(2)); ++sp) dst(i, c, sp) = src(j, c, sp);
      }
    }
  }
}
/// Row i of a single spinor's view to row i * n + r of a block's (in), or back.
template <class BlockView, class View> struct TransferRhs {
  BlockView b;
  View v;
  int n, r;
  bool in;
  KOKKOS_FUNCTION void operator()(int i) const {
    const std::size_t k = std::size_t(i) * n + r;
    if (in) copy_row(b, k, v, std::size_t(i));
    else copy_row(v, std::size_t(i), b, k);
  }
};
template <class BlockView, class View, class ExecSpace>
void transfer_rhs(const BlockView& b, const View& v, int sites, int n, int r, bool in) {
  Kokkos::parallel_for("kqcd::SpinorBlock::transfer", Kokkos::RangePolicy<ExecSpace>(0, sites), TransferRhs<BlockView, View>{b, v, n, r, in});
}
} // namespace detail

template <class Single> class SpinorBlock {
  static constexpr bool has_norm = Single::has_norm;

public:
  using single_type = Single;
  using execution_space = typename Single::execution_space;
  using value_type = typename Single::value_type;
  using real_type = typename Single::real_type;
  using view_type = typename Single::view_type;
  using norm_view_type = typename Single::norm_view_type;
  static constexpr int n_spin = Ns;
  static constexpr int max_rhs = 16;

  SpinorBlock() = default;
  SpinorBlock(const Lattice& lat, int parity, int n_rhs, const std::string& label = "multi_spinor")
      : lattice_(lat), parity_(parity), n_rhs_(n_rhs) {
    if (n_rhs < 1 || n_rhs > max_rhs)
      throw invalid_argument("multi-RHS block: " + std::to_string(n_rhs) + " right-hand sides, expected 1 to " + std::to_string(max_rhs));
    const std::size_t rows = std::size_t(lat.cb_volume() + lat.ghost_sites()) * std::size_t(n_rhs);
    data_ = view_type(label, rows);
    if constexpr (has_norm) norm_ = norm_view_type(label + "_norm", rows);
  }
  const Lattice& lattice() const { return lattice_; }
  int parity() const { return parity_; }
  int sites() const { return lattice_.cb_volume(); }
  int n_rhs() const { return n_rhs_; }
  const view_type& view() const { return data_; }
  /// The norm of each row (16-bit storage only).
  const norm_view_type& norm() const
    requires has_norm
  {
    return norm_;
  }
  SpinorBlock like(const std::string& label = "multi_spinor") const { return SpinorBlock(lattice_, parity_, n_rhs_, label); }

  /// Right-hand side r of the block = s, or s = right-hand side r (a spinor of the block's storage).
  void insert(int r, const single_type& s) { transfer(r, s, true); }
  void extract(int r, single_type& s) const { transfer(r, s, false); }

private:
  void transfer(int r, const single_type& s, bool in) const {
    if (r < 0 || r >= n_rhs_ || s.parity() != parity_ || !(s.lattice() == lattice_))
      throw invalid_argument("multi-RHS block: right-hand side " + std::to_string(r) + " of " + std::to_string(n_rhs_) +
                             " or a spinor of another parity or lattice");
    detail::transfer_rhs<view_type, view_type, execution_space>(data_, s.view(), sites(), n_rhs_, r, in);
    if constexpr (has_norm) detail::transfer_rhs<norm_view_type, norm_view_type, execution_space>(norm_, s.norm(), sites(), n_rhs_, r, in);
  }
  Lattice lattice_;
  int parity_ = 0;
  int n_rhs_ = 1;
  view_type data_;
  [[no_unique_address]] norm_view_type norm_;
};

/// A block of float or double spinors (complex type ST).
template <class ST, class ExecSpace = Kokkos::DefaultExecutionSpace> using MultiCBSpinor = SpinorBlock<CBSpinor<ST, Ns, ExecSpace>>;
/// A block of 16-bit spinors, a norm per site and right-hand side.
template <class ExecSpace = Kokkos::DefaultExecutionSpace> using HalfMultiCBSpinor = SpinorBlock<HalfCBSpinor<ExecSpace>>;

} // namespace kqcd
