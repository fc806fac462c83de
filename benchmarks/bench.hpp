// The benchmark suite behind `kqcd bench`: each benchmark returns a JSON record with provenance,
// GFLOP/s and GB/s (byte model named) next to a STREAM copy measured in the same run.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/provenance.hpp>
#include <kqcd/instances/compiled.hpp>
#include <kqcd/multigrid/params.hpp>
#include <kqcd/stencil/layout_choice.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kqcd {
struct HostGaugeConfig;
}

namespace kqcd::bench {

/// --layout auto|scalar|simd: whether a run on backend ES takes the SIMD layout (use_simd_layout;
/// misfit() names what keeps the run off it).
template <class ES, class Misfit> bool choose_simd_layout(const std::string& layout, const Misfit& misfit) {
  return use_simd_layout<ES>(parse_layout_choice(layout), misfit);
}

nlohmann::json to_json(const Provenance& p);

/// The error for what the library leaves out (cmake/kqcd_instances.cmake): `what` is not compiled
/// into this build, `variable` = `listed`; the benchmarks refuse it rather than compile it.
inline invalid_argument not_compiled(const std::string& what, const std::string& listed, const char* variable) {
  return invalid_argument(what + " is not compiled into this build (" + variable + " = " + listed +
                          "): reconfigure with -D" + variable + "=...");
}

/// f.template operator()<Recon>() where the build compiles gauge reconstruction Recon
/// (KQCD_RECONSTRUCT); otherwise not_compiled, and f (a generic lambda returning the same type for
/// every reconstruction) is never instantiated for Recon, so none of its kernels is.
template <class Recon, class F> auto if_recon_compiled(F&& f) -> decltype(f.template operator()<Recon18>()) {
  if constexpr (!recon_compiled<Recon>)
    throw not_compiled(std::string("reconstruction ") + Recon::name, compiled_reconstructions, "KQCD_RECONSTRUCT");
  else return f.template operator()<Recon>();
}

/// The provenance object of work run on `backend` (empty: the default execution space).
nlohmann::json provenance_json(const std::string& backend = {});

/// The backend named, or the default execution space's name when empty.
std::string backend_or_default(const std::string& backend);

/// f.template operator()<ES>() on the execution space `backend` names (empty: the default one); an
/// exception where this build does not enable it.
template <class F> void on_backend(const std::string& backend, F&& f) {
  const std::string name = backend_or_default(backend);
  if (!with_execution_space(name, std::forward<F>(f))) throw invalid_argument("backend '" + name + "' is not enabled in this build");
}

/// STREAM-style copy (a[i] = b[i], floats) on the named backend: best of several runs, GB/s
/// counting bytes read and written.
double stream_copy_gbytes_per_s(const std::string& backend, bool quick);

struct DslashOptions {
  Lattice lattice{{16, 16, 16, 16}};
  std::string precision = "single"; ///< single | double | half (16-bit spinors and links, float arithmetic)
  int recon = 18;                   ///< gauge reconstruction 18 | 12 | 8; the long links' 18 | 13 | 9 of the improved staggered operators
  int rhs = 1;                      ///< right-hand sides per call (multi-RHS dslash, 1..32)
  int Ls = 16;                      ///< slices of the fifth dimension (shamir, moebius)
  std::string backend;              ///< empty: the default execution space
  std::string neighbours = "auto";  ///< auto | table | on-the-fly
  std::string op = "dslash";        ///< dslash or wilson (hopping term, one parity) | eo (even-odd operator) |
                                    ///< clover | clover-dynamic | twisted | twisted-clover (A^-1 H, one parity)
  std::string layout = "auto";      ///< auto (simd where the backend has it) | scalar | simd (dslash, eo)
  int sites_per_team = 0;           ///< 0: the backend's default (ArchTraits)
  double min_seconds = 0.5;         ///< time at least this long
  bool quick = false;               ///< a smoke run: few iterations, small copy
  std::array<int, Nd> grid{0, 0, 0, 0}; ///< MPI process grid over `lattice` (zeros: automatic)
  bool overlap = true;              ///< interior computed while the halo is in flight
  bool spin_projection = true;      ///< the halo travels spin-projected (half the bytes)
  bool graph = false;               ///< eo: submit a Kokkos graph of the operator's two kernels per call
  std::string block_launch;         ///< --rhs > 1: team | team-scratch | mdrange | mdrange-pairs | range (empty: tuned)
};

struct SolverOptions {
  Lattice lattice{{16, 16, 16, 16}};
  std::string config;               ///< gauge file to solve on; empty: a random (hot) gauge field on `lattice`
  std::string solver = "cg";        ///< cg (normal equations) | bicgstab | block-cg
  int rhs = 1;                      ///< right-hand sides: > 1 solves a block (cg: independent CGs, block-cg: one Krylov space)
  std::string precision = "double"; ///< double | single | mixed (single inner) | mixed-half (half inner, recon 12; cg)
  int recon = 18;                   ///< Wilson's links from 18, 12 or 8 reals (one right-hand side; not mixed-half)
  double kappa = 0.12;
  double tol = 1e-10;
  double reliable_delta = 0.1;      ///< mixed precision: a true-residual update when the residual fell by this factor
  std::string backend;
  std::string layout = "auto";      ///< auto | scalar | simd (host backends: the virtual-node SIMD layout)
  std::string op = "wilson";        ///< wilson | clover | twisted | twisted-clover | staggered | improved-staggered (one right-hand side)
  std::vector<double> masses{0.05}; ///< staggered: the quark masses (several: multi-shift CG); domain wall: m_f
  int Ls = 12;                      ///< domain wall: slices of the fifth dimension
  double M5 = 1.8;                  ///< domain wall: the domain-wall height
  double b5 = 1.5, c5 = 0.5;        ///< Moebius coefficients (shamir: 1, 0)
  double csw = 1.0;                 ///< clover coefficient (clover, twisted-clover)
  double mu = 0.1;                  ///< twisted mass (twisted, twisted-clover)
  bool quick = false;               ///< one solve instead of the best of three after a warm-up
  mg::MultigridParams mg;           ///< --solver mg: the multigrid's choices
  std::array<int, Nd> grid{0, 0, 0, 0}; ///< MPI process grid over `lattice` (zeros: automatic; Wilson-type cg, bicgstab, block-cg)
};

/// Time to solution of an even-odd Wilson-type system (CG on the normal equations or BiCGStab) and
/// its operator / linear algebra split (best of 3 solves after a warm-up).
/// copy_gbytes_per_s: the STREAM copy measured in the same run, recorded beside the solve.
nlohmann::json run_solver(const SolverOptions& opts, double copy_gbytes_per_s);

/// Time to solution of the staggered even-site system (--operator staggered | improved-staggered):
/// CG for one mass, multi-shift CG for several.
nlohmann::json run_staggered_solver(const SolverOptions& opts, double copy_gbytes_per_s);

/// The gauge file of a solver benchmark (--config), read and verified, its warnings on stderr; empty
/// without --config (a random gauge field is drawn).
HostGaugeConfig solver_config(const SolverOptions& opts);

/// Time to solution of the domain-wall 5D system of a point source (--operator shamir | moebius):
/// CG on the 4D even-odd normal equations.
nlohmann::json run_domain_wall_solver(const SolverOptions& opts, double copy_gbytes_per_s);

/// Time to solution of the full Wilson or clover system by multigrid-preconditioned GCR beside GCR
/// alone (--solver mg).
nlohmann::json run_multigrid_solver(const SolverOptions& opts, double copy_gbytes_per_s);
/// Seconds of f(), the execution space ES fenced before and after.
template <class ES, class F> double fenced_seconds(F&& f) {
  ES().fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  ES().fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
/// The choices of a multigrid solve as JSON, each key after `prefix` (block, n_vec, levels, ...).
nlohmann::json multigrid_json(const mg::MultigridParams& p, const std::string& prefix = "");

/// Microseconds per global sum of a parity's spinor reals held in device memory, the slowest rank's:
/// {"local": the local reduction alone, "mpi": reduced into host memory and summed by MPI,
/// "nccl": (NCCL transport only) reduced in device memory and summed by NCCL's all-reduce}.
nlohmann::json time_global_sums(const Lattice& local, const std::string& backend, bool quick);

/// Time the Wilson hopping term (or the even-odd operator, or a clover / twisted operator's
/// A^-1 H) and return its record.
nlohmann::json run_dslash(const DslashOptions& opts, double copy_gbytes_per_s);

/// Meson correlators of a (random) propagator: the 16-Gamma meson density and its timeslice
/// sums, per call; GB/s by the propagator read + density written.
nlohmann::json run_contract(const Lattice& lattice, const std::string& precision, const std::string& backend,
                            double copy_gbytes_per_s, bool quick);

/// Write and read a generated configuration as NERSC and as ILDG (double): one record per format.
nlohmann::json run_io(const Lattice& lattice, bool quick);

/// Gauge algorithms (double): kind "smear" (APE, stout, HYP step), "flow" (RK3 step, clover
/// observables), "heatbath" (one sweep) or "clover" (the clover term and its inverse built, per
/// block inverter); one record per case: time per call and sites per second.
inline constexpr std::array<const char*, 4> gauge_kinds{"smear", "flow", "heatbath", "clover"};
nlohmann::json run_gauge(const std::string& kind, const Lattice& lattice, const std::string& backend, bool quick);

/// The suite's default Dslash operators: the Wilson ones and the site-local terms this build compiles
/// (KQCD_OPERATORS).
std::vector<std::string> default_suite_operators();

/// What the default suite runs. Every list is selectable from the command line.
struct SuiteOptions {
  std::vector<Lattice> lattices{Lattice({8, 8, 8, 8}), Lattice({16, 16, 16, 16})};
  std::vector<std::string> backends;                   ///< empty: the default execution space
  std::vector<std::string> precisions{"single", "double"};
  std::vector<std::string> operators = default_suite_operators();
  std::vector<std::string> families{"dslash", "solver", "contract", "smear", "flow", "heatbath", "clover", "io"};
  std::vector<std::string> solver_precisions{"double", "mixed"};
  std::vector<std::string> solvers{"cg", "bicgstab"};
  std::vector<std::string> configs;                    ///< gauge files for the solver cases (besides random fields)
  double kappa = 0.12;
  double tol = 1e-10;
  double min_seconds = 0.5;
  bool quick = false;
};

/// One case of the suite: what it is (for progress lines) and how to run it.
struct Case {
  std::string family;
  std::string label;
  std::string backend;
  std::function<nlohmann::json(double copy_gbytes_per_s)> run; ///< returns one record or an array of records
};

/// The suite's case list (families x backends x lattices x operators x precisions ...), in run order.
/// Adding a benchmark dimension (layout, reconstruction, right-hand sides) means adding a loop here.
std::vector<Case> suite_cases(const SuiteOptions& opts);

/// What run_suite reports while it runs: `started` once the STREAM copies are measured (the suite
/// without results), `recorded` after every record (a table row can be printed at once).
struct SuiteObserver {
  std::function<void(const nlohmann::json& suite)> started;
  std::function<void(const nlohmann::json& record)> recorded;
};

/// Runs the STREAM copy on each backend, then every case, with one progress line per case on
/// stderr; returns {provenance, copy_gbytes_per_s (per backend), results: [records]}.
nlohmann::json run_suite(const SuiteOptions& opts, const SuiteObserver& observer = {});

/// A readable table of a suite's (or a single benchmark's) records: the head (provenance, STREAM
/// copies, column names), a row per record and the foot (byte and flop models).
std::string format_table(const nlohmann::json& suite);
std::string format_table_head(const nlohmann::json& suite);
std::string format_table_row(const nlohmann::json& record);
std::string format_table_foot();

/// Every record carries these; the table and the plot script read them.
void finish_record(nlohmann::json& r, const std::string& family, const std::string& backend);

/// Whether a staggered operator has long (Naik) links: random ones (improved-staggered) or asqtad's
/// and HISQ's, built from the gauge field (gauge/staggered_links.hpp).
inline bool improved_staggered_operator(const std::string& op) { return op == "improved-staggered" || op == "asqtad" || op == "hisq"; }

} // namespace kqcd::bench
