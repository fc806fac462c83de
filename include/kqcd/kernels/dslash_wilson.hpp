// The Wilson hopping kernel H (conventions.md) for D (isign = +1) and D^dag (isign = -1): each hop
// projects to a half spinor, multiplies by the link and reconstructs, resolved at compile time.
// Links come through a gauge accessor and spinors through spinor accessors, so one functor serves
// every compression, precision and layout; blocks of right-hand sides run under the launch shapes the
// autotuner picks from. Functors only: launching, tuning and counting are in stencil/wilson_dslash.hpp.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/scratch.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/core/tune_cache.hpp>
#include <kqcd/fields/spinor_access.hpp>
#include <kqcd/kernels/hop_links.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

/// Epilogue: out = H psi.
struct StoreHopping {
  template <class Real> struct Arg {};
};
/// Epilogue: out = a x + b H psi (the xpay variants).
struct XpayHopping {
  /// Kernel arguments of the epilogue.
  template <class Real> struct Arg {
    /// The coefficients a and b.
    ///@{
    Real a, b;
    ///@}
  };
};

/// Epilogue: out = Local(x) + b H psi, Local a site-local policy (kernels/local_terms.hpp):
/// D psi on one parity with a site-local term A, or the A_ee part of a Schur complement. A term
/// that couples the rows of a site (detail::row_coupling) reads x's rows itself: out must not alias x.
template <class Local> struct LocalXpay {
  /// Kernel arguments of the epilogue.
  template <class Real> struct Arg {
    Local local; ///< The site-local policy.
    Real b; ///< The coefficient b.
  };
};
/// Epilogue: out = Local(a x + b H psi) (x unread when a == 0): A_oo^-1 H_oe psi in a Schur
/// complement, and the odd-site reconstruction A_oo^-1 (b_o + H_oe x_e / 2).
template <class Local> struct LocalAfter {
  static_assert(!requires { requires Local::couples_rows; }, "LocalAfter: a term that couples rows needs the other rows' hops");
  /// Kernel arguments of the epilogue.
  template <class Real> struct Arg {
    Local local; ///< The site-local policy.
    /// The coefficients a and b.
    ///@{
    Real a, b;
    ///@}
  };
};
namespace detail {
template <class E> struct is_local_xpay : std::false_type {};
template <class L> struct is_local_xpay<LocalXpay<L>> : std::true_type {};
template <class E> struct is_local_after : std::false_type {};
template <class L> struct is_local_after<LocalAfter<L>> : std::true_type {};
/// A site-local term that reads the other rows of its site (a block's rows coupled, as the fifth
/// dimension of domain-wall fermions: kernels/fifth_dimension.hpp) through apply_rows(x, site, row,
/// rows, out), instead of apply(site, in, out) on its own row.
template <class L> concept row_coupling = requires { requires L::couples_rows; };
/// Whether epilogue E's term couples rows.
template <class E> struct epilogue_couples_rows : std::false_type {};
template <class L> struct epilogue_couples_rows<LocalXpay<L>> : std::bool_constant<row_coupling<L>> {};
} // namespace detail

/// GaugeAcc: load_scaled(site, mu, U) or a doubled field's hop_link<mu, dir>(site); InAcc / OutAcc: load_projected, load / store.
template <class Real, class GaugeAcc, class InAcc, class OutAcc, class SiteTableT, class Epilogue> struct WilsonDslashArg {
  using real_type = Real; ///< Arithmetic precision.
  /// The site vector the kernel computes in: one complex number, or a SIMD register of lanes.
  using cplx = typename InAcc::cplx;
  using gauge_accessor = GaugeAcc; ///< The gauge accessor type.
  using execution_space = typename SiteTableT::execution_space; ///< The execution space.
  /// Links of the target parity's sites [0] and of the source parity's [1] (load_hop_link).
  GaugeAcc gauge[2];
  InAcc in;          ///< source, parity 1 - parity
  OutAcc out;        ///< result, parity `parity`
  InAcc x;           ///< xpay addend (parity `parity`), unused by StoreHopping
  SiteTableT sites; ///< Neighbours and boundary crossings (a site table policy).
  typename Epilogue::template Arg<real_type> epilogue; ///< The epilogue's arguments.
  int sites_per_team; ///< Sites per team of the team launch.
  int n_rhs;           ///< right-hand sides: spinor storage index site * n_rhs + r
  int parity;          ///< The target parity (a run-time value, as QUDA's arg.parity: one kernel for both).
  /// The sites the kernel computes: every site, or the interior (no off-rank neighbour) or the
  /// exterior of a distributed lattice.
  SweepSites<typename SiteTableT::memory_space> sweep;
};

