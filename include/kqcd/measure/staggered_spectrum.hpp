// Staggered meson spectroscopy: the local meson correlators of MILC's ks_spectrum from one source
// (colour point, wall, even wall or corner wall; measure/sources.hpp), each source colour solved for
// every mass at once (staggered_multi_mass_solve, one multi-shift CG per source colour). With
// G_i = M(m_i)^-1 the propagator of mass m_i from colour a of the source,
//   C_n(t) = sum_{x in t} phi_n(x - x0) sum_a |G_i(x; a)|^2,
// t counted from the source timeslice, phi_n the sink phase of MILC's local spin-taste operator n
// (spin equal taste, no shift): pion5 (the Goldstone pion, gamma5 x gamma5) 1, pion05 (-1)^(x+y+z+t),
// rhox/rhoy/rhoz (-1)^x / (-1)^y / (-1)^z, rhox0/rhoy0/rhoz0 (-1)^(y+z) / (-1)^(x+z) / (-1)^(x+y),
// with x - x0 measured from the source origin (a wall's at x = y = z = 0). MILC normalises as here:
// no division by the volume or by the number of colours.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/solvers/staggered_solve.hpp>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace kqcd {

/// The local staggered meson channels.
inline constexpr int staggered_meson_channels = 8;
/// MILC's labels of the local staggered mesons, in the order of StaggeredMesons' channels.
inline constexpr std::array<const char*, staggered_meson_channels> staggered_meson_labels{"pion5", "pion05", "rhox", "rhoy",
                                                                                        "rhoz",  "rhox0",  "rhoy0", "rhoz0"};

/// The sink phase of local staggered meson n at displacement d from the source (any integers).
KOKKOS_INLINE_FUNCTION int staggered_meson_phase(int n, const int d[Nd]) {
  int e = 0;
  switch (n) {
  case 1: e = d[0] + d[1] + d[2] + d[3]; break;
  case 2: e = d[0]; break;
  case 3: e = d[1]; break;
  case 4: e = d[2]; break;
  case 5: e = d[1] + d[2]; break;
  case 6: e = d[0] + d[2]; break;
  case 7: e = d[0] + d[1]; break;
  default: break;
  }
  return (e & 1) ? -1 : 1;
}

/// Kernel: adds phi_n(x - x0) |G(x)|^2 of one colour-vector field to the density of every channel.
template <class View, class Density> struct StaggeredMesonDensity {
  View g;          ///< The propagator from one source colour, this parity.
  Density out;     ///< (lexicographic site, channel).
  Lattice lat;     ///< The lattice.
  int parity;      ///< Parity of the sites.
  Coords x0;       ///< The source origin (global).

  /// Site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const Coords c = lat.cb_coords(s, parity);
    double norm = 0;
    for (int a = 0; a < Nc; ++a) norm += Kokkos::real(g(s, a, 0) * Kokkos::conj(g(s, a, 0)));
    int d[Nd];
    for (int mu = 0; mu < Nd; ++mu) d[mu] = c.x[mu] + lat.origin(mu) - x0.x[mu];
    const auto site = lat.lex_index(c);
    for (int n = 0; n < staggered_meson_channels; ++n) out(site, n) += cplxd(staggered_meson_phase(n, d) * norm, 0);
  }
};

/// The correlators of StaggeredMesons' channels for one set of masses.
struct StaggeredMesons {
  std::vector<double> masses; ///< The masses, in the order given.
  /// correlators[i][n][t]: mass i, channel n (staggered_meson_labels), t from the source timeslice.
  std::vector<std::vector<std::vector<double>>> correlators;
  std::vector<MultiShiftResult> solves; ///< One multi-mass solve per source colour.
};

/// The local meson correlators of every mass from source `src`, solved with the staggered operator
/// handle `op` (its links and boundary phases; its mass is only the solver's base: any of `masses`).
/// `each_solve`, if given, is called with (colour, result) after each source colour's solve.
template <class Handle>
StaggeredMesons staggered_mesons(const Handle& op, const SourceSpec& src, const std::vector<double>& masses, const SolverParams& params,
                                 const std::function<void(int, const MultiShiftResult&)>& each_solve = {}) {
  using ES = typename Handle::execution_space;
  using Field = typename Handle::field_type;
  if (masses.empty()) throw invalid_argument("staggered mesons: no masses");
  ProfileScope prof("kqcd::staggered_mesons");
  const Lattice& lat = op.lattice();
  const int nm = int(masses.size());
  const int nch = staggered_meson_channels;
  std::vector<DensityView<ES>> density;
  for (int i = 0; i < nm; ++i) density.emplace_back("kqcd::staggered_meson_density", lat.volume(), nch);
  StaggeredMesons r;
  r.masses = masses;
  Field b(lat, "staggered_source");
  std::vector<Field> x;
  for (int i = 0; i < nm; ++i) x.emplace_back(lat, "staggered_propagator");
  for (int a = 0; a < Nc; ++a) {
    make_source(b, src, 0, a);
    r.solves.push_back(staggered_multi_mass_solve(op, x, b, masses, params));
    if (each_solve) each_solve(a, r.solves.back());
    for (int i = 0; i < nm; ++i)
      for (int p = 0; p < 2; ++p) {
        using V = typename Field::cb_type::view_type;
        Kokkos::parallel_for("kqcd::staggered_meson_density", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                             StaggeredMesonDensity<V, DensityView<ES>>{x[std::size_t(i)][p].view(), density[std::size_t(i)], lat, p, src.origin});
      }
  }
  for (int i = 0; i < nm; ++i) {
    const TimesliceSums sums = timeslice_sum<ES>(density[std::size_t(i)], lat, src.origin);
    std::vector<std::vector<double>> c(std::size_t(nch), std::vector<double>(sums.size()));
    for (std::size_t t = 0; t < sums.size(); ++t)
      for (int n = 0; n < nch; ++n) c[std::size_t(n)][t] = sums[t][std::size_t(n)].real();
    r.correlators.push_back(std::move(c));
  }
  return r;
}

} // namespace kqcd
