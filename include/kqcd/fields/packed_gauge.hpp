// Gauge compression (QUDA's reconstruct-18/12/8) and 16-bit links as accessor policies: the hopping
// kernel asks a LinkAccessor for a 3x3 link in its arithmetic precision and never sees the storage.
// Elements are grouped into aligned vectors of at most 16 bytes so that a link is read in few wide
// loads. Recon-12/8 require SU(3) links (the builder rejects fields beyond `su3_tolerance`), which is
// why boundary phases are applied to spinors, never to the stored links. Recon-13/9 store a constant
// times a U(3) matrix (the long links of improved staggered fermions, as QUDA stores them): the
// matrix divided by the constant, its determinant's phase beside it, the constant once per field.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/arch/simd_complex.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/gpu_complex.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/fields/gauge_field.hpp>

#include <Kokkos_MathematicalConstants.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

namespace kqcd {

namespace detail {
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> conjc(const Kokkos::complex<T>& z) { return {z.real(), -z.imag()}; }
/// Element b of row 2 of an SU(3) matrix from rows 0 and 1 (r0, r1): c = conj(a x b). C is a
/// complex number or a register of SIMD lanes.
template <class C> KOKKOS_FORCEINLINE_FUNCTION C third_row_element(const C r0[3], const C r1[3], int b) {
  const int j = b == 2 ? 0 : b + 1, k = b == 0 ? 2 : b - 1;
  return conjc(r0[j] * r1[k] - r0[k] * r1[j]);
}
/// Row 2 of an SU(3) matrix from rows 0 and 1 (C: a complex number or a register of SIMD lanes).
template <class C> KOKKOS_INLINE_FUNCTION void third_row(C U[3][3]) {
  for (int b = 0; b < 3; ++b) U[2][b] = third_row_element(U[0], U[1], b);
}
/// sin x and cos x for |x| <= pi: on the device CUDA's fast single-precision intrinsic (absolute
/// error about 4e-7 on that range: a few float ulps of a link element) and, in double, sincospi of
/// x / pi (its exact range reduction spares the general one's slow path and registers); the
/// accurate functions elsewhere.
template <class T> KOKKOS_FORCEINLINE_FUNCTION void sincos_small(T x, T& s, T& c) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<T, float>) {
    KOKKOS_IF_ON_DEVICE((__sincosf(x, &s, &c); return;))
  } else if constexpr (std::is_same_v<T, double>) {
    KOKKOS_IF_ON_DEVICE((::sincospi(x * Kokkos::numbers::inv_pi_v<double>, &s, &c); return;))
  }
#endif
  s = Kokkos::sin(x);
  c = Kokkos::cos(x);
}
/// e^{i x} for |x| <= pi (the SIMD lanes' form is in arch/simd_complex.hpp).
template <class T> KOKKOS_FORCEINLINE_FUNCTION Kokkos::complex<T> unit_phase(T x) requires std::is_floating_point_v<T> {
  T s, c;
  sincos_small(x, s, c);
  return {c, s};
}
/// det U.
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> det3(const Kokkos::complex<T> U[3][3]) {
  return U[0][0] * (U[1][1] * U[2][2] - U[1][2] * U[2][1]) - U[0][1] * (U[1][0] * U[2][2] - U[1][2] * U[2][0]) +
         U[0][2] * (U[1][0] * U[2][1] - U[1][1] * U[2][0]);
}
/// arg det U in [-pi, pi].
template <class T> KOKKOS_INLINE_FUNCTION T det_phase(const Kokkos::complex<T> U[3][3]) {
  const Kokkos::complex<T> d = det3(U);
  return Kokkos::atan2(d.imag(), d.real());
}
} // namespace detail

/// The matrices a reconstruction stores: any, SU(3), or a constant times U(3) (the constant kept
/// once per field: LinkField::scale).
enum class LinkGroup { any, su3, u3 };

