// Gaussian (Wuppertal) smearing of quark fields (conventions.md, "Smearing"):
//   psi' = (1 + w^2/(4N) Lap)^N psi,  Lap psi(x) = sum_{mu spatial} [U_mu(x) psi(x+mu) + U_mu^dag(x-mu) psi(x-mu)] - 6 psi(x)
// with the links it is given (pass APE- or stout-smeared links for smeared-link smearing).
// Boundary phases default to periodic; pass the fermion's phases to smear consistently with a
// twisted or antiperiodic operator.
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/propagator.hpp>
#include <kqcd/kernels/gaussian_smear.hpp>

#include <string>

namespace kqcd {

/// Parameters of Gaussian smearing: width and steps.
struct GaussianSmearParams {
  double width = 0.0; ///< w
  int steps = 0;      ///< N (0: no smearing)
};

/// psi <- (1 + w^2/(4N) Lap)^N psi on the field's execution space.
template <class ST, class GT, class ES>
void gaussian_smear(SpinorField<ST, Ns, ES>& psi, const GaugeField<GT, ES>& u, const GaussianSmearParams& params,
                    const BoundaryPhases& bc = BoundaryPhases::periodic()) {
  if (params.steps < 0) throw invalid_argument("Gaussian smearing: the number of steps must be >= 0, found " + std::to_string(params.steps));
  if (params.steps == 0) return;
  if (!(psi.lattice() == u.lattice())) throw invalid_argument("Gaussian smearing: spinor and gauge field live on different lattices");
  using Real = typename ST::value_type;
  using SV = typename SpinorField<ST, Ns, ES>::cb_type::view_type;
  using GV = typename GaugeField<GT, ES>::cb_type::view_type;
  const Lattice lat = psi.lattice();
  const double alpha = params.width * params.width / (4.0 * params.steps);
  SpinorField<ST, Ns, ES> tmp(lat, "gaussian_smear_tmp");
  SpinorField<ST, Ns, ES>* src = &psi;
  SpinorField<ST, Ns, ES>* dst = &tmp;
  // On a distributed lattice the hops off the sub-lattice read the ghost zones (site_table.hpp):
  // the links' once, the spinor's before every half step.
  if (lat.distributed()) {
    HaloExchange<GV, ES> gauge_halo(lat);
    for (int p = 0; p < 2; ++p) gauge_halo.exchange(u[p].view(), p);
  }
  HaloExchange<SV, ES> halo(lat);
  for (int step = 0; step < params.steps; ++step) {
    for (int p = 0; p < 2; ++p) {
      halo.exchange((*src)[1 - p].view(), 1 - p);
      GaussianSmearFunctor<GV, SV> f{{u[0].view(), u[1].view()}, {(*src)[0].view(), (*src)[1].view()}, (*dst)[p].view(), lat,
                                     {}, Real(alpha), Real(1.0 - 6.0 * alpha), p};
      for (int mu = 0; mu < 3; ++mu) f.phase[mu] = ST(Real(bc.b[std::size_t(mu)].real()), Real(bc.b[std::size_t(mu)].imag()));
      Kokkos::parallel_for("kqcd::gaussian_smear", Kokkos::RangePolicy<ES>(0, lat.cb_volume()), f);
    }
    std::swap(src, dst);
  }
  if (src != &psi)
    for (int p = 0; p < 2; ++p) Kokkos::deep_copy(psi[p].view(), (*src)[p].view());
}

/// Smear every column of a propagator at the sink.
template <class Real, class GT, class ES>
void gaussian_smear(PropagatorField<Real, ES>& S, const GaugeField<GT, ES>& u, const GaussianSmearParams& params,
                    const BoundaryPhases& bc = BoundaryPhases::periodic()) {
  for (int k = 0; k < SpinColour; ++k) gaussian_smear(S[k], u, params, bc);
}

} // namespace kqcd
