// One stage of Luescher's third-order Runge-Kutta integrator for the Wilson flow (arXiv:1006.4518,
// eq. C.1-C.3), as a rule for LinkUpdateFunctor (kernels/staples.hpp). With
// Z(W) = TA(C W^dag) (C the staple sum over all directions: the Wilson action's force, so that
// the Euler step is stout smearing with rho = eps) each stage updates the per-link generator
//   A <- a A + b eps Z(W),  W <- exp(A) W,
// with (a, b) = (0, 1/4), (-17/9, 8/9), (-1, 3/4), which reproduces
//   W1 = exp(Z0/4) W0,  W2 = exp(8/9 Z1 - 17/36 Z0) W1,  W3 = exp(3/4 Z2 - 8/9 Z1 + 17/36 Z0) W2.
#pragma once

#include <kqcd/kernels/staples.hpp>

namespace kqcd {

/// Link-update rule of one Runge-Kutta stage of the Wilson flow.
template <class View> struct FlowStageRule {
  View acc[2]; ///< A per link, both parities
  Lattice lat; ///< The lattice.
  /// The stage's coefficients a and b.
  ///@{
  double a, b; ///< b includes eps
  ///@}

  /// The stage's new link from link w and its staple sum.
  KOKKOS_INLINE_FUNCTION SU3<double> operator()(const SU3<double>& w, const SU3<double>& staple, const Coords& x, int s,
                                                int mu) const {
    const View& av = acc[Lattice::parity(x)];
    SU3<double> gen = b * traceless_antihermitian(mul_adj(staple, w));
    if (a != 0) gen += a * load_su3<double>(av, s, mu);
    store_su3(av, s, mu, gen);
    return exp_iQ(Kokkos::complex<double>(0, -1) * gen) * w; // exp(A) = exp(i Q) with Q = -i A
  }
};

} // namespace kqcd
