// The one staple routine of the library and the link-update functor built on it (conventions.md,
// "Smearing"). staple_pair(x, mu, eta) is the forward plus the backward staple in direction eta,
//   side(x) par(x+eta) side^dag(x+mu) + side^dag(x-eta) par(x-eta) side(x-eta+mu),
// a path from x to x+mu, where side(c) is the eta link and par(c) the mu link at site c. Plain
// smearing reads both from the gauge field; HYP's levels pass decorated links; the heat bath reads the
// field it updates (safe: links of one parity and direction never enter their own staples).
// LinkUpdateFunctor computes, for every link of one parity whose direction is in update_mask, the
// staple sum C over the directions in staple_mask and writes rule(U, C, ...) to `out`; links outside
// update_mask are copied (left alone when out is the input's own view: the heat bath's in-place update). All arithmetic is in double whatever the field's precision.
#pragma once

#include <kqcd/core/su3_functions.hpp>

namespace kqcd {

/// Reads the matrix (slot) at any site of a checkerboarded pair of [site][slot][3][3] views.
template <class View> struct LinkReader {
  View v[2]; ///< The matrices of both parities.
  Lattice lat; ///< The lattice.
  /// Matrix `slot` at site c.
  KOKKOS_INLINE_FUNCTION SU3<double> operator()(const Coords& c, int slot) const {
    return load_su3<double>(v[Lattice::parity(c)], lat.cb_index(c), slot);
  }
};

/// One staple of link (x, mu) in plane (mu, eta) on side `side`.
template <class Side, class Par>
KOKKOS_INLINE_FUNCTION SU3<double> staple_pair(const Lattice& lat, const Coords& x, int mu, int eta, const Side& side,
                                               const Par& par) {
  const Coords xe = forward(lat, x, eta), xm = forward(lat, x, mu);
  const Coords xme = backward(lat, x, eta), xmem = forward(lat, xme, mu);
  return mul_adj(side(x) * par(xe), side(xm)) + adj_mul(side(xme), par(xme)) * side(xmem);
}

/// C_mu(x) = sum over eta in staple_mask, eta != mu, of staple_pair with the field's own links.
template <class View>
KOKKOS_INLINE_FUNCTION SU3<double> staple_sum(const LinkReader<View>& u, const Coords& x, int mu, unsigned staple_mask) {
  SU3<double> c = SU3<double>::zero();
  for (int eta = 0; eta < Nd; ++eta) {
    if (eta == mu || !(staple_mask & (1u << eta))) continue;
    c += staple_pair(
        u.lat, x, mu, eta, [&](const Coords& y) { return u(y, eta); }, [&](const Coords& y) { return u(y, mu); });
  }
  return c;
}

/// Bits of the directions a smearing acts on: all four, or the spatial ones.
inline unsigned direction_mask(bool spatial_only) { return spatial_only ? 0x7u : 0xFu; }

/// Kernel: updates the links of one parity and direction by Rule, from their staples.
template <class View, class Rule> struct LinkUpdateFunctor {
  LinkReader<View> in; ///< The links read.
  View out; ///< The links written, this parity.
  int parity; ///< Parity of the sites.
  /// Directions updated, and directions of the staples summed.
  ///@{
  unsigned update_mask, staple_mask;
  ///@}
  Rule rule; ///< The update rule.

  /// Updates the links of site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const Coords x = in.lat.cb_coords(s, parity);
    const bool in_place = out.data() == in.v[parity].data(); // then links outside update_mask stay put
    for (int mu = 0; mu < Nd; ++mu) {
      if (!(update_mask & (1u << mu))) {
        if (!in_place) store_su3(out, s, mu, load_su3<double>(in.v[parity], s, mu));
        continue;
      }
      const SU3<double> u = load_su3<double>(in.v[parity], s, mu);
      store_su3(out, s, mu, rule(u, staple_sum(in, x, mu, staple_mask), x, s, mu));
    }
  }
};

} // namespace kqcd
