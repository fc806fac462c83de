// Functors for gauge observables (conventions.md, "Gauge observables"): plaquette per site split
// into spatial and temporal planes, link trace, Polyakov lines. They accumulate in double whatever
// the field's precision, and only touch device views, so they run on any execution space.
// Launching and normalisation belong to ops/gauge_observables.hpp.
#pragma once

#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd {

namespace su3d {
using cplx = Kokkos::complex<double>;
struct Mat {
  cplx m[Nc][Nc];
};

template <class View> KOKKOS_INLINE_FUNCTION Mat load(const View& v, int site, int mu) {
  Mat r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) r.m[a][b] = cplx(double(v(site, mu, a, b).real()), double(v(site, mu, a, b).imag()));
  return r;
}
KOKKOS_INLINE_FUNCTION Mat identity() {
  Mat r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) r.m[a][b] = cplx(a == b ? 1.0 : 0.0, 0.0);
  return r;
}
KOKKOS_INLINE_FUNCTION Mat mul(const Mat& x, const Mat& y) {
  Mat r;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) {
      cplx s(0.0, 0.0);
      for (int k = 0; k < Nc; ++k) s += x.m[a][k] * y.m[k][b];
      r.m[a][b] = s;
    }
  return r;
}
/// Re tr(x y^dag) = sum_ab Re(x_ab conj(y_ab)): closes a loop without forming the daggered product.
KOKKOS_INLINE_FUNCTION double re_tr_mul_adj(const Mat& x, const Mat& y) {
  double s = 0;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) s += x.m[a][b].real() * y.m[a][b].real() + x.m[a][b].imag() * y.m[a][b].imag();
  return s;
}
} // namespace su3d

/// Coordinates of x + mu with periodic wrap.
KOKKOS_INLINE_FUNCTION Coords forward(const Lattice& lat, Coords c, int mu) {
  c.x[mu] = c.x[mu] + 1 == lat.dim(mu) ? 0 : c.x[mu] + 1;
  return c;
}

/// Sum over the sites of one parity of Re tr of the plaquettes, spatial planes and temporal planes.
template <class View> struct PlaquetteFunctor {
  View u[2];
  Lattice lat;
  int parity;

  KOKKOS_FUNCTION void operator()(int s, double& spatial, double& temporal) const {
    const Coords x = lat.cb_coords(s, parity);
    const View& here = u[parity];
    const View& next = u[1 - parity];
    for (int mu = 0; mu < Nd; ++mu)
      for (int nu = mu + 1; nu < Nd; ++nu) {
        const int x_mu = lat.cb_index(forward(lat, x, mu)), x_nu = lat.cb_index(forward(lat, x, nu));
        const auto a = su3d::mul(su3d::load(here, s, mu), su3d::load(next, x_mu, nu));
        const auto b = su3d::mul(su3d::load(here, s, nu), su3d::load(next, x_nu, mu));
        const double p = su3d::re_tr_mul_adj(a, b); // Re tr U_mu(x) U_nu(x+mu) U_mu^dag(x+nu) U_nu^dag(x)
        if (nu == Nd - 1) temporal += p;
        else spatial += p;
      }
  }
};

template <class View> struct LinkTraceFunctor {
  View u;
  KOKKOS_FUNCTION void operator()(int s, double& sum) const {
    for (int mu = 0; mu < Nd; ++mu)
      for (int a = 0; a < Nc; ++a) sum += double(u(s, mu, a, a).real());
  }
};

/// tr of the product of U_dir along the line through each site with x_dir = 0; i enumerates
/// those sites lexicographically in the other three directions.
template <class View> struct PolyakovFunctor {
  View u[2];
  Lattice lat;
  int dir;

  KOKKOS_FUNCTION void operator()(int i, double& re, double& im) const {
    Coords c;
    for (int mu = 0; mu < Nd; ++mu) {
      if (mu == dir) continue;
      c.x[mu] = i % lat.dim(mu);
      i /= lat.dim(mu);
    }
    auto line = su3d::identity();
    for (int t = 0; t < lat.dim(dir); ++t) {
      c.x[dir] = t;
      line = su3d::mul(line, su3d::load(u[Lattice::parity(c)], lat.cb_index(c), dir));
    }
    for (int a = 0; a < Nc; ++a) {
      re += line.m[a][a].real();
      im += line.m[a][a].imag();
    }
  }
};

} // namespace kqcd
