// The Wilson hopping kernel (conventions.md): for each site x of parity target_cb
//   H psi(x) = sum_mu [ (1 - isign g_mu) U_mu(x) psi(x+mu) + (1 + isign g_mu) U_mu^dag(x-mu) psi(x-mu) ]
// isign = +1 is the hopping term of D, isign = -1 that of D^dag = g5 D g5. Each hop projects to a
// half spinor (two spin components), multiplies it by the link and reconstructs the other two
// components from the gamma matrix's structure, all resolved at compile time.
// Links come through a gauge accessor (fields/packed_gauge.hpp: reconstruct-18/12/8, 16-bit) and
// spinors through spinor accessors (fields/spinor_access.hpp: complex or 16-bit with a norm); the
// kernel computes in Real whatever the storage.
// Functors only: launching, tuning and counting belong to ops/wilson_dslash.hpp.
#pragma once

#include <kqcd/core/complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

/// Epilogue: out = H psi.
struct StoreHopping {
  template <class Real> struct Arg {};
};
/// Epilogue: out = a x + b H psi (the xpay variants).
struct XpayHopping {
  template <class Real> struct Arg {
    Real a, b;
  };
};

/// Epilogue: out = Local(x) + b H psi, Local a site-local policy (kernels/local_terms.hpp):
/// D psi on one parity with a site-local term A, or the A_ee part of a Schur complement.
template <class Local> struct LocalXpay {
  template <class Real> struct Arg {
    Local local;
    Real b;
  };
};
/// Epilogue: out = Local(a x + b H psi) (x unread when a == 0): A_oo^-1 H_oe psi in a Schur
/// complement, and the odd-site reconstruction A_oo^-1 (b_o + H_oe x_e / 2).
template <class Local> struct LocalAfter {
  template <class Real> struct Arg {
    Local local;
    Real a, b;
  };
};
namespace detail {
template <class E> struct is_local_xpay : std::false_type {};
template <class L> struct is_local_xpay<LocalXpay<L>> : std::true_type {};
template <class E> struct is_local_after : std::false_type {};
template <class L> struct is_local_after<LocalAfter<L>> : std::true_type {};
} // namespace detail

/// GaugeAcc: load(site, mu, U[3][3]) of one parity; InAcc / OutAcc: load(site, psi) / store(site, psi).
template <class Real, class GaugeAcc, class InAcc, class OutAcc, class SiteTableT, class Epilogue> struct WilsonDslashArg {
  using real_type = Real;
  GaugeAcc gauge[2]; ///< links of the even and odd sites
  InAcc in;          ///< source, parity 1 - target_cb
  OutAcc out;        ///< result, parity target_cb
  InAcc x;           ///< xpay addend (parity target_cb), unused by StoreHopping
  SiteTableT sites;
  typename Epilogue::template Arg<real_type> epilogue;
  int n_sites;         ///< sites to compute: all of the target parity, or the entries of site_list
  int sites_per_team;
  int n_rhs;           ///< right-hand sides: spinor storage index site * n_rhs + r
  /// With use_list, the kernel computes sites site_list(0 .. n_sites-1) only: the interior
  /// (no off-rank neighbour) or the exterior of a distributed lattice.
  Kokkos::View<const int*, typename SiteTableT::memory_space> site_list;
  bool use_list = false;
};

