// The fifth dimension of domain-wall fermions as site-local terms that couple the rows of a block
// (kernels/dslash_wilson.hpp's row-coupling terms): a 5D field is a block of Ls rows per 4D site,
// row s the slice s. conventions.md: the slice coupling K psi(s) = P- psi(s+1) + P+ psi(s-1) with
// P- psi(Ls) = -m_f P- psi(0) and P+ psi(-1) = -m_f P+ psi(Ls-1), so that K^Ls = -m_f. Every
// fifth-dimension operator of the Shamir and Moebius operators is a polynomial in K of degree below
// Ls: M5 = (b5 (4 - M5) + 1) + (c5 (4 - M5) - 1) K, the Moebius factor b5 + c5 K, the inverse of M5
// (known in closed form) and their products. A policy applies sum_k d_k K^k (or, dagger, in K^dag,
// where P+ and P- swap directions) to a site's rows. In the DeGrand-Rossi basis P+ keeps spins 0, 1
// and P- spins 2, 3.
#pragma once

#include <kqcd/arch/simd_complex.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd {

/// The largest Ls a fifth-dimension policy holds coefficients for.
inline constexpr int max_fifth_dim = 32;

/// out(s) = sum_{k < n} d_k (K^k x)(s) (dagger: K^dag) on the rows of one 4D site: a row-coupling
/// site-local term (couples_rows), read through the block's accessor.
template <class Real> struct FifthDimensionLocal {
  static constexpr bool couples_rows = true; ///< Reads the site's other rows (not a one-row term).
  Real d[max_fifth_dim] = {}; ///< The coefficient of K^k.
  Real wall = Real(0); ///< The factor of a row that wraps round the fifth dimension: -m_f.
  int n = 0; ///< Terms: k = 0 .. n - 1 (n <= Ls).
  bool dagger = false; ///< K^dag instead of K.

  /// out = the term on row s of the Ls rows of `site` (rows site * Ls + s of x).
  template <class Acc, class C> KOKKOS_FORCEINLINE_FUNCTION void apply_rows(const Acc& x, int site, int s, int Ls, C out[Nc][Ns]) const {
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Ns; ++sp) out[c][sp] = complex_zero<C>();
    for (int k = 0; k < n; ++k) {
      // P+ (spins 0, 1) comes from s - k under K, from s + k under K^dag; P- the other way.
      for (int chir = 0; chir < 2; ++chir) {
        const bool up = (chir == 1) != dagger;
        int r = up ? s + k : s - k;
        Real w = d[k];
        if (r >= Ls) r -= Ls, w *= wall;
        if (r < 0) r += Ls, w *= wall;
        C v[Nc][Ns];
        x.load(site * Ls + r, v);
        for (int c = 0; c < Nc; ++c)
          for (int sp = 2 * chir; sp < 2 * chir + 2; ++sp) out[c][sp] += w * v[c][sp];
      }
    }
  }
};

/// out(s) = c (K x)(s) (dagger: K^dag) for the rows of one 5D parity of a site, the input rows
/// those of the other 5D parity (5D even-odd preconditioning, Shamir): a site's rows of slices
/// s = 2 j + out_offset read slices 2 j' + 1 - out_offset of the input (Ls = 2 rows).
template <class Real> struct FifthParityHop {
  static constexpr bool couples_rows = true; ///< Reads the site's other rows (not a one-row term).
  Real c = Real(1); ///< The coefficient.
  Real wall = Real(0); ///< The factor of a row that wraps round the fifth dimension: -m_f.
  int out_offset = 0; ///< The output's slices are s = 2 j + out_offset.
  bool dagger = false; ///< K^dag instead of K.

  /// out = the term on row j of the `rows` rows of `site` (rows site * rows + j' of x).
  template <class Acc, class C> KOKKOS_FORCEINLINE_FUNCTION void apply_rows(const Acc& x, int site, int j, int rows, C out[Nc][Ns]) const {
    const int Ls = 2 * rows, s = 2 * j + out_offset, in_offset = 1 - out_offset;
    // P+ (spins 0, 1) comes from s - 1 under K, from s + 1 under K^dag; P- the other way.
    for (int chir = 0; chir < 2; ++chir) {
      const bool up = (chir == 1) != dagger;
      int r = up ? s + 1 : s - 1;
      Real w = c;
      if (r >= Ls) r -= Ls, w *= wall;
      if (r < 0) r += Ls, w *= wall;
      C v[Nc][Ns];
      x.load(site * rows + (r - in_offset) / 2, v);
      for (int cc = 0; cc < Nc; ++cc)
        for (int sp = 2 * chir; sp < 2 * chir + 2; ++sp) out[cc][sp] = w * v[cc][sp];
    }
  }
};

