// kqcd generate: quenched Wilson-action configurations by Cabibbo-Marinari heat bath and
// over-relaxation (gauge/heatbath.hpp), written as NERSC. One progress line per sweep on stderr. The
// configuration depends only on the options, not on the backend, the thread count or the process
// grid: under mpiexec every rank updates its sub-lattice (--grid) and writes its part of the file.
#include "commands.hpp"
#include "gauge_summary.hpp"

#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/heatbath.hpp>

#include <cstdio>
#include <iostream>

namespace kqcd::cli {

namespace {
struct GenerateSettings {
  std::string lattice, out, start = "cold", grid = "auto";
  double beta = 6.0;
  int sweeps = 0, n_or = 4;
  std::uint64_t seed = 0;
  bool json = false, force = false;
};

int run_generate(const GenerateSettings& s) {
  const Lattice lat = parse_lattice(s.lattice);
  const auto shape = parse_grid(s.grid);
  HeatbathParams hp;
  hp.beta = s.beta;
  hp.n_or = s.n_or;
  hp.seed = s.seed;
  check_heatbath(lat, hp);
  detail::on_root([&] { check_output_path(s.out, s.force); }); // before the work, not after
  const ProcessGrid grid(lat, shape);
  const bool root = grid.rank() == 0;
  if (grid.size() > 1 && root)
    std::fprintf(stderr, "[kqcd generate] %s on a %s process grid, %s sites per rank\n", lat.to_string().c_str(),
                 grid.to_string().c_str(), grid.lattice().to_string().c_str());
  DeviceGauge u(grid.lattice());
  if (s.start == "hot") hot_start(u, s.seed);
  else unit_gauge(u);
  Kokkos::Timer timer;
  for (int sweep = 0; sweep < s.sweeps; ++sweep) {
    heatbath_sweep(u, hp, std::uint32_t(sweep));
    const double plaq = plaquette(u).total;
    if (root)
      std::fprintf(stderr, "[kqcd generate] sweep %d/%d plaquette %.10f (%.2f s)\n", sweep + 1, s.sweeps, plaq, timer.seconds());
  }
  write_gauge(s.out, GaugeFormat::nersc, u, s.force);
  if (s.json) {
    auto j = gauge_summary_json(u);
    j["beta"] = s.beta;
    j["sweeps"] = s.sweeps;
    j["overrelaxation"] = s.n_or;
    j["seed"] = s.seed;
    j["start"] = s.start;
    j["out"] = s.out;
    j["seconds"] = timer.seconds();
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%s: %s, beta %g, %d sweeps (1 heat bath + %d over-relaxation each), seed %llu, %s start\n", s.out.c_str(),
              lat.to_string().c_str(), s.beta, s.sweeps, s.n_or, static_cast<unsigned long long>(s.seed), s.start.c_str());
  std::fputs(gauge_summary_text(u).c_str(), stdout);
  return 0;
}
} // namespace

void add_generate_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<GenerateSettings>();
  auto* cmd = app.add_subcommand("generate", "Generate a quenched (Wilson action) configuration by heat bath");
  cmd->add_option("--lattice", s->lattice, "Lattice LXxLYxLZxLT (all extents even)")->required();
  cmd->add_option("--beta", s->beta, "Gauge coupling beta = 6 / g^2")->required();
  cmd->add_option("--sweeps", s->sweeps, "Number of sweeps")->required()->check(CLI::NonNegativeNumber);
  cmd->add_option("--or", s->n_or, "Over-relaxation passes per sweep")->check(CLI::Range(0, 100))->capture_default_str();
  cmd->add_option("--seed", s->seed, "Random seed")->required();
  cmd->add_option("--start", s->start, "cold (unit links) or hot (random links)")
      ->check(CLI::IsMember({"cold", "hot"}))
      ->capture_default_str();
  cmd->add_option("--out", s->out, "Output file (NERSC 3x3, IEEE64BIG)")->required();
  cmd->add_flag("--force", s->force, "Replace an existing --out file");
  add_grid_option(cmd, s->grid);
  cmd->add_flag("--json", s->json, "Print JSON (the fields of kqcd plaquette and the run's settings)");
  cmd->callback([&action, s] { action = [s] { return run_generate(*s); }; });
}

} // namespace kqcd::cli
