// The benchmark suite behind `kqcd bench`: each benchmark returns a JSON record with provenance,
// GFLOP/s and GB/s (byte model named) next to a STREAM copy measured in the same run.
#pragma once

#include <kqcd/core/lattice.hpp>
#include <kqcd/core/provenance.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kqcd::bench {

nlohmann::json to_json(const Provenance& p);

/// STREAM-style copy (a[i] = b[i], floats) on the named backend: best of several runs, GB/s
/// counting bytes read and written.
double stream_copy_gbytes_per_s(const std::string& backend, bool quick);

struct DslashOptions {
  Lattice lattice{{16, 16, 16, 16}};
  std::string precision = "single"; ///< single | double
  std::string backend;              ///< empty: the default execution space
  std::string neighbours = "auto";  ///< auto | table | on-the-fly
  std::string op = "dslash";        ///< dslash or wilson (hopping term, one parity) | eo (even-odd operator) |
                                    ///< clover | clover-dynamic | twisted | twisted-clover (A^-1 H, one parity)
  std::string layout = "auto";      ///< auto (simd where the backend has it) | scalar | simd (dslash, eo)
  int sites_per_team = 0;           ///< 0: the backend's default (ArchTraits)
  double min_seconds = 0.5;         ///< time at least this long
  bool quick = false;               ///< a smoke run: few iterations, small copy
};

struct SolverOptions {
  Lattice lattice{{16, 16, 16, 16}};
  std::string precision = "double"; ///< double | single | mixed (single inner, double reliable updates)
  double kappa = 0.12;
  double tol = 1e-10;
  std::string backend;
  bool quick = false;
};

/// CG on the even-odd Wilson normal equations: time to solution and its Dslash / linear algebra
/// split (best of 3 solves after a warm-up).
nlohmann::json run_cg(const SolverOptions& opts);

/// Time the Wilson hopping term (or the even-odd operator) and return its record.
nlohmann::json run_dslash(const DslashOptions& opts, double copy_gbytes_per_s);

/// The default suite: STREAM copy, then Dslash and the even-odd operator in both precisions on
/// each lattice. Progress on stderr, one line per case.
nlohmann::json run_suite(const std::vector<Lattice>& lattices, const std::string& backend, bool quick);

/// Write and read a generated configuration as NERSC and as ILDG (double): MB/s of each.
nlohmann::json run_io(const Lattice& lattice, bool quick);

/// Gauge algorithms (double, default space): kind "smear" (APE, stout, HYP step), "flow" (RK3 step,
/// clover observables) or "heatbath" (one sweep); time per call and sites per second.
nlohmann::json run_gauge(const std::string& kind, const Lattice& lattice, bool quick);

/// A readable table of a suite's records.
std::string format_table(const nlohmann::json& suite);

} // namespace kqcd::bench
