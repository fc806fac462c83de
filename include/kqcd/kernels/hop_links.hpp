// The matrix of one hop as a stencil's site functor multiplies by it, whatever the gauge storage:
// a link unpacked into registers (U_mu(x) forward, U_mu(x - h)^dag backward: LoadedLink) or a
// doubled field's hop matrix (fields/simd_fields.hpp: LaneLink, BroadcastLink), both with
// mul(a, b, h) and madd(a, b, h, c); and the load that picks between them (load_hop_link).
#pragma once

#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

/// A link unpacked into registers: the hop's matrix is U, or U^dag (dagger) for a backward hop.
template <class Real, bool dagger> struct LoadedLink {
  using cplx = Kokkos::complex<Real>; ///< Complex numbers in Real.
  cplx U[Nc][Nc]; ///< The stored matrix: U_mu(x), or U_mu(x - mu) for a backward hop.
  Real scale; ///< the links are stored in units of it
  /// Element (a, b) of the hop's matrix times h.
  KOKKOS_FORCEINLINE_FUNCTION cplx mul(int a, int b, const cplx& h) const {
    if constexpr (dagger) return cjmul(U[b][a], h);
    else return cmul(U[a][b], h);
  }
  /// c + element (a, b) of the hop's matrix times h.
  KOKKOS_FORCEINLINE_FUNCTION cplx madd(int a, int b, const cplx& h, const cplx& c) const {
    if constexpr (dagger) return cjmadd(U[b][a], h, c);
    else return cmadd(U[a][b], h, c);
  }
};

namespace detail {
/// Gauge accessors of a doubled field (each site holds its 2 Nd hop matrices, the backward ones
/// already daggered) hand out hop_link<mu, dir>(site) objects instead of loading U(x - mu).
template <class G> constexpr bool doubled_links = requires { requires std::remove_cvref_t<G>::doubled; };
/// Accessors and links whose values need no scale factor (no fixed-point storage).
template <class A> constexpr bool unit_scale = requires { requires std::remove_cvref_t<A>::unit_scale; };
} // namespace detail

/// The matrix of the hop in direction dir along mu from `site` (neighbour nb), from the links of
/// both parities in the order of the hop: links[0] of the site's parity, links[1] of the neighbour's
/// (so the kernel indexes them at compile time whatever its run-time parity): a doubled field's own
/// hop matrix, else U_mu(site) forward and U_mu(nb)^dag backward, unpacked.
template <int mu, int dir, class Real, class GaugeAcc>
KOKKOS_FORCEINLINE_FUNCTION auto load_hop_link(const GaugeAcc (&links)[2], int site, int nb) {
  if constexpr (detail::doubled_links<GaugeAcc>) {
    return links[0].template hop_link<mu, dir>(site);
  } else {
    LoadedLink<Real, (dir < 0)> U;
    if constexpr (dir > 0) U.scale = links[0].load_scaled(site, mu, U.U);
    else U.scale = links[1].load_scaled(nb, mu, U.U);
    return U;
  }
}

} // namespace kqcd