/// Reconstruct-18: all nine complex elements.
struct Recon18 {
  /// Complex numbers and reals stored per matrix; the name in messages.
  ///@{
  static constexpr int pairs = 9;
  static constexpr int reals = 18;
  static constexpr const char* name = "18";
  ///@}
  static constexpr LinkGroup group = LinkGroup::any; ///< The matrices it stores.
  static constexpr bool whole_rows = true; ///< Whether it stores whole rows and rebuilds row 2 alone.
  static constexpr bool needs_a1_below_one = false; ///< Whether |U_00| = 1 leaves the rest undetermined.
  /// Scale of stored pair k in 16-bit storage (1: none).
  KOKKOS_INLINE_FUNCTION static constexpr float range(int) { return 1.0f; }
  /// p = the stored pairs of U.
  template <class T> KOKKOS_INLINE_FUNCTION static void pack(const Kokkos::complex<T> U[3][3], Kokkos::complex<T> p[pairs]) {
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) p[3 * a + b] = U[a][b];
  }
  /// U from its stored pairs p.
  template <class T> KOKKOS_INLINE_FUNCTION static void unpack(const Kokkos::complex<T> p[pairs], Kokkos::complex<T> U[3][3]) {
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) U[a][b] = p[3 * a + b];
  }
  /// U / scale from p / scale (LinkAccessor::load_scaled); recon-8 has none: unitarity fixes its scale.
  template <class T> KOKKOS_INLINE_FUNCTION static void unpack(const Kokkos::complex<T> p[pairs], Kokkos::complex<T> U[3][3], T) {
    unpack(p, U);
  }
};

/// Reconstruct-12: rows 0 and 1, row 2 from unitarity.
struct Recon12 {
  /// Complex numbers and reals stored per matrix; the name in messages.
  ///@{
  static constexpr int pairs = 6;
  static constexpr int reals = 12;
  static constexpr const char* name = "12";
  ///@}
  static constexpr LinkGroup group = LinkGroup::su3; ///< The matrices it stores.
  static constexpr bool whole_rows = true; ///< Whether it stores whole rows and rebuilds row 2 alone.
  static constexpr bool needs_a1_below_one = false; ///< Whether |U_00| = 1 leaves the rest undetermined.
  /// Scale of stored pair k in 16-bit storage (1: none).
  KOKKOS_INLINE_FUNCTION static constexpr float range(int) { return 1.0f; }
  /// p = the stored pairs of U.
  template <class T> KOKKOS_INLINE_FUNCTION static void pack(const Kokkos::complex<T> U[3][3], Kokkos::complex<T> p[pairs]) {
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) p[3 * a + b] = U[a][b];
  }
  /// U from its stored pairs p, row 2 from unitarity (C: a complex number or a register of SIMD lanes).
  template <class C> KOKKOS_INLINE_FUNCTION static void unpack(const C p[pairs], C U[3][3]) {
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) U[a][b] = p[3 * a + b];
    detail::third_row(U);
  }
  /// U / scale from p = (rows 0, 1) / scale: the third row, quadratic in the rows, is rescaled once.
  template <class T> KOKKOS_INLINE_FUNCTION static void unpack(const Kokkos::complex<T> p[pairs], Kokkos::complex<T> U[3][3], T scale) {
    unpack(p, U);
    for (int b = 0; b < 3; ++b) U[2][b] = scale * U[2][b];
  }
};

/// Reconstruct-8: a2, a3, b1 and the phases of a1 and c1; the rest from unitarity and det U = 1.
struct Recon8 {
  /// Complex numbers and reals stored per matrix; the name in messages.
  ///@{
  static constexpr int pairs = 4;
  static constexpr int reals = 8;
  static constexpr const char* name = "8";
  ///@}
  static constexpr LinkGroup group = LinkGroup::su3; ///< The matrices it stores.
  static constexpr bool whole_rows = false; ///< Whether it stores whole rows and rebuilds row 2 alone.
  static constexpr bool needs_a1_below_one = true; ///< Whether |U_00| = 1 leaves the rest undetermined.
  /// Pair 0 holds two phases in [-pi, pi]; 16-bit storage scales them by 1/pi.
  KOKKOS_INLINE_FUNCTION static constexpr float range(int k) { return k == 0 ? Kokkos::numbers::pi_v<float> : 1.0f; }
  /// p = the stored pairs of U.
  template <class T> KOKKOS_INLINE_FUNCTION static void pack(const Kokkos::complex<T> U[3][3], Kokkos::complex<T> p[pairs]) {
    p[0] = Kokkos::complex<T>(Kokkos::atan2(U[0][0].imag(), U[0][0].real()), Kokkos::atan2(U[2][0].imag(), U[2][0].real()));
    p[1] = U[0][1];
    p[2] = U[0][2];
    p[3] = U[1][0];
  }
  /// C: one complex number, or a register of SIMD lanes (the SIMD layout's links); the reals beside
  /// it are those of detail::rscale.
  template <class C> KOKKOS_INLINE_FUNCTION static void unpack(const C p[pairs], C U[3][3]) {
    using detail::conjc;
    const C a2 = p[1], a3 = p[2], b1 = p[3];
    const auto n = detail::norm_of(a2) + detail::norm_of(a3); // 1 - |a1|^2
    const C a1 = detail::rscale(detail::sqrt_nonneg(detail::one_minus(n)), detail::unit_phase(detail::real_part(p[0])));
    const C c1 = detail::rscale(detail::sqrt_nonneg(n - detail::norm_of(b1)), detail::unit_phase(detail::imag_part(p[0])));
    const auto inv = detail::reciprocal(n);
    const C a1b1 = conjc(a1) * b1, a1c1 = conjc(a1) * c1;
    U[0][0] = a1;
    U[0][1] = a2;
    U[0][2] = a3;
    U[1][0] = b1;
    U[1][1] = detail::rscale(inv, -(conjc(c1) * conjc(a3) + a2 * a1b1));
    U[1][2] = detail::rscale(inv, conjc(c1) * conjc(a2) - a3 * a1b1);
    U[2][0] = c1;
    U[2][1] = detail::rscale(inv, conjc(b1) * conjc(a3) - a2 * a1c1);
    U[2][2] = detail::rscale(inv, -(conjc(b1) * conjc(a2) + a3 * a1c1));
  }
};