// hop<mu, dir>() is the unit of work per direction. Off-rank neighbours are ghost-zone indices
// of the same views, so the interior/exterior split of a halo exchange is only a site list.
template <class Arg, int isign, int target_cb, class Epilogue> struct DslashFunctor {
  using real = typename Arg::real_type;
  using cplx = Kokkos::complex<real>;
  static constexpr int source_cb = 1 - target_cb;
  Arg arg;

  KOKKOS_FORCEINLINE_FUNCTION static cplx czero() { return cplx(real(0), real(0)); }

  // One hop in direction mu (dir = +1 forward, -1 backward): acc += (1 + sigma g_mu) U psi(x +- mu)
  // with sigma = -isign forward and +isign backward, U = U_mu(x) or U_mu^dag(x - mu).
  template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION void hop(int site, int rhs, cplx acc[Nc][Ns]) const {
    constexpr int sigma = dir > 0 ? -isign : isign;
    constexpr int shift = sigma > 0 ? 0 : 2; // a factor -1 is i^2
    constexpr int p0 = gamma_dr::perm[mu][0], p1 = gamma_dr::perm[mu][1];
    constexpr int p2 = gamma_dr::perm[mu][2], p3 = gamma_dr::perm[mu][3];
    constexpr int k0 = gamma_dr::code[mu][0] + shift, k1 = gamma_dr::code[mu][1] + shift;
    constexpr int k2 = gamma_dr::code[mu][2] + shift, k3 = gamma_dr::code[mu][3] + shift;
    const Neighbour nb = arg.sites.template neighbour<mu, dir>(site, target_cb);

    // Project: h_s = psi_s + sigma g[s][perm(s)] psi_perm(s), s = 0, 1.
    cplx psi[Nc][Ns];
    arg.in.load(nb.index * arg.n_rhs + rhs, psi);
    cplx h[Nc][2];
    for (int c = 0; c < Nc; ++c) {
      h[c][0] = psi[c][0] + mul_i_pow<k0>(psi[c][p0]);
      h[c][1] = psi[c][1] + mul_i_pow<k1>(psi[c][p1]);
    }
    if (nb.crossed) {
      const Kokkos::complex<double> b = arg.sites.phase[mu];
      const cplx ph(real(b.real()), real(dir > 0 ? b.imag() : -b.imag()));
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < 2; ++s) h[c][s] = cmul(ph, h[c][s]);
    }

    // Multiply by the link.
    cplx U[Nc][Nc];
    cplx chi[Nc][2];
    if constexpr (dir > 0) {
      arg.gauge[target_cb].load(site, mu, U);
      for (int a = 0; a < Nc; ++a)
        for (int s = 0; s < 2; ++s) {
          cplx t = cmul(U[a][0], h[0][s]);
          t = cmadd(U[a][1], h[1][s], t);
          chi[a][s] = cmadd(U[a][2], h[2][s], t);
        }
    } else {
      arg.gauge[source_cb].load(nb.index, mu, U);
      for (int a = 0; a < Nc; ++a)
        for (int s = 0; s < 2; ++s) {
          cplx t = cjmul(U[0][a], h[0][s]);
          t = cjmadd(U[1][a], h[1][s], t);
          chi[a][s] = cjmadd(U[2][a], h[2][s], t);
        }
    }

    // Reconstruct: spins 2, 3 are sigma g[s][perm(s)] chi_perm(s), perm(s) in {0, 1}.
    for (int c = 0; c < Nc; ++c) {
      acc[c][0] += chi[c][0];
      acc[c][1] += chi[c][1];
      acc[c][2] += mul_i_pow<k2>(chi[c][p2]);
      acc[c][3] += mul_i_pow<k3>(chi[c][p3]);
    }
  }

  template <int mu> KOKKOS_FORCEINLINE_FUNCTION void hops(int site, int rhs, cplx acc[Nc][Ns]) const {
    hop<mu, +1>(site, rhs, acc);
    hop<mu, -1>(site, rhs, acc);
  }

  /// Right-hand side rhs of one site; the link loads repeat for each rhs but hit the cache.
  /// Entry k of the sweep, one right-hand side (the autotuner's per-site launches).
  KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int k) const { site_kernel(arg.use_list ? arg.site_list(k) : k, 0); }
  KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int site, int rhs) const {
    cplx acc[Nc][Ns];
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) acc[c][s] = czero();
    hops<0>(site, rhs, acc);
    hops<1>(site, rhs, acc);
    hops<2>(site, rhs, acc);
    hops<3>(site, rhs, acc);
    const int idx = site * arg.n_rhs + rhs;
    if constexpr (std::is_same_v<Epilogue, XpayHopping>) {
      // All loads of x before any store to out: out may alias x, so interleaving them would
      // serialise the loads behind the stores (measured 1.5x slower on an H200).
      const real a = arg.epilogue.a, b = arg.epilogue.b;
      cplx xv[Nc][Ns];
      arg.x.load(idx, xv);
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s)
          acc[c][s] = cplx(a * xv[c][s].real() + b * acc[c][s].real(), a * xv[c][s].imag() + b * acc[c][s].imag());
      arg.out.store(idx, acc);
    } else if constexpr (detail::is_local_xpay<Epilogue>::value) {
      const real b = arg.epilogue.b;
      cplx xv[Nc][Ns], ax[Nc][Ns];
      arg.x.load(idx, xv);
      arg.epilogue.local.apply(site, xv, ax);
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s)
          acc[c][s] = cplx(ax[c][s].real() + b * acc[c][s].real(), ax[c][s].imag() + b * acc[c][s].imag());
      arg.out.store(idx, acc);
    } else if constexpr (detail::is_local_after<Epilogue>::value) {
      const real a = arg.epilogue.a, b = arg.epilogue.b;
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) acc[c][s] = cplx(b * acc[c][s].real(), b * acc[c][s].imag());
      if (a != real(0)) {
        cplx xv[Nc][Ns];
        arg.x.load(idx, xv);
        for (int c = 0; c < Nc; ++c)
          for (int s = 0; s < Ns; ++s)
            acc[c][s] = cplx(acc[c][s].real() + a * xv[c][s].real(), acc[c][s].imag() + a * xv[c][s].imag());
      }
      cplx r[Nc][Ns];
      arg.epilogue.local.apply(site, acc, r);
      arg.out.store(idx, r);
    } else {
      arg.out.store(idx, acc);
    }
  }

  template <class Member> KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int base = team.league_rank() * arg.sites_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, arg.sites_per_team), [&](int i) {
      const int k = base + i;
      if (k >= arg.n_sites) return;
      const int site = arg.use_list ? arg.site_list(k) : k;
      // Multi-RHS: one vector lane per right-hand side (consecutive addresses on the GPU).
      if (arg.n_rhs == 1) site_kernel(site, 0);
      else Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, arg.n_rhs), [&](int rhs) { site_kernel(site, rhs); });
    });
  }
};

} // namespace kqcd
