// kqcd bench: the benchmark suite (default) and single benchmarks (kqcd bench dslash ...).
#include "commands.hpp"

#include <bench.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/io/atomic_file.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace kqcd::cli {

namespace {
struct BenchSettings {
  std::string lattices = "8x8x8x8,16x16x16x16";
  std::string backend;
  std::string out;
  bool json = false;
  bool quick = false;
  bench::DslashOptions dslash;
  bench::SolverOptions cg;
  std::string cg_lattice = "16x16x16x16";
  std::string dslash_lattice = "16x16x16x16";
  std::string io_lattice = "32x32x32x32";
  std::string gauge_lattice = "8x8x8x8";
};

void emit(const nlohmann::json& j, const BenchSettings& s, const std::string& table) {
  if (!s.out.empty()) write_file_atomically(s.out, j.dump(2) + "\n", /*overwrite=*/true);
  if (s.json) std::cout << j.dump(2) << "\n";
  else std::cout << table;
  if (!s.out.empty()) std::fprintf(stderr, "[kqcd bench] JSON written to %s\n", s.out.c_str());
}
} // namespace

void add_bench_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<BenchSettings>();
  auto* cmd = app.add_subcommand("bench", "Run the benchmark suite, or one benchmark (see its subcommands)");
  cmd->add_option("--lattices", s->lattices, "Comma-separated lattices for the suite")->capture_default_str();
  cmd->add_option("--backend", s->backend, "Kokkos execution space (default: the default one)");
  cmd->add_option("--out", s->out, "Also write the JSON results to this file");
  cmd->add_flag("--json", s->json, "Print JSON instead of a table");
  cmd->add_flag("--quick", s->quick, "A smoke run with minimal timing (for tests)");

  auto* dslash = cmd->add_subcommand("dslash", "Wilson hopping term (one parity) or even-odd operator throughput");
  dslash->fallthrough();
  dslash->add_option("--lattice", s->dslash_lattice, "Lattice LXxLYxLZxLT")->capture_default_str();
  dslash->add_option("--precision", s->dslash.precision, "single or double")
      ->check(CLI::IsMember({"single", "double"}))
      ->capture_default_str();
  dslash->add_option("--operator", s->dslash.op,
                     "dslash or wilson (hopping term), eo (even-odd preconditioned Wilson operator), or the hopping term "
                     "with the site-local term A^-1 of the preconditioned clover (stored inverse), clover-dynamic (Cholesky "
                     "in the kernel), twisted (mass) or twisted-clover operator (m = 0.1, c_sw = 1, mu = 0.1)")
      ->check(CLI::IsMember({"dslash", "wilson", "eo", "clover", "clover-dynamic", "twisted", "twisted-clover"}))
      ->capture_default_str();
  dslash->add_option("--neighbours", s->dslash.neighbours, "auto, table or on-the-fly")
      ->check(CLI::IsMember({"auto", "table", "on-the-fly"}))
      ->capture_default_str();
  dslash->add_option("--layout", s->dslash.layout,
                     "auto (the fastest available: simd on host backends where the lattice splits), scalar, or simd "
                     "(virtual-node AVX-512/AVX2 layout; dslash and eo only)")
      ->check(CLI::IsMember({"auto", "scalar", "simd"}))
      ->capture_default_str();
  dslash->add_option("--sites-per-team", s->dslash.sites_per_team, "Sites per team (GPU: threads per block); 0: default")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  dslash->add_option("--min-seconds", s->dslash.min_seconds, "Time each case for at least this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  auto* io = cmd->add_subcommand("io", "Gauge file write and read throughput (NERSC and ILDG, double)");
  io->fallthrough();
  io->add_option("--lattice", s->io_lattice, "Lattice LXxLYxLZxLT of the generated configuration")->capture_default_str();

  auto* cg = cmd->add_subcommand("cg", "Time to solution of even-odd Wilson CG and its Dslash/linear-algebra split");
  cg->fallthrough();
  cg->add_option("--lattice", s->cg_lattice, "Lattice LXxLYxLZxLT")->capture_default_str();
  cg->add_option("--precision", s->cg.precision, "double, single or mixed")
      ->check(CLI::IsMember({"double", "single", "mixed"}))
      ->capture_default_str();
  cg->add_option("--kappa", s->cg.kappa, "Hopping parameter")->check(CLI::PositiveNumber)->capture_default_str();
  cg->add_option("--tol", s->cg.tol, "Target relative residual")->check(CLI::PositiveNumber)->capture_default_str();

  std::vector<std::pair<std::string, CLI::App*>> gauge_benches;
  for (const char* kind : {"smear", "flow", "heatbath"}) {
    auto* g = cmd->add_subcommand(kind, std::string("Gauge algorithm throughput: ") + kind + " (double, default space)");
    g->fallthrough();
    g->add_option("--lattice", s->gauge_lattice, "Lattice LXxLYxLZxLT")->capture_default_str();
    gauge_benches.emplace_back(kind, g);
  }

  cmd->callback([&action, s, cmd, dslash, io, cg, gauge_benches] {
    if (cg->parsed()) {
      action = [s] {
        auto o = s->cg;
        o.lattice = parse_lattice(s->cg_lattice);
        o.backend = s->backend;
        o.quick = s->quick;
        const auto r = bench::run_cg(o);
        if (!s->out.empty()) write_file_atomically(s->out, r.dump(2) + "\n", /*overwrite=*/true);
        std::cout << r.dump(2) << "\n";
        return 0;
      };
      return;
    }
    for (const auto& [kind, g] : gauge_benches)
      if (g->parsed()) {
        action = [s, kind] {
          const auto r = bench::run_gauge(kind, parse_lattice(s->gauge_lattice), s->quick);
          if (!s->out.empty()) write_file_atomically(s->out, r.dump(2) + "\n", /*overwrite=*/true);
          std::cout << r.dump(2) << "\n";
          return 0;
        };
        return;
      }
    if (io->parsed()) {
      action = [s] {
        const auto r = bench::run_io(parse_lattice(s->io_lattice), s->quick);
        if (!s->out.empty()) write_file_atomically(s->out, r.dump(2) + "\n", /*overwrite=*/true);
        std::cout << r.dump(2) << "\n";
        return 0;
      };
      return;
    }
    if (dslash->parsed()) {
      action = [s] {
        auto o = s->dslash;
        o.lattice = parse_lattice(s->dslash_lattice);
        o.backend = s->backend.empty() ? std::string(Kokkos::DefaultExecutionSpace::name()) : s->backend;
        o.quick = s->quick;
        const double copy = bench::stream_copy_gbytes_per_s(o.backend, s->quick);
        const auto r = bench::run_dslash(o, copy);
        nlohmann::json suite{{"copy_gbytes_per_s", copy}, {"provenance", r["provenance"]}, {"results", {r}}};
        emit(r, *s, bench::format_table(suite));
        return 0;
      };
      return;
    }
    (void)cmd;
    action = [s] {
      std::vector<Lattice> lats;
      std::stringstream in(s->lattices);
      for (std::string item; std::getline(in, item, ',');) lats.push_back(parse_lattice(item));
      if (lats.empty()) throw invalid_argument("--lattices: no lattice given");
      const auto suite = bench::run_suite(lats, s->backend, s->quick);
      emit(suite, *s, bench::format_table(suite));
      return 0;
    };
  });
}

} // namespace kqcd::cli