/// Reconstruct-13: rows 0 and 1 of a U(3) matrix as Recon12 stores them and the phase theta of its
/// determinant (pair 6: (theta, 0), stored as one real); row 2 = e^{i theta} conj(r0 x r1), Recon12's
/// row 2 times the phase. QUDA's for long links.
struct Recon13 {
  /// Complex numbers (the last holding the phase) and reals stored per matrix; the name in messages.
  ///@{
  static constexpr int pairs = 7;
  static constexpr int reals = 13;
  static constexpr const char* name = "13";
  ///@}
  static constexpr LinkGroup group = LinkGroup::u3; ///< The matrices it stores.
  static constexpr bool whole_rows = true; ///< Whether it stores whole rows and rebuilds row 2 alone.
  static constexpr bool needs_a1_below_one = false; ///< Whether |U_00| = 1 leaves the rest undetermined.
  /// The phase in [-pi, pi]; 16-bit storage scales it by 1/pi.
  KOKKOS_INLINE_FUNCTION static constexpr float range(int k) { return k == 6 ? Kokkos::numbers::pi_v<float> : 1.0f; }
  /// p = the stored pairs of U.
  template <class T> KOKKOS_INLINE_FUNCTION static void pack(const Kokkos::complex<T> U[3][3], Kokkos::complex<T> p[pairs]) {
    Recon12::pack(U, p);
    p[6] = Kokkos::complex<T>(detail::det_phase(U), T(0));
  }
  /// U from its stored pairs p (C: a complex number or a register of SIMD lanes).
  template <class C> KOKKOS_INLINE_FUNCTION static void unpack(const C p[pairs], C U[3][3]) {
    Recon12::unpack(p, U);
    const C e = detail::unit_phase(detail::real_part(p[6]));
    for (int b = 0; b < 3; ++b) U[2][b] = e * U[2][b];
  }
  /// U / scale from rows 0, 1 divided by scale (and the phase as it is): row 2 rescaled once.
  template <class T> KOKKOS_INLINE_FUNCTION static void unpack(const Kokkos::complex<T> p[pairs], Kokkos::complex<T> U[3][3], T scale) {
    unpack(p, U);
    for (int b = 0; b < 3; ++b) U[2][b] = scale * U[2][b];
  }
};

/// Reconstruct-9: a U(3) matrix U = e^{i phi} V, V in SU(3) stored as Recon8 stores it (pairs 0-3),
/// phi = arg(det U) / 3 in pair 4 ((phi, 0), stored as one real). QUDA's for long links.
struct Recon9 {
  /// Complex numbers (the last holding the phase) and reals stored per matrix; the name in messages.
  ///@{
  static constexpr int pairs = 5;
  static constexpr int reals = 9;
  static constexpr const char* name = "9";
  ///@}
  static constexpr LinkGroup group = LinkGroup::u3; ///< The matrices it stores.
  static constexpr bool whole_rows = false; ///< Whether it stores whole rows and rebuilds row 2 alone.
  static constexpr bool needs_a1_below_one = true; ///< Whether |U_00| = 1 leaves the rest undetermined.
  /// Pairs 0 and 4 hold phases in [-pi, pi]; 16-bit storage scales them by 1/pi.
  KOKKOS_INLINE_FUNCTION static constexpr float range(int k) { return k == 0 || k == 4 ? Kokkos::numbers::pi_v<float> : 1.0f; }
  /// p = the stored pairs of U.
  template <class T> KOKKOS_INLINE_FUNCTION static void pack(const Kokkos::complex<T> U[3][3], Kokkos::complex<T> p[pairs]) {
    const T phi = detail::det_phase(U) / T(3);
    const Kokkos::complex<T> e = detail::unit_phase(-phi);
    Kokkos::complex<T> V[3][3];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) V[a][b] = e * U[a][b];
    Recon8::pack(V, p);
    p[4] = Kokkos::complex<T>(phi, T(0));
  }
  /// U from its stored pairs p (C: a complex number or a register of SIMD lanes).
  template <class C> KOKKOS_INLINE_FUNCTION static void unpack(const C p[pairs], C U[3][3]) {
    Recon8::unpack(p, U);
    const C e = detail::unit_phase(detail::real_part(p[4]));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) U[a][b] = e * U[a][b];
  }
};

