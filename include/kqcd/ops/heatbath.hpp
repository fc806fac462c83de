// Quenched gauge generation with the Wilson action (kernels/heatbath.hpp): a sweep is one heat-bath
// pass followed by n_or over-relaxation passes; a pass updates, for mu = 0..3 and parity 0, 1 in turn,
// all links of that parity and direction in parallel. Links are reunitarised after every sweep.
// Every extent must be even (otherwise a periodic neighbour can have the link's own parity).
// The result depends only on the start field, beta, n_or, the seed and the sweep index.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/kernels/heatbath.hpp>

#include <string>

namespace kqcd {

struct HeatbathParams {
  double beta = 6.0;
  int n_or = 4; ///< over-relaxation passes per sweep
  std::uint64_t seed = 1;
};

inline void check_heatbath(const Lattice& lat, const HeatbathParams& hp) {
  require_single_rank(lat, "the heat bath");
  for (int mu = 0; mu < Nd; ++mu)
    if (lat.dim(mu) % 2 != 0)
      throw invalid_argument("heat bath needs even extents for the checkerboard update, lattice " + lat.to_string());
  if (!(hp.beta > 0)) throw invalid_argument("beta must be positive, found " + std::to_string(hp.beta));
  if (hp.n_or < 0 || hp.n_or > 100) throw invalid_argument("over-relaxation passes must be 0..100, found " + std::to_string(hp.n_or));
}

template <class GT, class ES> void reunitarise(GaugeField<GT, ES>& u) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::reunitarise", Kokkos::RangePolicy<ES>(0, u.lattice().cb_volume()),
                         ReunitariseFunctor<View>{u[p].view()});
}

namespace detail {
template <class GT, class ES> void cm_pass(GaugeField<GT, ES>& u, const HeatbathParams& hp, std::uint32_t sweep, bool overrelax) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  const Lattice& lat = u.lattice();
  const LinkReader<View> in{{u[0].view(), u[1].view()}, lat};
  const HeatbathRule rule{hp.beta, Philox{hp.seed}, sweep, overrelax, lat};
  for (int mu = 0; mu < Nd; ++mu)
    for (int p = 0; p < 2; ++p)
      Kokkos::parallel_for(overrelax ? "kqcd::overrelax" : "kqcd::heatbath", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                           LinkUpdateFunctor<View, HeatbathRule>{in, u[p].view(), p, 1u << mu, 0xFu, rule});
}
} // namespace detail

/// One over-relaxation pass: keeps the Wilson action exactly (up to rounding).
template <class GT, class ES> void overrelax_pass(GaugeField<GT, ES>& u, const HeatbathParams& hp) {
  check_heatbath(u.lattice(), hp);
  detail::cm_pass(u, hp, 0, true);
}

/// One sweep (number `sweep`, which selects the random numbers): a heat-bath pass, hp.n_or
/// over-relaxation passes, reunitarisation.
template <class GT, class ES> void heatbath_sweep(GaugeField<GT, ES>& u, const HeatbathParams& hp, std::uint32_t sweep) {
  check_heatbath(u.lattice(), hp);
  detail::cm_pass(u, hp, sweep, false);
  for (int k = 0; k < hp.n_or; ++k) detail::cm_pass(u, hp, sweep, true);
  reunitarise(u);
}

/// Start fields for generation: cold (unit links) or hot (Haar-random links from the seed).
template <class GT, class ES> void hot_start(GaugeField<GT, ES>& u, std::uint64_t seed) {
  random_gauge(u, seed ^ 0x9E3779B97F4A7C15ull); // another Philox key than the heat bath's
}

} // namespace kqcd
