// One parity of a spinor field, in a storage policy: the one container of every layout and
// precision. The policy says what a site is stored as and where it lives:
//   SiteStorage<ST, nspin, ES>  complex numbers ST, [site][colour][spin] in ArchTraits<ES>'s
//                               layout (fields/cb_spinor.hpp: CBSpinor);
//   HalfSiteStorage<ES>         16-bit fixed point, a float norm per site (fields/half_spinor.hpp:
//                               HalfCBSpinor);
//   LaneStorage<V, ES, Store>   the virtual-node SIMD layout of site vector V, float/double or 16-bit
//                               (fields/simd_fields.hpp: SIMDSpinor, SIMDHalfSpinor).
// A spinor is built on its storage's shape: a Lattice (a site per row), or a SIMDGeometry (the lanes
// of vector sites); lattice() is the lattice either way, sites() its sites on this rank. Kernels read
// and write it through its storage's accessors (fields/spinor_access.hpp: SpinorAccess). On a
// distributed lattice the views have the ghost zone's rows after this rank's (comm/halo.hpp).
#pragma once

#include <kqcd/core/lattice.hpp>

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

namespace kqcd {

/// The norm view of a storage without one.
struct NoNorm {};

namespace detail {
/// What a spinor and a block of them share: the storage's names, the rows and, in 16-bit storage,
/// a norm per row.
template <class Storage> class StoredRows : public Storage::names {
public:
  using storage_type = Storage;
  using execution_space = typename Storage::execution_space;
  using value_type = typename Storage::value_type;
  /// The arithmetic precision of the stored numbers.
  using real_type = typename Storage::real_type;
  using view_type = typename Storage::view_type;
  /// A norm per row (16-bit storage); NoNorm otherwise.
  using norm_view_type = typename Storage::norm_view_type;
  static constexpr bool has_norm = !std::is_same_v<norm_view_type, NoNorm>;

  const view_type& view() const { return data_; }
  const norm_view_type& norm() const
    requires has_norm
  {
    return norm_;
  }

protected:
  StoredRows() = default;
  StoredRows(const std::string& label, std::size_t rows) : data_(label, rows) {
    if constexpr (has_norm) norm_ = norm_view_type(label + "_norm", rows);
  }
  view_type data_;
  [[no_unique_address]] norm_view_type norm_;
};
} // namespace detail

/// One parity of a spinor field in storage policy Storage.
template <class Storage> class Spinor : public detail::StoredRows<Storage> {
  using Rows = detail::StoredRows<Storage>;
  using Rows::data_;

public:
  /// What the spinor is built on: Lattice, or SIMDGeometry.
  using shape_type = typename Storage::shape_type;
  /// Spin components per site.
  static constexpr int n_spin = Storage::n_spin;

  Spinor() = default;
  /// A spinor of parity `parity` on shape, zero-initialised.
  Spinor(const shape_type& shape, int parity, const std::string& label = Storage::label)
      : Rows((Storage::check(shape), label), Storage::rows(shape)), shape_(shape), parity_(parity) {}

  /// The lattice.
  const Lattice& lattice() const { return Storage::lattice(shape_); }
  /// The parity of the sites.
  int parity() const { return parity_; }
  /// This rank's sites.
  int sites() const { return lattice().cb_volume(); }
  /// The lane split (SIMD layout).
  const shape_type& geometry() const
    requires Storage::vector_sites // SIMD layout only
  {
    return shape_;
  }
  /// Every vector site, ghosts included, as rows of [colour][spin][2 lanes] reals: the hopping
  /// functor's (SIMD layout).
  auto lane_view() const
    requires Storage::vector_sites // SIMD layout only
  {
    return Storage::lane_view(data_, shape_);
  }
  /// The rows the halo exchange sends and fills (comm/spinor_halo.hpp): view(), or on the SIMD layout
  /// each vector site's lanes as a row.
  auto halo_view() const { return Storage::halo_view(data_, shape_); }
  /// A spinor of the same storage, shape and parity, zero-initialised.
  Spinor like(const std::string& label = Storage::label) const { return Spinor(shape_, parity_, label); }

private:
  shape_type shape_;
  int parity_ = 0;
};

namespace detail {
/// What the storages whose rows are the sites of a Lattice share.
template <class ExecSpace> struct LatticeRows {
  using execution_space = ExecSpace;
  using shape_type = Lattice;
  static constexpr bool vector_sites = false;
  static void check(const Lattice&) {}
  static std::size_t rows(const Lattice& lat) { return std::size_t(lat.cb_volume() + lat.ghost_sites()); }
  static const Lattice& lattice(const Lattice& lat) { return lat; }
  template <class View> static View halo_view(const View& v, const Lattice&) { return v; }
  struct names {};
};
} // namespace detail

/// A full spinor field: both checkerboards, each of type CB built from the shape CB takes.
template <class CB> struct FullSpinor {
  /// Type of one parity.
  using cb_type = CB;
  /// Both parities as one vector of the BLAS (linalg/rows.hpp: the even sites' rows, then the odd's).
  using storage_type = FullSpinor;
  using execution_space = typename CB::execution_space; ///< The execution space.
  using real_type = typename CB::real_type; ///< The arithmetic precision of the stored numbers.
  static constexpr bool two_parities = true; ///< Two parts, [0] and [1], on the 4D parities (BLAS: linalg/rows.hpp).
  /// Even (0) and odd (1) sites.
  CB cb[2];

  FullSpinor() = default;
  /// A spinor field on shape, zero-initialised.
  template <class Shape>
    requires std::constructible_from<CB, const Shape&, int, const std::string&>
  FullSpinor(const Shape& shape, const std::string& label = "spinor")
      : cb{CB(shape, 0, label + "_even"), CB(shape, 1, label + "_odd")} {}
  /// The lattice.
  const Lattice& lattice() const { return cb[0].lattice(); }
  /// The parity the BLAS compares: -1, both.
  int parity() const { return -1; }
  /// Sites of one parity.
  CB& operator[](int parity) { return cb[parity]; }
  /// Sites of one parity.
  const CB& operator[](int parity) const { return cb[parity]; }
};

} // namespace kqcd