/// Between a block of Ls rows per site on one 4D parity q (slice s in row s) and its rows on the
/// two 5D parities (slice s in row s / 2 of the block of 5D parity (q + s) % 2): to_parities splits,
/// otherwise merges.
template <class AccFull, class AccHalf, bool to_parities> struct FifthParityRowsFunctor {
  using cplx = typename AccFull::cplx; ///< The site vector.
  AccFull full; ///< The block of Ls rows.
  /// The blocks of Ls / 2 rows of 5D parity 0 and 1.
  ///@{
  AccHalf even, odd;
  ///@}
  int Ls; ///< Slices.
  int q; ///< The 4D parity of the sites.
  /// Row i = site * Ls + s of the full block.
  KOKKOS_FUNCTION void operator()(int i) const {
    const int site = i / Ls, s = i - site * Ls, h = Ls / 2;
    const AccHalf& half = (q + s) % 2 == 0 ? even : odd;
    cplx v[Nc][Ns];
    if constexpr (to_parities) {
      full.load(i, v);
      half.store(site * h + s / 2, v);
    } else {
      half.load(site * h + s / 2, v);
      full.store(i, v);
    }
  }
};

/// out = A(x) + B(y) on every row of a block of Ls rows per site (y and B unused when with_y is
/// false), A and B row-coupling terms: the fifth-dimension passes of the domain-wall operators. out
/// may alias x or y only where A and B read no other row than the one written (one term, k = 0).
template <class InAcc, class OutAcc, class Local> struct FifthDimensionFunctor {
  using cplx = typename InAcc::cplx; ///< The site vector.
  /// The inputs.
  ///@{
  InAcc x, y;
  ///@}
  OutAcc out; ///< The result (aliases neither input).
  /// The terms.
  ///@{
  Local a, b;
  ///@}
  int Ls; ///< Rows per site.
  bool with_y; ///< Whether B(y) is added.
  /// Row i = site * Ls + s.
  KOKKOS_FUNCTION void operator()(int i) const {
    const int site = i / Ls, s = i - site * Ls;
    cplx r[Nc][Ns];
    a.apply_rows(x, site, s, Ls, r);
    if (with_y) {
      cplx t[Nc][Ns];
      b.apply_rows(y, site, s, Ls, t);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) r[c][sp] += t[c][sp];
    }
    out.store(i, r);
  }
};

/// The domain-wall field's walls: to_5d (a 4D spinor q into a block) writes P+ q into row `plus`,
/// P- q into row `minus` and zeros elsewhere; otherwise q = P+ x(plus) + P- x(minus) (the 4D quark
/// field of a solution: plus = Ls - 1, minus = 0; the midpoint field: Ls/2 - 1 and Ls/2).
template <class Acc4, class Acc5, bool to_5d> struct WallRowsFunctor {
  using cplx = typename Acc4::cplx; ///< The site vector.
  Acc4 four; ///< The 4D spinor.
  Acc5 five; ///< The block.
  int Ls; ///< Rows per site.
  int plus; ///< The row of P+.
  int minus; ///< The row of P-.
  /// One 4D site.
  KOKKOS_FUNCTION void operator()(int site) const {
    cplx v[Nc][Ns];
    if constexpr (to_5d) {
      four.load(site, v);
      for (int s = 0; s < Ls; ++s) {
        cplx w[Nc][Ns];
        for (int c = 0; c < Nc; ++c)
          for (int sp = 0; sp < Ns; ++sp)
            w[c][sp] = (sp < 2 ? s == plus : s == minus) ? v[c][sp] : complex_zero<cplx>();
        five.store(site * Ls + s, w);
      }
    } else {
      cplx p[Nc][Ns], m[Nc][Ns];
      five.load(site * Ls + plus, p);
      five.load(site * Ls + minus, m);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) v[c][sp] = sp < 2 ? p[c][sp] : m[c][sp];
      four.store(site, v);
    }
  }
};

} // namespace kqcd