/// Complex numbers of a reconstruction stored as matrix elements (the phase pair of a U(3) one apart).
template <class Recon> inline constexpr int matrix_pairs = Recon::group == LinkGroup::u3 ? Recon::pairs - 1 : Recon::pairs;

/// A stored pair to a complex number in T and back; 16-bit pairs hold value / range.
template <class T, class S> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> decode_pair(const GPUComplex<S>& s, float) {
  return s.template to<T>();
}
/// Decodes a 16-bit pair scaled by range.
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> decode_pair(const short2_t& s, float range) {
  return Kokkos::complex<T>(T(from_fixed16(s.x) * range), T(from_fixed16(s.y) * range));
}
/// Encodes a complex number as a float or double pair.
template <class S, class T> KOKKOS_INLINE_FUNCTION void encode_pair(GPUComplex<S>& s, const Kokkos::complex<T>& z, float) {
  s = GPUComplex<S>(z);
}
/// Encodes a complex number as a 16-bit pair scaled by 1/range.
template <class T> KOKKOS_INLINE_FUNCTION void encode_pair(short2_t& s, const Kokkos::complex<T>& z, float range) {
  s.x = to_fixed16(float(z.real()) / range);
  s.y = to_fixed16(float(z.imag()) / range);
}

/// The pair a packed gauge field of precision P stores.
template <class P> using link_pair_t = std::conditional_t<PrecisionTraits<P>::is_half, short2_t, GPUComplex<P>>;
/// Pairs per vector: the most of 4, 2, 1 that divides the link's pairs within 16 bytes.
template <class Pair, int pairs>
inline constexpr int link_pack_width = (pairs % 4 == 0 && 4 * sizeof(Pair) <= 16)   ? 4
                                       : (pairs % 2 == 0 && 2 * sizeof(Pair) <= 16) ? 2
                                                                                    : 1;

/// Device-side reader of one parity's packed links in arithmetic precision Real: the matrices'
/// vectors (View) and, for U(3) reconstructions, their phases (PhaseView: one real each).
template <class Recon, class View, class PhaseView, class Real> struct LinkAccessor {
  using cplx = Kokkos::complex<Real>; ///< Complex numbers in Real.
  using packed_type = typename View::non_const_value_type; ///< A stored vector of pairs.
  using pair_type = std::remove_cvref_t<decltype(packed_type::v[0])>; ///< A stored pair.
  static constexpr int width = sizeof(packed_type::v) / sizeof(packed_type::v[0]); ///< Pairs per stored vector.
  static constexpr bool fixed_point = std::is_same_v<pair_type, short2_t>; ///< Whether the links are 16-bit fixed point.
  static constexpr bool u3 = Recon::group == LinkGroup::u3; ///< Whether a phase is stored beside each matrix.
  /// Whether every stored matrix is the link itself (no factor to apply).
  static constexpr bool unit_scale = !fixed_point && !u3;
  /// 16-bit links whose reconstruction can rescale (Recon::unpack(p, U, scale)) stay in units of
  /// the fixed point in load_scaled.
  static constexpr bool keeps_fixed_point = fixed_point && requires(const cplx* p, cplx (*U)[3], Real s) { Recon::unpack(p, U, s); };
  View data; ///< [site][mu][vector] of one parity.
  PhaseView phases; ///< [site][mu]: the phases of U(3) reconstructions (empty otherwise).
  Real scale = Real(1); ///< The matrices are stored divided by it (LinkField::scale).
  /// U = link (site, mu), reconstructed.
  KOKKOS_FORCEINLINE_FUNCTION void load(int site, int mu, cplx U[3][3]) const {
    const Real s = load_scaled(site, mu, U);
    if constexpr (!unit_scale)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) U[a][b] = s * U[a][b];
  }
  /// U / scale; returns scale. 16-bit recon-18/12/13 links stay in units of the fixed point (no
  /// multiply per element: the hopping kernel folds one scale per hop into its multiply-adds).
  KOKKOS_FORCEINLINE_FUNCTION Real load_scaled(int site, int mu, cplx U[3][3]) const {
    cplx p[Recon::pairs];
    read_pairs<keeps_fixed_point>(site, mu, p);
    if constexpr (keeps_fixed_point) {
      const Real fp = Real(1.0f / half_scale);
      Recon::unpack(p, U, fp);
      if constexpr (Recon::group == LinkGroup::su3) return fp; // SU(3) links are stored as they are
      else return scale * fp;
    } else {
      Recon::unpack(p, U);
      if constexpr (unit_scale) return Real(1);
      else return scale;
    }
  }

