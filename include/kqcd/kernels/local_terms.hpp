// Site-local terms of Wilson-type operators as device policies for the one hopping kernel
// (kernels/dslash_wilson.hpp, epilogues LocalXpay / LocalAfter). Each policy is a small copyable
// struct bound to the views of one parity with
//   apply(site, const cplx in[Nc][Ns], cplx out[Nc][Ns])      out = A(site) in
// where A is the site-local matrix (or its inverse). conventions.md: A = 4 + m, plus the clover
// term c_sw (i/4) sum sigma F, plus i mu g5 for twisted mass.
//
// Clover storage: in the DeGrand-Rossi basis g5 = diag(1, 1, -1, -1) and sigma_{mu nu} does not mix
// spins {0, 1} with {2, 3}, so A is two Hermitian 6x6 blocks per site (block b = spins 2b, 2b + 1;
// in-block index (s & 1) * 3 + colour). A block is packed in 36 reals: the 6 real diagonal entries,
// then the 15 complex entries below the diagonal, row by row ((1,0), (2,0), (2,1), (3,0), ...).
#pragma once

#include <kqcd/core/complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/static_for.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

namespace clover_pack {
inline constexpr int block_size = 6;
inline constexpr int reals_per_block = 36;
/// Offset of the real part of entry (i, j), i > j, of a packed block.
KOKKOS_FORCEINLINE_FUNCTION constexpr int offdiag(int i, int j) { return 6 + 2 * (i * (i - 1) / 2 + j); }
} // namespace clover_pack

namespace detail {
template <class Real> using lcplx = Kokkos::complex<Real>;

/// f(std::integral_constant<int, b>) for the chiral blocks b = 0, 1: a compile-time block index
/// keeps the per-block arrays in registers on GPUs (a run-time loop put them in local memory).
template <class F> KOKKOS_FORCEINLINE_FUNCTION void for_each_chiral_block(F&& f) {
  f(std::integral_constant<int, 0>{});
  f(std::integral_constant<int, 1>{});
}

/// v = the 6 components of chiral block b of a spinor in[Nc][Ns].
template <class Real> KOKKOS_FORCEINLINE_FUNCTION void gather_block(const lcplx<Real> in[Nc][Ns], int b, lcplx<Real> v[6]) {
  for (int sl = 0; sl < 2; ++sl)
    for (int c = 0; c < Nc; ++c) v[sl * 3 + c] = in[c][2 * b + sl];
}
template <class Real> KOKKOS_FORCEINLINE_FUNCTION void scatter_block(const lcplx<Real> v[6], int b, lcplx<Real> out[Nc][Ns]) {
  for (int sl = 0; sl < 2; ++sl)
    for (int c = 0; c < Nc; ++c) out[c][2 * b + sl] = v[sl * 3 + c];
}

/// r = M v for the packed Hermitian block (site, b) of c ([site][2][36] reals).
template <class Real, class View>
KOKKOS_FORCEINLINE_FUNCTION void hermitian6_mv(const View& c, int site, int b, const lcplx<Real> v[6], lcplx<Real> r[6]) {
  for (int i = 0; i < 6; ++i) {
    const Real d = c(site, b, i);
    r[i] = lcplx<Real>(d * v[i].real(), d * v[i].imag());
  }
  for (int i = 1; i < 6; ++i)
    for (int j = 0; j < i; ++j) {
      const int k = clover_pack::offdiag(i, j);
      const lcplx<Real> m(c(site, b, k), c(site, b, k + 1));
      r[i] = cmadd(m, v[j], r[i]);  // M_ij v_j
      r[j] = cjmadd(m, v[i], r[j]); // M_ji = conj(M_ij)
    }
}

/// Square-root-free Cholesky (L D L^dag, L unit lower) of a Hermitian 6x6 matrix given by its
/// diagonal d[6] and lower triangle l[15] (packed order); overwritten by D^-1 and L. Every index is
/// a compile-time constant (static_for), so d, l and D stay in registers on GPUs.
template <class T> KOKKOS_FORCEINLINE_FUNCTION void ldl6(T d[6], Kokkos::complex<T> l[15]) {
  constexpr auto at = [](int i, int j) { return i * (i - 1) / 2 + j; };
  T D[6];
  static_for<0, 6>([&](auto jc) {
    constexpr int j = decltype(jc)::value;
    T dj = d[j];
    static_for<0, j>([&](auto kc) {
      constexpr int k = decltype(kc)::value;
      const auto& ljk = l[at(j, k)];
      dj -= (ljk.real() * ljk.real() + ljk.imag() * ljk.imag()) * D[k];
    });
    const T inv = T(1) / dj;
    D[j] = dj;
    d[j] = inv;
    static_for<j + 1, 6>([&](auto ic) {
      constexpr int i = decltype(ic)::value;
      Kokkos::complex<T> s = l[at(i, j)];
      static_for<0, j>([&](auto kc) {
        constexpr int k = decltype(kc)::value;
        const auto t = cjmul(l[at(j, k)], l[at(i, k)]); // L_ik conj(L_jk)
        s -= Kokkos::complex<T>(t.real() * D[k], t.imag() * D[k]);
      });
      l[at(i, j)] = Kokkos::complex<T>(s.real() * inv, s.imag() * inv);
    });
  });
}
/// Solve (L D L^dag) x = v in place with the factors of ldl6.
template <class T> KOKKOS_FORCEINLINE_FUNCTION void ldl6_solve(const T dinv[6], const Kokkos::complex<T> l[15], Kokkos::complex<T> v[6]) {
  constexpr auto at = [](int i, int j) { return i * (i - 1) / 2 + j; };
  static_for<1, 6>([&](auto ic) {
    constexpr int i = decltype(ic)::value;
    static_for<0, i>([&](auto kc) { v[i] -= cmul(l[at(i, decltype(kc)::value)], v[decltype(kc)::value]); });
  });
  for (int i = 0; i < 6; ++i) v[i] = Kokkos::complex<T>(v[i].real() * dinv[i], v[i].imag() * dinv[i]);
  static_for<0, 5>([&](auto rc) {
    constexpr int i = 4 - decltype(rc)::value;
    static_for<i + 1, 6>([&](auto kc) { v[i] -= cjmul(l[at(decltype(kc)::value, i)], v[decltype(kc)::value]); });
  });
}
} // namespace detail

