// A 3x3 complex matrix in any precision for kernels: products (with the adjoint on either side),
// adjoint, trace, sums and scaling, and load/store from the gauge views ([site][slot][row][col],
// e.g. CBGaugeField's view with slot = mu). Everything is KOKKOS_INLINE_FUNCTION and register-only.
// SU(3)-specific functions (reunitarisation, projection, exponential) are in core/su3_functions.hpp.
#pragma once

#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

/// A 3x3 complex matrix.
template <class T> struct SU3 {
  /// Real type.
  using real_type = T;
  /// Complex type.
  using cplx = Kokkos::complex<T>;
  cplx m[Nc][Nc]; ///< elements, [row][column]

  /// The zero matrix.
  KOKKOS_INLINE_FUNCTION static SU3 zero() {
    SU3 r;
    for (int a = 0; a < Nc; ++a)
      for (int b = 0; b < Nc; ++b) r.m[a][b] = cplx(0, 0);
    return r;
  }
  /// The unit matrix.
  KOKKOS_INLINE_FUNCTION static SU3 identity() {
    SU3 r = zero();
    for (int a = 0; a < Nc; ++a) r.m[a][a] = cplx(1, 0);
    return r;
  }
};

/// x y
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> operator*(const SU3<T>& x, const SU3<T>& y) {
  SU3<T> r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) {
      Kokkos::complex<T> s(0, 0);
      for (int k = 0; k < Nc; ++k) s += x.m[a][k] * y.m[k][b];
      r.m[a][b] = s;
    }
  return r;
}
/// x y^dag
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> mul_adj(const SU3<T>& x, const SU3<T>& y) {
  SU3<T> r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) {
      Kokkos::complex<T> s(0, 0);
      for (int k = 0; k < Nc; ++k) s += x.m[a][k] * Kokkos::conj(y.m[b][k]);
      r.m[a][b] = s;
    }
  return r;
}
/// x^dag y
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> adj_mul(const SU3<T>& x, const SU3<T>& y) {
  SU3<T> r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) {
      Kokkos::complex<T> s(0, 0);
      for (int k = 0; k < Nc; ++k) s += Kokkos::conj(x.m[k][a]) * y.m[k][b];
      r.m[a][b] = s;
    }
  return r;
}
/// The adjoint x^dag.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> adj(const SU3<T>& x) {
  SU3<T> r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) r.m[a][b] = Kokkos::conj(x.m[b][a]);
  return r;
}
/// Sum.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> operator+(SU3<T> x, const SU3<T>& y) {
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) x.m[a][b] += y.m[a][b];
  return x;
}
/// Difference.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> operator-(SU3<T> x, const SU3<T>& y) {
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) x.m[a][b] -= y.m[a][b];
  return x;
}
/// Adds y.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T>& operator+=(SU3<T>& x, const SU3<T>& y) {
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) x.m[a][b] += y.m[a][b];
  return x;
}
/// s x for a real or complex scalar s
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> operator*(std::type_identity_t<T> s, SU3<T> x) {
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) x.m[a][b] *= s;
  return x;
}
/// Complex scalar times x.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> operator*(const Kokkos::complex<T>& s, SU3<T> x) {
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) x.m[a][b] = s * x.m[a][b];
  return x;
}
/// The trace.
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> trace(const SU3<T>& x) {
  return x.m[0][0] + x.m[1][1] + x.m[2][2];
}
/// Re tr(x y^dag) = sum_ab Re(x_ab conj(y_ab)): closes a loop without forming the product.
template <class T> KOKKOS_INLINE_FUNCTION T re_tr_mul_adj(const SU3<T>& x, const SU3<T>& y) {
  T s = 0;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) s += x.m[a][b].real() * y.m[a][b].real() + x.m[a][b].imag() * y.m[a][b].imag();
  return s;
}
/// Squared Frobenius norm.
template <class T> KOKKOS_INLINE_FUNCTION T norm2(const SU3<T>& x) { return re_tr_mul_adj(x, x); }

/// Matrix (site, slot) of a [site][slot][3][3] view, converted to SU3<T>.
template <class T, class View> KOKKOS_INLINE_FUNCTION SU3<T> load_su3(const View& v, int site, int slot) {
  SU3<T> r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) r.m[a][b] = Kokkos::complex<T>(T(v(site, slot, a, b).real()), T(v(site, slot, a, b).imag()));
  return r;
}
/// Stores x into slot slot of site site of a link view.
template <class T, class View> KOKKOS_INLINE_FUNCTION void store_su3(const View& v, int site, int slot, const SU3<T>& x) {
  using GT = typename View::non_const_value_type;
  using R = typename GT::value_type;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) v(site, slot, a, b) = GT(R(x.m[a][b].real()), R(x.m[a][b].imag()));
}

/// Coordinates of x + mu and x - mu with periodic wrap.
KOKKOS_INLINE_FUNCTION Coords forward(const Lattice& lat, Coords c, int mu) {
  c.x[mu] = c.x[mu] + 1 == lat.dim(mu) ? 0 : c.x[mu] + 1;
  return c;
}
/// Coordinates of the neighbour of c in direction -mu (periodic).
KOKKOS_INLINE_FUNCTION Coords backward(const Lattice& lat, Coords c, int mu) {
  c.x[mu] = c.x[mu] == 0 ? lat.dim(mu) - 1 : c.x[mu] - 1;
  return c;
}

} // namespace kqcd