private:
  /// The link's stored pairs, one vector load per `width` of them: decoded, or (fixed_point) the
  /// 16-bit integers as they are; a U(3) reconstruction's phase decoded.
  template <bool fixed_point_units> KOKKOS_FORCEINLINE_FUNCTION void read_pairs(int site, int mu, cplx p[Recon::pairs]) const {
    for (int k = 0; k < matrix_pairs<Recon> / width; ++k) {
      const packed_type q = data(site, mu, k);
      for (int j = 0; j < width; ++j) {
        if constexpr (fixed_point_units) p[k * width + j] = cplx(Real(q.v[j].x), Real(q.v[j].y));
        else p[k * width + j] = decode_pair<Real>(q.v[j], Recon::range(k * width + j));
      }
    }
    if constexpr (u3) {
      constexpr int k = Recon::pairs - 1;
      if constexpr (fixed_point) p[k] = cplx(Real(from_fixed16(phases(site, mu)) * Recon::range(k)), Real(0));
      else p[k] = cplx(Real(phases(site, mu)), Real(0));
    }
  }
};

namespace detail {
/// What compression needs of a link U, folded into running maxima: dev = max(|U U^dag - 1|,
/// |det U - 1|) (SU(3) for reconstruct-12 and 8; without the determinant, `det` false: U(3) for
/// reconstruct-13 and 9) and a1max = |U_00|^2 (below 1 for reconstruct-8 and 9).
KOKKOS_INLINE_FUNCTION void fold_su3_deviation(const Kokkos::complex<double> U[3][3], double& dev, double& a1max, bool det = true) {
  using C = Kokkos::complex<double>;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      C s(0.0, 0.0);
      for (int k = 0; k < 3; ++k) s += U[a][k] * conjc(U[b][k]);
      if (a == b) s -= C(1.0, 0.0);
      dev = Kokkos::fmax(dev, Kokkos::abs(s));
    }
  if (det) dev = Kokkos::fmax(dev, Kokkos::abs(det3(U) - C(1.0, 0.0)));
  a1max = Kokkos::fmax(a1max, norm_of(U[0][0]));
}

/// Largest SU(3) violation max(|U U^dag - 1|, |det U - 1|) accepted by recon-12/8 (and U(3)
/// violation |U U^dag - 1| of the matrix divided by the field's scale by recon-13/9): loose enough
/// for configurations stored in single precision.
inline constexpr double su3_tolerance = 1e-5;

/// Throws unless links with the maxima of fold_su3_deviation can be stored as Recon packs them.
template <class Recon> void require_reconstructible(double dev, double a1max) {
  if (Recon::group == LinkGroup::su3 && !(dev <= su3_tolerance))
    throw invalid_argument(std::string("gauge reconstruct-") + Recon::name + " needs SU(3) links: found max(|U U^dag - 1|, " +
                           "|det U - 1|) = " + std::to_string(dev) + ", expected at most " + std::to_string(su3_tolerance) +
                           " (use recon 18)");
  if (Recon::group == LinkGroup::u3 && !(dev <= su3_tolerance))
    throw invalid_argument(std::string("gauge reconstruct-") + Recon::name + " needs links that are one constant times U(3) " +
                           "matrices (as long links are): found |U U^dag / c^2 - 1| = " + std::to_string(dev) + ", expected at most " +
                           std::to_string(su3_tolerance) + " (use recon 18)");
  if (Recon::needs_a1_below_one && !(a1max < 1.0 - 1e-6))
    throw invalid_argument(std::string("gauge reconstruct-") + Recon::name + " cannot represent links with |U_00| = 1 (found |U_00|^2 = " +
                           std::to_string(a1max) + "; the unit gauge is one): use recon " + (Recon::group == LinkGroup::u3 ? "13" : "12") +
                           " or 18");
}

