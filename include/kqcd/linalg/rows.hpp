// The BLAS's one view of every spinor storage (Grid's lattice-wide expressions over vector sites,
// QUDA's blas over accessors): a spinor is rows of `comps` components, each `width` reals, loaded
// into registers in the arithmetic precision `real` a chunk of components at a time and stored back.
//   plain sites (CBSpinor, its row blocks)    a site per row, a complex number per component (width 2);
//   16-bit sites (HalfCBSpinor, row blocks)   the same, computed in float; a store writes the row's norm;
//   SIMD lanes (SIMDSpinor, SIMDHalfSpinor,   a vector site per row, a register of L complex lanes
//   SIMDBlockSpinor, their row blocks)        per component (width 2 L), each 16-bit lane with its norm.
// Coefficients and sums have slots: one per spinor, or per right-hand side of a block, which a row
// block chooses by row (right-hand side i % n) and a lane block by lane (real w: lane w / 2).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/multi_spinor.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kqcd::blas::detail {

/// How a storage's rows map to coefficient and sum slots.
enum class Slots {
  one,     ///< a single spinor: one slot
  by_row,  ///< a row block: row i belongs to right-hand side i % n
  by_lane, ///< a lane block: real w of a row belongs to right-hand side w / 2
};

/// The most slots a spinor has (a row block's right-hand sides; the lanes of a register).
inline constexpr int max_slots = RowBlocks<CBSpinor<Kokkos::complex<double>, Ns>>::max_rhs;