// hop<mu, dir>() is the unit of work per direction. Off-rank neighbours are ghost-zone indices
// of the same views, so the interior/exterior split of a halo exchange is only the sites a sweep visits.

/// Kernel: the Wilson hopping term on parity arg.parity with epilogue Epilogue.
template <class Arg, int isign, class Epilogue> struct DslashFunctor {
  using real = typename Arg::real_type; ///< Arithmetic precision.
  using cplx = typename Arg::cplx; ///< The site vector (Arg::cplx).
  static constexpr bool inline_site_kernels = ArchTraits<typename Arg::execution_space>::inline_site_kernels; ///< Whether site bodies are inlined into each launch shape (ArchTraits).
  /// SIMD registers multiply each hop colour by colour (one colour's half spinor live at a time: a
  /// whole half spinor of registers beside the accumulators would spill); one-lane complex numbers
  /// load the whole half spinor first and multiply row by row (more loads in flight on a GPU).
  static constexpr bool colour_major = is_simd_complex_v<cplx>;
  /// Links per site: slot 2 mu is U_mu(x) (forward hop), slot 2 mu + 1 U_mu(x - mu) (backward).
  static constexpr int link_slots = 2 * Nd;
  /// Complex numbers per site in the link cache, padded by one so that the sites of a warp start
  /// in different shared-memory banks.
  static constexpr int cache_stride = link_slots * Nc * Nc + 1;
  /// Whether the cached-links launch shape applies: links unpacked per site (not a doubled field's
  /// hop matrices, which the SIMD lanes read at the site itself).
  static constexpr bool caches_links = !detail::doubled_links<typename Arg::gauge_accessor>;
  Arg arg; ///< The kernel arguments.

  /// Links read through the gauge accessor, where the hop needs them.
  struct GaugeLinks {
    const Arg& arg; ///< The kernel arguments.
    /// The matrix of the hop from site (neighbour nb) in direction dir along mu.
    template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION auto load(int site, int nb) const {
      return load_hop_link<mu, dir, real>(arg.gauge, site, nb);
    }
  };
  /// A site's links already unpacked into team scratch.
  struct CachedLinks {
    const cplx* slots; ///< The site's link_slots unpacked matrices.
    /// The matrix of the hop in direction dir along mu, from the cache.
    template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION LoadedLink<real, (dir < 0)> load(int, int) const {
      LoadedLink<real, (dir < 0)> U;
      const cplx* p = slots + (2 * mu + (dir > 0 ? 0 : 1)) * Nc * Nc;
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) U.U[a][b] = p[a * Nc + b];
      U.scale = real(1);
      return U;
    }
  };

  // One hop in direction mu (dir = +1 forward, -1 backward): acc += (1 + sigma g_mu) U psi(x +- mu)
  // with sigma = -isign forward and +isign backward, U = U_mu(x) or U_mu^dag(x - mu), for the NR
  // right-hand sides rhs[0 .. NR-1] of the site, with the link loaded once for all of them.
  // Project: h_s = psi_s + sigma g[s][perm(s)] psi_perm(s), s = 0, 1, times a scale (16-bit sources
  // project their integers and leave the norm to the reconstruction's multiply-adds); apply the
  // boundary crossing (phase, lane exchange: the site table's policy); multiply by the link;
  // reconstruct spins 2, 3 as sigma g[s][perm(s)] chi_perm(s).
  /// acc += the hop in direction dir along mu of the NR right-hand sides rhs of site.
  template <int mu, int dir, int NR, class Links>
  KOKKOS_FORCEINLINE_FUNCTION void hop(int site, const int (&rhs)[NR], const Links& links, cplx acc[NR][Nc][Ns]) const {
    constexpr int sigma = dir > 0 ? -isign : isign;
    constexpr int shift = sigma > 0 ? 0 : 2; // a factor -1 is i^2
    constexpr int p0 = gamma_dr::perm[mu][0], p1 = gamma_dr::perm[mu][1];
    constexpr int p2 = gamma_dr::perm[mu][2], p3 = gamma_dr::perm[mu][3];
    constexpr int k0 = gamma_dr::code[mu][0] + shift, k1 = gamma_dr::code[mu][1] + shift;
    constexpr int k2 = gamma_dr::code[mu][2] + shift, k3 = gamma_dr::code[mu][3] + shift;
    using Proj = SpinProjection<p0, p1, k0, k1>;
    const Neighbour nb = arg.sites.template neighbour<mu, dir>(site, arg.parity);

    if constexpr (colour_major) {
      const auto U = links.template load<mu, dir>(site, nb.index);
      for (int r = 0; r < NR; ++r) {
        const int idx = nb.index * arg.n_rhs + rhs[r];
        cplx chi[Nc][2];
        real scale = real(1);
        for (int c = 0; c < Nc; ++c) {
          cplx h[2];
          scale = arg.in.template load_projected<Proj>(idx, c, h);
          if (nb.crossed) arg.sites.template cross<mu, dir, real>(h);
          for (int a = 0; a < Nc; ++a)
            for (int s = 0; s < 2; ++s) chi[a][s] = c == 0 ? U.mul(a, c, h[s]) : U.madd(a, c, h[s], chi[a][s]);
        }
        reconstruct<k2, k3, p2, p3, decltype(U)>(acc[r], chi, scale * U.scale);
      }
    } else {
      cplx h[NR][Nc][2];
      real scale[NR];
      for (int r = 0; r < NR; ++r)
        scale[r] = arg.in.template load_projected<Proj>(nb.index * arg.n_rhs + rhs[r], h[r]);
      if (nb.crossed)
        for (int r = 0; r < NR; ++r)
          for (int c = 0; c < Nc; ++c) arg.sites.template cross<mu, dir, real>(h[r][c]);
      const auto U = links.template load<mu, dir>(site, nb.index); // links in units of their scale too
      for (int r = 0; r < NR; ++r) {
        cplx chi[Nc][2];
        for (int a = 0; a < Nc; ++a)
          for (int s = 0; s < 2; ++s) {
            cplx t = U.mul(a, 0, h[r][0][s]);
            t = U.madd(a, 1, h[r][1][s], t);
            chi[a][s] = U.madd(a, 2, h[r][2][s], t);
          }
        reconstruct<k2, k3, p2, p3, decltype(U)>(acc[r], chi, scale[r] * U.scale);
      }
    }
  }

  /// acc += the four spin components of a hop from its multiplied half spinor chi, times sc.
  template <int k2, int k3, int p2, int p3, class Link>
  KOKKOS_FORCEINLINE_FUNCTION static void reconstruct(cplx acc[Nc][Ns], const cplx chi[Nc][2], real sc) {
    if constexpr (detail::unit_scale<Link> && detail::unit_scale<decltype(Arg::in)>) {
      for (int c = 0; c < Nc; ++c) {
        acc[c][0] += chi[c][0];
        acc[c][1] += chi[c][1];
        acc[c][2] = add_i_pow<k2>(acc[c][2], chi[c][p2]);
        acc[c][3] = add_i_pow<k3>(acc[c][3], chi[c][p3]);
      }
    } else {
      for (int c = 0; c < Nc; ++c) {
        acc[c][0] += sc * chi[c][0];
        acc[c][1] += sc * chi[c][1];
        acc[c][2] += sc * mul_i_pow<k2>(chi[c][p2]);
        acc[c][3] += sc * mul_i_pow<k3>(chi[c][p3]);
      }
    }
  }

  /// acc += the forward and backward hops along mu.
  template <int mu, int NR, class Links>
  KOKKOS_FORCEINLINE_FUNCTION void hops(int site, const int (&rhs)[NR], const Links& links, cplx acc[NR][Nc][Ns]) const {
    hop<mu, +1, NR>(site, rhs, links, acc);
    hop<mu, -1, NR>(site, rhs, links, acc);
  }

  /// Right-hand side rhs of one site; the link loads repeat for each rhs but hit the cache.
  /// Entry k of the sweep, one right-hand side (the autotuner's per-site launches).
  KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int k) const { site_kernel(site_of(k), 0); }
  /// Site of entry k of the sweep.
  KOKKOS_FORCEINLINE_FUNCTION int site_of(int k) const { return arg.sweep(k); }
  /// Right-hand side rhs of one site, the links read through the gauge accessor.
  KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int site, int rhs) const { site_kernel(site, rhs, GaugeLinks{arg}); }
  /// Right-hand side rhs of one site, the links read through links.
  template <class Links> KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int site, int rhs, const Links& links) const {
    site_kernel<1>(site, rhs, links);
  }
  /// Right-hand sides lane, lane + L, ..., lane + (NR - 1) L of one site (L = ceil(n_rhs / NR) lanes),
  /// sharing each link load and its reconstruction. Past the block's end a thread recomputes its last
  /// right-hand side and does not store it.
  template <int NR, class Links> KOKKOS_FORCEINLINE_FUNCTION void site_kernel(int site, int lane, const Links& links) const {
    if constexpr (inline_site_kernels) site_body<NR>(site, lane, links);
    else site_body_shared<NR>(site, lane, links);
  }
  /// The site body out of line: every launch shape of this functor calls this one copy
  /// (ArchTraits::inline_site_kernels).
  template <int NR, class Links> KOKKOS_FUNCTION __attribute__((noinline)) void site_body_shared(int site, int lane, const Links& links) const {
    site_body<NR>(site, lane, links);
  }
  /// The site body: the hops, then the epilogue, of NR right-hand sides of one site.
  template <int NR, class Links> KOKKOS_FORCEINLINE_FUNCTION void site_body(int site, int lane, const Links& links) const {
    const int lanes = (arg.n_rhs + NR - 1) / NR;
    int rhs[NR];
    for (int r = 0; r < NR; ++r) rhs[r] = Kokkos::min(lane + r * lanes, arg.n_rhs - 1);
    cplx acc[NR][Nc][Ns];
    for (int r = 0; r < NR; ++r)
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) acc[r][c][s] = complex_zero<cplx>();
    hops<0, NR>(site, rhs, links, acc);
    hops<1, NR>(site, rhs, links, acc);
    hops<2, NR>(site, rhs, links, acc);
    hops<3, NR>(site, rhs, links, acc);
    // Every addend of the thread before any store to out: out may alias x, so a load of x behind a
    // store cannot be hoisted and waits its own latency. A right-hand side clamped past the block's
    // end loads a valid index.
    cplx xv[NR][Nc][Ns];
    for (int r = 0; r < NR; ++r) load_addend(site * arg.n_rhs + rhs[r], xv[r]);
    for (int r = 0; r < NR; ++r)
      if (r == 0 || lane + r * lanes < arg.n_rhs) epilogue(site, site * arg.n_rhs + rhs[r], acc[r], xv[r]);
  }
  /// Loads the addend x of storage index idx where the epilogue reads one.
  KOKKOS_FORCEINLINE_FUNCTION void load_addend(int idx, cplx xv[Nc][Ns]) const {
    if constexpr (detail::is_local_after<Epilogue>::value) {
      if (arg.epilogue.a != real(0)) arg.x.load(idx, xv);
    } else if constexpr (!std::is_same_v<Epilogue, StoreHopping> && !detail::epilogue_couples_rows<Epilogue>::value) {
      arg.x.load(idx, xv);
    }
  }
  /// Writes the result of storage index idx (site `site`) from the hopping term acc and the addend
  /// xv (load_addend).
  KOKKOS_FORCEINLINE_FUNCTION void epilogue(int site, int idx, cplx acc[Nc][Ns], const cplx xv[Nc][Ns]) const {
    if constexpr (std::is_same_v<Epilogue, XpayHopping>) {
      const real a = arg.epilogue.a, b = arg.epilogue.b;
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) acc[c][s] = caxpby(a, xv[c][s], b, acc[c][s]);
      arg.out.store(idx, acc);
    } else if constexpr (detail::is_local_xpay<Epilogue>::value) {
      const real b = arg.epilogue.b;
      cplx ax[Nc][Ns];
      if constexpr (detail::epilogue_couples_rows<Epilogue>::value) arg.epilogue.local.apply_rows(arg.x, site, idx - site * arg.n_rhs, arg.n_rhs, ax);
      else arg.epilogue.local.apply(site, xv, ax);
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) acc[c][s] = ax[c][s] + b * acc[c][s];
      arg.out.store(idx, acc);
    } else if constexpr (detail::is_local_after<Epilogue>::value) {
      const real a = arg.epilogue.a, b = arg.epilogue.b;
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s) acc[c][s] = b * acc[c][s];
      if (a != real(0)) {
        for (int c = 0; c < Nc; ++c)
          for (int s = 0; s < Ns; ++s) acc[c][s] = acc[c][s] + a * xv[c][s];
      }
      cplx r[Nc][Ns];
      arg.epilogue.local.apply(site, acc, r);
      arg.out.store(idx, r);
    } else {
      arg.out.store(idx, acc);
    }
  }

  /// Team launch: sites_per_team sites per team, the right-hand sides in vector lanes.
  template <class Member> KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int base = team.league_rank() * arg.sites_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, arg.sites_per_team), [&](int i) {
      const int k = base + i;
      if (k >= arg.sweep.count) return;
      const int site = site_of(k);
      // Multi-RHS: one vector lane per right-hand side (consecutive addresses on the GPU).
      if (arg.n_rhs == 1) site_kernel(site, 0);
      else Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, arg.n_rhs), [&](int rhs) { site_kernel(site, rhs); });
    });
  }

  /// Team scratch of the cached-links shape for sites_per_team sites (called on host and device).
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t team_scratch_bytes(int sites_per_team) {
    return SharedMemoryCache<cplx>::bytes(std::size_t(sites_per_team) * cache_stride);
  }
  /// Link slot `slot` of a site, unpacked (slot is a run-time lane index: one branch per slot).
  KOKKOS_FORCEINLINE_FUNCTION void load_slot(int site, int slot, cplx* dst) const {
    cplx U[Nc][Nc];
    const int mu = slot / 2;
    if (slot % 2 == 0) {
      arg.gauge[0].load(site, mu, U);
    } else {
      int nb;
      switch (mu) {
        case 0: nb = arg.sites.template neighbour<0, -1>(site, arg.parity).index; break;
        case 1: nb = arg.sites.template neighbour<1, -1>(site, arg.parity).index; break;
        case 2: nb = arg.sites.template neighbour<2, -1>(site, arg.parity).index; break;
        default: nb = arg.sites.template neighbour<3, -1>(site, arg.parity).index; break;
      }
      arg.gauge[1].load(nb, mu, U);
    }
    for (int a = 0; a < Nc; ++a)
      for (int b = 0; b < Nc; ++b) dst[a * Nc + b] = U[a][b];
  }
  /// Cached links: the lanes of each site unpack its eight links into team scratch once, then every
  /// right-hand side reads them from there.
  template <class Member> KOKKOS_INLINE_FUNCTION void operator()(CachedLinksTag, const Member& team) const {
    const int base = team.league_rank() * arg.sites_per_team;
    const SharedMemoryCache<cplx> cache(detail::team_scratch_base(team, team_scratch_bytes(arg.sites_per_team)), 0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, arg.sites_per_team), [&](int i) {
      const int k = base + i;
      if (k >= arg.sweep.count) return;
      const int site = site_of(k);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, link_slots),
                           [&](int slot) { load_slot(site, slot, cache.data() + i * cache_stride + slot * Nc * Nc); });
    });
    SharedMemoryCache<cplx>::sync(team);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, arg.sites_per_team), [&](int i) {
      const int k = base + i;
      if (k >= arg.sweep.count) return;
      const int site = site_of(k);
      const CachedLinks links{cache.data() + i * cache_stride};
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, arg.n_rhs), [&](int rhs) { site_kernel(site, rhs, links); });
    });
  }
  /// MDRange over (lane, entry of the sweep): CUDA maps the first index to threadIdx.x, so the
  /// right-hand sides of a site sit in consecutive threads, as in the team shape.
  template <int NR> KOKKOS_INLINE_FUNCTION void operator()(SiteRhsTag<NR>, int lane, int k) const {
    site_kernel<NR>(site_of(k), lane, GaugeLinks{arg});
  }
  /// Flat range over entry * n_rhs + right-hand side.
  KOKKOS_INLINE_FUNCTION void operator()(FlatSiteRhsTag, int i) const { site_kernel(site_of(i / arg.n_rhs), i % arg.n_rhs); }
};

} // namespace kqcd
