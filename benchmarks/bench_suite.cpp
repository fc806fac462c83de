// The default `kqcd bench` run: a case list over families, backends, lattices, operators and
// precisions, run in order with a STREAM copy per backend, a progress line per case on stderr,
// and a table that grows a row per record (SuiteObserver).
#include "bench.hpp"

#include <kqcd/core/error.hpp>

#include <algorithm>
#include <cstdio>
#include <format>

namespace kqcd::bench {

namespace {
bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

/// Fail before anything runs when a list names something unknown.
void check_all(const std::vector<std::string>& items, const std::vector<std::string>& known, const char* what) {
  for (const auto& item : items)
    if (!has(known, item)) {
      std::string expected;
      for (const auto& k : known) expected += (expected.empty() ? "" : ", ") + k;
      throw invalid_argument(std::string("bench: unknown ") + what + " '" + item + "' (expected " + expected + ")");
    }
}

/// The largest lattice of the list (by volume): the I/O family runs once, on it.
Lattice largest(const std::vector<Lattice>& lats) {
  return *std::max_element(lats.begin(), lats.end(), [](const Lattice& a, const Lattice& b) { return a.volume() < b.volume(); });
}
} // namespace

std::vector<Case> suite_cases(const SuiteOptions& o) {
  check_all(o.families, {"dslash", "solver", "contract", "smear", "flow", "heatbath", "clover", "io"}, "family");
  check_all(o.precisions, {"single", "double"}, "precision");
  check_all(o.operators, {"dslash", "wilson", "eo", "clover", "clover-dynamic", "twisted", "twisted-clover"}, "operator");
  check_all(o.solvers, {"cg", "bicgstab"}, "solver");
  check_all(o.solver_precisions, {"double", "single", "mixed", "mixed-half"}, "solver precision");
  if (o.lattices.empty()) throw invalid_argument("bench: no lattice given");
  if (has(o.families, "heatbath"))
    for (const auto& lat : o.lattices)
      for (int mu = 0; mu < 4; ++mu)
        if (lat.dim(mu) % 2 != 0)
          throw invalid_argument("bench: lattice " + lat.to_string() +
                                 ": the heat bath's checkerboard update needs even extents (or leave heatbath out of --families)");
  std::vector<std::string> backends = o.backends;
  if (backends.empty()) backends.push_back(backend_or_default({}));
  std::vector<Case> cases;
  for (const auto& backend : backends) {
    // One case per solver and precision, on a random field of lat or on a gauge file (config).
    auto add_solver_cases = [&](const Lattice& lat, const std::string& config, const std::string& what) {
      for (const auto& solver : o.solvers)
        for (const auto& prec : o.solver_precisions) {
          SolverOptions s;
          s.lattice = lat;
          s.config = config;
          s.solver = solver;
          s.precision = prec;
          s.kappa = o.kappa;
          s.tol = o.tol;
          s.backend = backend;
          s.quick = o.quick;
          cases.push_back({"solver", solver + " " + prec + " " + what, backend, [s](double copy) { return run_solver(s, copy); }});
        }
    };
    for (const auto& lat : o.lattices) {
      const std::string where = lat.to_string() + " on " + backend;
      if (has(o.families, "dslash"))
        for (const auto& op : o.operators)
          for (const auto& prec : o.precisions) {
            DslashOptions d;
            d.lattice = lat;
            d.precision = prec;
            d.backend = backend;
            d.op = op;
            d.min_seconds = o.min_seconds;
            d.quick = o.quick;
            cases.push_back({"dslash", op + " " + prec + " " + where, backend, [d](double copy) { return run_dslash(d, copy); }});
          }
      if (has(o.families, "solver")) add_solver_cases(lat, "", "random gauge " + where);
      if (has(o.families, "contract"))
        for (const auto& prec : o.precisions)
          cases.push_back({"contract", "meson correlators " + prec + " " + where, backend, [lat, prec, backend, q = o.quick](double copy) {
                             return run_contract(lat, prec, backend, copy, q);
                           }});
      for (const char* kind : gauge_kinds)
        if (has(o.families, kind))
          cases.push_back({kind, std::string(kind) + " double " + where, backend, [k = std::string(kind), lat, backend, q = o.quick](double) {
                             return run_gauge(k, lat, backend, q);
                           }});
    }
    // Solves on the given gauge files (their own lattices), once per backend.
    if (has(o.families, "solver"))
      for (const auto& config : o.configs) add_solver_cases(SolverOptions{}.lattice, config, config + " on " + backend);
  }
  // Gauge file I/O runs on the host, whatever the backends: once.
  if (has(o.families, "io")) {
    const Lattice lat = largest(o.lattices);
    cases.push_back({"io", "NERSC and ILDG write/read " + lat.to_string(), backend_or_default({}),
                     [lat, q = o.quick](double) { return run_io(lat, q); }});
  }
  return cases;
}

nlohmann::json run_suite(const SuiteOptions& o, const SuiteObserver& observer) {
  const auto cases = suite_cases(o); // validates the options before anything runs
  std::vector<std::string> backends = o.backends;
  if (backends.empty()) backends.push_back(backend_or_default({}));
  nlohmann::json copy = nlohmann::json::object();
  for (const auto& b : backends) {
    std::fprintf(stderr, "[kqcd bench] STREAM copy on %s\n", b.c_str());
    copy[b] = stream_copy_gbytes_per_s(b, o.quick);
    std::fprintf(stderr, "[kqcd bench] STREAM copy on %s: %.1f GB/s\n", b.c_str(), copy[b].get<double>());
  }
  nlohmann::json suite{{"provenance", provenance_json(backends.front())},
                       {"copy_gbytes_per_s", copy},
                       {"results", nlohmann::json::array()}};
  if (observer.started) observer.started(suite);
  int n = 0;
  for (const auto& c : cases) {
    std::fprintf(stderr, "[kqcd bench] case %d/%zu: %s %s\n", ++n, cases.size(), c.family.c_str(), c.label.c_str());
    Kokkos::Timer t;
    const double c_copy = copy.contains(c.backend) ? copy[c.backend].get<double>() : 0.0;
    const nlohmann::json r = c.run(c_copy);
    for (const auto& item : r.is_array() ? r : nlohmann::json::array({r})) {
      suite["results"].push_back(item);
      if (observer.recorded) observer.recorded(item);
    }
    std::fprintf(stderr, "[kqcd bench] case %d/%zu done in %.1f s\n", n, cases.size(), t.seconds());
  }
  return suite;
}

std::string format_table_head(const nlohmann::json& suite) {
  std::string out;
  const auto& p = suite["provenance"];
  out += std::format("kqcd {} (git {}), Kokkos {}, {} threads, {}\n", p["kqcd_version"].get<std::string>(),
                     p["git"].get<std::string>(), p["kokkos_version"].get<std::string>(), p["threads"].get<int>(),
                     p["device"].get<std::string>());
  for (const auto& [backend, gbps] : suite["copy_gbytes_per_s"].items())
    out += std::format("STREAM copy on {}: {:.1f} GB/s\n", backend, gbps.get<double>());
  out += std::format("{:<26} {:<16} {:<13} {:<7} {:<7} {:>11} {:>9} {:>9} {:>6}  {}\n", "benchmark", "case", "lattice",
                     "prec", "backend", "time", "GFLOP/s", "GB/s", "%copy", "other");
  return out;
}

std::string format_table_row(const nlohmann::json& r) {
  auto num = [](const nlohmann::json& r, const char* key, const char* fmt) -> std::string {
    if (!r.contains(key)) return "-";
    const double v = r[key].get<double>();
    return std::vformat(fmt, std::make_format_args(v));
  };
  auto seconds = [](double s) {
    return s < 1e-3 ? std::format("{:.1f}us", s * 1e6) : s < 1 ? std::format("{:.2f}ms", s * 1e3) : std::format("{:.2f}s", s);
  };
  const auto& l = r["lattice"];
  const std::string lattice = std::format("{}x{}x{}x{}", l[0].get<int>(), l[1].get<int>(), l[2].get<int>(), l[3].get<int>());
  const std::string family = r.value("family", "");
  std::string other, time;
  if (family == "solver") {
    time = seconds(r["time_to_solution_s"].get<double>());
    // Solvers of every family: the fields a record has (staggered: per mass; domain wall: no split).
    std::string common = std::format("{} it", r.value("iterations", 0));
    if (r.contains("true_residual")) common += std::format(", res {:.1e}", r["true_residual"].get<double>());
    if (r.contains("status")) common += ", " + r["status"].get<std::string>();
    const std::string gauge = r.value("gauge", std::string());
    if (r.contains("rhs")) // a block of systems: against as many single-RHS solves
      other = std::format("{}, {} rhs, {:.2f}x single-RHS CG, {}", common, r["rhs"].get<int>(),
                          r["speedup_over_single_rhs"].get<double>(), gauge);
    else if (r.contains("operator_fraction"))
      other = std::format("{}, op {:.0f}%, {}", common, 100 * r["operator_fraction"].get<double>(), gauge);
    else
      other = std::format("{}, {}", common, gauge);
  } else {
    time = seconds(r["time_per_call_s"].get<double>());
    if (r.contains("msites_per_s")) other = std::format("{:.3g} Msites/s", r["msites_per_s"].get<double>());
    if (family == "io")
      other = std::format("write {:.0f} MB/s, read {:.0f} MB/s ({:.1f} MB)", r["write_mbytes_per_s"].get<double>(),
                          r["read_mbytes_per_s"].get<double>(), r["megabytes"].get<double>());
  }
  const std::string name = r.value("benchmark", family);
  const std::string c = r.contains("case") ? r["case"].get<std::string>() : r.value("family", "");
  return std::format("{:<26} {:<16} {:<13} {:<7} {:<7} {:>11} {:>9} {:>9} {:>6}  {}\n", name, c.substr(0, 16), lattice,
                     r.value("precision", "-"), r.value("backend", "-"), time, num(r, "gflops", "{:.2f}"),
                     num(r, "gbytes_per_s", "{:.2f}"), num(r, "percent_of_copy", "{:.0f}"), other);
}

std::string format_table_foot() {
  return "GB/s and %copy: Dslash rows by the no-reuse byte model of conventions.md (8 links + 8 neighbour spinors + 1 output\n"
         "spinor per site; clover-type rows add the site-local matrices read); contraction rows by the byte model in their record.\n"
         "GFLOP/s: 1320 flops per site per hopping term, 2688 for the even-odd operator, QUDA's 1872 (clover, twisted clover) and\n"
         "1368 (twisted mass) for A^-1 H; other stencils their record's flops_per_site (per 5D site: domain wall); solvers: operator flops only.\n";
}

std::string format_table(const nlohmann::json& suite) {
  std::string out = format_table_head(suite);
  for (const auto& r : suite["results"]) out += format_table_row(r);
  return out + format_table_foot();
}

} // namespace kqcd::bench
