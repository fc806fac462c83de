// Gaussian (Wuppertal) smearing of quark fields (conventions.md, "Smearing"):
//   psi' = (1 + w^2/(4N) Lap)^N psi,  Lap psi(x) = sum_{mu spatial} [U_mu(x) psi(x+mu) + U_mu^dag(x-mu) psi(x-mu)] - 6 psi(x)
// with the links it is given (pass APE- or stout-smeared links for smeared-link smearing).
// Boundary phases default to periodic; pass the fermion's phases to smear consistently with a
// twisted or antiperiodic operator.
#pragma once

#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/fields/propagator.hpp>
#include <kqcd/stencil/laplace.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace kqcd {

/// Parameters of Gaussian smearing: width and steps.
struct GaussianSmearParams {
  double width = 0.0; ///< w
  int steps = 0;      ///< N (0: no smearing)
};

namespace detail {
/// Checks the parameters and the lattices; false where there is nothing to smear (N = 0).
inline bool smearing_needed(const GaussianSmearParams& params, const Lattice& fields, const Lattice& links) {
  if (params.steps < 0) throw invalid_argument("Gaussian smearing: the number of steps must be >= 0, found " + std::to_string(params.steps));
  if (params.steps == 0) return false;
  if (!(fields == links)) throw invalid_argument("Gaussian smearing: spinor and gauge field live on different lattices");
  return true;
}
/// The spatial covariant Laplacian of links u in precision Real (u converted where its precision differs).
template <class Real, class GT, class ES> Laplacian<Ns, Real, ES> smearing_laplacian(const GaugeField<GT, ES>& u, const BoundaryPhases& bc) {
  using Lap = Laplacian<Ns, Real, ES>;
  if constexpr (std::is_same_v<GT, Kokkos::complex<Real>>) {
    return Lap(u, bc, 3);
  } else {
    typename Lap::gauge_type v(u.lattice(), "gaussian_smear_links");
    convert_gauge(v, u);
    return Lap(v, bc, 3);
  }
}
/// psi <- (1 + w^2/(4N) Lap)^N psi with the Laplacian lap.
template <class ST, class ES>
void smear_with(SpinorField<ST, Ns, ES>& psi, const Laplacian<Ns, typename ST::value_type, ES>& lap, const GaussianSmearParams& params) {
  const double alpha = params.width * params.width / (4.0 * params.steps);
  SpinorField<ST, Ns, ES> tmp(psi.lattice(), "gaussian_smear_tmp");
  SpinorField<ST, Ns, ES>* src = &psi;
  SpinorField<ST, Ns, ES>* dst = &tmp;
  for (int step = 0; step < params.steps; ++step) {
    lap.apply_identity_plus(*dst, *src, alpha);
    std::swap(src, dst);
  }
  if (src != &psi)
    for (int p = 0; p < 2; ++p) Kokkos::deep_copy(psi[p].view(), (*src)[p].view());
}
} // namespace detail

/// psi <- (1 + w^2/(4N) Lap)^N psi on the field's execution space: N steps of the spatial covariant
/// Laplacian (stencil/laplace.hpp) in the spinor's precision.
template <class ST, class GT, class ES>
void gaussian_smear(SpinorField<ST, Ns, ES>& psi, const GaugeField<GT, ES>& u, const GaussianSmearParams& params,
                    const BoundaryPhases& bc = BoundaryPhases::periodic()) {
  if (!detail::smearing_needed(params, psi.lattice(), u.lattice())) return;
  detail::smear_with(psi, detail::smearing_laplacian<typename ST::value_type>(u, bc), params);
}
/// Smear every column of a propagator at the sink (one Laplacian for the twelve).
template <class Real, class GT, class ES>
void gaussian_smear(PropagatorField<Real, ES>& S, const GaugeField<GT, ES>& u, const GaussianSmearParams& params,
                    const BoundaryPhases& bc = BoundaryPhases::periodic()) {
  if (!detail::smearing_needed(params, S.lattice(), u.lattice())) return;
  const auto lap = detail::smearing_laplacian<Real>(u, bc);
  for (int k = 0; k < SpinColour; ++k) detail::smear_with(S[k], lap, params);
}

} // namespace kqcd
