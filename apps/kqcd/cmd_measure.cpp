// kqcd measure: from a gauge configuration to meson correlators. Reads (or builds) the gauge
// field, solves the 12 spin-colour columns of the Wilson propagator from one source with CG on the
// even-odd system in double precision (or multigrid GCR, --solver mg), optionally Gaussian-smears source and sink, and contracts
// the meson two-point functions of all 16 Gamma(n) (conventions.md) on the device. With --action
// staggered|asqtad|hisq: builds the staggered links, solves the three source colours for every
// mass at once (multi-shift CG) and contracts MILC's local staggered mesons. With --action
// shamir|moebius: solves the 5D domain-wall system for each column of the 4D propagator (mixed
// double-single CG on the 4D even-odd system), contracts the 16 mesons of the 4D quark field and
// the residual mass from the midpoint field.
#include "commands.hpp"
#include "gauge_summary.hpp"

#include <bench.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/staggered_links.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/io/atomic_file.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/gaussian_smear.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/measure/staggered_spectrum.hpp>
#include <kqcd/multigrid/multigrid.hpp>
#include <kqcd/solvers/propagator.hpp>
#include <kqcd/stencil/domain_wall.hpp>
#include <kqcd/stencil/operator_handle.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

namespace kqcd::cli {

namespace {
struct MeasureSettings {
  std::string action = "wilson";
  std::vector<double> masses;
  double naik_epsilon = 0;
  double u0 = 1;
  std::string config;
  std::string grid = "auto";
  std::string format = "auto";
  bool accept_bad = false;
  double kappa = 0;
  double csw = 0;
  double mu = 0;
  std::string bc;
  std::string source;
  std::string source_smear;
  std::string sink_smear;
  std::string link_smear;
  double tol = 1e-10;
  int max_iter = 10000;
  std::string momenta;
  bool json = false;
  std::string out;
  bool force = false;
  std::string layout = "auto";
  std::optional<int> Ls;
  std::optional<double> M5, b5, c5;
  std::string solver = "cg";
  std::string mg_block = "4x4x4x4";
  mg::MultigridParams mg;
};

bool parse_double(const std::string& s, double& v) {
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  return !s.empty() && ec == std::errc() && ptr == end;
}
bool parse_int(const std::string& s, int& v) {
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  return !s.empty() && ec == std::errc() && ptr == end;
}
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const auto k = text.find(sep, pos);
    parts.push_back(text.substr(pos, k == std::string::npos ? std::string::npos : k - pos));
    if (k == std::string::npos) return parts;
    pos = k + 1;
  }
}

/// "gaussian:w=W,n=N"
GaussianSmearParams parse_gaussian(const std::string& text, const char* option) {
  const auto fail = [&](const std::string& why) {
    return invalid_argument(std::string(option) + " '" + text + "': " + why + " (expected gaussian:w=W,n=N)");
  };
  if (text.rfind("gaussian:", 0) != 0) throw fail("unknown smearing kind");
  GaussianSmearParams p;
  bool have_w = false, have_n = false;
  for (const auto& kv : split(text.substr(9), ',')) {
    if (kv.rfind("w=", 0) == 0 && parse_double(kv.substr(2), p.width) && p.width >= 0) have_w = true;
    else if (kv.rfind("n=", 0) == 0 && parse_int(kv.substr(2), p.steps) && p.steps >= 0) have_n = true;
    else throw fail("bad parameter '" + kv + "'");
  }
  if (!have_w || !have_n) throw fail("both w and n are needed");
  return p;
}

