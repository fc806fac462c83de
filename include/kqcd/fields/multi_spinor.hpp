// A block of n_rhs checkerboarded spinors for the multi-right-hand-side Dslash. In the rows of a
// single spinor's storage (RowBlocks<Single>; Single: CBSpinor in float or double, HalfCBSpinor in
// 16 bits with a norm per row): cb_volume * n_rhs rows, right-hand side r of site s at row s * n_rhs + r (on a distributed
// lattice followed by the ghost zone's sites, in the same order). With the backend's spinor layout
// this puts a site's right-hand sides next to each other: on the GPU consecutive vector lanes (one
// per right-hand side) read consecutive addresses, on the CPU a site's block is contiguous, and the
// link of a site is read once for the whole block. In 16 bits each right-hand side of a site has
// its own norm, so the kernels read a row exactly as a single spinor's site (fields/spinor_access.hpp).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/half_spinor.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace kqcd {

namespace detail {
/// dst(i) = src(j) for every component of a row (spinor rows, SIMD lane rows, or the norms of
/// 16-bit rows).
template <class Dst, class Src> KOKKOS_FORCEINLINE_FUNCTION void copy_row(const Dst& dst, std::size_t i, const Src& src, std::size_t j) {
  if constexpr (Dst::rank == 1) {
    dst(i) = src(j);
  } else {
    for (int c = 0; c < int(Dst::static_extent(1)); ++c) {
      if constexpr (Dst::rank == 2) {
        dst(i, c) = src(j, c);
      } else {
        for (int sp = 0; sp < int(Dst::static_extent(2)); ++sp) {
          if constexpr (Dst::rank == 3) {
            dst(i, c, sp) = src(j, c, sp);
          } else {
            for (int w = 0; w < int(Dst::static_extent(3)); ++w) dst(i, c, sp, w) = src(j, c, sp, w);
          }
        }
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
template <class ExecSpace, class BlockView, class View>
void transfer_rhs(const BlockView& b, const View& v, int sites, int n, int r, bool in) {
  Kokkos::parallel_for("kqcd::SpinorBlock::transfer", Kokkos::RangePolicy<ExecSpace>(0, sites), TransferRhs<BlockView, View>{b, v, n, r, in});
}
} // namespace detail

/// A block of n_rhs right-hand sides of one parity, in a block storage policy: RowBlocks<Single>
/// (here: the rows of a single spinor's storage, above), or LaneBlocks<V, ES, Store> (one right-hand
/// side per SIMD lane: fields/simd_fields.hpp). Right-hand sides move in and out with insert and
/// extract, from and to single spinors.
template <class Storage> class SpinorBlock : public detail::StoredRows<Storage> {
  using Rows = detail::StoredRows<Storage>;
  using Rows::data_;
  using Rows::norm_;

public:
  static constexpr int n_spin = Storage::n_spin; ///< Spin components per site.
  /// The most right-hand sides a block holds.
  static constexpr int max_rhs = Storage::max_rhs;
  /// What the block is built on: a Lattice, or the SIMDGeometry of rows of vector sites.
  using shape_type = typename Storage::shape_type;

  SpinorBlock() = default;
  /// A block of n_rhs right-hand sides of parity `parity` on shape, zero-initialised.
  SpinorBlock(const shape_type& shape, int parity, int n_rhs, const std::string& label = Storage::label)
      : Rows((check(n_rhs), label), Storage::rows(shape, n_rhs)), shape_(shape), parity_(parity), n_rhs_(n_rhs) {}
  /// The lattice.
  const Lattice& lattice() const { return Storage::lattice(shape_); }
  /// The lane split (rows of vector sites).
  const shape_type& geometry() const
    requires Storage::vector_sites
  {
    return shape_;
  }
  /// The parity of the sites.
  int parity() const { return parity_; }
  /// This rank's sites.
  int sites() const { return lattice().cb_volume(); }
  /// Right-hand sides held.
  int n_rhs() const { return n_rhs_; }
  /// Each site's lanes as the hopping functor reads them (right-hand sides in lanes), or each row of
  /// vector sites (rows site * n_rhs + r) as rows of [colour][spin][2 lanes] reals.
  auto lane_view() const
    requires Storage::rhs_in_lanes || Storage::vector_sites
  {
    if constexpr (Storage::rhs_in_lanes) return data_;
    else return Storage::lane_view(data_, shape_, n_rhs_);
  }
  /// The rows the halo exchange sends and fills (comm/spinor_halo.hpp).
  auto halo_view() const { return Storage::halo_view(data_, shape_, n_rhs_); }
  /// Site i's right-hand side r as element i * lanes + r, in arithmetic precision Real (right-hand
  /// sides in lanes).
  template <class Real>
  auto lane_sites() const
    requires Storage::rhs_in_lanes // right-hand sides in lanes only
  {
    return Storage::template lane_sites<Real>(data_, norm_);
  }
  /// A block of the same storage, lattice, parity and right-hand sides, zero-initialised.
  SpinorBlock like(const std::string& label = Storage::label) const { return SpinorBlock(shape_, parity_, n_rhs_, label); }

  /// Right-hand side r of the block = s, or s = right-hand side r (s: a single spinor of the storage's).
  ///@{
  template <class Single> void insert(int r, const Single& s) {
    check_rhs(r, s);
    Storage::transfer(*this, r, s, true);
  }
  template <class Single> void extract(int r, Single& s) const {
    check_rhs(r, s);
    Storage::transfer(*this, r, s, false);
  }
  ///@}

private:
  static void check(int n_rhs) {
    Storage::check();
    if (n_rhs < 1 || n_rhs > max_rhs)
      throw invalid_argument("multi-RHS block: " + std::to_string(n_rhs) + " right-hand sides, expected 1 to " + std::to_string(max_rhs) +
                             Storage::capacity);
  }
  template <class Single> void check_rhs(int r, const Single& s) const {
    if (r < 0 || r >= n_rhs_ || s.parity() != parity_ || !(s.lattice() == lattice()))
      throw invalid_argument("multi-RHS block: right-hand side " + std::to_string(r) + " of " + std::to_string(n_rhs_) +
                             ", or a spinor on parity " + std::to_string(s.parity()) + " of " + s.lattice().to_string() +
                             " for a block on parity " + std::to_string(parity_) + " of " + lattice().to_string());
  }
  shape_type shape_;
  int parity_ = 0;
  int n_rhs_ = 1;
};

/// Right-hand sides as rows of a single spinor's storage (see the top of this file): rows of sites,
/// or on the SIMD layout rows of vector sites (right-hand side r of vector site v at row v * n_rhs + r).
template <class Single> struct RowBlocks {
  using SingleStorage = typename Single::storage_type; ///< The single spinor's storage policy.
  /// The block storage policy's types: those of Single's storage.
  ///@{
  using execution_space = typename Single::execution_space;
  using value_type = typename Single::value_type;
  using real_type = typename Single::real_type;
  using view_type = typename Single::view_type;
  using norm_view_type = typename Single::norm_view_type;
  using shape_type = typename SingleStorage::shape_type;
  ///@}
  /// The block storage policy's constants: capacity, right-hand sides in rows, labels.
  ///@{
  static constexpr int max_rhs = 32; // a warp's width of vector lanes (stencil_launch.hpp)
  static constexpr int n_spin = Single::n_spin;
  static constexpr bool rhs_in_lanes = false;
  static constexpr bool vector_sites = SingleStorage::vector_sites;
  static constexpr const char* label = "multi_spinor";
  static constexpr const char* capacity = "";
  ///@}
  /// Types the storage is built from.
  struct names : SingleStorage::names {
    using single_type = Single; ///< The single spinor type.
  };
  /// Nothing to check: any execution space.
  static void check() {}
  /// Rows of the view: n_rhs per (vector) site, ghost sites included.
  static std::size_t rows(const shape_type& shape, int n_rhs) { return SingleStorage::rows(shape) * std::size_t(n_rhs); }
  /// The lattice of the shape.
  static const Lattice& lattice(const shape_type& shape) { return SingleStorage::lattice(shape); }
  /// The rows of vector sites as rows of [colour][spin][2 lanes] reals (SIMD layout).
  static auto lane_view(const view_type& v, const shape_type& g, int n_rhs)
    requires vector_sites
  {
    using L = typename SingleStorage::lane_view_type;
    if constexpr (std::is_same_v<L, view_type>) return v;
    else return L(reinterpret_cast<real_type*>(v.data()), std::size_t(g.vsites() + g.ghost_vsites()) * std::size_t(n_rhs));
  }
  /// The halo exchange's rows: the view itself, or a row per vector site and right-hand side.
  static auto halo_view(const view_type& v, const shape_type& shape, int n_rhs) {
    if constexpr (!vector_sites) return v;
    else {
      using H = typename SingleStorage::halo_view_type;
      if constexpr (std::is_same_v<H, view_type>) return v;
      else return H(v.data(), std::size_t(shape.vsites() + shape.ghost_vsites()) * std::size_t(n_rhs));
    }
  }
  /// Right-hand side r of block b to or from the single spinor s.
  template <class Block> static void transfer(const Block& b, int r, const Single& s, bool in) {
    const auto move = [&](const auto& bv, const auto& sv, int rows) {
      detail::transfer_rhs<execution_space>(bv, sv, rows, b.n_rhs(), r, in);
      if constexpr (Single::has_norm)
        detail::transfer_rhs<execution_space>(b.norm(), s.norm(), rows, b.n_rhs(), r, in);
    };
    if constexpr (vector_sites) move(b.lane_view(), s.lane_view(), s.geometry().vsites()); // rows of vector sites
    else move(b.view(), s.view(), b.sites());
  }
};

/// A block of float or double spinors (complex type ST).
template <class ST, class ExecSpace = Kokkos::DefaultExecutionSpace> using MultiCBSpinor = SpinorBlock<RowBlocks<CBSpinor<ST, Ns, ExecSpace>>>;
/// A block of 16-bit spinors, a norm per site and right-hand side.
template <class ExecSpace = Kokkos::DefaultExecutionSpace> using HalfMultiCBSpinor = SpinorBlock<RowBlocks<HalfCBSpinor<ExecSpace>>>;

/// Two blocks of the same rows per site, one on each 4D parity, as one vector: a field of one 5D
/// parity of the 5D even-odd preconditioned domain-wall operator (stencil/domain_wall_5d.hpp), whose
/// slices of each 4D parity alternate between the 5D parities. The BLAS sees the rows of both
/// blocks (linalg/rows.hpp); the operators apply the hopping term block by block.
template <class Block> struct ParityPair {
  /// The block storage policy of the blocks (BLAS row access: linalg/rows.hpp).
  using storage_type = ParityPair;
  using block_type = Block; ///< The block of one 4D parity.
  using execution_space = typename Block::execution_space; ///< The blocks' execution space.
  using real_type = typename Block::real_type; ///< The arithmetic precision of the stored numbers.
  static constexpr int n_spin = Block::n_spin; ///< Spin components per row.
  static constexpr bool two_parities = true; ///< Two parts, [0] and [1], on the 4D parities (BLAS: linalg/rows.hpp).

  ParityPair() = default;
  /// A vector of (5D) parity `parity` on shape (the blocks'), `rows` rows per site on each 4D parity,
  /// zero-initialised.
  ParityPair(const typename Block::shape_type& shape, int parity, int rows, const std::string& label)
      : blocks_{Block(shape, 0, rows, label + "_4d_even"), Block(shape, 1, rows, label + "_4d_odd")}, parity_(parity) {}
  /// The block on 4D parity q.
  ///@{
  const Block& operator[](int q) const { return blocks_[q]; }
  Block& operator[](int q) { return blocks_[q]; }
  ///@}
  /// The 4D lattice.
  const Lattice& lattice() const { return blocks_[0].lattice(); }
  /// The parity of the vector (a 5D parity).
  int parity() const { return parity_; }
  /// Rows per site of each block.
  int n_rhs() const { return blocks_[0].n_rhs(); }
  /// A vector of the same shape, zero-initialised.
  ParityPair like(const std::string& label) const { return ParityPair(lattice(), parity_, n_rhs(), label); }

private:
  Block blocks_[2];
  int parity_ = 0;
};

} // namespace kqcd
