// How kernels read and write a site of a spinor, whatever its storage: SpinorAccessor for complex
// float/double views, HalfSpinorAccessor for 16-bit fixed point with a per-site norm. A kernel
// loads all Nc x Ns components of a site into registers in its arithmetic precision Real and
// stores them back; SpinorAccess<Spinor> names the accessor types of a container. The index is
// the storage index: the site, or site * n_rhs + r in a MultiCBSpinor block. The hopping kernel
// asks instead for a site's spin projection (load_projected): 16-bit storage projects in integer
// arithmetic (exact) and converts half as many reals, leaving the norm to the caller.
#pragma once

#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/half_spinor.hpp>
#include <kqcd/fields/multi_spinor.hpp>

#include <concepts>

namespace kqcd {

/// A read-only view of the same data: lets CUDA route loads through the read-only data cache.
template <class V>
using ReadOnlyView = Kokkos::View<typename V::const_data_type, typename V::array_layout, typename V::device_type,
                                  Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

/// The upper spin components of (1 + sigma g_mu) psi for one hop: h_s = psi_s + i^k_s psi_perm_s,
/// s = 0, 1, with the permutation and phase codes of the gamma matrix (core/gamma.hpp).
template <int perm0, int perm1, int code0, int code1> struct SpinProjection {
  static constexpr int perm[2] = {perm0, perm1}; ///< Spin partner of each upper component.
  static constexpr int code[2] = {code0, code1}; ///< Power of i each partner is multiplied by.
};

/// A 16-bit complex number widened to integers: a 16-bit spin projection sums them exactly.
struct FixedPair {
  int re; ///< real part, in units of the fixed point
  int im; ///< imaginary part
};
/// a + i^k b on integers.
template <int k> KOKKOS_FORCEINLINE_FUNCTION FixedPair add_i_pow(const FixedPair& a, const FixedPair& b) {
  constexpr int c = ((k % 4) + 4) % 4;
  if constexpr (c == 0) return {a.re + b.re, a.im + b.im};
  else if constexpr (c == 1) return {a.re - b.im, a.im + b.re};
  else if constexpr (c == 2) return {a.re - b.re, a.im - b.im};
  else return {a.re + b.im, a.im - b.re};
}

/// The spin projection of one colour for a hop, written once for every storage: h_s = psi(s) +
/// i^code_s psi(perm_s), s = 0, 1 (Proj: SpinProjection). psi(sp) is spin component sp as the
/// storage adds it: a complex number, a register of SIMD lanes, or a 16-bit pair (FixedPair).
template <class Proj, class Psi, class H> KOKKOS_FORCEINLINE_FUNCTION void project_spins(const Psi& psi, H h[2]) {
  h[0] = add_i_pow<Proj::code[0]>(psi(0), psi(Proj::perm[0]));
  h[1] = add_i_pow<Proj::code[1]>(psi(1), psi(Proj::perm[1]));
}

/// Reads and writes spinor sites of a complex view (site, colour, spin) as complex numbers in Real:
/// four-spinors, or colour vectors (one spin component).
template <class View, class Real> struct SpinorAccessor {
  using cplx = Kokkos::complex<Real>; ///< Complex numbers in Real.
  static constexpr int n_spin = int(View::static_extent(2)); ///< Spin components per site.
  View v; ///< The spinor's view.
  /// Loads the site's Nc x n_spin components.
  KOKKOS_FORCEINLINE_FUNCTION void load(int site, cplx s[Nc][n_spin]) const {
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) {
        const auto z = v(site, c, sp);
        s[c][sp] = cplx(Real(z.real()), Real(z.imag()));
      }
  }
  /// h = the projection of the site (Proj: SpinProjection); returns the factor h is to be scaled by.
  template <class Proj> KOKKOS_FORCEINLINE_FUNCTION Real load_projected(int site, cplx h[Nc][2]) const {
    for (int c = 0; c < Nc; ++c) load_projected<Proj>(site, c, h[c]);
    return Real(1);
  }
  /// The projection of colour c only (the hopping term's colour-by-colour order).
  template <class Proj> KOKKOS_FORCEINLINE_FUNCTION Real load_projected(int site, int c, cplx h[2]) const {
    project_spins<Proj>([&](int sp) { return component(site, c, sp); }, h);
    return Real(1);
  }
  /// Component (colour c, spin sp) of the site.
  KOKKOS_FORCEINLINE_FUNCTION cplx component(int site, int c, int sp) const {
    const auto z = v(site, c, sp);
    return cplx(Real(z.real()), Real(z.imag()));
  }
  /// Stores the site's Nc x n_spin components.
  KOKKOS_FORCEINLINE_FUNCTION void store(int site, const cplx s[Nc][n_spin]) const {
    using ST = typename View::value_type;
    using SR = typename ST::value_type;
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) v(site, c, sp) = ST(SR(s[c][sp].real()), SR(s[c][sp].imag()));
  }
};