/// Kernel: the largest |Re|, |Im| of the elements of one parity's links (ghost zone included).
template <class View> struct LinkMaxAbs {
  View v; ///< The links.
  /// Folds the links of site s into m.
  KOKKOS_INLINE_FUNCTION void operator()(int s, double& m) const {
    for (int mu = 0; mu < Nd; ++mu)
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) m = Kokkos::fmax(m, Kokkos::fmax(Kokkos::abs(double(v(s, mu, a, b).real())), Kokkos::abs(double(v(s, mu, a, b).imag()))));
  }
};
/// Kernel: the largest |det U| of one parity's links (ghost zone included).
template <class View> struct LinkMaxDet {
  View v; ///< The links.
  /// Folds the links of site s into m.
  KOKKOS_INLINE_FUNCTION void operator()(int s, double& m) const {
    for (int mu = 0; mu < Nd; ++mu) {
      Kokkos::complex<double> U[Nc][Nc];
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) U[a][b] = Kokkos::complex<double>(v(s, mu, a, b).real(), v(s, mu, a, b).imag());
      m = Kokkos::fmax(m, Kokkos::abs(det3(U)));
    }
  }
};
/// The largest value Kernel<View> reduces over both parities of u.
template <template <class> class Kernel, class GT, class ES> double max_over_links(const GaugeField<GT, ES>& u, const char* label) {
  double m = 0.0;
  for (int p = 0; p < 2; ++p) {
    double mp = 0.0;
    const auto v = u[p].view();
    Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ES>(0, int(v.extent(0))), Kernel<decltype(v)>{v}, Kokkos::Max<double>(mp));
    m = std::max(m, mp);
  }
  return m;
}
/// The factor a LinkField stores u's matrices divided by (LinkField::scale): for 16-bit whole
/// matrices the least power of two at least the largest |Re|, |Im| of an element (exact in float;
/// fat links exceed 1); for U(3) reconstructions the constant c of links c V, V in U(3) (the cube
/// root of the largest |det U|); else 1. Per rank: ranks agree unless their maxima straddle a power
/// of two (a range) or differ by rounding (c).
template <class Recon, bool fixed_point, class GT, class ES> double link_scale(const GaugeField<GT, ES>& u) {
  if constexpr (Recon::group == LinkGroup::u3) {
    const double d = max_over_links<LinkMaxDet>(u, "kqcd::link_scale");
    if (!(d > 0.0))
      throw invalid_argument(std::string("gauge reconstruct-") + Recon::name + " needs links that are one constant times U(3) " +
                             "matrices: found only singular links (use recon 18)");
    return std::cbrt(d);
  } else if constexpr (fixed_point && Recon::group == LinkGroup::any) {
    const double m = max_over_links<LinkMaxAbs>(u, "kqcd::link_range");
    return m > 0.0 ? std::exp2(std::ceil(std::log2(m))) : 1.0;
  } else {
    return 1.0;
  }
}
} // namespace detail

/// Packs the links of one parity: for each stored site, each of its Packer::matrices matrices is
/// gathered from the source field, divided by the field's scale, folded into the SU(3) (or U(3))
/// check where the packer asks, packed as Recon packs it and stored; reduces the running maxima of
/// detail::fold_su3_deviation.
template <class Recon, class Packer> struct PackLinksFunctor {
  Packer packer; ///< Where the matrices come from and go to (a storage policy's).
  double scale = 1.0; ///< The matrices are stored divided by it (detail::link_scale).
  /// Packs the matrices of stored site s; dev and a1max: the builder's running maxima.
  KOKKOS_INLINE_FUNCTION void operator()(int s, double& dev, double& a1max) const {
    for (int k = 0; k < Packer::matrices; ++k) {
      Kokkos::complex<double> U[Nc][Nc];
      const bool checked = packer.gather(s, k, U);
      if (scale != 1.0)
        for (int a = 0; a < Nc; ++a)
          for (int b = 0; b < Nc; ++b) U[a][b] = U[a][b] / scale;
      if (checked) detail::fold_su3_deviation(U, dev, a1max, Recon::group != LinkGroup::u3);
      Kokkos::complex<double> p[Recon::pairs];
      Recon::pack(U, p);
      packer.store(s, k, p);
    }
  }
};

/// One parity of SiteLinks: the matrices' vectors and, for U(3) reconstructions, their phases.
template <class MatrixView, class PhaseView> struct SiteLinkViews {
  MatrixView matrices; ///< [site][mu][vector]
  PhaseView phases;    ///< [site][mu] (empty unless the reconstruction stores a phase)
};

