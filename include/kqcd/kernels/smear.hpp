// Link smearing rules and the HYP level functor (conventions.md, "Smearing"). APE and stout are
// rules for LinkUpdateFunctor (kernels/staples.hpp); HYP's three levels use staple_pair with the
// decorated links of the level below. Decorated links live in "bundles": [site][12][3][3] views with
// slot hyp_slot(mu, other) for the link in direction mu labelled by one other direction.
#pragma once

#include <kqcd/kernels/staples.hpp>

namespace kqcd {

/// APE: U' = Proj_SU3(c U + w C) (conventions: w = 1; HYP's levels use c = 1 - a, w = a / n).
struct ApeRule {
  /// Weights c of the link and w of the staples.
  ///@{
  double c, w = 1.0;
  ///@}
  ProjectionParams proj{}; ///< SU(3) projection parameters.
  /// U' from link u and its staple sum.
  KOKKOS_INLINE_FUNCTION SU3<double> operator()(const SU3<double>& u, const SU3<double>& staple, const Coords&, int,
                                                int) const {
    return project_su3(c * u + w * staple, proj);
  }
};

/// Q = -i TA(Omega) = (i/2)(Omega^dag - Omega) - (i/6) tr(Omega^dag - Omega), Omega = rho C U^dag.
KOKKOS_INLINE_FUNCTION SU3<double> stout_q(const SU3<double>& u, const SU3<double>& staple, double rho) {
  return Kokkos::complex<double>(0, -1) * traceless_antihermitian(rho * mul_adj(staple, u));
}

/// Stout: U' = exp(i Q) U.
struct StoutRule {
  double rho; ///< The stout parameter.
  /// U' from link u and its staple sum.
  KOKKOS_INLINE_FUNCTION SU3<double> operator()(const SU3<double>& u, const SU3<double>& staple, const Coords&, int,
                                                int) const {
    return exp_iQ(stout_q(u, staple, rho)) * u;
  }
};

/// Slot of the HYP intermediate link of direction mu decorated away from `other`.
KOKKOS_INLINE_FUNCTION int hyp_slot(int mu, int other) { return mu * 3 + (other < mu ? other : other - 1); }

/// One HYP level for the sites of one parity (levels 1, 2 write bundles, level 3 the new links).
///   level 1: slot (mu, eta)  = Vbar_{mu; nu rho}, eta the direction not in {mu, nu, rho}
///   level 2: slot (mu, nu)   = Vtil_{mu; nu}
///   level 3: link mu         = V_mu
template <class GaugeView, class BundleView> struct HypLevelFunctor {
  LinkReader<GaugeView> u; ///< The links.
  LinkReader<BundleView> below; ///< level 1: unused; level 2: Vbar; level 3: Vtil
  BundleView out_bundle;        ///< levels 1 and 2
  GaugeView out_links;          ///< level 3
  /// Parity of the sites, and the level (1, 2 or 3).
  ///@{
  int parity, level;
  ///@}
  double alpha; ///< a3, a2, a1 for levels 1, 2, 3
  ProjectionParams proj{}; ///< SU(3) projection parameters.

  /// The level's output at site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const Coords x = u.lat.cb_coords(s, parity);
    for (int mu = 0; mu < Nd; ++mu) {
      const SU3<double> link = load_su3<double>(u.v[parity], s, mu);
      if (level == 3) {
        SU3<double> c = SU3<double>::zero();
        for (int nu = 0; nu < Nd; ++nu) {
          if (nu == mu) continue;
          c += staple_pair(
              u.lat, x, mu, nu, [&](const Coords& y) { return below(y, hyp_slot(nu, mu)); },
              [&](const Coords& y) { return below(y, hyp_slot(mu, nu)); });
        }
        store_su3(out_links, s, mu, project_su3((1 - alpha) * link + (alpha / 6) * c, proj));
        continue;
      }
      for (int other = 0; other < Nd; ++other) {
        if (other == mu) continue;
        SU3<double> c = SU3<double>::zero();
        if (level == 1) {
          c = staple_pair(
              u.lat, x, mu, other, [&](const Coords& y) { return u(y, other); }, [&](const Coords& y) { return u(y, mu); });
        } else { // level 2: other = nu; sum over rho != mu, nu; sigma the remaining direction
          for (int rho = 0; rho < Nd; ++rho) {
            if (rho == mu || rho == other) continue;
            const int sigma = 6 - mu - other - rho;
            c += staple_pair(
                u.lat, x, mu, rho, [&](const Coords& y) { return below(y, hyp_slot(rho, sigma)); },
                [&](const Coords& y) { return below(y, hyp_slot(mu, sigma)); });
          }
        }
        const double w = level == 1 ? alpha / 2 : alpha / 4;
        store_su3(out_bundle, s, hyp_slot(mu, other), project_su3((1 - alpha) * link + w * c, proj));
      }
    }
  }
};

} // namespace kqcd
