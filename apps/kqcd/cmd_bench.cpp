// kqcd bench: the benchmark suite (default) and single benchmarks (kqcd bench dslash ...). Every
// command prints a table (or JSON with --json) and can write its JSON to --out; every JSON record
// carries a provenance object.
#include "commands.hpp"

#include <bench.hpp>
#include <kqcd/comm/process_grid.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/io/atomic_file.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kqcd::cli {

namespace {
struct BenchSettings {
  std::string lattices = "8x8x8x8,16x16x16x16";
  std::string backend;
  std::string precisions = "single,double";
  std::string operators = [] { // the operators this build compiles
    std::string list;
    for (const auto& op : bench::default_suite_operators()) list += (list.empty() ? "" : ",") + op;
    return list;
  }();
  std::string families = "dslash,solver,contract,smear,flow,heatbath,clover,io";
  std::string solvers = "cg,bicgstab";
  std::string solver_precisions = "double,mixed";
  std::string configs = "auto";
  std::string out;
  bool json = false;
  bool quick = false;
  double min_seconds = 0.5;
  bench::DslashOptions dslash;
  bench::SolverOptions cg;
  std::string cg_lattice = "16x16x16x16";
  std::string cg_mg_block = "4x4x4x4";
  std::string dslash_lattice = "16x16x16x16";
  std::string dslash_grid = "auto";
  std::string cg_grid = "auto";
  std::string io_lattice = "32x32x32x32";
  std::string gauge_lattice = "8x8x8x8";
  std::string contract_lattice = "8x8x8x8";
  std::string contract_precision = "double";
};

std::vector<std::string> split_list(const std::string& text, const char* option) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  if (items.empty()) throw invalid_argument(std::string(option) + ": empty list");
  return items;
}


/// One backend for a single benchmark: a list is for the suite only.
std::string single_backend(const std::string& backend) {
  if (backend.find(',') != std::string::npos || backend == "all")
    throw invalid_argument("--backend '" + backend + "': a single benchmark runs on one backend (lists and 'all' are for the suite)");
  return bench::backend_or_default(backend);
}

/// The reference data directory: $KQCD_DATA_DIR, else, for a kqcd run from its build tree, the
/// directory CMake wrote into `kqcd-data-dir` beside the executable (the source tree's
/// ../shared/data; that file is not installed, so an installed kqcd has no default).
std::vector<std::string> data_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("KQCD_DATA_DIR"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::ifstream marker(exe.parent_path() / "kqcd-data-dir");
    std::string dir;
    if (marker && std::getline(marker, dir) && !dir.empty()) dirs.push_back(dir);
  }
  return dirs;
}

/// --configs auto: the 8^4 beta 6.0 MILC configuration of the reference data (data_dirs()); none
/// there means no file-based solves.
std::vector<std::string> resolve_configs(const std::string& configs) {
  if (configs == "none") return {};
  if (configs != "auto") {
    auto files = split_list(configs, "--configs");
    for (const auto& f : files)
      if (!std::filesystem::exists(f)) throw invalid_argument("--configs: gauge file '" + f + "' does not exist");
    return files;
  }
  for (const auto& d : data_dirs()) {
    const auto f = std::filesystem::path(d) / "milc-l8888-b6.0.milc";
    if (std::filesystem::exists(f)) return {f.lexically_normal().string()};
  }
  std::fprintf(stderr, "[kqcd bench] no reference configuration found (set KQCD_DATA_DIR or --configs): solver cases use random gauge fields only\n");
  return {};
}

/// Table (or JSON) on stdout, JSON to --out. `doc` is what --json prints; `records` the table rows
/// (none: the suite printed its rows as they came, only the table's foot is left).
void emit(const nlohmann::json& doc, const nlohmann::json& records, const BenchSettings& s, const nlohmann::json& copy) {
  if (!s.out.empty()) write_file_atomically(s.out, doc.dump(2) + "\n", /*overwrite=*/true);
  if (s.json) {
    std::cout << doc.dump(2) << "\n";
  } else if (records.empty()) {
    std::cout << bench::format_table_foot();
  } else {
    nlohmann::json table{{"provenance", records.front()["provenance"]}, {"copy_gbytes_per_s", copy}, {"results", records}};
    std::cout << bench::format_table(table);
  }
  if (!s.out.empty()) std::fprintf(stderr, "[kqcd bench] JSON written to %s\n", s.out.c_str());
}

void emit_record(const nlohmann::json& r, const BenchSettings& s, const nlohmann::json& copy = nlohmann::json::object()) {
  emit(r, nlohmann::json::array({r}), s, copy);
}