/// "ape:alpha=C,steps=N" or "stout:rho=R,steps=N": spatial links with spatial staples only (the
/// links the Gaussian smearing uses); alpha is the coefficient c of the original link in
/// conventions.md's APE step U' = Proj_SU3(c U + C).
SmearParams parse_link_smear(const std::string& text) {
  const auto fail = [&](const std::string& why) {
    return invalid_argument("--link-smear '" + text + "': " + why + " (expected ape:alpha=C,steps=N or stout:rho=R,steps=N)");
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw fail("no ':' after the method");
  const std::string method = text.substr(0, colon);
  SmearParams p;
  p.spatial_only = true;
  if (method == "ape") p.method = SmearMethod::ape;
  else if (method == "stout") p.method = SmearMethod::stout;
  else throw fail("unknown method '" + method + "'");
  bool have_coef = false, have_steps = false;
  for (const auto& kv : split(text.substr(colon + 1), ',')) {
    if (method == "ape" && kv.rfind("alpha=", 0) == 0 && parse_double(kv.substr(6), p.ape_c)) have_coef = true;
    else if (method == "stout" && kv.rfind("rho=", 0) == 0 && parse_double(kv.substr(4), p.rho)) have_coef = true;
    else if (kv.rfind("steps=", 0) == 0 && parse_int(kv.substr(6), p.steps) && p.steps >= 0) have_steps = true;
    else throw fail("bad parameter '" + kv + "'");
  }
  if (!have_coef || !have_steps) throw fail(method == "ape" ? "both alpha and steps are needed" : "both rho and steps are needed");
  check_smear_params(p);
  return p;
}

/// "PX,PY,PZ;PX,PY,PZ;..."
std::vector<Momentum> parse_momenta(const std::string& text) {
  std::vector<Momentum> r;
  for (const auto& m : split(text, ';')) {
    const auto c = split(m, ',');
    Momentum p;
    bool ok = c.size() == 3;
    for (std::size_t i = 0; ok && i < 3; ++i) ok = parse_int(c[i], p.n[i]);
    if (!ok) throw invalid_argument("momenta '" + text + "': '" + m + "' is not PX,PY,PZ (integers, p_i = 2 pi PX / L_i)");
    r.push_back(p);
  }
  return r;
}

using Gauge = GaugeField<Kokkos::complex<double>>;

/// The configuration on the process grid (one rank: the whole lattice); grid outlives the field.
Gauge load_measure_gauge(const MeasureSettings& s, std::unique_ptr<ProcessGrid>& grid) {
  if (s.config.rfind("unit:", 0) == 0) {
    grid = std::make_unique<ProcessGrid>(parse_lattice(s.config.substr(5)), parse_grid(s.grid));
    Gauge u(grid->lattice());
    unit_gauge(u);
    return u;
  }
  GaugeReadOptions options;
  options.format = parse_gauge_format(s.format);
  options.accept_bad = s.accept_bad;
  LoadedGauge loaded = load_gauge(s.config, options, s.grid);
  grid = std::move(loaded.grid);
  return loaded.u;
}

/// Writes j to --out (atomically, on the root rank) and prints it with --json; returns whether the
/// text output is wanted instead.
bool emit_json(const MeasureSettings& s, const nlohmann::json& j) {
  if (!s.out.empty()) detail::on_root([&] { write_file_atomically(s.out, j.dump(2) + "\n", s.force); });
  if (s.json) std::cout << std::setprecision(17) << j.dump(2) << "\n";
  return !s.json;
}

/// The exit code: 1, with a message on the root rank, unless every solve converged.
int exit_code(bool all_converged, const MeasureSettings& s, bool root) {
  if (all_converged) return 0;
  if (root) std::fprintf(stderr, "kqcd: error: not every solve converged to --tol %.3e\n", s.tol);
  return 1;
}

/// kqcd measure --action staggered|asqtad|hisq.
int run_staggered_measure(const MeasureSettings& s) {
  const StaggeredAction action = parse_staggered_action(s.action);
  if (s.kappa != 0 || s.csw != 0 || s.mu != 0)
    throw invalid_argument("--kappa, --csw and --mu belong to the Wilson-type operators; --action " + s.action + " takes --mass");
  if (!s.source_smear.empty() || !s.sink_smear.empty() || !s.link_smear.empty() || !s.momenta.empty())
    throw invalid_argument("--source-smear, --sink-smear, --link-smear and --momenta belong to the Wilson-type measurement, not to --action " + s.action);
  if (s.masses.empty()) throw invalid_argument("--action " + s.action + " needs --mass M[,M...]");
  const std::vector<double>& masses = s.masses;
  const StaggeredLinkParams link_params{action, s.u0, s.naik_epsilon};
  check_staggered_link_params(link_params);
  const BoundaryPhases bc = parse_boundary_phases(s.bc);
  parse_source(s.source);
  if (!(s.tol > 0)) throw invalid_argument("--tol must be positive, found " + std::to_string(s.tol));

  std::unique_ptr<ProcessGrid> grid;
  const Gauge u = load_measure_gauge(s, grid);
  const Lattice global(u.lattice().global_dims());
  const bool root = grid->rank() == 0;
  const SourceSpec src = parse_source(s.source, &u.lattice());
  const auto links = make_staggered_links(u, link_params);
  const PlaquetteValues fat_plaq = plaquette(links.fat);
  // The solver's operator: the lightest mass is the multi-shift base system.
  const double base = *std::min_element(masses.begin(), masses.end());
  const auto A = make_staggered_operator<double>(links.fat, bc, base, links.long_links(), parse_layout_choice(s.layout));
  SolverParams params;
  params.tol = s.tol;
  params.max_iter = s.max_iter;
  params.label = "measure";
  bool all_converged = true;
  const StaggeredMesons m = staggered_mesons(A, src, masses, params, [&](int colour, const MultiShiftResult& r) {
    all_converged = all_converged && r.converged();
    if (!root) return;
    std::fprintf(stderr, "kqcd: colour %d/3: %d shared iterations", colour + 1, r.iterations);
    for (std::size_t i = 0; i < r.shifts.size(); ++i)
      std::fprintf(stderr, "; m = %g: %s, +%d, true residual %.3e", masses[i], r.shifts[i].converged() ? "converged" : to_string(r.shifts[i].status),
                   r.shifts[i].iterations, r.shifts[i].true_residual);
    std::fprintf(stderr, "\n");
  });

  nlohmann::json j;
  j["lattice"] = global.dims();
  j["config"] = s.config;
  j["action"] = to_string(action);
  j["masses"] = masses;
  j["u0"] = s.u0;
  j["naik_epsilon"] = s.naik_epsilon;
  j["bc"] = s.bc;
  j["layout"] = A.layout_name();
  j["source"] = {{"text", src.text}, {"kind", to_string(src.kind)}, {"origin", {src.origin.x[0], src.origin.x[1], src.origin.x[2], src.origin.x[3]}}};
  j["fat_plaquette"] = {{"total", fat_plaq.total}, {"spatial", fat_plaq.spatial}, {"temporal", fat_plaq.temporal}};
  nlohmann::json per_mass = nlohmann::json::array();
  for (std::size_t i = 0; i < masses.size(); ++i) {
    nlohmann::json c;
    for (std::size_t n = 0; n < staggered_meson_labels.size(); ++n) c[staggered_meson_labels[n]] = m.correlators[i][n];
    per_mass.push_back({{"mass", masses[i]}, {"correlators", c}});
  }
  j["mesons"] = per_mass;
  nlohmann::json solves = nlohmann::json::array();
  for (std::size_t a = 0; a < m.solves.size(); ++a) {
    nlohmann::json shifts = nlohmann::json::array();
    for (std::size_t i = 0; i < masses.size(); ++i) {
      const SolverResult& r = m.solves[a].shifts[i];
      shifts.push_back({{"mass", masses[i]}, {"refinement_iterations", r.iterations}, {"true_residual", r.true_residual}, {"converged", r.converged()}});
    }
    solves.push_back({{"colour", int(a)}, {"iterations", m.solves[a].iterations}, {"masses", shifts}});
  }
  j["solver"] = solves;
  j["provenance"] = bench::provenance_json();

  if (emit_json(s, j)) {
    std::printf("%s: lattice %s, %s, source %s, fat-link plaquette %.12f\n", s.config.c_str(), global.to_string().c_str(),
                to_string(action), src.text.c_str(), fat_plaq.total);
    std::printf("%3s", "t");
    for (double mass : masses) std::printf(" %22s", ("pion5 m=" + std::to_string(mass)).c_str());
    std::printf("\n");
    for (int t = 0; t < global.dim(3); ++t) {
      std::printf("%3d", t);
      for (std::size_t i = 0; i < masses.size(); ++i) std::printf(" %22.15e", m.correlators[i][0][std::size_t(t)]);
      std::printf("\n");
    }
  }
  return exit_code(all_converged, s, root);
}

/// The domain-wall parameters of --action shamir|moebius (checked), or none for the other actions
/// (which refuse the domain-wall options).
std::optional<DomainWallParams> domain_wall_params(const MeasureSettings& s) {
  const bool dwf = s.action == "shamir" || s.action == "moebius";
  if (!dwf) {
    if (s.Ls || s.M5 || s.b5 || s.c5) throw invalid_argument("--Ls, --M5, --b5 and --c5 belong to --action shamir|moebius");
    return std::nullopt;
  }
  if (s.kappa != 0 || s.csw != 0 || s.mu != 0)
    throw invalid_argument("--kappa, --csw and --mu belong to the Wilson-type operators; --action " + s.action + " takes --mass");
  if (s.naik_epsilon != 0 || s.u0 != 1) throw invalid_argument("--naik-epsilon and --u0 belong to --action staggered|asqtad|hisq");
  if (s.masses.size() != 1) throw invalid_argument("--action " + s.action + " needs one quark mass --mass M (m_f)");
  if (!s.Ls) throw invalid_argument("--action " + s.action + " needs --Ls (slices of the fifth dimension)");
  if (s.action == "shamir" && (s.b5 || s.c5)) throw invalid_argument("--b5 and --c5 belong to --action moebius (Shamir: b5 = 1, c5 = 0)");
  DomainWallParams p;
  p.Ls = *s.Ls;
  p.M5 = s.M5.value_or(1.8);
  p.b5 = s.b5.value_or(s.action == "moebius" ? 1.5 : 1.0);
  p.c5 = s.c5.value_or(s.action == "moebius" ? 0.5 : 0.0);
  p.mf = s.masses[0];
  p.check();
  return p;
}

int run_measure(const MeasureSettings& s) {
  if (s.solver == "mg" && s.action != "wilson")
    throw invalid_argument("--solver mg solves the Wilson-type operators (--action wilson), not --action " + s.action);
  const std::optional<DomainWallParams> dwf = domain_wall_params(s);
  if (s.action != "wilson" && !dwf) return run_staggered_measure(s);
  if (!dwf && (!s.masses.empty() || s.naik_epsilon != 0 || s.u0 != 1))
    throw invalid_argument("--mass, --naik-epsilon and --u0 belong to --action staggered|asqtad|hisq|shamir|moebius; the Wilson-type operators take --kappa");
  if (!dwf && s.kappa == 0) throw invalid_argument("--kappa is required for the Wilson-type operators (--action wilson)");
  // Everything that can be checked without the configuration first.
  if (!std::isfinite(s.csw)) throw invalid_argument("--csw must be a finite number");
  if (!std::isfinite(s.mu)) throw invalid_argument("--mu must be a finite number");
  SmearParams link_smear;
  link_smear.steps = 0;
  if (!s.link_smear.empty()) link_smear = parse_link_smear(s.link_smear);
  const BoundaryPhases bc = parse_boundary_phases(s.bc);
  const double mass = dwf ? dwf->mf : wilson_mass_from_kappa(s.kappa);
  GaussianSmearParams src_smear, snk_smear;
  if (!s.source_smear.empty()) src_smear = parse_gaussian(s.source_smear, "--source-smear");
  if (!s.sink_smear.empty()) snk_smear = parse_gaussian(s.sink_smear, "--sink-smear");
  std::vector<Momentum> momenta;
  if (!s.momenta.empty()) momenta = parse_momenta(s.momenta);
  parse_source(s.source); // syntax, before reading the file
  if (!(s.tol > 0)) throw invalid_argument("--tol must be positive, found " + std::to_string(s.tol));
  // --solver mg: multigrid of the Wilson-type operators on the plain layout, its aggregates within each rank.
  const bool multigrid = s.solver == "mg";
  mg::MultigridParams mg_params = s.mg;
  if (multigrid) {
    if (s.layout == "simd") throw invalid_argument("--solver mg runs on the scalar layout (--layout auto or scalar)");
    mg_params.block = parse_mg_block(s.mg_block);
  }

  std::unique_ptr<ProcessGrid> grid;
  const Gauge u = load_measure_gauge(s, grid);
  const Lattice lat = u.lattice();
  const Lattice global(lat.global_dims());
  const bool root = grid->rank() == 0;
  // Links for the quark smearing: the configuration's, or smeared ones.
  const Gauge us = link_smear.steps > 0 ? smear(u, link_smear) : u;
  const SourceSpec src = parse_source(s.source, &lat);

  PropagatorField<double> S(lat);
  SolverParams params;
  params.tol = s.tol;
  params.max_iter = s.max_iter;
  params.label = "measure";
  int done = 0;
  bool all_converged = true;
  auto source = [&](auto& b, int spin, int colour) {
    make_source(b, src, spin, colour);
    gaussian_smear(b, us, src_smear);
  };
  auto on_solve = [&](int spin, int colour, const SolverResult& r) {
    ++done;
    all_converged = all_converged && r.converged();
    if (root) std::fprintf(stderr, "kqcd: solve %2d/12 (spin %d, colour %d): %s, %d iterations, true residual %.3e, %.3f s\n", done,
                           spin, colour, r.converged() ? "converged" : to_string(r.status), r.iterations, r.true_residual, r.seconds);
  };
  // The operator: Wilson, Wilson-clover (--csw), twisted mass (--mu) or twisted clover (both).
  auto solve = [&](const auto& op) { return solve_propagator(op, S, source, params, on_solve); };
  // On the layout --layout asks for: by default the lanes where this rank's lattice splits into the
  // double-precision ones (dimensions partitioned over ranks are not split), else the plain layout.
  const LayoutChoice layout = parse_layout_choice(s.layout);
  std::vector<SolverResult> results;
  std::string layout_name;
  auto solve_with = [&](const auto& D) {
    layout_name = D.layout_name();
    results = solve(D);
  };
  using ES = Kokkos::DefaultExecutionSpace;
  // Multigrid: the setup once (the cycle in single precision, smoothing on the Schur complement),
  // then flexible GCR in double on each even-odd system.
  nlohmann::json mg_json;
  auto solve_multigrid = [&]<class Term, class SingleTerm>(const auto&... args) {
    GaugeField<Kokkos::complex<float>, ES> uf(lat);
    convert_gauge(uf, u);
    const PlainEvenOddOperator<Term> eo(u, bc, args...);
    const PlainFullOperator<SingleTerm> opf(uf, bc, args...);
    const PlainEvenOddOperator<SingleTerm> eof(uf, bc, args...);
    mg::MultigridParams p = mg_params;
    p.verbosity = root ? 1 : 0;
    std::optional<mg::Multigrid<decltype(opf), decltype(eof)>> setup;
    const double setup_s = bench::fenced_seconds<ES>([&] { setup.emplace(opf, eof, uf, bc, p); });
    const auto& cycle = *setup;
    if (root) std::fprintf(stderr, "kqcd: multigrid setup %.3f s\n", setup_s);
    layout_name = "scalar";
    results = solve_propagator_with(
        eo, S, source, [&](auto& x, const auto& b, const SolverParams& sp) { return mg::multigrid(eo, x, b, cycle, sp); }, params, on_solve);
    mg_json = bench::multigrid_json(p);
    mg_json["setup_s"] = setup_s;
    mg_json["iterations_per_level"] = cycle.iterations_per_level();
    mg_json["coarse_even_odd_used"] = cycle.coarsest_even_odd();
  };
  // Domain wall: the midpoint field of the residual mass beside the quark field (Ls even).
  std::optional<PropagatorField<double>> S_mid;
  if (dwf) {
    GaugeField<Kokkos::complex<float>, ES> uf(lat);
    convert_gauge(uf, u);
    if (dwf->Ls % 2 == 0) S_mid.emplace(lat);
    const auto solve_dwf = [&](const auto& op, const auto& sloppy) {
      layout_name = std::remove_cvref_t<decltype(op)>::layout_type::name;
      results = solve_domain_wall_propagator(op, sloppy, S, S_mid ? &*S_mid : nullptr, source, params, on_solve);
    };
    // The lanes where both precisions of the mixed solve split this rank's lattice into them.
    const bool simd = use_simd_layout<ES>(layout, [&] { return simd_split_misfit<ES, double, float>(lat); });
    if constexpr (ArchTraits<ES>::simd_layout)
      if (simd) solve_dwf(SIMDDomainWallOperator<double, ES>(u, bc, *dwf), SIMDDomainWallOperator<float, ES>(uf, bc, *dwf));
    if (!simd) solve_dwf(DomainWallOperator<double, ES>(u, bc, *dwf), DomainWallOperator<float, ES>(uf, bc, *dwf));
  } else if (multigrid) {
    if (s.csw == 0.0 && s.mu == 0.0) solve_multigrid.template operator()<WilsonMassTerm<double, ES>, WilsonMassTerm<float, ES>>(mass);
    else if (s.mu == 0.0) solve_multigrid.template operator()<CloverTerm<double, ES>, CloverTerm<float, ES>>(mass, s.csw);
    else if (s.csw == 0.0) solve_multigrid.template operator()<TwistedMassTerm<double, ES>, TwistedMassTerm<float, ES>>(mass, s.mu);
    else solve_multigrid.template operator()<TwistedCloverTerm<double, ES>, TwistedCloverTerm<float, ES>>(mass, s.csw, s.mu);
  } else if (s.csw == 0.0 && s.mu == 0.0) solve_with(make_even_odd_operator<WilsonMassTerm<double, ES>>(layout, u, bc, mass));
  else if (s.mu == 0.0) solve_with(make_even_odd_operator<CloverTerm<double, ES>>(layout, u, bc, mass, s.csw));
  else if (s.csw == 0.0) solve_with(make_even_odd_operator<TwistedMassTerm<double, ES>>(layout, u, bc, mass, s.mu));
  else solve_with(make_even_odd_operator<TwistedCloverTerm<double, ES>>(layout, u, bc, mass, s.csw, s.mu));
  gaussian_smear(S, us, snk_smear);

  std::vector<Momentum> all{Momentum{}};
  all.insert(all.end(), momenta.begin(), momenta.end());
  const auto corr = meson_correlators(S, src.origin, all);
  const auto prop_corr = propagator_correlator(S, src.origin);
  const int Lt = global.dim(3);

  auto table = [&](const TimesliceSums& c, bool imag) {
    nlohmann::json m = nlohmann::json::array();
    for (int n = 0; n < 16; ++n) {
      std::vector<double> row;
      for (int t = 0; t < Lt; ++t) row.push_back(imag ? c[t][n].imag() : c[t][n].real());
      m.push_back(row);
    }
    return m;
  };
  nlohmann::json j;
  j["lattice"] = global.dims();
  j["config"] = s.config;
  j["action"] = s.action;
  j["mass"] = mass;
  std::optional<ResidualMass> mres;
  if (dwf) {
    j.update({{"Ls", dwf->Ls}, {"M5", dwf->M5}, {"b5", dwf->b5}, {"c5", dwf->c5}, {"mf", dwf->mf}});
    if (S_mid) {
      mres = residual_mass(propagator_correlator(*S_mid, src.origin), prop_corr);
      j["mres_t"] = mres->by_t;
      j["mres"] = mres->plateau;
      j["mres_window"] = {mres->t0, mres->t1};
    }
  } else {
    j["kappa"] = s.kappa;
    j["csw"] = s.csw;
    j["mu"] = s.mu;
  }
  j["bc"] = s.bc;
  j["layout"] = layout_name;
  j["source"] = {{"text", src.text}, {"kind", to_string(src.kind)}, {"origin", {src.origin.x[0], src.origin.x[1], src.origin.x[2], src.origin.x[3]}}};
  j["source_smear"] = {{"w", src_smear.width}, {"n", src_smear.steps}};
  j["sink_smear"] = {{"w", snk_smear.width}, {"n", snk_smear.steps}};
  j["link_smear"] = s.link_smear;
  j["mesons"] = table(corr[0], false);
  j["prop_corr"] = prop_corr;
  nlohmann::json moms = nlohmann::json::array();
  for (std::size_t m = 1; m < all.size(); ++m)
    moms.push_back({{"p", all[m].n}, {"mesons_re", table(corr[m], false)}, {"mesons_im", table(corr[m], true)}});
  j["momenta"] = moms;
  nlohmann::json solves = nlohmann::json::array();
  for (std::size_t k = 0; k < results.size(); ++k)
    solves.push_back({{"spin", int(k) / Nc},
                      {"colour", int(k) % Nc},
                      {"iterations", results[k].iterations},
                      {"true_residual", results[k].true_residual},
                      {"converged", results[k].converged()},
                      {"seconds", results[k].seconds}});
  j["solver"] = solves;
  j["solver_method"] = multigrid ? "mg" : dwf ? "mixed cg_normal" : "cg_normal";
  if (multigrid) j["multigrid"] = mg_json;
  j["provenance"] = bench::provenance_json();

  if (emit_json(s, j)) {
    if (dwf) {
      std::printf("%s: lattice %s, %s (%s), source %s\n", s.config.c_str(), global.to_string().c_str(), s.action.c_str(),
                  dwf->to_string().c_str(), src.text.c_str());
      if (mres) std::printf("residual mass %.6e (plateau t = %d..%d)\n", mres->plateau, mres->t0, mres->t1);
    } else {
      std::printf("%s: lattice %s, kappa %.6f (m = %.6f), c_sw %.6f, mu %.6f, source %s\n", s.config.c_str(),
                  global.to_string().c_str(), s.kappa, mass, s.csw, s.mu, src.text.c_str());
    }
    std::printf("%3s %22s %22s %22s\n", "t", "prop_corr", "C_15 (g5, pion)", "C_8 (g4)");
    for (int t = 0; t < Lt; ++t)
      std::printf("%3d %22.15e %22.15e %22.15e\n", t, prop_corr[std::size_t(t)], corr[0][t][15].real(), corr[0][t][8].real());
  }
  return exit_code(all_converged, s, root);
}
} // namespace

