// Functors for gauge observables (conventions.md, "Gauge observables"): plaquette per site split
// into spatial and temporal planes, link trace, Polyakov lines. They accumulate in double whatever
// the field's precision, and only touch device views, so they run on any execution space.
// Launching and normalisation belong to gauge/gauge_observables.hpp.
#pragma once

#include <kqcd/core/lattice.hpp>
#include <kqcd/core/su3.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd {

/// Sum over the sites of one parity of Re tr of the plaquettes, spatial planes and temporal planes.
template <class View> struct PlaquetteFunctor {
  View u[2]; ///< The links of both parities.
  Lattice lat; ///< The lattice.
  int parity; ///< Parity of the sites summed.

  /// Adds the plaquettes at site s to the spatial and temporal sums.
  KOKKOS_FUNCTION void operator()(int s, double& spatial, double& temporal) const {
    const Coords x = lat.cb_coords(s, parity);
    const View& here = u[parity];
    const View& next = u[1 - parity];
    for (int mu = 0; mu < Nd; ++mu)
      for (int nu = mu + 1; nu < Nd; ++nu) {
        const int x_mu = lat.cb_index(forward(lat, x, mu)), x_nu = lat.cb_index(forward(lat, x, nu));
        const auto a = load_su3<double>(here, s, mu) * load_su3<double>(next, x_mu, nu);
        const auto b = load_su3<double>(here, s, nu) * load_su3<double>(next, x_nu, mu);
        const double p = re_tr_mul_adj(a, b); // Re tr U_mu(x) U_nu(x+mu) U_mu^dag(x+nu) U_nu^dag(x)
        if (nu == Nd - 1) temporal += p;
        else spatial += p;
      }
  }
};

/// Kernel: sum of Re tr U over the links.
template <class View> struct LinkTraceFunctor {
  View u; ///< The links of one parity.
  /// Adds Re tr U of site s's links to sum.
  KOKKOS_FUNCTION void operator()(int s, double& sum) const {
    for (int mu = 0; mu < Nd; ++mu)
      for (int a = 0; a < Nc; ++a) sum += double(u(s, mu, a, a).real());
  }
};

/// The ordered product of U_dir along the line through the site with x_dir = 0 (on a
/// distributed lattice: this rank's segment of it); i enumerates those sites lexicographically
/// in the other three directions.
template <class View> KOKKOS_INLINE_FUNCTION SU3<double> polyakov_segment(const View (&u)[2], const Lattice& lat, int dir, int i) {
  Coords c;
  for (int mu = 0; mu < Nd; ++mu) {
    if (mu == dir) continue;
    c.x[mu] = i % lat.dim(mu);
    i /= lat.dim(mu);
  }
  auto line = SU3<double>::identity();
  for (int t = 0; t < lat.dim(dir); ++t) {
    c.x[dir] = t;
    line = line * load_su3<double>(u[Lattice::parity(c)], lat.cb_index(c), dir);
  }
  return line;
}

/// Sum over the lines of tr of the Polyakov line (one rank holds the whole lattice).
template <class View> struct PolyakovFunctor {
  View u[2]; ///< The links of both parities.
  Lattice lat; ///< The lattice.
  int dir; ///< Direction of the lines.

  /// Adds tr of line i to (re, im).
  KOKKOS_FUNCTION void operator()(int i, double& re, double& im) const {
    const auto line = polyakov_segment(u, lat, dir, i);
    for (int a = 0; a < Nc; ++a) {
      re += line.m[a][a].real();
      im += line.m[a][a].imag();
    }
  }
};

/// Stores each line's segment on this rank (the ranks along dir multiply them in order).
template <class View, class Out> struct PolyakovSegmentFunctor {
  View u[2]; ///< The links of both parities.
  Lattice lat; ///< The lattice.
  int dir; ///< Direction of the lines.
  Out out; ///< [line][0][3][3] segments.
  /// Stores the segment of line i.
  KOKKOS_FUNCTION void operator()(int i) const { store_su3(out, i, 0, polyakov_segment(u, lat, dir, i)); }
};

} // namespace kqcd