void emit_records(const nlohmann::json& records, const BenchSettings& s) {
  emit({{"provenance", records.front()["provenance"]}, {"results", records}}, records, s, nlohmann::json::object());
}
} // namespace

std::array<int, 4> parse_mg_block(const std::string& text) {
  std::array<int, 4> b{};
  std::stringstream in(text);
  std::string item;
  int mu = 0;
  for (; mu < 4 && std::getline(in, item, 'x'); ++mu) {
    std::size_t used = 0;
    try {
      b[mu] = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || b[mu] < 1) mu = 5;
  }
  if (mu != 4 || std::getline(in, item))
    throw invalid_argument("--mg-block '" + text + "': expected four positive aggregate extents BXxBYxBZxBT, e.g. 4x4x4x4");
  return b;
}

void add_multigrid_options(CLI::App* cmd, mg::MultigridParams& p, std::string& block_text) {
  cmd->add_option("--mg-block", block_text, "Multigrid: aggregate extents BXxBYxBZxBT")->capture_default_str();
  cmd->add_option("--mg-nvec", p.n_vec, "Multigrid: test vectors")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--mg-levels", p.levels, "Multigrid: levels (3 or more: the K-cycle, 2x2x2x2 aggregates below the first)")
      ->check(CLI::Range(2, 5))
      ->capture_default_str();
  cmd->add_option("--mg-setup-sweeps", p.setup_sweeps, "Multigrid: smoother sweeps on D v = 0 per test vector, before the inverse iteration")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--mg-setup-iterations", p.setup_iterations,
                  "Multigrid: CG iterations of inverse iteration on D v = 0 per test vector at most (the vectors as a block)")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  cmd->add_option("--mg-setup-tol", p.setup_tol, "Multigrid: the inverse iteration stops where |D v| has fallen by this factor")
      ->check(CLI::Range(1e-12, 0.999999))
      ->capture_default_str();
  cmd->add_option("--mg-smoother-steps", p.smoother_steps, "Multigrid: MR steps per smoothing")->check(CLI::Range(1, 100))->capture_default_str();
  cmd->add_option("--mg-coarse-tol", p.coarse_tol, "Multigrid: relative residual of the coarse solves")
      ->check(CLI::Range(1e-12, 0.999999))
      ->capture_default_str();
  cmd->add_option("--mg-coarse-even-odd", p.coarse_even_odd,
                  "Multigrid: solve the coarsest level on its even-odd preconditioned operator where every coarse extent is even")
      ->capture_default_str();
}

