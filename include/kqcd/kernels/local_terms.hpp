// Site-local terms of Wilson-type operators as device policies for the one hopping kernel
// (kernels/dslash_wilson.hpp, epilogues LocalXpay / LocalAfter). Each policy is a small copyable
// struct bound to the views of one parity with
//   apply(site, const cplx in[Nc][Ns], cplx out[Nc][Ns])      out = A(site) in
// where A is the site-local matrix (or its inverse). conventions.md: A = 4 + m, plus the clover
// term c_sw (i/4) sum sigma F, plus i mu g5 for twisted mass.
//
// Clover storage (fields/clover_field.hpp): in the DeGrand-Rossi basis g5 = diag(1, 1, -1, -1) and sigma_{mu nu} does not mix
// spins {0, 1} with {2, 3}, so A is two Hermitian 6x6 blocks per site (block b = spins 2b, 2b + 1;
// in-block index (s & 1) * 3 + colour). A block is packed in 36 reals: the 6 real diagonal entries,
// then the 15 complex entries below the diagonal, row by row ((1,0), (2,0), (2,1), (3,0), ...).
#pragma once

#include <kqcd/arch/simd_complex.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/static_for.hpp>
#include <kqcd/fields/clover_field.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

namespace detail {
template <class Real> using lcplx = Kokkos::complex<Real>;

/// f(std::integral_constant<int, b>) for the chiral blocks b = 0, 1: a compile-time block index
/// keeps the per-block arrays in registers on GPUs (a run-time loop put them in local memory).
template <class F> KOKKOS_FORCEINLINE_FUNCTION void for_each_chiral_block(F&& f) {
  f(std::integral_constant<int, 0>{});
  f(std::integral_constant<int, 1>{});
}

/// v = the 6 components of chiral block b of a spinor in[Nc][Ns] (C: one complex number or a
/// register of SIMD lanes).
template <class C> KOKKOS_FORCEINLINE_FUNCTION void gather_block(const C in[Nc][Ns], int b, C v[6]) {
  for (int sl = 0; sl < 2; ++sl)
    for (int c = 0; c < Nc; ++c) v[sl * 3 + c] = in[c][2 * b + sl];
}
template <class C> KOKKOS_FORCEINLINE_FUNCTION void scatter_block(const C v[6], int b, C out[Nc][Ns]) {
  for (int sl = 0; sl < 2; ++sl)
    for (int c = 0; c < Nc; ++c) out[c][2 * b + sl] = v[sl * 3 + c];
}

/// r + i m v (m real).
template <class T> KOKKOS_FORCEINLINE_FUNCTION lcplx<T> plus_i_times(const lcplx<T>& r, T m, const lcplx<T>& v) {
  return lcplx<T>(r.real() - m * v.imag(), r.imag() + m * v.real());
}
template <class T, int N, class ISA>
KOKKOS_FORCEINLINE_FUNCTION SIMDComplex<T, N, ISA> plus_i_times(const SIMDComplex<T, N, ISA>& r, T m, const SIMDComplex<T, N, ISA>& v) {
  return SIMDComplex<T, N, ISA>::plus_i(r, m * v);
}

/// Packed Hermitian blocks read from a plain [site][2][36] view of reals.
template <class View> struct PackedBlocks {
  const View& c;
  KOKKOS_FORCEINLINE_FUNCTION auto diag(int site, int b, int i) const { return c(site, b, i); }
  /// Diagonal entry i of block (site, b) times v.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C diag_mul(int site, int b, int i, const C& v) const {
    const auto d = c(site, b, i);
    return C(d * v.real(), d * v.imag());
  }
  /// Entry (i, j), i > j.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C offdiag(int site, int b, int i, int j) const {
    const int k = clover_pack::offdiag(i, j);
    return C(c(site, b, k), c(site, b, k + 1));
  }
};
/// Packed Hermitian blocks in 16 bits (HalfHermitianBlocks): each entry scaled by its block's unit
/// as read; a block product instead multiplies the stored integers and scales its results once
/// (unscaled(), block_unit()).
template <class View, class UnitView, bool scaled = true> struct HalfPackedBlocks {
  static constexpr bool block_accessor = true;
  View c;
  UnitView u;
  KOKKOS_FORCEINLINE_FUNCTION float block_unit(int site, int b) const { return u(site, b); }
  KOKKOS_FORCEINLINE_FUNCTION float entry(int site, int b, int k) const {
    if constexpr (scaled) return float(c(site, b, k)) * u(site, b);
    else return float(c(site, b, k));
  }
  KOKKOS_FORCEINLINE_FUNCTION HalfPackedBlocks<View, UnitView, false> unscaled() const
    requires scaled
  {
    return {c, u};
  }
  KOKKOS_FORCEINLINE_FUNCTION float diag(int site, int b, int i) const { return entry(site, b, i); }
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C diag_mul(int site, int b, int i, const C& v) const {
    const float d = entry(site, b, i);
    return C(d * v.real(), d * v.imag());
  }
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C offdiag(int site, int b, int i, int j) const {
    const int k = clover_pack::offdiag(i, j);
    return C(entry(site, b, k), entry(site, b, k + 1));
  }
};
} // namespace detail
/// The site-local policies' accessor of HalfHermitianBlocks.
template <class ES> auto block_reader(const HalfHermitianBlocks<ES>& b) {
  using Blocks = HalfHermitianBlocks<ES>;
  return detail::HalfPackedBlocks<ReadOnlyView<typename Blocks::view_type>, ReadOnlyView<typename Blocks::unit_type>>{b.view(), b.unit()};
}
namespace detail {
/// Packed Hermitian blocks of a plain [site][2][36] view, each entry broadcast to every lane of V:
/// the blocks of a site whose lanes hold right-hand sides (SIMDBlockSpinor).
template <class V, class View> struct BroadcastBlocks {
  using real = typename V::real_type;
  static constexpr bool block_accessor = true;
  View c;
  /// Diagonal entry i in both halves of each lane (a real scale for V::scale_lanes).
  KOKKOS_FORCEINLINE_FUNCTION V diag(int site, int b, int i) const {
    const real d = real(c(site, b, i));
    return V::broadcast(d, d);
  }
  KOKKOS_FORCEINLINE_FUNCTION V diag_mul(int site, int b, int i, const V& v) const { return real(c(site, b, i)) * v; }
  template <class C = V> KOKKOS_FORCEINLINE_FUNCTION V offdiag(int site, int b, int i, int j) const {
    const int k = clover_pack::offdiag(i, j);
    return V::broadcast(real(c(site, b, k)), real(c(site, b, k + 1)));
  }
};
/// Accessors of packed blocks in another storage (the SIMD layout's lanes) declare block_accessor.
template <class B> constexpr bool block_accessor = requires { requires std::remove_cvref_t<B>::block_accessor; };
template <class B> KOKKOS_FORCEINLINE_FUNCTION auto packed_blocks(const B& c) {
  if constexpr (block_accessor<B>) return c;
  else return PackedBlocks<B>{c};
}

/// r = M v for the packed Hermitian block (site, b) of c (a [site][2][36] view or a block accessor).
/// Blocks stored in fixed point with a unit per block (accessors with unscaled()) multiply the
/// stored integers and scale the 6 results once.
template <class Blocks, class C>
KOKKOS_FORCEINLINE_FUNCTION void hermitian6_mv(const Blocks& blocks, int site, int b, const C v[6], C r[6]) {
  const auto c = packed_blocks(blocks);
  if constexpr (requires { c.unscaled(); }) {
    hermitian6_mv(c.unscaled(), site, b, v, r);
    const auto u = c.block_unit(site, b);
    for (int i = 0; i < 6; ++i) r[i] = rscale(u, r[i]);
  } else {
    for (int i = 0; i < 6; ++i) r[i] = c.diag_mul(site, b, i, v[i]);
    for (int i = 1; i < 6; ++i)
      for (int j = 0; j < i; ++j) {
        const C m = c.template offdiag<C>(site, b, i, j);
        r[i] = cmadd(m, v[j], r[i]);  // M_ij v_j
        r[j] = cjmadd(m, v[i], r[j]); // M_ji = conj(M_ij)
      }
  }
}

/// Square-root-free Cholesky (L D L^dag, L unit lower) of a Hermitian 6x6 matrix given by its
/// diagonal d[6] (reals R: rmul) and lower triangle l[15] (packed order); overwritten by D^-1 and
/// L. Every index is a compile-time constant (static_for), so d, l and D stay in registers on GPUs.
template <class R, class C> KOKKOS_FORCEINLINE_FUNCTION void ldl6(R d[6], C l[15]) {
  constexpr auto at = [](int i, int j) { return i * (i - 1) / 2 + j; };
  R D[6] = {}; // each D[k] is set before it is read; the initialiser only tells nvcc so
  static_for<0, 6>([&](auto jc) {
    constexpr int j = decltype(jc)::value;
    R dj = d[j];
    static_for<0, j>([&](auto kc) {
      constexpr int k = decltype(kc)::value;
      dj = dj - rmul(norm_of(l[at(j, k)]), D[k]);
    });
    const R inv = reciprocal(dj);
    D[j] = dj;
    d[j] = inv;
    static_for<j + 1, 6>([&](auto ic) {
      constexpr int i = decltype(ic)::value;
      C s = l[at(i, j)];
      static_for<0, j>([&](auto kc) {
        constexpr int k = decltype(kc)::value;
        s -= rscale(D[k], cjmul(l[at(j, k)], l[at(i, k)])); // L_ik conj(L_jk) D_k
      });
      l[at(i, j)] = rscale(inv, s);
    });
  });
}
/// Solve (L D L^dag) x = v in place with the factors of ldl6.
template <class R, class C> KOKKOS_FORCEINLINE_FUNCTION void ldl6_solve(const R dinv[6], const C l[15], C v[6]) {
  constexpr auto at = [](int i, int j) { return i * (i - 1) / 2 + j; };
  static_for<1, 6>([&](auto ic) {
    constexpr int i = decltype(ic)::value;
    static_for<0, i>([&](auto kc) { v[i] -= cmul(l[at(i, decltype(kc)::value)], v[decltype(kc)::value]); });
  });
  for (int i = 0; i < 6; ++i) v[i] = rscale(dinv[i], v[i]);
  static_for<0, 5>([&](auto rc) {
    constexpr int i = 4 - decltype(rc)::value;
    static_for<i + 1, 6>([&](auto kc) { v[i] -= cjmul(l[at(decltype(kc)::value, i)], v[decltype(kc)::value]); });
  });
}
} // namespace detail

