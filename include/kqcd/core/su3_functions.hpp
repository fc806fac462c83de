// SU(3) functions for smearing, flow and gauge generation: reunitarisation, projection onto SU(3),
// the exponential of a Hermitian matrix, and the SU(2) subgroup steps they are built from.
#pragma once

#include <kqcd/core/su3.hpp>

namespace kqcd {

/// An SU(2) matrix [[p, q], [-conj q, conj p]] acting on rows (i, j) of a 3x3 matrix.
template <class T> struct SU2 {
  /// First row of the 2x2 matrix.
  ///@{
  Kokkos::complex<T> p, q;
  ///@}
};

/// Rows (i, j) of SU(2) subgroup sub = 0, 1, 2: (0,1), (1,2), (0,2).
KOKKOS_INLINE_FUNCTION void su2_subgroup(int sub, int& i, int& j) {
  i = sub == 1 ? 1 : 0;
  j = sub == 0 ? 1 : 2;
}

/// The quaternion part of the (i, j) block of M, as [[p, q], [-conj q, conj p]] (not normalised).
template <class T> KOKKOS_INLINE_FUNCTION SU2<T> su2_block(const SU3<T>& m, int i, int j) {
  return {T(0.5) * (m.m[i][i] + Kokkos::conj(m.m[j][j])), T(0.5) * (m.m[i][j] - Kokkos::conj(m.m[j][i]))};
}
/// The adjoint a^dag.
template <class T> KOKKOS_INLINE_FUNCTION SU2<T> su2_adj(const SU2<T>& a) { return {Kokkos::conj(a.p), -a.q}; }
/// The product a b.
template <class T> KOKKOS_INLINE_FUNCTION SU2<T> su2_mul(const SU2<T>& a, const SU2<T>& b) {
  return {a.p * b.p - a.q * Kokkos::conj(b.q), a.p * b.q + a.q * Kokkos::conj(b.p)};
}
/// sqrt(|p|^2 + |q|^2): the quaternion's length.
template <class T> KOKKOS_INLINE_FUNCTION T su2_norm(const SU2<T>& a) {
  return Kokkos::sqrt(Kokkos::real(a.p * Kokkos::conj(a.p)) + Kokkos::real(a.q * Kokkos::conj(a.q)));
}
/// m <- r m with r embedded in rows and columns (i, j).
template <class T> KOKKOS_INLINE_FUNCTION void su2_left_multiply(const SU2<T>& r, SU3<T>& m, int i, int j) {
  for (int b = 0; b < Nc; ++b) {
    const auto x = m.m[i][b], y = m.m[j][b];
    m.m[i][b] = r.p * x + r.q * y;
    m.m[j][b] = -Kokkos::conj(r.q) * x + Kokkos::conj(r.p) * y;
  }
}

/// An SU(3) matrix close to V: Gram-Schmidt on rows 0 and 1, row 2 = conj(row0 x row1).
/// Not the maximiser of project_su3; it starts the projection and removes rounding drift after
/// heat-bath sweeps. Degenerate rows fall back to unit rows.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> reunitarise(SU3<T> v) {
  using C = Kokkos::complex<T>;
  auto normalise_row = [&](int r) {
    T n = 0;
    for (int b = 0; b < Nc; ++b) n += Kokkos::real(v.m[r][b] * Kokkos::conj(v.m[r][b]));
    if (!(n > T(1e-30))) { // degenerate (or NaN): a unit row orthogonal to the rows before it
      for (int b = 0; b < Nc; ++b) v.m[r][b] = C(0, 0);
      int k = r;
      if (r == 1) k = Kokkos::abs(v.m[0][1]) < T(0.9) ? 1 : 0;
      v.m[r][k] = C(1, 0);
      if (r == 1) {
        C proj(0, 0);
        for (int b = 0; b < Nc; ++b) proj += Kokkos::conj(v.m[0][b]) * v.m[1][b];
        for (int b = 0; b < Nc; ++b) v.m[1][b] -= proj * v.m[0][b];
        n = 0;
        for (int b = 0; b < Nc; ++b) n += Kokkos::real(v.m[r][b] * Kokkos::conj(v.m[r][b]));
      } else n = 1;
    }
    const T s = T(1) / Kokkos::sqrt(n);
    for (int b = 0; b < Nc; ++b) v.m[r][b] *= s;
  };
  normalise_row(0);
  C proj(0, 0);
  for (int b = 0; b < Nc; ++b) proj += Kokkos::conj(v.m[0][b]) * v.m[1][b];
  for (int b = 0; b < Nc; ++b) v.m[1][b] -= proj * v.m[0][b];
  normalise_row(1);
  v.m[2][0] = Kokkos::conj(v.m[0][1] * v.m[1][2] - v.m[0][2] * v.m[1][1]);
  v.m[2][1] = Kokkos::conj(v.m[0][2] * v.m[1][0] - v.m[0][0] * v.m[1][2]);
  v.m[2][2] = Kokkos::conj(v.m[0][0] * v.m[1][1] - v.m[0][1] * v.m[1][0]);
  return v;
}