/// A = a (the Wilson mass term 4 + m and its inverse).
template <class Real> struct ScalarLocal {
  using cplx = Kokkos::complex<Real>;
  Real a;
  KOKKOS_FORCEINLINE_FUNCTION void apply(int, const cplx in[Nc][Ns], cplx out[Nc][Ns]) const {
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) out[c][s] = cplx(a * in[c][s].real(), a * in[c][s].imag());
  }
};

/// A = a + i mu g5 (twisted mass; its inverse is of the same form).
template <class Real> struct TwistLocal {
  using cplx = Kokkos::complex<Real>;
  Real a, mu;
  KOKKOS_FORCEINLINE_FUNCTION void apply(int, const cplx in[Nc][Ns], cplx out[Nc][Ns]) const {
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) {
        const Real m = s < 2 ? mu : -mu;
        out[c][s] = cmul(cplx(a, m), in[c][s]);
      }
  }
};

/// A = the stored packed Hermitian blocks (clover term, or its stored inverse).
template <class Real, class View> struct PackedHermitianLocal {
  using cplx = Kokkos::complex<Real>;
  View c;
  KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const cplx in[Nc][Ns], cplx out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      cplx v[6], r[6];
      detail::gather_block(in, b, v);
      detail::hermitian6_mv<Real>(c, site, b, v, r);
      detail::scatter_block(r, b, out);
    });
  }
};

/// A = C + i mu g5 (twisted clover), C the stored clover blocks.
template <class Real, class View> struct TwistedPackedLocal {
  using cplx = Kokkos::complex<Real>;
  View c;
  Real mu;
  KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const cplx in[Nc][Ns], cplx out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      const Real m = b == 0 ? mu : -mu;
      cplx v[6], r[6];
      detail::gather_block(in, b, v);
      detail::hermitian6_mv<Real>(c, site, b, v, r);
      for (int i = 0; i < 6; ++i) r[i] += cplx(-m * v[i].imag(), m * v[i].real());
      detail::scatter_block(r, b, out);
    });
  }
};

/// (C + i mu g5)^-1 = X - i mu g5 B with the stored Hermitian X = B C and W = mu B,
/// B = (C^2 + mu^2)^-1 (twisted clover inverse); sign = +1, or -1 for mu -> -mu (D^dag). The two
/// matrix-vector products are independent, so the kernel reads both in one pass.
template <class Real, class View> struct TwistedPackedInverseLocal {
  using cplx = Kokkos::complex<Real>;
  View x, w;
  Real sign;
  KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const cplx in[Nc][Ns], cplx out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      const Real m = b == 0 ? sign : -sign;
      cplx v[6], r[6], t[6];
      detail::gather_block(in, b, v);
      detail::hermitian6_mv<Real>(x, site, b, v, r);
      detail::hermitian6_mv<Real>(w, site, b, v, t);
      for (int i = 0; i < 6; ++i) r[i] += cplx(m * t[i].imag(), -m * t[i].real()); // - i m W v
      detail::scatter_block(r, b, out);
    });
  }
};

/// C^-1 applied by an in-kernel L D L^dag (Cholesky) solve of each stored clover block: no stored inverse.
template <class Real, class View> struct CholeskyInverseLocal {
  using cplx = Kokkos::complex<Real>;
  View c;
  KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const cplx in[Nc][Ns], cplx out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      Real d[6];
      cplx l[15];
      for (int i = 0; i < 6; ++i) d[i] = c(site, b, i);
      for (int k = 0; k < 15; ++k) l[k] = cplx(c(site, b, 6 + 2 * k), c(site, b, 7 + 2 * k));
      detail::ldl6(d, l);
      cplx v[6];
      detail::gather_block(in, b, v);
      detail::ldl6_solve(d, l, v);
      detail::scatter_block(v, b, out);
    });
  }
};

/// out = Local(in) on every site of one parity (no hopping term).
template <class SpinorView, class ConstView, class Local> struct SiteLocalFunctor {
  SpinorView out;
  ConstView in;
  Local local;
  KOKKOS_FUNCTION void operator()(int site) const {
    using cplx = typename SpinorView::non_const_value_type;
    cplx v[Nc][Ns], r[Nc][Ns];
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) v[c][s] = in(site, c, s);
    local.apply(site, v, r);
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) out(site, c, s) = r[c][s];
  }
};

} // namespace kqcd
