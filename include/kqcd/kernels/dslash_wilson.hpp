// The Wilson hopping kernel (conventions.md): for each site x of parity target_cb
//   H psi(x) = sum_mu [ (1 - isign g_mu) U_mu(x) psi(x+mu) + (1 + isign g_mu) U_mu^dag(x-mu) psi(x-mu) ]
// isign = +1 is the hopping term of D, isign = -1 that of D^dag = g5 D g5. Each hop projects to a
// half spinor (two spin components), multiplies it by the link and reconstructs the other two
// components from the gamma matrix's structure, all resolved at compile time.
// Functors only: launching, tuning and counting belong to ops/wilson_dslash.hpp.
#pragma once

#include <kqcd/core/complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/lattice.hpp>

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

/// A read-only view of the same data: lets CUDA route loads through the read-only data cache.
template <class V>
using ReadOnlyView = Kokkos::View<typename V::const_data_type, typename V::array_layout, typename V::device_type,
                                  Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

template <class GaugeView, class SpinorView, class SiteTableT, class Epilogue> struct WilsonDslashArg {
  using real_type = typename SpinorView::value_type::value_type;
  ReadOnlyView<GaugeView> gauge[2];  ///< links of the even and odd sites
  ReadOnlyView<SpinorView> in;       ///< source, parity 1 - target_cb
  SpinorView out;      ///< result, parity target_cb
  ReadOnlyView<SpinorView> x;        ///< xpay addend (parity target_cb), unused by StoreHopping
  SiteTableT sites;
  typename Epilogue::template Arg<real_type> epilogue;
  int n_sites;         ///< sites to compute: all of the target parity, or the entries of site_list
  int sites_per_team;
  /// With use_list, the kernel computes sites site_list(0 .. n_sites-1) only: the interior
  /// (no off-rank neighbour) or the exterior of a distributed lattice.
  Kokkos::View<const int*, typename SpinorView::memory_space> site_list;
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
  template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION void hop(int site, cplx acc[Nc][Ns]) const {
    constexpr int sigma = dir > 0 ? -isign : isign;
    constexpr int shift = sigma > 0 ? 0 : 2; // a factor -1 is i^2
    constexpr int p0 = gamma_dr::perm[mu][0], p1 = gamma_dr::perm[mu][1];
    constexpr int p2 = gamma_dr::perm[mu][2], p3 = gamma_dr::perm[mu][3];
    constexpr int k0 = gamma_dr::code[mu][0] + shift, k1 = gamma_dr::code[mu][1] + shift;
    constexpr int k2 = gamma_dr::code[mu][2] + shift, k3 = gamma_dr::code[mu][3] + shift;
    const Neighbour nb = arg.sites.template neighbour<mu, dir>(site, target_cb);

    // Project: h_s = psi_s + sigma g[s][perm(s)] psi_perm(s), s = 0, 1.
    cplx h[Nc][2];
    for (int c = 0; c < Nc; ++c) {
      const cplx u0 = arg.in(nb.index, c, 0), u1 = arg.in(nb.index, c, 1);
      const cplx l0 = arg.in(nb.index, c, p0), l1 = arg.in(nb.index, c, p1);
      h[c][0] = u0 + mul_i_pow<k0>(l0);
      h[c][1] = u1 + mul_i_pow<k1>(l1);
    }
    if (nb.crossed) {
      const Kokkos::complex<double> b = arg.sites.phase[mu];
      const cplx ph(real(b.real()), real(dir > 0 ? b.imag() : -b.imag()));
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < 2; ++s) h[c][s] = cmul(ph, h[c][s]);
    }

    // Multiply by the link.
    cplx chi[Nc][2];
    if constexpr (dir > 0) {
      for (int a = 0; a < Nc; ++a)
        for (int s = 0; s < 2; ++s) {
          cplx t = cmul(cplx(arg.gauge[target_cb](site, mu, a, 0)), h[0][s]);
          t = cmadd(cplx(arg.gauge[target_cb](site, mu, a, 1)), h[1][s], t);
          chi[a][s] = cmadd(cplx(arg.gauge[target_cb](site, mu, a, 2)), h[2][s], t);
        }
    } else {
      for (int a = 0; a < Nc; ++a)
        for (int s = 0; s < 2; ++s) {
          cplx t = cjmul(cplx(arg.gauge[source_cb](nb.index, mu, 0, a)), h[0][s]);
          t = cjmadd(cplx(arg.gauge[source_cb](nb.index, mu, 1, a)), h[1][s], t);
          chi[a][s] = cjmadd(cplx(arg.gauge[source_cb](nb.index, mu, 2, a)), h[2][s], t);
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

  template <int mu> KOKKOS_FORCEINLINE_FUNCTION void hops(int site, cplx acc[Nc][Ns]) const {
    hop<mu, +1>(site, acc);
    hop<mu, -1>(site, acc);
  }

  KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int site) const {
    cplx acc[Nc][Ns];
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) acc[c][s] = czero();
    hops<0>(site, acc);
    hops<1>(site, acc);
    hops<2>(site, acc);
    hops<3>(site, acc);
    if constexpr (std::is_same_v<Epilogue, XpayHopping>) {
      const real a = arg.epilogue.a, b = arg.epilogue.b;
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) {
          const cplx xv = arg.x(site, c, s);
          arg.out(site, c, s) = cplx(a * xv.real() + b * acc[c][s].real(), a * xv.imag() + b * acc[c][s].imag());
        }
    } else if constexpr (detail::is_local_xpay<Epilogue>::value) {
      const real b = arg.epilogue.b;
      cplx xv[Nc][Ns], ax[Nc][Ns];
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) xv[c][s] = arg.x(site, c, s);
      arg.epilogue.local.apply(site, xv, ax);
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s)
          arg.out(site, c, s) = cplx(ax[c][s].real() + b * acc[c][s].real(), ax[c][s].imag() + b * acc[c][s].imag());
    } else if constexpr (detail::is_local_after<Epilogue>::value) {
      const real a = arg.epilogue.a, b = arg.epilogue.b;
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) acc[c][s] = cplx(b * acc[c][s].real(), b * acc[c][s].imag());
      if (a != real(0))
        for (int c = 0; c < Nc; ++c)
          for (int s = 0; s < Ns; ++s) {
            const cplx xv = arg.x(site, c, s);
            acc[c][s] = cplx(acc[c][s].real() + a * xv.real(), acc[c][s].imag() + a * xv.imag());
          }
      cplx r[Nc][Ns];
      arg.epilogue.local.apply(site, acc, r);
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) arg.out(site, c, s) = r[c][s];
    } else {
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) arg.out(site, c, s) = acc[c][s];
    }
  }

  template <class Member> KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int base = team.league_rank() * arg.sites_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, arg.sites_per_team), [&](int i) {
      const int k = base + i;
      if (k < arg.n_sites) site_kernel(arg.use_list ? arg.site_list(k) : k);
    });
  }
};

} // namespace kqcd