void add_bench_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<BenchSettings>();
  auto* cmd = app.add_subcommand("bench", "Run the benchmark suite, or one benchmark (see its subcommands)");
  cmd->add_option("--lattices", s->lattices, "Suite: comma-separated lattices")->capture_default_str();
  cmd->add_option("--backend,--backends", s->backend,
                  "Kokkos execution space (default: the default one); the suite takes a comma-separated list or 'all'");
  cmd->add_option("--precisions", s->precisions, "Suite: Dslash and contraction precisions (single,double)")->capture_default_str();
  cmd->add_option("--operators", s->operators, "Suite: Dslash operators")->capture_default_str();
  cmd->add_option("--families", s->families, "Suite: benchmark families to run")->capture_default_str();
  cmd->add_option("--solvers", s->solvers, "Suite: solvers (cg = CG on the normal equations, bicgstab)")->capture_default_str();
  cmd->add_option("--solver-precisions", s->solver_precisions, "Suite: solver precisions (double, single, mixed, mixed-half)")
      ->capture_default_str();
  cmd->add_option("--configs", s->configs,
                  "Suite: gauge files for the solver cases (comma-separated), 'auto' (the shared 8^4 beta 6.0 MILC file "
                  "if found: $KQCD_DATA_DIR/milc-l8888-b6.0.milc, in the build tree ../shared/data) or 'none'")
      ->capture_default_str();
  cmd->add_option("--min-seconds", s->min_seconds, "Time each Dslash case for at least this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--out", s->out, "Also write the JSON results to this file");
  cmd->add_flag("--json", s->json, "Print JSON instead of a table");
  cmd->add_flag("--quick", s->quick, "A smoke run with minimal timing (for tests)");

  auto* dslash = cmd->add_subcommand("dslash", "Hopping term (one parity) or even-odd operator throughput: Wilson-type, staggered, "
                                               "domain wall, Laplace, covariant derivative");
  dslash->fallthrough();
  dslash->add_option("--lattice", s->dslash_lattice, "Lattice LXxLYxLZxLT")->capture_default_str();
  dslash->add_option("--precision", s->dslash.precision, "single, double or half (16-bit spinors and links; every operator, either layout)")
      ->check(CLI::IsMember({"single", "double", "half"}))
      ->capture_default_str();
  dslash->add_option("--recon", s->dslash.recon,
                     "Gauge reconstruction 18, 12 or 8 (Wilson dslash and eo, the colour-hop stencils); for asqtad, hisq and "
                     "improved-staggered the long links' 18, 13 or 9 (a constant times U(3), as QUDA's), the fat links whole")
      ->check(CLI::IsMember({18, 13, 12, 9, 8}))
      ->capture_default_str();
  dslash->add_option("--rhs", s->dslash.rhs, "Right-hand sides per call (multi-RHS hopping term; Wilson and the colour-hop stencils in half, "
                     "single or double: rows of the scalar layout, or with --layout simd one per SIMD lane)")
      ->check(CLI::Range(1, 32))
      ->capture_default_str();
  dslash->add_option("--Ls", s->dslash.Ls, "Slices of the fifth dimension (shamir, moebius)")->check(CLI::Range(2, 32))->capture_default_str();
  dslash->add_option("--operator", s->dslash.op,
                     "dslash or wilson (hopping term), eo (even-odd preconditioned Wilson operator), or the hopping term "
                     "with the site-local term A^-1 of the preconditioned clover (stored inverse), clover-dynamic (Cholesky "
                     "in the kernel), twisted (mass) or twisted-clover operator (m = 0.1, c_sw = 1, mu = 0.1); or a colour-hop "
                     "stencil on colour vectors (single, double or half, either layout): staggered (naive), improved-staggered (random fat "
                     "and Naik links), asqtad or hisq (their fat and long links built from the random gauge field), laplace (4D, "
                     "a x + H in) or covdev (forward along t); or the 4D even-odd preconditioned domain-wall operator, shamir or "
                     "moebius (b5 1.5, c5 0.5; M5 1.8, m_f 0.01, --Ls slices; either layout), with its hopping term over all slices")
      ->check(CLI::IsMember({"dslash", "wilson", "eo", "clover", "clover-dynamic", "twisted", "twisted-clover", "staggered",
                             "improved-staggered", "asqtad", "hisq", "laplace", "covdev", "shamir", "moebius"}))
      ->capture_default_str();
  dslash->add_option("--neighbours", s->dslash.neighbours, "auto, table or on-the-fly (with recon 18)")
      ->check(CLI::IsMember({"auto", "table", "on-the-fly"}))
      ->capture_default_str();
  dslash->add_option("--layout", s->dslash.layout,
                     "auto (the fastest available: simd on host backends where the lattice splits), scalar, or simd "
                     "(virtual-node AVX-512/AVX2 layout: every operator; with --rhs: one right-hand side per SIMD lane)")
      ->check(CLI::IsMember({"auto", "scalar", "simd"}))
      ->capture_default_str();
  dslash->add_option("--sites-per-team", s->dslash.sites_per_team, "Sites per team (GPU: threads per block); 0: default")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  dslash->add_option("--grid", s->dslash_grid, "MPI process grid GXxGYxGZxGT over the lattice, or auto")->capture_default_str();
  dslash->add_flag("!--no-overlap", s->dslash.overlap, "On several ranks: exchange the halo first, then compute (no overlap)");
  dslash->add_flag("!--no-spin-projection", s->dslash.spin_projection,
                   "On several ranks: send whole spinors in the halo instead of spin-projected half spinors");
  dslash->add_option("--block-launch", s->dslash.block_launch,
                     "--rhs > 1: launch shape team, team-scratch, mdrange, mdrange-pairs (two right-hand sides per "
                     "thread) or range instead of the tuned one")
      ->check(CLI::IsMember({"team", "team-scratch", "mdrange", "mdrange-pairs", "range"}));
  dslash->add_flag("--graph", s->dslash.graph,
                   "--operator eo or a colour-hop stencil, recon 18 and the backend's neighbour mode: time a Kokkos graph "
                   "of the operator's kernels (either layout, one process), submitted once per call");

  auto* io = cmd->add_subcommand("io", "Gauge file write and read throughput (NERSC and ILDG, double)");
  io->fallthrough();
  io->add_option("--lattice", s->io_lattice, "Lattice LXxLYxLZxLT of the generated configuration")->capture_default_str();

  auto* cg = cmd->add_subcommand("cg", "Time to solution of an even-odd Wilson-type system (CG on the normal equations or "
                                       "BiCGStab) and its Dslash/linear-algebra split");
  cg->fallthrough();
  cg->add_option("--lattice", s->cg_lattice, "Lattice LXxLYxLZxLT (random gauge field)")->capture_default_str();
  cg->add_option("--config", s->cg.config, "Solve on this gauge file instead (its own lattice)");
  cg->add_option("--grid", s->cg_grid,
                 "MPI process grid GXxGYxGZxGT over the lattice, or auto (under mpiexec: Wilson-type operators, cg, "
                 "bicgstab or block-cg, a random gauge field)")
      ->capture_default_str();
  cg->add_option("--solver", s->cg.solver,
                 "cg, bicgstab, block-cg (block CG over --rhs systems) or mg (the even-odd wilson or clover system by GCR "
                 "with the two-level multigrid cycle, beside BiCGStab and CG; double, or mixed: the cycle and the Krylov "
                 "solvers' inner iterations in single)")
      ->check(CLI::IsMember({"cg", "bicgstab", "block-cg", "mg"}))
      ->capture_default_str();
  add_multigrid_options(cg, s->cg.mg, s->cg_mg_block);
  cg->add_option("--rhs", s->cg.rhs, "Right-hand sides (1-16): cg solves them as independent CGs sharing the multi-RHS "
                                     "operator (double, mixed or mixed-half), block-cg in "
                                     "one Krylov space (double); both against as many single-RHS CG solves")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  cg->add_option("--precision", s->cg.precision,
                 "double, single, mixed (single inner iterations) or mixed-half (16-bit inner iterations; Wilson's with recon 12 on the "
                 "scalar layout)")
      ->check(CLI::IsMember({"double", "single", "mixed", "mixed-half"}))
      ->capture_default_str();
  cg->add_option("--recon", s->cg.recon,
                 "Gauge reconstruction 18, 12 or 8 of the Wilson operator (one right-hand side; double, single or mixed; "
                 "either layout)")
      ->check(CLI::IsMember({18, 12, 8}))
      ->capture_default_str();
  cg->add_option("--operator", s->cg.op,
                 "wilson, clover, twisted (mass) or twisted-clover (one right-hand side; cg or bicgstab); or staggered "
                 "(naive), improved-staggered (random long links), asqtad or hisq (links built from the gauge field, u0 = 1, "
                 "epsilon 0): CG on the even sites, multi-shift CG for several --masses; or shamir, moebius (domain wall: the 5D "
                 "system of a point source, CG on the 4D even-odd normal equations, m_f the one --masses value; either layout)")
      ->check(CLI::IsMember({"wilson", "clover", "twisted", "twisted-clover", "staggered", "improved-staggered", "asqtad", "hisq",
                             "shamir", "moebius"}))
      ->capture_default_str();
  cg->add_option("--masses", s->cg.masses, "Staggered quark masses M[,M...] (several: one multi-shift solve)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cg->add_option("--Ls", s->cg.Ls, "Domain wall: slices of the fifth dimension")->check(CLI::Range(2, 32))->capture_default_str();
  cg->add_option("--M5", s->cg.M5, "Domain wall: the domain-wall height")->capture_default_str();
  cg->add_option("--b5", s->cg.b5, "Moebius b5")->capture_default_str();
  cg->add_option("--c5", s->cg.c5, "Moebius c5")->capture_default_str();
  cg->add_option("--csw", s->cg.csw, "Clover coefficient c_sw (clover, twisted-clover)")->capture_default_str();
  cg->add_option("--mu", s->cg.mu, "Twisted mass mu (twisted, twisted-clover)")->capture_default_str();
  cg->add_option("--kappa", s->cg.kappa, "Hopping parameter")->check(CLI::PositiveNumber)->capture_default_str();
  cg->add_option("--tol", s->cg.tol, "Target relative residual")->check(CLI::PositiveNumber)->capture_default_str();
  cg->add_option("--reliable-delta", s->cg.reliable_delta,
                 "Mixed precision: recompute the true residual in double whenever the iterated one fell by this factor")
      ->check(CLI::Range(1e-12, 0.999999))
      ->capture_default_str();
  cg->add_option("--layout", s->cg.layout,
                 "auto (simd on host backends where the lattice splits into the lanes; --rhs up "
                 "to the double lanes, one right-hand side per lane), scalar, or simd (the virtual-node AVX-512/AVX2 layout)")
      ->check(CLI::IsMember({"auto", "scalar", "simd"}))
      ->capture_default_str();

  auto* contract = cmd->add_subcommand("contract", "Meson correlators (16 Gamma, timeslice sums) of a random propagator");
  contract->fallthrough();
  contract->add_option("--lattice", s->contract_lattice, "Lattice LXxLYxLZxLT")->capture_default_str();
  contract->add_option("--precision", s->contract_precision, "single or double")
      ->check(CLI::IsMember({"single", "double"}))
      ->capture_default_str();

  std::vector<std::pair<std::string, CLI::App*>> gauge_benches;
  for (const char* kind : bench::gauge_kinds) {
    auto* g = cmd->add_subcommand(kind, std::string("Gauge algorithm throughput: ") + kind + " (double)");
    g->fallthrough();
    g->add_option("--lattice", s->gauge_lattice, "Lattice LXxLYxLZxLT")->capture_default_str();
    gauge_benches.emplace_back(kind, g);
  }

  cmd->callback([&action, s, dslash, io, cg, contract, gauge_benches] {
    if (cg->parsed()) {
      action = [s] {
        auto o = s->cg;
        o.lattice = parse_lattice(s->cg_lattice);
        o.mg.block = parse_mg_block(s->cg_mg_block);
        o.grid = parse_grid(s->cg_grid);
        o.backend = single_backend(s->backend);
        o.quick = s->quick;
        const double copy = bench::stream_copy_gbytes_per_s(o.backend, s->quick);
        emit_record(bench::run_solver(o, copy), *s, {{o.backend, copy}});
        return 0;
      };
      return;
    }
    if (contract->parsed()) {
      action = [s] {
        const std::string backend = single_backend(s->backend);
        const double copy = bench::stream_copy_gbytes_per_s(backend, s->quick);
        emit_record(bench::run_contract(parse_lattice(s->contract_lattice), s->contract_precision, backend, copy, s->quick), *s,
                    {{backend, copy}});
        return 0;
      };
      return;
    }
    for (const auto& [kind, g] : gauge_benches)
      if (g->parsed()) {
        action = [s, kind] {
          emit_records(bench::run_gauge(kind, parse_lattice(s->gauge_lattice), single_backend(s->backend), s->quick), *s);
          return 0;
        };
        return;
      }
    if (io->parsed()) {
      action = [s] {
        emit_records(bench::run_io(parse_lattice(s->io_lattice), s->quick), *s);
        return 0;
      };
      return;
    }
    if (dslash->parsed()) {
      action = [s] {
        auto o = s->dslash;
        o.lattice = parse_lattice(s->dslash_lattice);
        o.grid = parse_grid(s->dslash_grid);
        o.backend = single_backend(s->backend);
        o.quick = s->quick;
        o.min_seconds = s->min_seconds;
        const double copy = bench::stream_copy_gbytes_per_s(o.backend, s->quick);
        emit_record(bench::run_dslash(o, copy), *s, {{o.backend, copy}});
        return 0;
      };
      return;
    }
    action = [s] {
      bench::SuiteOptions o;
      o.lattices.clear();
      for (const auto& item : split_list(s->lattices, "--lattices")) o.lattices.push_back(parse_lattice(item));
      if (s->backend == "all") o.backends = enabled_backend_names();
      else if (!s->backend.empty()) o.backends = split_list(s->backend, "--backend");
      for (const auto& b : o.backends)
        if (!with_execution_space(b, [&]<class ES>() {}))
          throw invalid_argument("--backend: '" + b + "' is not enabled in this build (enabled: run kqcd info)");
      o.precisions = split_list(s->precisions, "--precisions");
      o.operators = split_list(s->operators, "--operators");
      o.families = split_list(s->families, "--families");
      o.solvers = split_list(s->solvers, "--solvers");
      o.solver_precisions = split_list(s->solver_precisions, "--solver-precisions");
      o.configs = resolve_configs(s->configs);
      o.min_seconds = s->min_seconds;
      o.quick = s->quick;
      // The table grows a row per case as the suite runs: the first result shows within seconds.
      bench::SuiteObserver observer;
      if (!s->json) {
        observer.started = [](const nlohmann::json& suite) { std::cout << bench::format_table_head(suite) << std::flush; };
        observer.recorded = [](const nlohmann::json& r) { std::cout << bench::format_table_row(r) << std::flush; };
      }
      const auto suite = bench::run_suite(o, observer);
      if (suite["results"].empty()) throw invalid_argument("bench: the selection ran no case");
      emit(suite, nlohmann::json::array(), *s, suite["copy_gbytes_per_s"]);
      return 0;
    };
  });
}

} // namespace kqcd::cli