/// (X - X^dag)/2 - tr(X - X^dag)/6: the traceless anti-Hermitian part of X.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> traceless_antihermitian(const SU3<T>& x) {
  SU3<T> r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) r.m[a][b] = T(0.5) * (x.m[a][b] - Kokkos::conj(x.m[b][a]));
  const Kokkos::complex<T> t = (r.m[0][0] + r.m[1][1] + r.m[2][2]) / T(3);
  for (int a = 0; a < Nc; ++a) r.m[a][a] -= t;
  return r;
}

/// Stopping criteria of project_su3.
struct ProjectionParams {
  double tol = 1e-13; ///< stop when |TA(W V^dag)| <= tol |V|
  int max_iter = 200; ///< SU(2) sweeps at most
};

/// The W in SU(3) maximising Re tr(W V^dag) (Proj_SU3 of conventions.md); iterations used in *iters.
/// Starts from reunitarise(V), then iterates Cabibbo-Marinari sweeps over the SU(2) subgroups; each
/// step left-multiplies W by the SU(2) matrix that maximises Re tr(W V^dag) exactly within its
/// subgroup, so the objective never decreases. Stops when the gradient, the traceless anti-Hermitian
/// part of W V^dag, has Frobenius norm <= tol |V| (W is then within about tol of the stationary
/// point), or after max_iter sweeps. Any V works, singular ones included (V = 0 gives the unit matrix).
template <class T>
KOKKOS_INLINE_FUNCTION SU3<T> project_su3(const SU3<T>& v, const ProjectionParams& params = {}, int* iters = nullptr) {
  SU3<T> w = reunitarise(v);
  const T bound = T(params.tol) * Kokkos::sqrt(norm2(v));
  int it = 0;
  for (; it < params.max_iter; ++it) {
    if (Kokkos::sqrt(norm2(traceless_antihermitian(mul_adj(w, v)))) <= bound) break;
    for (int sub = 0; sub < 3; ++sub) {
      int i, j;
      su2_subgroup(sub, i, j);
      const SU2<T> a = su2_block(mul_adj(w, v), i, j);
      const T k = su2_norm(a);
      if (!(k > T(0))) continue;
      const SU2<T> r = su2_adj(a);
      su2_left_multiply(SU2<T>{r.p / k, r.q / k}, w, i, j);
    }
  }
  if (iters) *iters = it;
  return w;
}

/// The unitary part of the polar decomposition, W = V (V^dag V)^(-1/2): the U(3) matrix closest to
/// V, as HISQ's intermediate links use it (MILC's analytic U(3) projection). (V^dag V)^(-1/2) =
/// f0 + f1 Q + f2 Q^2 by Cayley-Hamilton, Q = V^dag V, from the square roots of Q's eigenvalues
/// (the roots of its characteristic cubic in trigonometric form). A singular V (no unique polar
/// factor) falls back to reunitarise(V).
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> project_u3(const SU3<T>& v) {
  const SU3<T> q = adj_mul(v, v);
  const SU3<T> q2 = q * q;
  const T c0 = trace(q).real(), c1 = T(0.5) * trace(q2).real(), c2 = trace(q2 * q).real() / T(3);
  // Eigenvalues a + 2 sqrt(s) cos(theta/3 + 2 pi k/3) of Q, a its mean.
  const T a = c0 / T(3);
  const T s = c1 / T(3) - c0 * c0 / T(18);
  T g[3] = {a, a, a};
  if (s > T(1e-15) * a * a) {
    const T r = c2 / T(2) - a * (c1 - c0 * c0 / T(9));
    const T ratio = Kokkos::fmax(T(-1), Kokkos::fmin(T(1), r / (s * Kokkos::sqrt(s))));
    const T theta = Kokkos::acos(ratio) / T(3), rs = T(2) * Kokkos::sqrt(s);
    const T third = T(2.0943951023931954923); // 2 pi / 3
    g[0] = a + rs * Kokkos::cos(theta - third);
    g[1] = a + rs * Kokkos::cos(theta);
    g[2] = a + rs * Kokkos::cos(theta + third);
  }
  const T r0 = Kokkos::sqrt(Kokkos::fmax(g[0], T(0))), r1 = Kokkos::sqrt(Kokkos::fmax(g[1], T(0))),
          r2 = Kokkos::sqrt(Kokkos::fmax(g[2], T(0)));
  const T u = r0 + r1 + r2, w = r0 * r1 * r2, vv = r0 * r1 + r0 * r2 + r1 * r2;
  const T den = w * (u * vv - w);
  if (!(den > T(1e-30) * u * u * u * u * u * u)) return reunitarise(v);
  const T f0 = (-w * (u * u + vv) + u * vv * vv) / den, f1 = (-w - u * u * u + T(2) * u * vv) / den, f2 = u / den;
  SU3<T> inv_sqrt = f1 * q + f2 * q2;
  for (int k = 0; k < Nc; ++k) inv_sqrt.m[k][k] += Kokkos::complex<T>(f0, 0);
  return v * inv_sqrt;
}