/// Reads and writes 16-bit spinor sites (values and their per-site norm) as complex numbers.
template <class View, class NormView, class Real> struct HalfSpinorAccessor {
  using cplx = Kokkos::complex<Real>; ///< Complex numbers in Real.
  using packed_type = typename View::non_const_value_type; ///< The stored spins of one colour.
  static constexpr int n_spin = int(sizeof(packed_type::v) / sizeof(short2_t)); ///< Spin components per site.
  View v; ///< The 16-bit spins.
  NormView norm; ///< The per-site norms.
  /// Loads the site's Nc x n_spin components, scaled by its norm.
  KOKKOS_FORCEINLINE_FUNCTION void load(int site, cplx s[Nc][n_spin]) const {
    const Real n = Real(norm(site)) * Real(1.0f / half_scale);
    for (int c = 0; c < Nc; ++c) {
      const packed_type z = v(site, c); // one vector load per colour
      for (int sp = 0; sp < n_spin; ++sp) s[c][sp] = cplx(n * Real(z.v[sp].x), n * Real(z.v[sp].y));
    }
  }
  /// The projection summed on the 16-bit integers (exact) and converted once: h in units of the
  /// stored fixed point; returns norm / half_scale, the factor h is to be scaled by.
  template <class Proj> KOKKOS_FORCEINLINE_FUNCTION Real load_projected(int site, cplx h[Nc][2]) const {
    for (int c = 0; c < Nc; ++c) load_projected<Proj>(site, c, h[c]);
    return Real(norm(site)) * Real(1.0f / half_scale);
  }
  /// The projection of colour c only (the hopping term's colour-by-colour order).
  template <class Proj> KOKKOS_FORCEINLINE_FUNCTION Real load_projected(int site, int c, cplx h[2]) const {
    const packed_type z = v(site, c);
    FixedPair p[2];
    project_spins<Proj>([&](int sp) { return FixedPair{z.v[sp].x, z.v[sp].y}; }, p);
    for (int s = 0; s < 2; ++s) h[s] = cplx(exact_float(p[s].re), exact_float(p[s].im));
    return Real(norm(site)) * Real(1.0f / half_scale);
  }
  /// Stores the site: its largest magnitude as its norm, the components in its units.
  KOKKOS_FORCEINLINE_FUNCTION void store(int site, const cplx s[Nc][n_spin]) const {
    Real m = Real(0);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) m = Kokkos::fmax(m, Kokkos::fmax(Kokkos::fabs(s[c][sp].real()), Kokkos::fabs(s[c][sp].imag())));
    const Real inv = m > Real(0) ? Real(1) / m : Real(0);
    for (int c = 0; c < Nc; ++c) {
      packed_type z;
      for (int sp = 0; sp < n_spin; ++sp) z.v[sp] = short2_t{to_fixed16(float(s[c][sp].real() * inv)), to_fixed16(float(s[c][sp].imag() * inv))};
      v(site, c) = z;
    }
    norm(site) = float(m);
  }
};

template <class Spinor> struct SpinorAccess;

/// Stored rows (fields/spinor.hpp) with the views of spinor type S: S itself, or a block of rows of
/// S's storage, whose rows S's accessors read as its sites.
template <class Rows, class S>
concept RowsOf = std::same_as<typename Rows::view_type, typename S::view_type> && std::same_as<typename Rows::norm_view_type, typename S::norm_view_type>;

