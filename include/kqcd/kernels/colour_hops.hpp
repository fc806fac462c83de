// Stencils whose hops multiply every spin component of a site by a link, with no spin structure:
// the staggered operator (one colour vector per site, MILC's phases eta; one-site hops on the fat
// links V, three-site Naik hops on the long links W), the covariant Laplacian and the covariant
// derivative (colour vectors or four-spinors). One functor serves them all (conventions.md):
//   out(x) = a x(x) + b sum_{hops h} s_h(x) U_h(x) in(x + h),
// a hop h = (mu, +-1 or +-3) taking U_mu(x) forward and U_mu^dag(x - h) backward, s_h the sign
// policy's (+1, or eta_mu(x) forward and -eta_mu(x) backward for staggered fermions), and a run-time
// mask choosing the hops (all of them, the spatial ones, one). A hop across the boundary picks up
// b_mu forward and conj(b_mu) backward (the site table's). The site vector is a complex number or a
// register of SIMD lanes (the accessors'); links come unpacked or as a doubled field's hop matrices
// (kernels/hop_links.hpp). Launching is stencil/stencil_launch.hpp's.
#pragma once

#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/kernels/hop_links.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd {

/// Bit of hop (mu, dir) in a hop mask: one-site hops in bits 0..7, three-site hops in 8..15.
KOKKOS_INLINE_FUNCTION constexpr unsigned hop_bit(int mu, int dir) {
  return 1u << ((dir == 1 || dir == -1 ? 0 : 2 * Nd) + 2 * mu + (dir > 0 ? 0 : 1));
}
/// Masks of the common hop sets.
namespace hops {
inline constexpr unsigned one_site = 0xffu;    ///< the eight one-site hops
inline constexpr unsigned three_site = 0xff00u; ///< the eight three-site (Naik) hops
inline constexpr unsigned spatial = 0x3fu;     ///< the one-site hops along x, y, z
} // namespace hops

/// Signs of the hops: +1 (Laplacian, covariant derivative).
struct UnitSigns {
  static constexpr bool needs_coords = false; ///< Whether the signs depend on the site.
  /// The sign of hop (mu, dir) from site c.
  template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION static int sign(const Coords&) { return 1; }
};
/// The staggered phases as MILC sets them (conventions.md): eta_t = 1, eta_x = (-1)^t,
/// eta_y = (-1)^(t+x), eta_z = (-1)^(t+x+y); a backward hop takes -eta_mu(x) (D is anti-Hermitian).
struct StaggeredSigns {
  static constexpr bool needs_coords = true; ///< Whether the signs depend on the site.
  /// eta_mu(c).
  template <int mu> KOKKOS_FORCEINLINE_FUNCTION static int eta(const Coords& c) {
    if constexpr (mu == 3) return 1;
    else {
      const int t = c.x[3] + (mu >= 1 ? c.x[0] : 0) + (mu >= 2 ? c.x[1] : 0);
      return (t & 1) ? -1 : 1;
    }
  }
  /// The sign of hop (mu, dir) from site c.
  template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION static int sign(const Coords& c) {
    return dir > 0 ? eta<mu>(c) : -eta<mu>(c);
  }
};

/// The arguments of a colour-hop stencil on one parity (FarAcc: the long links' accessor, whose
/// storage may differ from the links').
template <class Real, class GaugeAcc, class FarAcc, class InAcc, class OutAcc, class SiteTableT> struct ColourHopArg {
  using real_type = Real; ///< Arithmetic precision.
  using cplx = typename InAcc::cplx; ///< The site vector: a complex number, or a register of SIMD lanes.
  using gauge_accessor = GaugeAcc; ///< The gauge accessor type.
  using execution_space = typename SiteTableT::execution_space; ///< The execution space.
  static constexpr int n_spin = InAcc::n_spin; ///< Spin components per site (1: a colour vector).
  /// Links of the one-site hops: of the target parity's sites [0] and of the source parity's [1]
  /// (load_hop_link).
  GaugeAcc gauge[2];
  FarAcc far[2];      ///< Links of the three-site hops, in the same order (read only where the mask has them).
  InAcc in;           ///< Source, parity 1 - parity.
  OutAcc out;         ///< Result, parity `parity`.
  InAcc x;            ///< Addend, parity `parity` (read only where a != 0).
  SiteTableT sites;   ///< Neighbours and boundary phases.
  Lattice lat;        ///< Coordinates for site-dependent signs (of the vector sites: every lane's parities alike).
  Real a;             ///< out = a x + b H in: the addend's coefficient.
  Real b;             ///< The hops' coefficient.
  unsigned mask;      ///< The hops applied (hop_bit).
  SweepSites<typename execution_space::memory_space> sweep; ///< The sweep's sites (default: every site).
  int n_rhs = 1; ///< Right-hand sides: field storage index site * n_rhs + r.
  int parity = 0; ///< The target parity (a run-time value: one kernel for both).
};

