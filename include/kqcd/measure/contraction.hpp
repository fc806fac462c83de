// Contraction launchers (conventions.md, "Contractions"): site-local colour contractions of two
// spinor fields (QUDA's open spin form and the DeGrand-Rossi form with Gamma(n) inserted), the
// meson density of a propagator, and timeslice sums with momentum projection done on the device
// (team reductions and one atomic per team); only the Lt x 16 results come back to the host.
//
// Meson correlators: C_n(t) = sum_{x in t} exp(-i p.(x - x0)) tr[g5 S^dag g5 Gamma(n) S Gamma(n)],
// t counted from the source timeslice; at p = 0 the real part is the C_n(t) of conventions.md.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/core/tune.hpp>
#include <kqcd/fields/propagator.hpp>
#include <kqcd/kernels/contraction.hpp>

#include <algorithm>
#include <array>
#include <complex>
#include <numbers>
#include <optional>
#include <vector>

namespace kqcd {

/// Per-site results: (lexicographic site, component), complex<double>.
template <class ES> using DensityView = Kokkos::View<cplxd**, Kokkos::LayoutRight, typename ES::memory_space>;

/// A lattice momentum p_i = 2 pi n_i / L_i.
struct Momentum {
  std::array<int, 3> n{0, 0, 0}; ///< The integers n_i.
  /// Whether both have the same n.
  bool operator==(const Momentum&) const = default;
};

/// Result of a timeslice sum: value[t][component], t counted from the origin's timeslice.
using TimesliceSums = std::vector<std::vector<std::complex<double>>>;

namespace detail {
template <class Real, class ES> PropagatorSite<typename PropagatorField<Real, ES>::view_type> prop_site(const PropagatorField<Real, ES>& S, int p) {
  PropagatorSite<typename PropagatorField<Real, ES>::view_type> r;
  for (int k = 0; k < SpinColour; ++k) r.col[k] = S[k][p].view();
  return r;
}
} // namespace detail

/// Colour contraction of two full spinor fields: 16 complex numbers per site (ContractType::open:
/// index mu * 4 + nu, spins of a and b; degrand_rossi: index n of Gamma(n)).
template <class ST, class ES>
DensityView<ES> colour_contract(const SpinorField<ST, Ns, ES>& a, const SpinorField<ST, Ns, ES>& b, ContractType type) {
  if (!(a.lattice() == b.lattice())) throw invalid_argument("colour_contract: the two spinor fields live on different lattices");
  const Lattice lat = a.lattice();
  DensityView<ES> out("kqcd::contraction", lat.volume(), 16);
  using SV = typename SpinorField<ST, Ns, ES>::cb_type::view_type;
  using Real = typename ST::value_type;
  // Each site's 16 outputs depend on a and b only, so tuning trials need no backup.
  for (int p = 0; p < 2; ++p) {
    if (type == ContractType::open)
      tuned_site_launch<ES, Real>("kqcd::colour_contract_open", "", lat.to_string(), lat.cb_volume(),
                                  ColourContractFunctor<ContractType::open, SV, DensityView<ES>>{a[p].view(), b[p].view(), out, lat, p, gamma_basis});
    else
      tuned_site_launch<ES, Real>("kqcd::colour_contract_dr", "", lat.to_string(), lat.cb_volume(),
                                  ColourContractFunctor<ContractType::degrand_rossi, SV, DensityView<ES>>{a[p].view(), b[p].view(), out, lat, p, gamma_basis});
  }
  return out;
}

/// tr[g5 S^dag g5 Gamma(n) S Gamma(n)] per site, n = 0..15.
template <class Real, class ES> DensityView<ES> meson_density(const PropagatorField<Real, ES>& S) {
  const Lattice lat = S.lattice();
  DensityView<ES> out("kqcd::meson_density", lat.volume(), 16);
  using SV = typename PropagatorField<Real, ES>::view_type;
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::meson_density", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                         MesonDensityFunctor<SV, DensityView<ES>>{detail::prop_site(S, p), out, lat, p, gamma_basis});
  return out;
}

/// sum over spins and colours of |S(x)|^2 per site (one component).
template <class Real, class ES> DensityView<ES> propagator_norm_density(const PropagatorField<Real, ES>& S) {
  const Lattice lat = S.lattice();
  DensityView<ES> out("kqcd::prop_norm_density", lat.volume(), 1);
  using SV = typename PropagatorField<Real, ES>::view_type;
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::prop_norm_density", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                         PropNormFunctor<SV, DensityView<ES>>{detail::prop_site(S, p), out, lat, p});
  return out;
}

/// sum_{x in t} exp(-i p.(x - origin)) density(x, n) for every timeslice t (counted from
/// origin.x[3]) and component n, reduced on the device.
template <class ES>
TimesliceSums timeslice_sum(const DensityView<ES>& density, const Lattice& lat, const Coords& origin, const Momentum& mom = {}) {
  const int ncomp = int(density.extent(1));
  if (ncomp < 1 || ncomp > 16 || std::int64_t(density.extent(0)) != lat.volume())
    throw invalid_argument("timeslice_sum: density has " + std::to_string(density.extent(0)) + " sites and " +
                           std::to_string(ncomp) + " components, expected the lattice volume and 1..16");
  ProfileScope prof("kqcd::timeslice_sum");
  auto compute = std::optional<ProfileScope::Phase>(std::in_place, prof, ProfilePhase::compute);
  // Timeslices and momentum phases are global: a distributed lattice adds its origin, and the
  // ranks' partial sums are added up (each global timeslice is spread over the ranks holding it).
  const int Lt = lat.global_dim(3);
  using traits = ArchTraits<ES>;
  using Out = Kokkos::View<double** [2], Kokkos::LayoutRight, typename ES::memory_space>;
  Out out("kqcd::timeslice_sum", Lt, ncomp);
  const std::int64_t v3 = lat.spatial_volume();
  const int block = int(std::min<std::int64_t>(v3, 128));
  const int blocks = int((v3 + block - 1) / block);
  using Policy = Kokkos::TeamPolicy<ES>;
  using F = TimesliceSumFunctor<DensityView<ES>, Out, typename Policy::member_type>;
  F f{density, out, lat, ncomp, origin.x[3], {origin.x[0], origin.x[1], origin.x[2]}, {}, blocks, block,
      {lat.origin(0), lat.origin(1), lat.origin(2), lat.origin(3)}};
  for (int i = 0; i < 3; ++i) f.p[i] = 2.0 * std::numbers::pi * mom.n[std::size_t(i)] / lat.global_dim(i);
  Kokkos::parallel_for("kqcd::timeslice_sum", Policy(lat.dim(3) * blocks, std::min(traits::max_team_size, block)), f);
  compute.reset();
  auto d2h = prof.phase(ProfilePhase::d2h);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  comm::sum_in_place(lat, h.data(), int(h.size()));
  TimesliceSums r(std::size_t(Lt), std::vector<std::complex<double>>(std::size_t(ncomp), 0.0));
  for (int t = 0; t < Lt; ++t)
    for (int n = 0; n < ncomp; ++n) r[std::size_t(t)][std::size_t(n)] = {h(t, n, 0), h(t, n, 1)};
  return r;
}

/// Meson correlators of all 16 Gamma(n) for each momentum: result[m][t][n] (complex; at zero
/// momentum the real part is C_n(t) of conventions.md). The source sits at `source`.
template <class Real, class ES>
std::vector<TimesliceSums> meson_correlators(const PropagatorField<Real, ES>& S, const Coords& source,
                                             const std::vector<Momentum>& momenta = {Momentum{}}) {
  ProfileScope prof("kqcd::meson_correlators");
  auto compute = prof.phase(ProfilePhase::compute);
  const auto density = meson_density(S);
  std::vector<TimesliceSums> r;
  for (const auto& m : momenta) r.push_back(timeslice_sum<ES>(density, S.lattice(), source, m));
  return r;
}

/// sum_x |S(x)|^2 per timeslice (counted from source.x[3]).
template <class Real, class ES> std::vector<double> propagator_correlator(const PropagatorField<Real, ES>& S, const Coords& source) {
  const auto sums = timeslice_sum<ES>(propagator_norm_density(S), S.lattice(), source);
  std::vector<double> r;
  for (const auto& row : sums) r.push_back(row[0].real());
  return r;
}

/// The residual mass of domain-wall fermions (conventions.md): m_res(t) = sum_x |S_mid|^2 / sum_x |S|^2
/// per timeslice, and its plateau average over t0 = Lt/4 .. t1 = Lt - Lt/4.
struct ResidualMass {
  std::vector<double> by_t; ///< m_res(t), t counted from the source timeslice.
  double plateau = 0; ///< The average of by_t over t0 .. t1.
  /// The plateau window.
  ///@{
  int t0 = 0, t1 = 0;
  ///@}
};
/// The residual mass from the timeslice sums of |S_mid|^2 (midpoint) and |S|^2 (quark): propagator_correlator's.
inline ResidualMass residual_mass(const std::vector<double>& midpoint, const std::vector<double>& quark) {
  ResidualMass m;
  for (std::size_t t = 0; t < quark.size(); ++t) m.by_t.push_back(midpoint[t] / quark[t]);
  const int Lt = int(quark.size());
  m.t0 = Lt / 4;
  m.t1 = Lt - Lt / 4;
  for (int t = m.t0; t <= m.t1; ++t) m.plateau += m.by_t[std::size_t(t)];
  m.plateau /= double(m.t1 - m.t0 + 1);
  return m;
}
/// The residual mass of the midpoint and quark propagators of a source at `source`.
template <class Real, class ES>
ResidualMass residual_mass(const PropagatorField<Real, ES>& midpoint, const PropagatorField<Real, ES>& S, const Coords& source) {
  return residual_mass(propagator_correlator(midpoint, source), propagator_correlator(S, source));
}

} // namespace kqcd