// Each policy's apply is a template on the site vector C (one complex number, or a register of
// SIMD lanes); map_blocks(f) is the same policy with every view of packed blocks replaced by f(view)
// (the SIMD layout's lane copies, stencil/simd_local_operators.hpp).

/// A = a (the Wilson mass term 4 + m and its inverse).
template <class Real> struct ScalarLocal {
  Real a; ///< The factor a.
  /// out = A in at any site.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION void apply(int, const C in[Nc][Ns], C out[Nc][Ns]) const {
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) out[c][s] = a * in[c][s];
  }
  /// The same policy (no blocks to replace).
  template <class F> ScalarLocal map_blocks(const F&) const { return *this; }
};

/// A = a + i mu g5 (twisted mass; its inverse is of the same form).
template <class Real> struct TwistLocal {
  /// The factor a and the twisted mass mu.
  ///@{
  Real a, mu;
  ///@}
  /// out = A in at any site.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION void apply(int, const C in[Nc][Ns], C out[Nc][Ns]) const {
    const Kokkos::complex<Real> up(a, mu), down(a, -mu);
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) out[c][s] = cmul(s < 2 ? up : down, in[c][s]);
  }
  /// The same policy (no blocks to replace).
  template <class F> TwistLocal map_blocks(const F&) const { return *this; }
};