/// Kernel: a colour-hop stencil with signs Signs on target parity arg.parity.
template <class Arg, class Signs> struct ColourHopFunctor {
  using real = typename Arg::real_type; ///< Arithmetic precision.
  using cplx = typename Arg::cplx; ///< Complex numbers in real.
  static constexpr int n_spin = Arg::n_spin; ///< Spin components per site.
  Arg arg; ///< The kernel arguments.

  /// acc += sign U in(x + hop) of right-hand side r for hop (mu, dir), where the mask has it: the
  /// links for one-site hops, the long links for three-site hops.
  template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION void hop(int site, const Coords& c, int r, cplx acc[Nc][n_spin]) const {
    if (!(arg.mask & hop_bit(mu, dir))) return;
    if constexpr (dir == 1 || dir == -1) hop_on<mu, dir>(arg.gauge, site, c, r, acc);
    else hop_on<mu, dir>(arg.far, site, c, r, acc);
  }
  /// The hop (mu, dir) on the links `links` of both parities (target's first).
  template <int mu, int dir, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION void hop_on(const Acc (&links)[2], int site, const Coords& c, int r, cplx acc[Nc][n_spin]) const {
    const Neighbour nb = arg.sites.template neighbour<mu, dir>(site, arg.parity);
    cplx v[Nc][n_spin];
    arg.in.load(nb.index * arg.n_rhs + r, v);
    if (nb.crossed)
      for (int k = 0; k < Nc; ++k) arg.sites.template cross<mu, dir, real>(v[k]);
    const auto U = load_hop_link<mu, dir, real>(links, site, nb.index);
    const real w = real(Signs::template sign<mu, dir>(c)) * U.scale;
    for (int i = 0; i < Nc; ++i)
      for (int s = 0; s < n_spin; ++s) {
        cplx t = U.mul(i, 0, v[0][s]);
        t = U.madd(i, 1, v[1][s], t);
        t = U.madd(i, 2, v[2][s], t);
        acc[i][s] += w * t;
      }
  }
  /// Site of entry k of the sweep.
  KOKKOS_FORCEINLINE_FUNCTION int site_of(int k) const { return arg.sweep(k); }
  /// Entry k of the sweep: every right-hand side of the site, each every hop of the mask and the
  /// epilogue (the site's links read once per right-hand side, from cache after the first).
  KOKKOS_FUNCTION void site_kernel(int k) const {
    const int site = site_of(k);
    Coords c{};
    if constexpr (Signs::needs_coords) c = arg.lat.cb_coords(site, arg.parity);
    for (int r = 0; r < arg.n_rhs; ++r) site_rhs(site, c, r);
  }
  /// Right-hand side r of a site.
  KOKKOS_FORCEINLINE_FUNCTION void site_rhs(int site, const Coords& c, int r) const {
    cplx acc[Nc][n_spin];
    for (int i = 0; i < Nc; ++i)
      for (int s = 0; s < n_spin; ++s) acc[i][s] = complex_zero<cplx>();
    hops_along<0>(site, c, r, acc);
    hops_along<1>(site, c, r, acc);
    hops_along<2>(site, c, r, acc);
    hops_along<3>(site, c, r, acc);
    const int idx = site * arg.n_rhs + r;
    if (arg.a != real(0)) {
      cplx xv[Nc][n_spin];
      arg.x.load(idx, xv);
      for (int i = 0; i < Nc; ++i)
        for (int s = 0; s < n_spin; ++s) acc[i][s] = arg.a * xv[i][s] + arg.b * acc[i][s];
    } else if (arg.b != real(1)) {
      for (int i = 0; i < Nc; ++i)
        for (int s = 0; s < n_spin; ++s) acc[i][s] = arg.b * acc[i][s];
    }
    arg.out.store(idx, acc);
  }
  /// The one- and three-site hops along mu, forward and backward.
  template <int mu> KOKKOS_FORCEINLINE_FUNCTION void hops_along(int site, const Coords& c, int r, cplx acc[Nc][n_spin]) const {
    hop<mu, +1>(site, c, r, acc);
    hop<mu, -1>(site, c, r, acc);
    hop<mu, +3>(site, c, r, acc);
    hop<mu, -3>(site, c, r, acc);
  }
};

} // namespace kqcd
