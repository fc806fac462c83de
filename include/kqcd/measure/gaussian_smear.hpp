// Gaussian (Wuppertal) smearing of quark fields (conventions.md, "Smearing"):
//   psi' = (1 + w^2/(4N) Lap)^N psi,  Lap psi(x) = sum_{mu spatial} [U_mu(x) psi(x+mu) + U_mu^dag(x-mu) psi(x-mu)] - 6 psi(x)
// with the links it is given (pass APE- or stout-smeared links for smeared-link smearing).
// Boundary phases default to periodic; pass the fermion's phases to smear consistently with a
// twisted or antiperiodic operator. On host backends the steps run on the SIMD lanes where they
// split the lattice (LayoutChoice::automatic; the field is converted there and back once).
#pragma once

#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/fields/propagator.hpp>
#include <kqcd/stencil/laplace.hpp>
#include <kqcd/stencil/layout_choice.hpp>

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
/// Links u in precision Real (u itself where its precision is Real).
template <class Real, class GT, class ES> GaugeField<Kokkos::complex<Real>, ES> links_in(const GaugeField<GT, ES>& u) {
  if constexpr (std::is_same_v<GT, Kokkos::complex<Real>>) {
    return u;
  } else {
    GaugeField<Kokkos::complex<Real>, ES> v(u.lattice(), "gaussian_smear_links");
    convert_gauge(v, u);
    return v;
  }
}
/// f(lap): the spatial covariant Laplacian of links u in precision Real, on the SIMD layout where
/// `choice` takes the lanes, else on the plain layout.
template <class Real, class GT, class ES, class F>
void with_smearing_laplacian(const GaugeField<GT, ES>& u, const BoundaryPhases& bc, LayoutChoice choice, F&& f) {
  const auto v = links_in<Real>(u);
  const bool simd = use_simd_layout<ES>(choice, [&]() -> std::string {
    if constexpr (ArchTraits<ES>::simd_layout) return SIMDStencilLayout<Real, ES>::misfit(u.lattice());
    else return "";
  });
  if constexpr (ArchTraits<ES>::simd_layout)
    if (simd) return f(Laplacian<Ns, Real, ES, SIMDStencilLayout<Real, ES>>(v, bc, 3));
  f(Laplacian<Ns, Real, ES>(v, bc, 3));
}
/// psi <- (1 + w^2/(4N) Lap)^N psi with the Laplacian lap, psi in lap's layout.
template <class Lap, class Field> void smear_steps(Field& psi, const Lap& lap, const GaussianSmearParams& params) {
  const double alpha = params.width * params.width / (4.0 * params.steps);
  Field tmp = lap.create_field("gaussian_smear_tmp");
  Field* src = &psi;
  Field* dst = &tmp;
  for (int step = 0; step < params.steps; ++step) {
    lap.apply_identity_plus(*dst, *src, alpha);
    std::swap(src, dst);
  }
  if (src != &psi)
    for (int p = 0; p < 2; ++p) Kokkos::deep_copy(psi[p].view(), (*src)[p].view());
}
/// The same for a plain field psi, moved into lap's layout and back where that is another.
template <class Lap, class ST, class ES> void smear_with(SpinorField<ST, Ns, ES>& psi, const Lap& lap, const GaussianSmearParams& params) {
  if constexpr (std::is_same_v<typename Lap::field_type, SpinorField<ST, Ns, ES>>) {
    smear_steps(psi, lap, params);
  } else {
    auto lanes = lap.create_field("gaussian_smear_lanes");
    to_simd(lanes, psi);
    smear_steps(lanes, lap, params);
    from_simd(psi, lanes);
  }
}
} // namespace detail

/// psi <- (1 + w^2/(4N) Lap)^N psi on the field's execution space: N steps of the spatial covariant
/// Laplacian (stencil/laplace.hpp) in the spinor's precision, on the layout `choice` gives.
template <class ST, class GT, class ES>
void gaussian_smear(SpinorField<ST, Ns, ES>& psi, const GaugeField<GT, ES>& u, const GaussianSmearParams& params,
                    const BoundaryPhases& bc = BoundaryPhases::periodic(), LayoutChoice choice = LayoutChoice::automatic) {
  if (!detail::smearing_needed(params, psi.lattice(), u.lattice())) return;
  detail::with_smearing_laplacian<typename ST::value_type>(u, bc, choice, [&](const auto& lap) { detail::smear_with(psi, lap, params); });
}
/// Smear every column of a propagator at the sink (one Laplacian for the twelve).
template <class Real, class GT, class ES>
void gaussian_smear(PropagatorField<Real, ES>& S, const GaugeField<GT, ES>& u, const GaussianSmearParams& params,
                    const BoundaryPhases& bc = BoundaryPhases::periodic(), LayoutChoice choice = LayoutChoice::automatic) {
  if (!detail::smearing_needed(params, S.lattice(), u.lattice())) return;
  detail::with_smearing_laplacian<Real>(u, bc, choice, [&](const auto& lap) {
    for (int k = 0; k < SpinColour; ++k) detail::smear_with(S[k], lap, params);
  });
}

} // namespace kqcd
