// Quenched gauge generation with the Wilson action (kernels/heatbath.hpp): a sweep is one heat-bath
// pass followed by n_or over-relaxation passes; a pass updates, for mu = 0..3 and parity 0, 1 in turn,
// all links of that parity and direction in parallel. Links are reunitarised after every sweep.
// Every extent must be even (otherwise a periodic neighbour can have the link's own parity).
// The result depends only on the start field, beta, n_or, the seed and the sweep index, not on the
// process grid: on a distributed lattice the passes run on an extended field of depth 1 (staples
// reach one site), only this rank's sites are updated, and the halo is refilled from the
// neighbours after every (direction, parity) sub-sweep, whose links the next one's staples read.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/kernels/heatbath.hpp>

#include <string>

namespace kqcd {

/// Parameters of quenched heat-bath updates.
struct HeatbathParams {
  double beta = 6.0; ///< The inverse coupling beta.
  int n_or = 4; ///< over-relaxation passes per sweep
  std::uint64_t seed = 1; ///< Seed of the random numbers.
};

/// Throws unless the heat-bath parameters suit the lattice.
inline void check_heatbath(const Lattice& lat, const HeatbathParams& hp) {
  for (int mu = 0; mu < Nd; ++mu)
    if (lat.dim(mu) % 2 != 0)
      throw invalid_argument("heat bath needs even extents for the checkerboard update, lattice " + lat.to_string());
  if (!(hp.beta > 0)) throw invalid_argument("beta must be positive, found " + std::to_string(hp.beta));
  if (hp.n_or < 0 || hp.n_or > 100) throw invalid_argument("over-relaxation passes must be 0..100, found " + std::to_string(hp.n_or));
}

/// Reunitarises every link of u.
template <class GT, class ES> void reunitarise(GaugeField<GT, ES>& u) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::reunitarise", Kokkos::RangePolicy<ES>(0, u.lattice().cb_volume()),
                         ReunitariseFunctor<View>{u[p].view()});
}

/// LinkUpdateFunctor F (built for the extended lattice and its parity map.ext_parity(parity)) run
/// over this rank's own sites only.
template <class F> struct InteriorLinkUpdate {
  F f; ///< The update functor of the extended lattice.
  InteriorMap map; ///< The local sites' map.
  int parity; ///< Parity of the local sites.
  /// Updates the extended site of local site s.
  KOKKOS_INLINE_FUNCTION void operator()(int s) const { f(map.ext_index(s, parity)); }
};

namespace detail {
/// One pass over all links of e (the extended field of ext; u's own field on one rank).
template <class GT, class ES>
void cm_pass(GaugeField<GT, ES>& e, const LatticeExtension& ext, const HeatbathParams& hp, std::uint32_t sweep, bool overrelax) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  const InteriorMap& map = ext.map();
  const LinkReader<View> in{{e[0].view(), e[1].view()}, map.ext};
  HeatbathRule rule{hp.beta, Philox{hp.seed}, sweep, overrelax, map.local, {}};
  for (int mu = 0; mu < Nd; ++mu) rule.shift[mu] = map.shift[mu];
  for (int mu = 0; mu < Nd; ++mu)
    for (int p = 0; p < 2; ++p) {
      const int ep = map.ext_parity(p);
      using F = LinkUpdateFunctor<View, HeatbathRule>;
      Kokkos::parallel_for(overrelax ? "kqcd::overrelax" : "kqcd::heatbath", Kokkos::RangePolicy<ES>(0, map.local.cb_volume()),
                           InteriorLinkUpdate<F>{F{in, e[ep].view(), ep, 1u << mu, 0xFu, rule}, map, p});
      ext.fill_halo(e); // the next sub-sweep's staples read these links
    }
}

/// Runs passes(e) on u's links: in place on one rank, on an extended copy otherwise.
template <class GT, class ES, class Passes> void on_extended(GaugeField<GT, ES>& u, Passes&& passes) {
  const LatticeExtension ext(u.lattice(), 1);
  if (!u.lattice().distributed()) return passes(u, ext);
  GaugeField<GT, ES> e = ext.extend(u);
  passes(e, ext);
  ext.extract(e, u);
}
} // namespace detail

/// One over-relaxation pass: keeps the Wilson action exactly (up to rounding).
template <class GT, class ES> void overrelax_pass(GaugeField<GT, ES>& u, const HeatbathParams& hp) {
  check_heatbath(u.lattice(), hp);
  detail::on_extended(u, [&](GaugeField<GT, ES>& e, const LatticeExtension& ext) { detail::cm_pass(e, ext, hp, 0, true); });
}

/// One sweep (number `sweep`, which selects the random numbers): a heat-bath pass, hp.n_or
/// over-relaxation passes, reunitarisation.
template <class GT, class ES> void heatbath_sweep(GaugeField<GT, ES>& u, const HeatbathParams& hp, std::uint32_t sweep) {
  check_heatbath(u.lattice(), hp);
  detail::on_extended(u, [&](GaugeField<GT, ES>& e, const LatticeExtension& ext) {
    detail::cm_pass(e, ext, hp, sweep, false);
    for (int k = 0; k < hp.n_or; ++k) detail::cm_pass(e, ext, hp, sweep, true);
  });
  reunitarise(u);
}

/// Start fields for generation: cold (unit links) or hot (Haar-random links from the seed).
template <class GT, class ES> void hot_start(GaugeField<GT, ES>& u, std::uint64_t seed) {
  random_gauge(u, seed ^ 0x9E3779B97F4A7C15ull); // another Philox key than the heat bath's
}

} // namespace kqcd
