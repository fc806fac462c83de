// Construction of the site-local clover matrix (conventions.md, Luescher's convention):
//   A(x) = diag + c_sw (i/4) sum_{mu,nu} sigma_{mu nu} F_{mu nu}(x)
//        = diag + c_sw (i/2) sum_{mu<nu} sigma_{mu nu} F_{mu nu}(x),
//   F_{mu nu} = (1/8) [Q_{mu nu} - Q_{nu mu}], sigma_{mu nu} = (i/2)[g_mu, g_nu] = i g_mu g_nu (mu != nu),
// with Q from clover_leaves (kernels/field_strength.hpp), packed as two Hermitian 6x6 chiral blocks
// (kernels/local_terms.hpp). Optionally the inverse of each block, or for twisted clover the two
// Hermitian parts X = B A and W = mu B of (A + i mu)^-1 = X - i W, B = (A^2 + mu^2)^-1 (A and B
// commute), in the same packed format: the kernel then applies the inverse in one pass over X and
// W. All arithmetic is in double. The 6x6 block inverse is a policy: kqcd's own L D L^dag
// (LDLBlockInverse, below) or Kokkos Kernels' batched LU (kernels/clover_inverse_kokkos_kernels.hpp).
#pragma once

#include <kqcd/kernels/field_strength.hpp>
#include <kqcd/kernels/local_terms.hpp>

namespace kqcd {

namespace detail {
using cd = Kokkos::complex<double>;
KOKKOS_INLINE_FUNCTION cd i_pow(int k) {
  switch (((k % 4) + 4) % 4) {
  case 0: return cd(1, 0);
  case 1: return cd(0, 1);
  case 2: return cd(-1, 0);
  default: return cd(0, -1);
  }
}
/// Inverse of a Hermitian non-singular 6x6 matrix m (full storage) through L D L^dag.
KOKKOS_INLINE_FUNCTION void hermitian6_inverse(const cd m[6][6], cd inv[6][6]) {
  double d[6];
  cd l[15];
  for (int i = 0; i < 6; ++i) d[i] = m[i][i].real();
  for (int i = 1; i < 6; ++i)
    for (int j = 0; j < i; ++j) l[i * (i - 1) / 2 + j] = m[i][j];
  ldl6(d, l);
  for (int j = 0; j < 6; ++j) {
    cd v[6];
    for (int i = 0; i < 6; ++i) v[i] = cd(i == j ? 1.0 : 0.0, 0.0);
    ldl6_solve(d, l, v);
    for (int i = 0; i < 6; ++i) inv[i][j] = v[i];
  }
}
} // namespace detail

/// Block inverse by kqcd's own L D L^dag factorisation (Hermitian blocks, no pivoting).
struct LDLBlockInverse {
  static constexpr const char* name = "LDL"; ///< The inverter's name (benchmarks, messages).
  /// inv = m^-1 of a Hermitian 6x6 block.
  KOKKOS_INLINE_FUNCTION static void invert(const detail::cd m[6][6], detail::cd inv[6][6]) {
    detail::hermitian6_inverse(m, inv);
  }
};

namespace detail {
template <class View> KOKKOS_INLINE_FUNCTION void store_packed(const View& v, int site, int b, const cd m[6][6]) {
  using R = typename View::non_const_value_type;
  for (int i = 0; i < 6; ++i) v(site, b, i) = R(m[i][i].real());
  for (int i = 1; i < 6; ++i)
    for (int j = 0; j < i; ++j) {
      const int k = clover_pack::offdiag(i, j);
      v(site, b, k) = R(m[i][j].real());
      v(site, b, k + 1) = R(m[i][j].imag());
    }
}
} // namespace detail

/// inverse_kind: 0 no inverse, 1 A^-1 in inv, 2 X = B A in inv and W = mu B in twist, B = (A^2 + mu^2)^-1.
template <class GaugeView, class CloverView, class BlockInverse = LDLBlockInverse> struct CloverBuildFunctor {
  LinkReader<GaugeView> u; ///< The links.
  /// A, and the inverse parts (inv, twist) written per inverse_kind.
  ///@{
  CloverView a, inv, twist;
  ///@}
  int parity; ///< Parity of the sites.
  /// The diagonal (4 + m), c_sw and the twisted mass.
  ///@{
  double diag, csw, twisted_mu; // not `mu`: loops below use mu for directions
  ///@}
  int inverse_kind; ///< What is stored besides A (see above).

  /// Builds the blocks of site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    using detail::cd;
    const Coords x = u.lat.cb_coords(s, parity);
    cd m[2][6][6];
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) m[b][i][j] = cd(i == j ? diag : 0.0, 0.0);
    for (int mu = 0; mu < Nd; ++mu)
      for (int nu = mu + 1; nu < Nd; ++nu) {
        const SU3<double> f = 0.125 * (clover_leaves(u, x, mu, nu) - clover_leaves(u, x, nu, mu));
        // (i/2) c_sw sigma_{mu nu} = (c_sw/2) i^2 g_mu g_nu: row s has i^(2 + code_mu(s) + code_nu(r)) in
        // column t = perm_nu(r), r = perm_mu(s); t is in the chiral block of s.
        for (int sp = 0; sp < Ns; ++sp) {
          const int r = gamma_dr::perm_at(mu, sp), t = gamma_dr::perm_at(nu, r);
          const cd ph = (0.5 * csw) * detail::i_pow(2 + gamma_dr::code_at(mu, sp) + gamma_dr::code_at(nu, r));
          const int b = sp / 2, i0 = (sp & 1) * 3, j0 = (t & 1) * 3;
          for (int ca = 0; ca < Nc; ++ca)
            for (int cb = 0; cb < Nc; ++cb) m[b][i0 + ca][j0 + cb] += ph * f.m[ca][cb];
        }
      }
    for (int b = 0; b < 2; ++b) {
      detail::store_packed(a, s, b, m[b]);
      if (inverse_kind == 0) continue;
      cd w[6][6], winv[6][6];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
          if (inverse_kind == 1) {
            w[i][j] = m[b][i][j];
          } else {
            cd acc(i == j ? twisted_mu * twisted_mu : 0.0, 0.0);
            for (int k = 0; k < 6; ++k) acc += m[b][i][k] * m[b][k][j];
            w[i][j] = acc;
          }
        }
      BlockInverse::invert(w, winv);
      if (inverse_kind == 1) {
        detail::store_packed(inv, s, b, winv);
        continue;
      }
      cd x[6][6];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
          cd acc(0.0, 0.0);
          for (int k = 0; k < 6; ++k) acc += winv[i][k] * m[b][k][j];
          x[i][j] = acc;
          w[i][j] = twisted_mu * winv[i][j];
        }
      detail::store_packed(inv, s, b, x);
      detail::store_packed(twist, s, b, w);
    }
  }
};

} // namespace kqcd