void add_measure_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<MeasureSettings>();
  auto* cmd = app.add_subcommand("measure", "Solve a Wilson-type (Wilson, clover, twisted mass), domain-wall (Shamir, Moebius) or staggered "
                                            "(naive, asqtad, HISQ) propagator from a source and print meson correlators");
  cmd->footer(
      "Correlators (conventions.md): C_n(t) = sum_x Re tr[g5 S^dag g5 Gamma(n) S Gamma(n)], t counted from the source\n"
      "timeslice; 'mesons' in the JSON holds C_n for n = 0..15, 'prop_corr' sum_x |S|^2 (equal to C_15), 'momenta' the\n"
      "projections sum_x exp(-i p.(x - x0)) tr[...] with p_i = 2 pi PX / L_i (real and imaginary parts), 'solver' the\n"
      "iterations and true residual of each of the 12 solves. S is the mass-normalised propagator D^-1 eta, D the\n"
      "Wilson, clover (--csw), twisted-mass (--mu) or twisted-clover operator. With --mu the contractions use the\n"
      "formula above with S = D(mu)^-1 on both quark lines: C_15 = sum_x |S|^2 is then the charged pion.\n"
      "--action staggered|asqtad|hisq (MILC's conventions): the links are built from the configuration (asqtad: fat7 +\n"
      "Lepage + Naik with tadpole factor --u0; hisq: fat7, U(3) projection, fat7 + 2 x Lepage + Naik with --naik-epsilon),\n"
      "G = (2m + D)^-1 is solved for every --mass at once from each source colour, and 'mesons' holds per mass MILC's\n"
      "local meson correlators C(t) = sum_x phase(x - x0) sum_ab |G_ab(x; x0)|^2: pion5 (1), pion05 ((-1)^(x+y+z+t)),\n"
      "rhox, rhoy, rhoz ((-1)^x, ...), rhox0, rhoy0, rhoz0 ((-1)^(y+z), ...); 'fat_plaquette' the fat links' plaquette.\n"
      "--action shamir|moebius: S is the 4D domain-wall propagator P- Psi(0) + P+ Psi(Ls-1) of D5 Psi = D_- [P+ eta at s = 0,\n"
      "P- eta at s = Ls-1] (conventions.md; mixed double-single CG on the 4D even-odd system), 'mesons' as for Wilson;\n"
      "'mres_t' m_res(t) = sum_x |S_mid|^2 / sum_x |S|^2 with the midpoint field P+ Psi(Ls/2-1) + P- Psi(Ls/2) (Ls even),\n"
      "'mres' its average over t = Lt/4 .. 3Lt/4 ('mres_window').");
  cmd->add_option("--action", s->action, "wilson (Wilson-type: --kappa), staggered, asqtad, hisq (--mass), or shamir, moebius (--mass, --Ls)")
      ->check(CLI::IsMember({"wilson", "staggered", "asqtad", "hisq", "shamir", "moebius"}))
      ->capture_default_str();
  cmd->add_option("--mass", s->masses, "Staggered quark masses M[,M...] (M = 2m + D, MILC's normalisation); domain wall: the quark mass m_f")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--naik-epsilon", s->naik_epsilon, "HISQ: epsilon of the Naik term (heavy quarks)")->capture_default_str();
  cmd->add_option("--u0", s->u0, "asqtad: tadpole factor u0")->capture_default_str();
  cmd->add_option("--Ls", s->Ls, "Domain wall: slices of the fifth dimension")->check(CLI::Range(2, max_fifth_dim));
  cmd->add_option("--M5", s->M5, "Domain wall: the domain-wall height M5 (default 1.8)");
  cmd->add_option("--b5", s->b5, "Moebius b5 (default 1.5)");
  cmd->add_option("--c5", s->c5, "Moebius c5 (default 0.5)");
  cmd->add_option("--config", s->config,
                  "Gauge configuration file (any supported format), or unit:LXxLYxLZxLT for a unit gauge field of that size")
      ->required();
  cmd->add_option("--format", s->format, "File format (auto: detected from the content)")
      ->check(CLI::IsMember({"auto", "nersc", "ildg", "milc"}))
      ->capture_default_str();
  cmd->add_flag("--accept-bad", s->accept_bad, "Accept failed checksums, header values or SU(3) checks with a warning");
  cmd->add_option("--kappa", s->kappa, "Hopping parameter kappa = 1 / (2 (4 + m)) (Wilson-type operators)");
  cmd->add_option("--csw", s->csw, "Clover coefficient c_sw (Sheikholeslami-Wohlert, conventions.md); 0: no clover term")
      ->capture_default_str();
  cmd->add_option("--mu", s->mu, "Twisted mass mu: D + i mu g5 (with --csw: twisted clover); 0: no twist")
      ->capture_default_str();
  cmd->add_option("--bc", s->bc, "Boundary phases BX,BY,BZ,BT: p periodic, a antiperiodic, 0 zero, t:THETA twisted by exp(i THETA)")
      ->required();
  cmd->add_option("--source", s->source, "Source: point:X,Y,Z,T, wall:T, even_wall:T, corner_wall:T, z2:T[,SEED] or z4:T[,SEED]")->required();
  cmd->add_option("--source-smear", s->source_smear, "Gaussian source smearing gaussian:w=W,n=N: (1 + w^2/(4N) Lap)^N");
  cmd->add_option("--sink-smear", s->sink_smear, "Gaussian sink smearing gaussian:w=W,n=N");
  cmd->add_option("--link-smear", s->link_smear, "Links for the Gaussian quark smearing, smeared in the spatial directions: ape:alpha=C,steps=N (C: coefficient of the original link, U' = Proj_SU3(C U + staples)) or stout:rho=R,steps=N");
  cmd->add_option("--tol", s->tol, "Relative residual |b - D x| / |b| of each solve")->capture_default_str();
  cmd->add_option("--max-iter", s->max_iter, "Iteration limit of each solve")->capture_default_str();
  cmd->add_option("--solver", s->solver,
                  "Wilson-type operators: cg (CG on the normal equations of the even-odd system, double) or mg (flexible GCR in "
                  "double on the even-odd system with the two-level multigrid cycle in single, set up once for the 12 solves; "
                  "one rank, scalar layout)")
      ->check(CLI::IsMember({"cg", "mg"}))
      ->capture_default_str();
  add_multigrid_options(cmd, s->mg, s->mg_block);
  cmd->add_option("--momenta", s->momenta, "Extra sink momenta PX,PY,PZ;... (integers; p_i = 2 pi PX / L_i)");
  cmd->add_option("--layout", s->layout,
                  "auto (simd on host backends where the lattice splits into the lanes), scalar, or simd "
                  "(the virtual-node AVX-512/AVX2 layout)")
      ->check(CLI::IsMember({"auto", "scalar", "simd"}))
      ->capture_default_str();
  cmd->add_flag("--json", s->json, "Print JSON");
  add_grid_option(cmd, s->grid);
  cmd->add_option("--out", s->out, "Also write the JSON to this file (atomically)");
  cmd->add_flag("--force", s->force, "Replace an existing --out file");
  cmd->callback([&action, s] { action = [s] { return run_measure(*s); }; });
}

} // namespace kqcd::cli
