// A field on the coarse lattice of aggregation-based multigrid: n complex components per coarse site
// (2 Nv: each test vector's two chiralities), coarse sites lexicographic in the coarse extents.
// The BLAS takes it as rows of Nc x Ns complex numbers over its flat storage, which is padded with
// zeros to whole rows (linear algebra keeps the padding zero and adds nothing to sums).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/linalg/rows.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace kqcd::mg {

/// One rank's part of a coarse lattice: local extents (each at least 1; odd extents allowed),
/// lexicographic sites (x fastest), and where they lie in the global coarse lattice. Its directions
/// are split over the ranks as the fine lattice's are.
struct CoarseGeometry {
  int dims[Nd] = {};   ///< Local coarse extents (plain arrays: read in device code).
  int origin[Nd] = {}; ///< Global coordinates of local site 0.
  int global[Nd] = {}; ///< Global coarse extents.
  /// Coarse sites of this rank.
  KOKKOS_INLINE_FUNCTION int volume() const { return dims[0] * dims[1] * dims[2] * dims[3]; }
  /// The lexicographic index of coarse coordinates c.
  KOKKOS_INLINE_FUNCTION int index(const Coords& c) const { return c.x[0] + dims[0] * (c.x[1] + dims[1] * (c.x[2] + dims[2] * c.x[3])); }
  /// The coordinates of coarse site i.
  KOKKOS_INLINE_FUNCTION Coords coords(int i) const {
    Coords c;
    for (int mu = 0; mu < Nd; ++mu) {
      c.x[mu] = i % dims[mu];
      i /= dims[mu];
    }
    return c;
  }
  /// The lexicographic index in the global coarse lattice of local coordinates c (random coarse
  /// fields are keyed by it).
  KOKKOS_INLINE_FUNCTION std::int64_t global_index(const Coords& c) const {
    std::int64_t i = 0;
    for (int mu = Nd - 1; mu >= 0; --mu) i = i * global[mu] + (c.x[mu] + origin[mu]);
    return i;
  }
  /// Sites on a face orthogonal to mu.
  KOKKOS_INLINE_FUNCTION int face_sites(int mu) const { return volume() / dims[mu]; }
  /// Index on the face orthogonal to mu of site c (its x_mu ignored; lexicographic in the others).
  KOKKOS_INLINE_FUNCTION int face_index(const Coords& c, int mu) const {
    int i = 0;
    for (int nu = Nd - 1; nu >= 0; --nu)
      if (nu != mu) i = i * dims[nu] + c.x[nu];
    return i;
  }
  /// The site with face index f on the face x_mu = x_mu (inverse of face_index).
  KOKKOS_INLINE_FUNCTION Coords face_coords(int mu, int f, int x_mu) const {
    Coords c;
    c.x[mu] = x_mu;
    for (int nu = 0; nu < Nd; ++nu)
      if (nu != mu) {
        c.x[nu] = f % dims[nu];
        f /= dims[nu];
      }
    return c;
  }
  /// Equal extents and placement.
  bool operator==(const CoarseGeometry&) const = default;
};

template <class Real, class ExecSpace> struct CoarseStorage;

/// n complex components per coarse site ([site][k] in one flat view), in Real.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class CoarseSpinor {
public:
  using storage_type = CoarseStorage<Real, ExecSpace>; ///< The BLAS's row access (below).
  using execution_space = ExecSpace; ///< The execution space.
  using real_type = Real; ///< The precision.
  using view_type = Kokkos::View<Kokkos::complex<Real>*, ExecSpace>; ///< [site * n + k], then zero padding.
  static constexpr int row_size = Nc * Ns; ///< Complex numbers per BLAS row.

  CoarseSpinor() = default;
  /// A zero field of n components per site on the coarse geometry g of the fine lattice `fine`.
  CoarseSpinor(const Lattice& fine, const CoarseGeometry& g, int n, const std::string& label = "coarse_spinor")
      : fine_(fine), geometry_(g), n_(check_n(n)),
        data_(label, (std::size_t(g.volume()) * std::size_t(n) + row_size - 1) / row_size * row_size) {}
  /// The fine lattice (its ranks and its shape: the BLAS compares it).
  const Lattice& lattice() const { return fine_; }
  /// The coarse geometry.
  const CoarseGeometry& coarse_geometry() const { return geometry_; }
  /// The parity the BLAS compares: every coarse field has 0.
  int parity() const { return 0; }
  /// Components per coarse site (the BLAS compares it as it compares a block's right-hand sides).
  int n_rhs() const { return n_; }
  /// Components per coarse site.
  int n() const { return n_; }
  /// Coarse sites.
  int sites() const { return geometry_.volume(); }
  /// The storage.
  const view_type& view() const { return data_; }
  /// A zero field of the same shape.
  CoarseSpinor like(const std::string& label = "coarse_spinor") const { return CoarseSpinor(fine_, geometry_, n_, label); }

private:
  static int check_n(int n) {
    if (n < 2 || n % 2 != 0) throw invalid_argument("coarse spinor: " + std::to_string(n) + " components per site, expected an even number >= 2");
    return n;
  }
  Lattice fine_;
  CoarseGeometry geometry_;
  int n_ = 2;
  view_type data_;
};

namespace detail {
/// Rows of Nc x Ns complex numbers over a flat complex view (one slot).
template <class Real> struct FlatComplexRows {
  using real = Real;
  static constexpr int comps = Nc * Ns, width = 2, chunk = comps;
  static constexpr bool lossy = false;
  static constexpr blas::detail::Slots slots = blas::detail::Slots::one;
  Kokkos::complex<Real>* p;
  KOKKOS_FORCEINLINE_FUNCTION void load(int i, int, real (&r)[chunk][width]) const {
    const Kokkos::complex<Real>* q = p + std::size_t(i) * comps;
    for (int k = 0; k < chunk; ++k) {
      r[k][0] = q[k].real();
      r[k][1] = q[k].imag();
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(int i, int, const real (&r)[chunk][width]) const {
    Kokkos::complex<Real>* q = p + std::size_t(i) * comps;
    for (int k = 0; k < chunk; ++k) q[k] = Kokkos::complex<Real>(r[k][0], r[k][1]);
  }
};
} // namespace detail

} // namespace kqcd::mg

namespace kqcd::blas::detail {
/// A coarse field: rows of its flat storage.
template <class Real, class ES> struct RowsOf<mg::CoarseStorage<Real, ES>> {
  template <class, class S> static auto access(const S& s) { return mg::detail::FlatComplexRows<Real>{s.view().data()}; }
  template <class S> static int rows(const S& s) { return int(s.view().extent(0) / S::row_size); }
};
} // namespace kqcd::blas::detail