/// A = the stored packed Hermitian blocks (clover term, or its stored inverse).
template <class Real, class View> struct PackedHermitianLocal {
  View c; ///< The packed blocks.
  /// out = A in at site.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const C in[Nc][Ns], C out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      C v[6], r[6];
      detail::gather_block(in, b, v);
      detail::hermitian6_mv(c, site, b, v, r);
      detail::scatter_block(r, b, out);
    });
  }
  /// The same policy reading f(c).
  template <class F> auto map_blocks(const F& f) const { return PackedHermitianLocal<Real, decltype(f(c))>{f(c)}; }
};

/// A = C + i mu g5 (twisted clover), C the stored clover blocks.
template <class Real, class View> struct TwistedPackedLocal {
  View c; ///< The packed clover blocks.
  Real mu; ///< The twisted mass.
  /// out = A in at site.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const C in[Nc][Ns], C out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      const Real m = b == 0 ? mu : -mu;
      C v[6], r[6];
      detail::gather_block(in, b, v);
      detail::hermitian6_mv(c, site, b, v, r);
      for (int i = 0; i < 6; ++i) r[i] = detail::plus_i_times(r[i], m, v[i]);
      detail::scatter_block(r, b, out);
    });
  }
  /// The same policy reading f(c).
  template <class F> auto map_blocks(const F& f) const { return TwistedPackedLocal<Real, decltype(f(c))>{f(c), mu}; }
};

