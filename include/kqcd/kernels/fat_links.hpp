// The device functors of link fattening (gauge/staggered_links.hpp): the path sums of MILC's improved
// staggered actions built, as MILC's and QUDA's fat-link code builds them, from staples of staples.
// A path from x to x+mu that steps out along eta, follows a mu-directed "par" link and steps back is
//   forward:  side_eta(x) par(x+eta) side_eta^dag(x+mu)
//   backward: side_eta^dag(x-eta) par(x-eta) side_eta(x-eta+mu);
// DisplacedLinkFunctor computes either or both for one parity, stores them for the next level of
// staples and adds coef times their sum to the fat link. All arithmetic is in double.
#pragma once

#include <kqcd/core/su3_functions.hpp>
#include <kqcd/kernels/staples.hpp>

namespace kqcd {

/// The sum of the selected slots (bit k: slot k) of a link reader's matrix at a site.
template <class View>
KOKKOS_INLINE_FUNCTION SU3<double> slot_sum(const LinkReader<View>& r, const Coords& c, unsigned slots) {
  SU3<double> m = SU3<double>::zero();
  for (int k = 0; slots; ++k, slots >>= 1)
    if (slots & 1u) m += r(c, k);
  return m;
}

/// Kernel: the staples of a mu-directed link field displaced along eta, on the sites of one parity.
/// The forward staple displaces the slots fwd_slots of `par`, the backward one the slots bwd_slots
/// (0: that orientation is left out). With `out` set the staples are stored (forward in slot 0 and
/// backward in slot 1 where `split`, else their sum in slot 0); with coef != 0 coef times their sum
/// is added to slot mu of `fat`.
template <class SideView, class ParView, class OutView, class FatView> struct DisplacedLinkFunctor {
  LinkReader<SideView> side; ///< The links the path steps across (slot eta).
  LinkReader<ParView> par;   ///< The displaced links.
  OutView out;               ///< Where the staples are stored, this parity (empty: not stored).
  FatView fat;               ///< The fat links accumulated, this parity (empty: none).
  int parity;                ///< Parity of the sites.
  /// Direction of the links, and of the displacement.
  ///@{
  int mu, eta;
  ///@}
  /// Slots of par displaced forward and backward.
  ///@{
  unsigned fwd_slots, bwd_slots;
  ///@}
  bool split;  ///< Store forward and backward apart.
  double coef; ///< Weight of the staples in the fat link.

  /// The staples at site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const Lattice& lat = side.lat;
    const Coords x = lat.cb_coords(s, parity);
    SU3<double> f = SU3<double>::zero(), b = SU3<double>::zero();
    if (fwd_slots) f = mul_adj(side(x, eta) * slot_sum(par, forward(lat, x, eta), fwd_slots), side(forward(lat, x, mu), eta));
    if (bwd_slots) {
      const Coords xm = backward(lat, x, eta);
      b = adj_mul(side(xm, eta), slot_sum(par, xm, bwd_slots)) * side(forward(lat, xm, mu), eta);
    }
    if (out.data()) {
      if (split) {
        store_su3(out, s, 0, f);
        store_su3(out, s, 1, b);
      } else store_su3(out, s, 0, f + b);
    }
    if (coef != 0.0) store_su3(fat, s, mu, load_su3<double>(fat, s, mu) + coef * (f + b));
  }
};

/// Kernel: the straight terms on the sites of one parity: fat_mu(x) = c1 Y_mu(x) and, where `lng`
/// is set, lng_mu(x) = c3 Y_mu(x) Y_mu(x+mu) Y_mu(x+2mu) (the Naik term).
template <class YView, class OutView> struct StraightLinksFunctor {
  LinkReader<YView> y; ///< The links the terms are built from.
  OutView fat;         ///< Fat links, this parity.
  OutView lng;         ///< Long links, this parity (empty: none).
  int parity;          ///< Parity of the sites.
  /// Coefficients of the one-link and the three-link term.
  ///@{
  double c1, c3;
  ///@}

  /// The terms at site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const Lattice& lat = y.lat;
    const Coords x = lat.cb_coords(s, parity);
    for (int mu = 0; mu < Nd; ++mu) {
      const SU3<double> u = y(x, mu);
      store_su3(fat, s, mu, c1 * u);
      if (lng.data()) {
        const Coords x1 = forward(lat, x, mu);
        store_su3(lng, s, mu, c3 * (u * y(x1, mu) * y(forward(lat, x1, mu), mu)));
      }
    }
  }
};

/// Kernel: every link of one parity replaced by its U(3) projection V (V^dag V)^(-1/2).
template <class View> struct ProjectU3Functor {
  View in;  ///< The links projected, this parity.
  View out; ///< Their projections (may be in).

  /// The links of site s.
  KOKKOS_FUNCTION void operator()(int s) const {
    for (int mu = 0; mu < Nd; ++mu) store_su3(out, s, mu, project_u3(load_su3<double>(in, s, mu)));
  }
};

} // namespace kqcd