/// The plain storage of links (LinkField's policy): each site of a parity, ghost zone included,
/// stores its Nd forward links U_mu(x) as Recon packs them, pairs of precision P (16-bit in half)
/// grouped into aligned vectors of at most 16 bytes, a U(3) reconstruction's phase in an array of
/// its own (one real per link, read in one load as the vectors are); a backward hop reads
/// U_mu(x - h) at its neighbour. The layout of the GPU and of the plain host layout.
template <class P, class Recon = Recon18, class ExecSpace = Kokkos::DefaultExecutionSpace> struct SiteLinks {
  using traits = ArchTraits<ExecSpace>; ///< The backend's layouts.
  using execution_space = ExecSpace; ///< Where the links are read.
  using pack_space = ExecSpace; ///< Where they are packed.
  using recon_type = Recon; ///< How each link is stored.
  using shape_type = Lattice; ///< What the links are laid out on.
  using pair_type = link_pair_t<P>; ///< The stored pair (precision P).
  static constexpr bool fixed_point = std::is_same_v<pair_type, short2_t>; ///< Whether the links are 16-bit fixed point.
  static constexpr bool u3 = Recon::group == LinkGroup::u3; ///< Whether a phase is stored beside each matrix.
  static constexpr int vector_pairs = matrix_pairs<Recon>; ///< Pairs stored in the vectors.
  static constexpr int pack_width = link_pack_width<pair_type, vector_pairs>; ///< Pairs per stored vector.
  using packed_type = Packed<pair_type, pack_width>; ///< A stored vector of pairs.
  using phase_type = std::conditional_t<fixed_point, short, P>; ///< A stored phase.
  using layout = typename traits::gauge_layout; ///< The order of sites and elements.
  using memory = typename traits::memory_space; ///< Where the links live.
  using read_only = Kokkos::MemoryTraits<Kokkos::RandomAccess>; ///< Read through the read-only data cache.
  /// One parity.
  using view_type = SiteLinkViews<Kokkos::View<packed_type* [Nd][vector_pairs / pack_width], layout, memory>,
                                  Kokkos::View<phase_type* [Nd], layout, memory>>;
  /// Device-side reader in precision Real.
  template <class Real>
  using accessor_type = LinkAccessor<Recon, Kokkos::View<const packed_type* [Nd][vector_pairs / pack_width], layout, memory, read_only>,
                                     Kokkos::View<const phase_type* [Nd], layout, memory, read_only>, Real>;
  /// Bytes stored per link.
  static constexpr double bytes_per_link = double(sizeof(pair_type)) * vector_pairs + (u3 ? sizeof(phase_type) : 0);

  /// The lattice of shape l (itself).
  static const Lattice& lattice(const Lattice& l) { return l; }
  /// Sites stored per parity: the lattice's, then its ghost zone (the links of off-rank neighbours, already exchanged).
  static int sites(const Lattice& l) { return l.cb_volume() + l.ghost_sites(); }
  /// Throws unless the links of hops of `hop` sites can be stored (any: the forward links serve every hop length).
  static void check(const Lattice&, int) {}
  /// Storage of one parity.
  static view_type allocate(const Lattice& l, int) {
    view_type v;
    v.matrices = decltype(v.matrices)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "packed_gauge"), sites(l));
    if constexpr (u3) v.phases = decltype(v.phases)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "packed_gauge_phases"), sites(l));
    return v;
  }
  /// The reader of one parity's links for a functor computing in Real (matrices stored divided by scale).
  template <class Real> static accessor_type<Real> reader(const view_type& v, double scale) { return {v.matrices, v.phases, Real(scale)}; }

  /// Gathers the links of parity p of a GaugeField and stores them packed.
  template <class SrcView> struct Packer {
    static constexpr int matrices = Nd; ///< Matrices per stored site: its forward links.
    SrcView src; ///< The source links of the parity.
    view_type dst; ///< Their storage.
    /// U = link k of site s; every stored link counts in the SU(3) check.
    KOKKOS_INLINE_FUNCTION bool gather(int s, int k, Kokkos::complex<double> U[Nc][Nc]) const {
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) U[a][b] = Kokkos::complex<double>(src(s, k, a, b).real(), src(s, k, a, b).imag());
      return true;
    }
    /// Stores the packed pairs p of link k of site s, one vector per pack_width of them (and the phase).
    KOKKOS_INLINE_FUNCTION void store(int s, int k, const Kokkos::complex<double> p[Recon::pairs]) const {
      for (int v = 0; v < vector_pairs / pack_width; ++v) {
        packed_type q;
        for (int j = 0; j < pack_width; ++j) encode_pair(q.v[j], p[v * pack_width + j], Recon::range(v * pack_width + j));
        dst.matrices(s, k, v) = q;
      }
      if constexpr (u3) {
        constexpr int j = Recon::pairs - 1;
        if constexpr (fixed_point) dst.phases(s, k) = to_fixed16(float(p[j].real()) / Recon::range(j));
        else dst.phases(s, k) = phase_type(p[j].real());
      }
    }
  };
  /// The packer of parity p of u into d.
  template <class GT> static auto packer(const GaugeField<GT, ExecSpace>& u, const Lattice&, const view_type& d, int p, int) {
    return Packer<typename CBGaugeField<GT, ExecSpace>::view_type>{u[p].view(), d};
  }
};