/// (C + i mu g5)^-1 = X - i mu g5 B with the stored Hermitian X = B C and W = mu B,
/// B = (C^2 + mu^2)^-1 (twisted clover inverse); sign = +1, or -1 for mu -> -mu (D^dag). The two
/// matrix-vector products are independent, so the kernel reads both in one pass.
template <class Real, class View> struct TwistedPackedInverseLocal {
  /// The packed blocks of X and W.
  ///@{
  View x, w;
  ///@}
  Real sign; ///< +1, or -1 for mu -> -mu.
  /// out = A^-1 in at site.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const C in[Nc][Ns], C out[Nc][Ns]) const {
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      const Real m = b == 0 ? sign : -sign;
      C v[6], r[6], t[6];
      detail::gather_block(in, b, v);
      detail::hermitian6_mv(x, site, b, v, r);
      detail::hermitian6_mv(w, site, b, v, t);
      for (int i = 0; i < 6; ++i) r[i] = detail::plus_i_times(r[i], -m, t[i]); // - i m W v
      detail::scatter_block(r, b, out);
    });
  }
  /// The same policy reading f(x) and f(w).
  template <class F> auto map_blocks(const F& f) const {
    return TwistedPackedInverseLocal<Real, decltype(f(x))>{f(x), f(w), sign};
  }
};

/// C^-1 applied by an in-kernel L D L^dag (Cholesky) solve of each stored clover block: no stored inverse.
template <class Real, class View> struct CholeskyInverseLocal {
  View c; ///< The packed clover blocks.
  /// out = C^-1 in at site.
  template <class C> KOKKOS_FORCEINLINE_FUNCTION void apply(int site, const C in[Nc][Ns], C out[Nc][Ns]) const {
    const auto blocks = detail::packed_blocks(c);
    using R = std::remove_cvref_t<decltype(blocks.diag(site, 0, 0))>;
    detail::for_each_chiral_block([&](auto block) {
      constexpr int b = decltype(block)::value;
      R d[6];
      C l[15];
      for (int i = 0; i < 6; ++i) d[i] = blocks.diag(site, b, i);
      for (int i = 1; i < 6; ++i)
        for (int j = 0; j < i; ++j) l[i * (i - 1) / 2 + j] = blocks.template offdiag<C>(site, b, i, j);
      detail::ldl6(d, l);
      C v[6];
      detail::gather_block(in, b, v);
      detail::ldl6_solve(d, l, v);
      detail::scatter_block(v, b, out);
    });
  }
  /// The same policy reading f(c).
  template <class F> auto map_blocks(const F& f) const { return CholeskyInverseLocal<Real, decltype(f(c))>{f(c)}; }
};

/// out = Local(in) on every site of one parity (no hopping term), through spinor accessors.
template <class InAcc, class OutAcc, class Local> struct SiteLocalFunctor {
  InAcc in; ///< Reads the source sites.
  OutAcc out; ///< Writes the result.
  Local local; ///< The site-local policy.
  /// out = Local(in) at site.
  KOKKOS_FUNCTION void operator()(int site) const {
    using cplx = typename InAcc::cplx;
    cplx v[Nc][Ns], r[Nc][Ns];
    in.load(site, v);
    local.apply(site, v, r);
    out.store(site, r);
  }
};

} // namespace kqcd