/// exp(i Q) for Hermitian traceless Q by Cayley-Hamilton (Morningstar and Peardon, hep-lat/0311018).
/// exp(iQ) = f0 + f1 Q + f2 Q^2 with their closed forms; c0 < 0 through
/// f_j(-c0) = (-1)^j conj f_j(c0), sin(w)/w by its series for small w. For small c1 = tr(Q^2)/2
/// (< 0.05, where 9u^2 - w^2 -> 0 loses digits) the exponential series reduced by Q^3 = c1 Q + c0,
/// summed to double precision.
template <class T> KOKKOS_INLINE_FUNCTION SU3<T> exp_iQ(const SU3<T>& q) {
  using C = Kokkos::complex<T>;
  const SU3<T> q2 = q * q;
  const T c1 = T(0.5) * trace(q2).real();
  const T c0_signed = trace(q * q2).real() / T(3);
  C f0, f1, f2;
  if (c1 < T(0.05)) {
    // sum_n (iQ)^n / n!, each power reduced to a0 + a1 Q + a2 Q^2 by Q^3 = c1 Q + c0.
    C a0(1, 0), a1(0, 0), a2(0, 0);
    f0 = a0, f1 = a1, f2 = a2;
    for (int n = 1; n < 40; ++n) {
      const C i_n(0, T(1) / T(n));
      const C b0 = i_n * (a2 * c0_signed), b1 = i_n * (a0 + a2 * c1), b2 = i_n * a1;
      a0 = b0, a1 = b1, a2 = b2;
      f0 += a0, f1 += a1, f2 += a2;
      if (Kokkos::abs(a0) + Kokkos::abs(a1) + Kokkos::abs(a2) < T(1e-18) * (T(1) + Kokkos::abs(f0))) break;
    }
  } else {
    const bool negative = c0_signed < 0;
    const T c0 = negative ? -c0_signed : c0_signed;
    const T c0max = T(2) * c1 / T(3) * Kokkos::sqrt(c1 / T(3));
    const T ratio = Kokkos::fmin(c0 / c0max, T(1));
    const T theta = Kokkos::acos(ratio);
    const T u = Kokkos::sqrt(c1 / T(3)) * Kokkos::cos(theta / T(3));
    const T w = Kokkos::sqrt(c1) * Kokkos::sin(theta / T(3));
    const T w2 = w * w, u2 = u * u;
    const T xi0 = Kokkos::abs(w) < T(0.05) ? T(1) - w2 / T(6) * (T(1) - w2 / T(20) * (T(1) - w2 / T(42)))
                                           : Kokkos::sin(w) / w;
    const T cw = Kokkos::cos(w);
    const C e2iu(Kokkos::cos(T(2) * u), Kokkos::sin(T(2) * u));
    const C emiu(Kokkos::cos(u), -Kokkos::sin(u));
    const C h0 = (u2 - w2) * e2iu + emiu * C(T(8) * u2 * cw, T(2) * u * (T(3) * u2 + w2) * xi0);
    const C h1 = T(2) * u * e2iu - emiu * C(T(2) * u * cw, -(T(3) * u2 - w2) * xi0);
    const C h2 = e2iu - emiu * C(cw, T(3) * u * xi0);
    const T den = T(1) / (T(9) * u2 - w2);
    f0 = h0 * den, f1 = h1 * den, f2 = h2 * den;
    if (negative) {
      f0 = Kokkos::conj(f0);
      f1 = -Kokkos::conj(f1);
      f2 = Kokkos::conj(f2);
    }
  }
  SU3<T> r = f1 * q + f2 * q2;
  for (int a = 0; a < Nc; ++a) r.m[a][a] += f0;
  return r;
}

} // namespace kqcd