/// The links of a gauge field as a stencil's site functor reads them, both parities: one container
/// whose storage is a policy (SiteLinks: per site, compressed or 16-bit; LaneLinks in
/// fields/simd_fields.hpp: doubled and lane-interleaved for the SIMD layout). Built from an ordinary
/// GaugeField (on a distributed lattice with its ghost zone filled: with_gauge_halo); compressed
/// storage for SU(3) links only (Recon12, Recon8) or one constant times U(3) matrices (Recon13,
/// Recon9), checked while packing.
template <class Storage> class LinkField {
public:
  using storage_type = Storage; ///< Where and how the links are stored.
  using recon_type = typename Storage::recon_type; ///< How each matrix is stored.
  using shape_type = typename Storage::shape_type; ///< What the links are laid out on.
  using view_type = typename Storage::view_type; ///< One parity's storage.
  /// Largest SU(3) violation accepted by recon-12/8 (detail::su3_tolerance).
  static constexpr double su3_tolerance = detail::su3_tolerance;

  LinkField() = default;
  /// Packs u on shape for hops of `hop` sites (1, or 3 for long links); throws if their lattices
  /// differ, or if the compression needs SU(3) links u lacks.
  template <class GT, class ES>
  LinkField(const GaugeField<GT, ES>& u, const shape_type& shape, int hop = 1) : shape_(shape) {
    if (!(u.lattice() == Storage::lattice(shape)))
      throw invalid_argument("gauge links: gauge field on " + u.lattice().to_string() + ", laid out on " +
                             Storage::lattice(shape).to_string());
    Storage::check(shape, hop);
    scale_ = detail::link_scale<recon_type, Storage::fixed_point>(u);
    double dev = 0.0, a1max = 0.0;
    for (int p = 0; p < 2; ++p) {
      data_[p] = Storage::allocate(shape, p);
      const auto packer = Storage::packer(u, shape, data_[p], p, hop);
      double d = 0.0, a = 0.0;
      Kokkos::parallel_reduce("kqcd::LinkField", Kokkos::RangePolicy<typename Storage::pack_space>(0, Storage::sites(shape)),
                              PackLinksFunctor<recon_type, decltype(packer)>{packer, scale_}, Kokkos::Max<double>(d), Kokkos::Max<double>(a));
      dev = std::max(dev, d);
      a1max = std::max(a1max, a);
    }
    su3_deviation_ = dev;
    detail::require_reconstructible<recon_type>(dev, a1max);
  }
  /// Packs u on its own lattice (storage laid out on lattices).
  template <class GT, class ES>
    requires std::is_same_v<shape_type, Lattice>
  explicit LinkField(const GaugeField<GT, ES>& u) : LinkField(u, u.lattice()) {}
  /// What the links are laid out on, and its lattice.
  ///@{
  const shape_type& shape() const { return shape_; }
  const Lattice& lattice() const { return Storage::lattice(shape_); }
  ///@}
  /// The stored links of one parity (the sites of that parity read them).
  const view_type& view(int parity) const { return data_[parity]; }
  /// The reader of one parity's links for a site functor computing in Arith: a real type, or a
  /// register of SIMD lanes (the storage's readers).
  template <class Arith> auto reader(int parity) const { return Storage::template reader<Arith>(data_[parity], scale_); }
  /// The matrices are stored divided by it: for 16-bit whole matrices the value of the fixed
  /// point's one (the least power of two at least the largest |Re|, |Im| of an element: fat links
  /// exceed 1), for U(3) reconstructions the constant c of links c V (V in U(3)); else 1.
  double scale() const { return scale_; }
  /// max(|U U^dag - 1|, |det U - 1|) over the stored matrices (without the determinant and divided
  /// by scale() for U(3) reconstructions).
  double su3_deviation() const { return su3_deviation_; }
  /// Bytes stored per matrix.
  static constexpr double bytes_per_link() { return Storage::bytes_per_link; }

private:
  shape_type shape_;
  view_type data_[2];
  double su3_deviation_ = 0.0;
  double scale_ = 1.0;
};

/// A gauge field in compressed or 16-bit storage per site, both parities.
template <class P, class Recon = Recon18, class ExecSpace = Kokkos::DefaultExecutionSpace>
using PackedGauge = LinkField<SiteLinks<P, Recon, ExecSpace>>;

} // namespace kqcd
