// Link smearing launchers (conventions.md, "Smearing"): APE, stout and HYP, any number of steps.
// Every step reads only the previous step's field and writes a new one; the input is never changed.
// APE and stout act over all four directions or the spatial ones (then temporal links are copied and
// only spatial staples enter); HYP is defined over all four directions.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/core/tune.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/smear.hpp>

#include <optional>
#include <string>
#include <utility>

namespace kqcd {

/// Link smearing methods.
enum class SmearMethod { ape, stout, hyp };

/// Parameters of link smearing (APE, stout, HYP).
struct SmearParams {
  SmearMethod method = SmearMethod::ape; ///< The method.
  int steps = 1; ///< Smearing steps.
  double ape_c = 1.0;                 ///< APE: coefficient c of the original link
  double rho = 0.1;                   ///< stout
  double hyp[3] = {0.75, 0.6, 0.3};   ///< HYP: a1, a2, a3
  bool spatial_only = false;          ///< APE, stout: smear spatial links with spatial staples only
  ProjectionParams projection{}; ///< SU(3) projection parameters.
};

/// "ape", "stout" or "hyp"; throws invalid_argument otherwise.
inline SmearMethod parse_smear_method(const std::string& name) {
  if (name == "ape") return SmearMethod::ape;
  if (name == "stout") return SmearMethod::stout;
  if (name == "hyp") return SmearMethod::hyp;
  throw invalid_argument("smearing method '" + name + "': expected ape, stout or hyp");
}

namespace detail {
template <class GT, class ES, class Rule>
void link_update_step(const GaugeField<GT, ES>& in, GaugeField<GT, ES>& out, unsigned update_mask, unsigned staple_mask,
                      const Rule& rule, const char* label) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  const LinkReader<View> reader{{in[0].view(), in[1].view()}, in.lattice()};
  // out and in are distinct, so tuning trials need no backup.
  for (int p = 0; p < 2; ++p)
    tuned_site_launch<ES, typename GT::value_type>(label, "", in.lattice().to_string(), in.lattice().cb_volume(),
                                                   LinkUpdateFunctor<View, Rule>{reader, out[p].view(), p, update_mask,
                                                                                 staple_mask, rule});
}

template <class GT, class ES> void hyp_step(const GaugeField<GT, ES>& in, GaugeField<GT, ES>& out, const SmearParams& sp) {
  using GView = typename CBGaugeField<GT, ES>::view_type;
  using traits = ArchTraits<ES>;
  using BView = Kokkos::View<GT* [12][Nc][Nc], typename traits::gauge_layout, typename traits::memory_space>;
  const Lattice& lat = in.lattice();
  const int n = lat.cb_volume();
  BView vbar[2] = {BView("hyp_vbar_even", n), BView("hyp_vbar_odd", n)};
  BView vtil[2] = {BView("hyp_vtil_even", n), BView("hyp_vtil_odd", n)};
  const LinkReader<GView> u{{in[0].view(), in[1].view()}, lat};
  const LinkReader<BView> none{{BView(), BView()}, lat};
  const LinkReader<BView> rbar{{vbar[0], vbar[1]}, lat}, rtil{{vtil[0], vtil[1]}, lat};
  using F = HypLevelFunctor<GView, BView>;
  const auto policy = Kokkos::RangePolicy<ES>(0, n);
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::hyp_level1", policy, F{u, none, vbar[p], GView(), p, 1, sp.hyp[2], sp.projection});
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::hyp_level2", policy, F{u, rbar, vtil[p], GView(), p, 2, sp.hyp[1], sp.projection});
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::hyp_level3", policy, F{u, rtil, BView(), out[p].view(), p, 3, sp.hyp[0], sp.projection});
}
} // namespace detail

/// One smearing step from `in` into `out` (distinct fields on the same single-rank lattice; smear()
/// runs the steps of a distributed lattice on an extended field).
template <class GT, class ES>
void smear_step(const GaugeField<GT, ES>& in, GaugeField<GT, ES>& out, const SmearParams& sp) {
  require_single_rank(in.lattice(), "smear_step (smear() runs a distributed lattice)");
  const unsigned mask = direction_mask(sp.spatial_only);
  switch (sp.method) {
  case SmearMethod::ape:
    detail::link_update_step(in, out, mask, mask, ApeRule{sp.ape_c, 1.0, sp.projection}, "kqcd::ape_smear");
    break;
  case SmearMethod::stout: detail::link_update_step(in, out, mask, mask, StoutRule{sp.rho}, "kqcd::stout_smear"); break;
  case SmearMethod::hyp: detail::hyp_step(in, out, sp); break;
  }
}

/// Throws unless the smearing parameters are valid.
inline void check_smear_params(const SmearParams& sp) {
  if (sp.steps < 0) throw invalid_argument("smearing steps must be >= 0, found " + std::to_string(sp.steps));
  if (sp.method == SmearMethod::hyp && sp.spatial_only)
    throw invalid_argument("HYP smearing is defined over all four directions; --dirs spatial is not supported");
  if (sp.method == SmearMethod::stout && !(sp.rho == sp.rho)) throw invalid_argument("stout rho is not a number");
  if (sp.method == SmearMethod::ape && !(sp.ape_c >= 0))
    throw invalid_argument("APE coefficient c must be >= 0, found " + std::to_string(sp.ape_c));
  if (sp.method == SmearMethod::hyp)
    for (double a : sp.hyp)
      if (!(a >= 0 && a <= 1)) throw invalid_argument("HYP parameters must lie in [0, 1], found " + std::to_string(a));
}

/// sp.steps smearing steps of u; returns the smeared field (u itself is unchanged). `each_step`, if
/// given, is called with (step, field) after every step.
template <class GT, class ES, class Callback = std::nullptr_t>
GaugeField<GT, ES> smear(const GaugeField<GT, ES>& u, const SmearParams& sp, Callback each_step = nullptr) {
  check_smear_params(sp);
  ProfileScope prof("kqcd::smear");
  auto init = std::optional<ProfileScope::Phase>(std::in_place, prof, ProfilePhase::init);
  // On a distributed lattice every step runs on an extended field of depth 1 (HYP's three levels
  // stay inside the hypercube around each link, so they too reach one site in each direction);
  // its halo is refilled before every step.
  const LatticeExtension ext(u.lattice(), 1);
  const bool distributed = u.lattice().distributed();
  GaugeField<GT, ES> a = distributed ? ext.extend(u) : GaugeField<GT, ES>(u.lattice(), "smeared_a");
  GaugeField<GT, ES> b(ext.extended(), "smeared_b");
  GaugeField<GT, ES> result = distributed ? GaugeField<GT, ES>(u.lattice(), "smeared") : a;
  if (distributed) ext.extract(a, result); // what 0 steps return
  else
    for (int p = 0; p < 2; ++p) Kokkos::deep_copy(a[p].view(), u[p].view());
  init.reset();
  auto compute = prof.phase(ProfilePhase::compute);
  for (int step = 1; step <= sp.steps; ++step) {
    if (step > 1) ext.fill_halo(a);
    smear_step(a, b, sp);
    std::swap(a, b);
    if (distributed) ext.extract(a, result);
    else result = a;
    if constexpr (!std::is_same_v<Callback, std::nullptr_t>) each_step(step, std::as_const(result));
  }
  return result;
}

} // namespace kqcd
