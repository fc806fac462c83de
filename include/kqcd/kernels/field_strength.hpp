// The clover field strength of conventions.md, F_{mu nu}(x) = (1/8)[Q_{mu nu}(x) - Q_{nu mu}(x)] with
// its trace removed (anti-Hermitian), and per-site sums of the action density
// E(x) = -sum_{mu<nu} tr F_{mu nu} F_{mu nu} and of the topological charge density
// q(x) = -1/(32 pi^2) eps_{mu nu rho sigma} tr F_{mu nu} F_{rho sigma}
//      = -1/(4 pi^2) tr[F_01 F_23 - F_02 F_13 + F_03 F_12]   (eps_0123 = +1, mu = 0..3 = x, y, z, t).
#pragma once

#include <kqcd/kernels/staples.hpp>

namespace kqcd {

/// Q_{mu nu}(x): the four plaquette leaves in the (mu, nu) plane that start and end at x.
template <class Reader> KOKKOS_INLINE_FUNCTION SU3<double> clover_leaves(const Reader& u, const Coords& x, int mu, int nu) {
  const Lattice& lat = u.lat;
  const Coords xpm = forward(lat, x, mu), xpn = forward(lat, x, nu);
  const Coords xmm = backward(lat, x, mu), xmn = backward(lat, x, nu);
  const Coords xmm_pn = forward(lat, xmm, nu), xmm_mn = backward(lat, xmm, nu), xmn_pm = forward(lat, xmn, mu);
  const SU3<double> umu = u(x, mu), unu = u(x, nu);
  SU3<double> q = mul_adj(mul_adj(umu * u(xpm, nu), u(xpn, mu)), unu);
  q += mul_adj(mul_adj(unu, u(xmm_pn, mu)), u(xmm, nu)) * u(xmm, mu);
  q += adj_mul(u(xmm_mn, nu) * u(xmm, mu), u(xmm_mn, mu) * u(xmn, nu));
  q += mul_adj(adj_mul(u(xmn, nu), u(xmn, mu)) * u(xmn_pm, nu), umu);
  return q;
}

/// Sums over the sites of one parity of E(x) (clover) and q(x).
template <class View> struct CloverObservablesFunctor {
  LinkReader<View> u; ///< The links.
  int parity; ///< Parity of the sites summed.

  /// Adds E(x) and q(x) at site s to energy and charge.
  KOKKOS_FUNCTION void operator()(int s, double& energy, double& charge) const {
    const Coords x = u.lat.cb_coords(s, parity);
    SU3<double> f[Nd][Nd];
    for (int mu = 0; mu < Nd; ++mu)
      for (int nu = mu + 1; nu < Nd; ++nu) {
        f[mu][nu] = 0.25 * traceless_antihermitian(clover_leaves(u, x, mu, nu));
        energy -= trace(f[mu][nu] * f[mu][nu]).real();
      }
    const double eps_sum =
        trace(f[0][1] * f[2][3]).real() - trace(f[0][2] * f[1][3]).real() + trace(f[0][3] * f[1][2]).real();
    charge -= eps_sum / (4 * Kokkos::numbers::pi * Kokkos::numbers::pi);
  }
};

} // namespace kqcd
