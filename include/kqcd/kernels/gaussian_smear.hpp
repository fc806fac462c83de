// One step of Gaussian (Wuppertal) quark smearing (conventions.md, "Smearing") on one parity:
//   out(x) = (1 - 6 alpha) in(x) + alpha sum_{mu spatial} [U_mu(x) in(x+mu) + U_mu^dag(x-mu) in(x-mu)]
// i.e. (1 + alpha Lap) in with alpha = w^2 / (4 N). A hop across the boundary in direction mu
// picks up the phase b_mu forwards and conj(b_mu) backwards (periodic: 1). The launcher is
// measure/gaussian_smear.hpp.
#pragma once

#include <kqcd/core/complex.hpp>
#include <kqcd/core/site_table.hpp>

namespace kqcd {

/// Kernel: one step of Gaussian (Wuppertal) smearing of a spinor.
template <class GaugeView, class SpinorView> struct GaussianSmearFunctor {
  using ST = typename SpinorView::non_const_value_type; ///< The spinor's complex type.
  using Real = typename ST::value_type; ///< Its real type.
  GaugeView u[2]; ///< The links of both parities.
  SpinorView in[2]; ///< The source spinor, both parities.
  SpinorView out; ///< parity `parity`
  Lattice lat; ///< The lattice.
  ST phase[3]; ///< Boundary phases of the three spatial directions.
  /// The hopping coefficient alpha and the diagonal coefficient.
  ///@{
  Real alpha, diag;
  ///@}
  int parity; ///< Parity of the sites written.

  /// One smearing step at site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const SpinorView& nb = in[1 - parity];
    ST acc[Nc][Ns];
    for (int a = 0; a < Nc; ++a)
      for (int sp = 0; sp < Ns; ++sp) acc[a][sp] = ST(0, 0);
    for (int mu = 0; mu < 3; ++mu) {
      const Neighbour f = detail::compute_neighbour(lat, s, parity, mu, +1);
      const ST pf = f.crossed ? phase[mu] : ST(1, 0);
      for (int a = 0; a < Nc; ++a) {
        ST row[Ns] = {ST(0, 0), ST(0, 0), ST(0, 0), ST(0, 0)};
        for (int b = 0; b < Nc; ++b) {
          const ST ub = ST(u[parity](s, mu, a, b));
          for (int sp = 0; sp < Ns; ++sp) row[sp] = cmadd(ub, ST(nb(f.index, b, sp)), row[sp]);
        }
        for (int sp = 0; sp < Ns; ++sp) acc[a][sp] = cmadd(pf, row[sp], acc[a][sp]);
      }
      const Neighbour r = detail::compute_neighbour(lat, s, parity, mu, -1);
      const ST pb = r.crossed ? conj(phase[mu]) : ST(1, 0);
      for (int a = 0; a < Nc; ++a) {
        ST row[Ns] = {ST(0, 0), ST(0, 0), ST(0, 0), ST(0, 0)};
        for (int b = 0; b < Nc; ++b) {
          const ST ub = ST(u[1 - parity](r.index, mu, b, a)); // (U^dag)_{ab} = conj(U_{ba})
          for (int sp = 0; sp < Ns; ++sp) row[sp] = cjmadd(ub, ST(nb(r.index, b, sp)), row[sp]);
        }
        for (int sp = 0; sp < Ns; ++sp) acc[a][sp] = cmadd(pb, row[sp], acc[a][sp]);
      }
    }
    const SpinorView& here = in[parity];
    for (int a = 0; a < Nc; ++a)
      for (int sp = 0; sp < Ns; ++sp) out(s, a, sp) = diag * ST(here(s, a, sp)) + alpha * acc[a][sp];
  }
};

} // namespace kqcd
