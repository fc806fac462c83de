// A block of n_rhs checkerboarded spinors for the multi-right-hand-side Dslash: one view of
// cb_volume * n_rhs sites, right-hand side r of site s at index s * n_rhs + r (on a distributed
// lattice followed by the ghost zone's sites, in the same order). With the backend's
// spinor layout this puts a site's right-hand sides next to each other: on the GPU consecutive
// vector lanes (one per right-hand side) read consecutive addresses, on the CPU a site's block is
// contiguous, and the link of a site is read once for the whole block.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>

#include <string>

namespace kqcd {

namespace detail {
/// Copy between a block's right-hand side r and a single spinor (to the block when `in`), site i.
template <class BlockView, class View> struct TransferRhs {
  BlockView b;
  View v;
  int n, r;
  bool in;
  KOKKOS_FUNCTION void operator()(int i) const {
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Ns; ++sp) {
        if (in) b(std::size_t(i) * n + r, c, sp) = v(i, c, sp);
        else v(i, c, sp) = b(std::size_t(i) * n + r, c, sp);
      }
  }
};
template <class BlockView, class View, class ExecSpace>
void transfer_rhs(const BlockView& b, const View& v, int sites, int n, int r, bool in) {
  Kokkos::parallel_for("kqcd::MultiCBSpinor::transfer", Kokkos::RangePolicy<ExecSpace>(0, sites), TransferRhs<BlockView, View>{b, v, n, r, in});
}
} // namespace detail

template <class ST, class ExecSpace = Kokkos::DefaultExecutionSpace> class MultiCBSpinor {
public:
  using execution_space = ExecSpace;
  using value_type = ST;
  using real_type = typename ST::value_type;
  using single_type = CBSpinor<ST, Ns, ExecSpace>;
  using view_type = typename single_type::view_type;
  static constexpr int n_spin = Ns;
  static constexpr int max_rhs = 16;

  MultiCBSpinor() = default;
  MultiCBSpinor(const Lattice& lat, int parity, int n_rhs, const std::string& label = "multi_spinor")
      : lattice_(lat), parity_(parity), n_rhs_(n_rhs) {
    if (n_rhs < 1 || n_rhs > max_rhs)
      throw invalid_argument("multi-RHS block: " + std::to_string(n_rhs) + " right-hand sides, expected 1 to " + std::to_string(max_rhs));
    data_ = view_type(label, std::size_t(lat.cb_volume() + lat.ghost_sites()) * std::size_t(n_rhs));
  }
  const Lattice& lattice() const { return lattice_; }
  int parity() const { return parity_; }
  int sites() const { return lattice_.cb_volume(); }
  int n_rhs() const { return n_rhs_; }
  const view_type& view() const { return data_; }

  /// Right-hand side r of the block = s, or s = right-hand side r.
  void insert(int r, const single_type& s) { transfer(r, s, true); }
  void extract(int r, single_type& s) const { transfer(r, s, false); }

private:
  void transfer(int r, const single_type& s, bool in) const {
    if (r < 0 || r >= n_rhs_ || s.parity() != parity_ || !(s.lattice() == lattice_))
      throw invalid_argument("multi-RHS block: right-hand side " + std::to_string(r) + " of " + std::to_string(n_rhs_) +
                             " or a spinor of another parity or lattice");
    detail::transfer_rhs<view_type, view_type, ExecSpace>(data_, s.view(), sites(), n_rhs_, r, in);
  }
  Lattice lattice_;
  int parity_ = 0;
  int n_rhs_ = 1;
  view_type data_;
};

} // namespace kqcd