/// Rows of a (site, colour, spin) view of complex float or double: a site per row. A kernel takes a
/// row a chunk of components at a time: the whole row where a site's reals are contiguous (the host
/// layouts: one run, which compilers vectorise), a component at a time otherwise (GPU threads
/// coalesce across sites and keep few registers).
template <class View, Slots S> struct ComplexRows {
  using real = typename View::non_const_value_type::value_type;
  static constexpr int n_spin = int(View::static_extent(2));
  static constexpr bool contiguous = std::is_same_v<typename View::array_layout, Kokkos::LayoutRight>;
  static constexpr int comps = Nc * n_spin, width = 2, chunk = contiguous ? comps : 1;
  static constexpr bool lossy = false;
  static constexpr Slots slots = S;
  View v;
  /// Components k0 .. k0 + chunk of row i.
  KOKKOS_FORCEINLINE_FUNCTION void load(int i, int k0, real (&r)[chunk][width]) const {
    if constexpr (contiguous) {
      const real* p = reinterpret_cast<const real*>(&v(i, 0, 0));
      for (int k = 0; k < chunk; ++k)
        for (int w = 0; w < width; ++w) r[k][w] = p[k * width + w];
    } else {
      const auto z = v(i, k0 / n_spin, k0 % n_spin);
      r[0][0] = z.real();
      r[0][1] = z.imag();
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(int i, int k0, const real (&r)[chunk][width]) const {
    if constexpr (contiguous) {
      real* p = reinterpret_cast<real*>(&v(i, 0, 0));
      for (int k = 0; k < chunk; ++k)
        for (int w = 0; w < width; ++w) p[k * width + w] = r[k][w];
    } else {
      v(i, k0 / n_spin, k0 % n_spin) = typename View::non_const_value_type(r[0][0], r[0][1]);
    }
  }
};

/// Rows of 16-bit sites through their accessor (fields/spinor_access.hpp), whole (a store writes
/// the row's norm), in float, or in double where a copy rounds to 16 bits as an insert does.
template <class Access, Slots S, class Real = float> struct HalfRows {
  using real = Real;
  static constexpr int n_spin = Access::n_spin;
  static constexpr int comps = Nc * n_spin, width = 2, chunk = comps;
  static constexpr bool lossy = true;
  static constexpr Slots slots = S;
  Access a;
  KOKKOS_FORCEINLINE_FUNCTION void load(int i, int, real (&r)[chunk][width]) const {
    Kokkos::complex<Real> s[Nc][n_spin];
    a.load(i, s);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) {
        r[c * n_spin + sp][0] = s[c][sp].real();
        r[c * n_spin + sp][1] = s[c][sp].imag();
      }
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(int i, int, const real (&r)[chunk][width]) const {
    Kokkos::complex<Real> s[Nc][n_spin];
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) s[c][sp] = Kokkos::complex<Real>(r[c * n_spin + sp][0], r[c * n_spin + sp][1]);
    a.store(i, s);
  }
};

/// Rows of vector sites through a lane accessor (lane_writer): a register of complex lanes per
/// component, a component at a time (float, double) or, in 16 bits, the whole row (each lane scaled
/// by its norm, which a store rewrites).
template <class V, int NS, bool fixed_point, class Access, Slots S> struct LaneRows {
  using real = typename V::real_type;
  static constexpr int comps = Nc * NS, width = 2 * V::lanes, chunk = fixed_point ? comps : 1;
  static constexpr bool lossy = fixed_point;
  static constexpr Slots slots = S;
  Access a;
  KOKKOS_FORCEINLINE_FUNCTION void load(int i, int k0, real (&r)[chunk][width]) const {
    if constexpr (fixed_point) {
      V s[Nc][NS];
      a.load(i, s);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) s[c][sp].store(r[c * NS + sp]);
    } else {
      const real* p = a.base(i) + k0 * width;
      for (int w = 0; w < width; ++w) r[0][w] = p[w];
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(int i, int k0, const real (&r)[chunk][width]) const {
    if constexpr (fixed_point) {
      V s[Nc][NS];
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) s[c][sp] = V::load(r[c * NS + sp]);
      a.store(i, s);
    } else {
      real* p = a.base(i) + k0 * width;
      for (int w = 0; w < width; ++w) p[w] = r[0][w];
    }
  }
};

template <class Storage> struct RowsOf;
/// The arithmetic precision of 16-bit rows: float, unless Real asks for another.
template <class Real> using half_real_t = std::conditional_t<std::is_void_v<Real>, float, Real>;

// Each storage's accessor: access<Real>(s), Real the arithmetic precision where the storage leaves
// a choice (16-bit sites), void for its default.
/// Complex sites.
template <class ST, int nspin, class ES> struct RowsOf<SiteStorage<ST, nspin, ES>> {
  template <class, class S> static auto access(const S& s) { return ComplexRows<typename S::view_type, Slots::one>{s.view()}; }
  template <class S> static int rows(const S& s) { return s.sites(); }
};
/// 16-bit sites.
template <class ES, int NS> struct RowsOf<HalfSiteStorage<ES, NS>> {
  template <class Real, class S> static auto access(const S& s) {
    auto w = SpinorAccess<S>::template write<half_real_t<Real>>(s);
    return HalfRows<decltype(w), Slots::one, half_real_t<Real>>{w};
  }
  template <class S> static int rows(const S& s) { return s.sites(); }
};
/// A block whose right-hand sides are rows of a single spinor's storage.
template <class Single> struct RowsOf<RowBlocks<Single>> {
  template <class Real, class S> static auto access(const S& s) {
    if constexpr (RowBlocks<Single>::vector_sites) {
      auto w = lane_writer(s);
      return LaneRows<typename Single::simd_type, Single::n_spin, Single::has_norm, decltype(w), Slots::by_row>{w};
    } else if constexpr (Single::has_norm) {
      auto w = SpinorAccess<S>::template write<half_real_t<Real>>(s);
      return HalfRows<decltype(w), Slots::by_row, half_real_t<Real>>{w};
    } else {
      return ComplexRows<typename S::view_type, Slots::by_row>{s.view()};
    }
  }
  template <class S> static int rows(const S& s) {
    if constexpr (RowBlocks<Single>::vector_sites) return s.geometry().vsites() * s.n_rhs();
    else return s.sites() * s.n_rhs();
  }
};
/// The SIMD layout: vector sites.
template <class V, class ES, class Store, int NS> struct RowsOf<LaneStorage<V, ES, Store, NS>> {
  template <class, class S> static auto access(const S& s) {
    auto w = lane_writer(s);
    return LaneRows<V, NS, std::is_same_v<Store, short>, decltype(w), Slots::one>{w};
  }
  template <class S> static int rows(const S& s) { return s.geometry().vsites(); }
};
/// A block with one right-hand side per lane: a site per row.
template <class V, class ES, class Store, int NS> struct RowsOf<LaneBlocks<V, ES, Store, NS>> {
  template <class, class S> static auto access(const S& s) {
    auto w = lane_writer(s);
    return LaneRows<V, NS, std::is_same_v<Store, short>, decltype(w), Slots::by_lane>{w};
  }
  template <class S> static int rows(const S& s) { return s.sites(); }
};

/// The rows of two accessors one after the other (a ParityPair's blocks, a FullSpinor's parities): rows 0 .. n - 1 of a,
/// then b's; one slot.
template <class R> struct ConcatRows {
  using real = typename R::real;
  static constexpr int comps = R::comps, width = R::width, chunk = R::chunk;
  static constexpr bool lossy = R::lossy;
  static constexpr Slots slots = Slots::one;
  R a, b;
  int n;
  KOKKOS_FORCEINLINE_FUNCTION void load(int i, int k0, real (&r)[chunk][width]) const {
    if (i < n) a.load(i, k0, r);
    else b.load(i - n, k0, r);
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(int i, int k0, const real (&r)[chunk][width]) const {
    if (i < n) a.store(i, k0, r);
    else b.store(i - n, k0, r);
  }
};
/// Two parts on the 4D parities (s[0] and s[1]: a ParityPair's blocks, a FullSpinor's parities) as
/// one vector: the rows of s[0], then s[1]'s.
template <class Part> struct ParityRows {
  using Of = RowsOf<typename Part::storage_type>; ///< Each part's rows.
  template <class Real, class S> static auto access(const S& s) {
    using R = decltype(Of::template access<Real>(s[0]));
    return ConcatRows<R>{Of::template access<Real>(s[0]), Of::template access<Real>(s[1]), Of::rows(s[0])};
  }
  template <class S> static int rows(const S& s) { return 2 * Of::rows(s[0]); }
};
template <class Block> struct RowsOf<ParityPair<Block>> : ParityRows<Block> {};
template <class CB> struct RowsOf<FullSpinor<CB>> : ParityRows<CB> {};

/// The row accessor of spinor or block s (Real: see RowsOf).
template <class Real = void, class S> auto row_access(const S& s) { return RowsOf<typename S::storage_type>::template access<Real>(s); }
/// The rows of s on this rank.
template <class S> int row_count(const S& s) { return RowsOf<typename S::storage_type>::rows(s); }
/// The row accessor type of S.
template <class S> using rows_t = decltype(row_access(std::declval<const S&>()));
/// The slots of s: one, or its right-hand sides.
template <class S> int slot_count(const S& s) {
  if constexpr (rows_t<S>::slots == Slots::one) return 1;
  else return s.n_rhs();
}

/// Real coefficients, one per slot, in the rows' precision (as few as the slots: a kernel's
/// arguments stay small enough for CUDA to pass them directly).
template <class Rows> struct RealCoefficient {
  using real = typename Rows::real;
  static constexpr int size = Rows::slots == Slots::one ? 1 : Rows::slots == Slots::by_lane ? Rows::width / 2 : max_slots;
  real v[size] = {};
  int n = 1;
  /// a for every slot.
  static RealCoefficient uniform(double a) {
    RealCoefficient c;
    for (auto& x : c.v) x = real(a);
    return c;
  }
  /// a[r] for slot r (the unused lanes of a lane block 0: they stay zero).
  static RealCoefficient per_slot(const std::vector<double>& a) {
    if (a.size() > std::size_t(size))
      throw invalid_argument("blas: " + std::to_string(a.size()) + " coefficients for at most " + std::to_string(size) + " slots");
    RealCoefficient c;
    for (std::size_t r = 0; r < a.size(); ++r) c.v[r] = real(a[r]);
    c.n = int(a.size());
    return c;
  }
  /// A value shared by every real of a row.
  struct Uniform {
    real a;
    KOKKOS_FORCEINLINE_FUNCTION real operator[](int) const { return a; }
  };
  /// A value per real of a row (a lane block's lanes).
  struct PerLane {
    real a[Rows::width];
    KOKKOS_FORCEINLINE_FUNCTION real operator[](int w) const { return a[w]; }
  };
  /// The coefficient of each real of row i.
  KOKKOS_FORCEINLINE_FUNCTION auto row(int i) const {
    if constexpr (Rows::slots == Slots::one) {
      return Uniform{v[0]};
    } else if constexpr (Rows::slots == Slots::by_row) {
      return Uniform{v[i % n]};
    } else {
      PerLane p;
      for (int w = 0; w < Rows::width; ++w) p.a[w] = v[w / 2];
      return p;
    }
  }
};

} // namespace kqcd::blas::detail
