// The links of the improved staggered actions, built on the device from a gauge field as MILC defines
// them (milc_qcd generic_ks/imp_actions/: asqtad_action.h, hisq/hisq_u3_action.h):
//   asqtad: fat = fat7 + Lepage with tadpole factors, long = Naik, both from the thin links;
//   HISQ:   V = fat7 of the thin links, W = V (V^dag V)^(-1/2) (U(3) projection), then fat = fat7 +
//           2 x Lepage and long = Naik (1 + epsilon), both from W, the one-link term + epsilon/8.
// MILC folds the staggered and boundary phases into the thin links before smearing, so its path
// coefficients (FatLinkCoefficients holds them as MILC writes them) carry the sign of the phases
// around each path. kqcd's links stay unphased (the stencil applies eta_mu(x) and the boundary
// phases, conventions.md): a path enclosing an odd number of plaquettes (the 3- and the 7-link
// staple) enters with the opposite sign. The user's field is never changed. On a distributed lattice
// the paths run on an extended field (comm/extended_field.hpp) two (asqtad) or three (HISQ) sites deep.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/kernels/fat_links.hpp>

#include <cmath>
#include <optional>
#include <string>

namespace kqcd {

/// The staggered discretisations: naive (thin links), asqtad and HISQ.
enum class StaggeredAction { naive, asqtad, hisq };

/// "staggered" (naive), "asqtad" or "hisq"; throws invalid_argument otherwise.
inline StaggeredAction parse_staggered_action(const std::string& name) {
  if (name == "staggered" || name == "naive") return StaggeredAction::naive;
  if (name == "asqtad") return StaggeredAction::asqtad;
  if (name == "hisq") return StaggeredAction::hisq;
  throw invalid_argument("staggered action '" + name + "': expected staggered, asqtad or hisq");
}

/// The name parse_staggered_action reads.
inline const char* to_string(StaggeredAction a) {
  switch (a) {
  case StaggeredAction::naive: return "staggered";
  case StaggeredAction::asqtad: return "asqtad";
  case StaggeredAction::hisq: return "hisq";
  }
  return "?";
}

/// Coefficients of one level of smearing, each the weight of one path as MILC's path tables give it
/// (for links with the phases folded in), tadpole factors included.
struct FatLinkCoefficients {
  double one_link = 0; ///< U_mu(x)
  double naik = 0;     ///< U_mu(x) U_mu(x+mu) U_mu(x+2mu), the long link
  double staple3 = 0;  ///< each 3-link staple (6 per link)
  double staple5 = 0;  ///< each 5-link staple (24)
  double staple7 = 0;  ///< each 7-link staple (48)
  double lepage = 0;   ///< each 5-link Lepage path, two steps out in one direction (6)
};

/// asqtad (asqtad_action.h): the coefficients divided by u0 to the path length minus one.
inline FatLinkCoefficients asqtad_coefficients(double u0) {
  if (!(u0 > 0) || !std::isfinite(u0)) throw invalid_argument("asqtad links: the tadpole factor u0 must be positive, found " + std::to_string(u0));
  const double u2 = 1 / (u0 * u0), u4 = u2 * u2, u6 = u4 * u2;
  return {1.0 / 8 + 6.0 / 16 + 1.0 / 8, -1.0 / 24 * u2, -1.0 / 16 * u2, 1.0 / 64 * u4, -1.0 / 384 * u6, -1.0 / 16 * u4};
}

/// HISQ's first level (fat7, hisq_u3_action.h's path_coeff_1).
inline FatLinkCoefficients hisq_first_level_coefficients() { return {1.0 / 8, 0.0, -1.0 / 16, 1.0 / 64, -1.0 / 384, 0.0}; }

/// HISQ's second level on the U(3)-projected links (path_coeff_2: fat7 + 2 x Lepage + Naik), with the
/// Naik term's epsilon correction (path_coeff_3 times epsilon: + epsilon/8 one-link, - epsilon/24 Naik).
inline FatLinkCoefficients hisq_second_level_coefficients(double naik_epsilon) {
  if (!std::isfinite(naik_epsilon)) throw invalid_argument("HISQ links: the Naik epsilon must be a finite number");
  return {1.0 / 8 + 2 * 6.0 / 16 + 1.0 / 8 + naik_epsilon / 8, -(1 + naik_epsilon) / 24, -1.0 / 16, 1.0 / 64, -1.0 / 384, -2.0 / 16};
}

/// What the links are built for.
struct StaggeredLinkParams {
  StaggeredAction action = StaggeredAction::asqtad; ///< The discretisation.
  double u0 = 1.0;                                  ///< asqtad's tadpole factor (HISQ has none: must be 1).
  double naik_epsilon = 0.0;                        ///< HISQ's Naik correction for heavy quarks (asqtad: must be 0).
};

/// Fat (one-hop) and long (three-hop, Naik) links of a staggered action, unphased, in double.
template <class ES = Kokkos::DefaultExecutionSpace> struct StaggeredLinks {
  using gauge_type = GaugeField<Kokkos::complex<double>, ES>; ///< The links' container.
  gauge_type fat;              ///< V_mu(x)
  gauge_type lng;              ///< W_mu(x) (naive staggered: none)
  StaggeredLinkParams params;  ///< What they were built for.
  /// Whether there are long links.
  bool has_long() const { return params.action != StaggeredAction::naive; }
  /// The long links, or nullptr (what the staggered operators take).
  const gauge_type* long_links() const { return has_long() ? &lng : nullptr; }
};

namespace detail {
/// fat (and lng where given) = the paths of c over the links y, all on one single-rank lattice.
template <class ES>
void fatten(const GaugeField<Kokkos::complex<double>, ES>& y, const FatLinkCoefficients& c, GaugeField<Kokkos::complex<double>, ES>& fat,
            GaugeField<Kokkos::complex<double>, ES>* lng) {
  using GView = typename CBGaugeField<Kokkos::complex<double>, ES>::view_type;
  using traits = ArchTraits<ES>;
  using SView = Kokkos::View<Kokkos::complex<double>* [2][Nc][Nc], typename traits::gauge_layout, typename traits::memory_space>;
  const Lattice& lat = y.lattice();
  const int n = lat.cb_volume();
  const auto policy = Kokkos::RangePolicy<ES>(0, n);
  const LinkReader<GView> ry{{y[0].view(), y[1].view()}, lat};
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_for("kqcd::fat_links_straight", policy,
                         StraightLinksFunctor<GView, GView>{ry, fat[p].view(), lng ? (*lng)[p].view() : GView(), p, c.one_link, c.naik});
  // Unphased weights: the 3- and 7-link staples enclose an odd number of plaquettes.
  const double w3 = -c.staple3, w5 = c.staple5, w7 = -c.staple7, wl = c.lepage;
  if (w3 == 0 && w5 == 0 && w7 == 0 && wl == 0) return;
  SView s3[2] = {SView("fat_staple3_even", n), SView("fat_staple3_odd", n)};
  SView s5[2] = {SView("fat_staple5_even", n), SView("fat_staple5_odd", n)};
  const LinkReader<SView> r3{{s3[0], s3[1]}, lat}, r5{{s5[0], s5[1]}, lat};
  using FromY = DisplacedLinkFunctor<GView, GView, SView, GView>;
  using FromS = DisplacedLinkFunctor<GView, SView, SView, GView>;
  for (int mu = 0; mu < Nd; ++mu)
    for (int nu = 0; nu < Nd; ++nu) {
      if (nu == mu) continue;
      // 3-link staples, forward (slot 0) and backward (slot 1) apart for the Lepage paths.
      for (int p = 0; p < 2; ++p)
        Kokkos::parallel_for("kqcd::fat_links_staple3", policy,
                             FromY{ry, ry, s3[p], fat[p].view(), p, mu, nu, 1u << mu, 1u << mu, true, w3});
      if (wl != 0)
        for (int p = 0; p < 2; ++p)
          Kokkos::parallel_for("kqcd::fat_links_lepage", policy, FromS{ry, r3, SView(), fat[p].view(), p, mu, nu, 1u, 2u, false, wl});
      if (w5 == 0 && w7 == 0) continue;
      for (int rho = 0; rho < Nd; ++rho) {
        if (rho == mu || rho == nu) continue;
        for (int p = 0; p < 2; ++p)
          Kokkos::parallel_for("kqcd::fat_links_staple5", policy, FromS{ry, r3, s5[p], fat[p].view(), p, mu, rho, 3u, 3u, false, w5});
        if (w7 == 0) continue;
        const int sigma = 6 - mu - nu - rho; // the one direction left
        for (int p = 0; p < 2; ++p)
          Kokkos::parallel_for("kqcd::fat_links_staple7", policy, FromS{ry, r5, SView(), fat[p].view(), p, mu, sigma, 1u, 1u, false, w7});
      }
    }
}
} // namespace detail

/// Checks the parameters against the action: u0 > 0 (and 1 for HISQ), epsilon finite (and 0 unless HISQ).
inline void check_staggered_link_params(const StaggeredLinkParams& p) {
  if (!(p.u0 > 0) || !std::isfinite(p.u0)) throw invalid_argument("staggered links: u0 must be positive, found " + std::to_string(p.u0));
  if (!std::isfinite(p.naik_epsilon)) throw invalid_argument("staggered links: the Naik epsilon must be a finite number");
  if (p.action != StaggeredAction::asqtad && p.u0 != 1.0)
    throw invalid_argument(std::string("staggered links: u0 is asqtad's tadpole factor; ") + to_string(p.action) + " takes none (found u0 = " +
                           std::to_string(p.u0) + ")");
  if (p.action != StaggeredAction::hisq && p.naik_epsilon != 0.0)
    throw invalid_argument(std::string("staggered links: the Naik epsilon is HISQ's; ") + to_string(p.action) + " takes none (found " +
                           std::to_string(p.naik_epsilon) + ")");
}

/// The fat and long links of action p.action from the thin links u (any precision; u is unchanged).
template <class GT, class ES> StaggeredLinks<ES> make_staggered_links(const GaugeField<GT, ES>& u, const StaggeredLinkParams& p) {
  check_staggered_link_params(p);
  using G = GaugeField<Kokkos::complex<double>, ES>;
  ProfileScope prof("kqcd::staggered_links");
  const Lattice& lat = u.lattice();
  StaggeredLinks<ES> links{G(lat, "fat_links"), G(), p};
  G thin(lat, "thin_links");
  convert_gauge(thin, u);
  if (p.action == StaggeredAction::naive) {
    links.fat = thin;
    return links;
  }
  links.lng = G(lat, "long_links");
  // The paths reach two sites from the link (Lepage, Naik); HISQ's second level reads first-level
  // links up to two sites away, each built from links one site further.
  const LatticeExtension ext(lat, p.action == StaggeredAction::hisq ? 3 : 2);
  const bool distributed = lat.distributed();
  const G y = distributed ? ext.extend(thin) : thin;
  G fat = distributed ? G(ext.extended(), "fat_links_ext") : links.fat;
  G lng = distributed ? G(ext.extended(), "long_links_ext") : links.lng;
  if (p.action == StaggeredAction::asqtad) detail::fatten(y, asqtad_coefficients(p.u0), fat, &lng);
  else {
    G w(ext.extended(), "hisq_w");
    detail::fatten(y, hisq_first_level_coefficients(), w, static_cast<G*>(nullptr));
    for (int q = 0; q < 2; ++q)
      Kokkos::parallel_for("kqcd::hisq_project_u3", Kokkos::RangePolicy<ES>(0, ext.extended().cb_volume()),
                           ProjectU3Functor<typename G::cb_type::view_type>{w[q].view(), w[q].view()});
    detail::fatten(w, hisq_second_level_coefficients(p.naik_epsilon), fat, &lng);
  }
  if (distributed) {
    ext.extract(fat, links.fat);
    ext.extract(lng, links.lng);
  }
  return links;
}

} // namespace kqcd