/// Accessor factory of CBSpinor (four-spinors and colour vectors).
template <class ST, int nspin, class ES> struct SpinorAccess<CBSpinor<ST, nspin, ES>> {
  using spinor_type = CBSpinor<ST, nspin, ES>; ///< The spinor type.
  using view_type = typename spinor_type::view_type; ///< Its view.
  /// Accessor types reading and writing its sites in precision Real.
  ///@{
  template <class Real> using read_type = SpinorAccessor<ReadOnlyView<view_type>, Real>;
  template <class Real> using write_type = SpinorAccessor<view_type, Real>;
  ///@}
  /// Accessors of the sites of s in precision Real.
  ///@{
  template <class Real, RowsOf<spinor_type> S> static read_type<Real> read(const S& s) { return {s.view()}; }
  template <class Real, RowsOf<spinor_type> S> static write_type<Real> write(const S& s) { return {s.view()}; }
  ///@}
  /// Bytes stored per site.
  static constexpr double site_bytes = double(sizeof(ST)) * Nc * nspin;
};

/// Accessor factory of HalfCBSpinor.
template <class ES, int NS> struct SpinorAccess<HalfCBSpinor<ES, NS>> {
  using spinor_type = HalfCBSpinor<ES, NS>; ///< The spinor type.
  using view_type = typename spinor_type::view_type; ///< Its view.
  using norm_type = typename spinor_type::norm_view_type; ///< Its norm view.
  /// Accessor types reading and writing its sites in precision Real.
  ///@{
  template <class Real> using read_type = HalfSpinorAccessor<ReadOnlyView<view_type>, ReadOnlyView<norm_type>, Real>;
  template <class Real> using write_type = HalfSpinorAccessor<view_type, norm_type, Real>;
  ///@}
  /// Accessors of the sites of s in precision Real.
  ///@{
  template <class Real, RowsOf<spinor_type> S> static read_type<Real> read(const S& s) { return {s.view(), s.norm()}; }
  template <class Real, RowsOf<spinor_type> S> static write_type<Real> write(const S& s) { return {s.view(), s.norm()}; }
  ///@}
  static constexpr double site_bytes = double(sizeof(typename spinor_type::value_type)) * Nc + sizeof(float); ///< Bytes stored per site.
};

/// A block of right-hand sides: its rows read and written as the sites of a single spinor of its
/// storage, by that spinor's accessors.
template <class Single> struct SpinorAccess<SpinorBlock<RowBlocks<Single>>> : SpinorAccess<Single> {
  using spinor_type = SpinorBlock<RowBlocks<Single>>; ///< The block type.
};

namespace detail {
/// Site (or row) i through the accessors: w = r, whatever the two storages.
template <class Reader, class Writer> struct ConvertSitesKernel {
  Reader r;
  Writer w;
  KOKKOS_FUNCTION void operator()(int i) const {
    Kokkos::complex<double> v[Nc][Reader::n_spin];
    r.load(i, v);
    w.store(i, v);
  }
};
} // namespace detail

/// dst = src on the rows of `rows` (a RangePolicy) through the accessors: two spinors, or two blocks,
/// whose rows are the same sites (any storage and precision).
template <class Dst, class Src, class Rows>
void convert_rows(Dst& dst, const Src& src, const Rows& rows, const char* label = "kqcd::convert_sites") {
  const auto r = SpinorAccess<Src>::template read<double>(src);
  const auto w = SpinorAccess<Dst>::template write<double>(dst);
  Kokkos::parallel_for(label, rows, detail::ConvertSitesKernel<decltype(r), decltype(w)>{r, w});
}

/// dst = src between two single spinors on the same sites in the same order (any storage and
/// precision); fields/simd_fields.hpp adds the moves into and out of the SIMD layout.
template <class Dst, class Src> void convert_sites(Dst& dst, const Src& src) {
  convert_rows(dst, src, Kokkos::RangePolicy<typename Dst::execution_space>(0, dst.sites()));
}

/// The checkerboarded spinor (NS = 4) or colour vector (NS = 1) a field of precision P is stored in.
template <class P, class ES, int NS = Ns>
using cb_spinor_t = std::conditional_t<PrecisionTraits<P>::is_half, HalfCBSpinor<ES, NS>, CBSpinor<Kokkos::complex<compute_t<P>>, NS, ES>>;

/// A block of right-hand sides of precision P.
template <class P, class ES> using multi_spinor_t = SpinorBlock<RowBlocks<cb_spinor_t<P, ES>>>;

namespace detail {
/// The block type of a layout without blocks of right-hand sides as rows.
struct no_blocks {};
} // namespace detail

} // namespace kqcd
