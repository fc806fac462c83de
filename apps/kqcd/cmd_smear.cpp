// kqcd smear: read a gauge configuration, apply APE, stout or HYP smearing (gauge/smearing.hpp) and
// print the smeared field's summary (the JSON of `kqcd plaquette`); optionally write it as NERSC.
#include "commands.hpp"
#include "gauge_summary.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace kqcd::cli {

namespace {
struct SmearSettings {
  std::string config, format = "auto", method = "ape", hyp = "0.75,0.6,0.3", dirs = "all", out, grid = "auto";
  int steps = 1;
  double alpha = 2.5, rho = 0.1;
  bool json = false, accept_bad = false, force = false;
};

int run_smear(const SmearSettings& s) {
  SmearParams sp;
  sp.method = parse_smear_method(s.method);
  sp.steps = s.steps;
  sp.ape_c = s.alpha;
  sp.rho = s.rho;
  sp.spatial_only = s.dirs == "spatial";
  std::stringstream in(s.hyp);
  int n = 0;
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (n >= 3 || used != item.size() || item.empty())
      throw invalid_argument("--hyp '" + s.hyp + "': expected three numbers A1,A2,A3");
    sp.hyp[n++] = v;
  }
  if (n != 3) throw invalid_argument("--hyp '" + s.hyp + "': expected three numbers A1,A2,A3");
  check_smear_params(sp);

  GaugeReadOptions options;
  options.format = parse_gauge_format(s.format);
  options.accept_bad = s.accept_bad;
  const LoadedGauge loaded = load_gauge(s.config, options, s.grid);
  const HostGaugeConfig& cfg = loaded.cfg;
  const DeviceGauge smeared = smear(loaded.u, sp);
  if (!s.out.empty()) {
    write_gauge(s.out, GaugeFormat::nersc, smeared, s.force);
    std::fprintf(stderr, "[kqcd smear] smeared field written to %s\n", s.out.c_str());
  }
  if (s.json) {
    std::cout << gauge_summary_json(smeared).dump(2) << "\n";
    return 0;
  }
  std::printf("%s: %s, %d step(s), lattice %s\n", s.config.c_str(), s.method.c_str(), s.steps,
              cfg.lattice.to_string().c_str());
  std::fputs(gauge_summary_text(smeared).c_str(), stdout);
  return 0;
}
} // namespace

void add_smear_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<SmearSettings>();
  auto* cmd = app.add_subcommand("smear", "Smear a gauge configuration (APE, stout, HYP) and print its plaquette");
  cmd->add_option("--config", s->config, "Gauge configuration file")->required();
  cmd->add_option("--method", s->method, "ape, stout or hyp")
      ->check(CLI::IsMember({"ape", "stout", "hyp"}))
      ->capture_default_str();
  cmd->add_option("--steps", s->steps, "Number of smearing steps")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--alpha", s->alpha, "APE: coefficient c of the original link, U' = Proj(c U + staples)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--rho", s->rho, "Stout: rho")->capture_default_str();
  cmd->add_option("--hyp", s->hyp, "HYP: A1,A2,A3")->capture_default_str();
  cmd->add_option("--dirs", s->dirs, "Smear all directions or the spatial ones (APE, stout)")
      ->check(CLI::IsMember({"all", "spatial"}))
      ->capture_default_str();
  cmd->add_option("--out", s->out, "Write the smeared field (NERSC 3x3, IEEE64BIG)");
  cmd->add_flag("--force", s->force, "Replace an existing --out file");
  cmd->add_option("--format", s->format, "Input format (auto: detected from the content)")
      ->check(CLI::IsMember({"auto", "nersc", "ildg", "milc"}))
      ->capture_default_str();
  cmd->add_flag("--accept-bad", s->accept_bad, "Accept failed checksums, header values or SU(3) checks with a warning");
  cmd->add_flag("--json", s->json, "Print JSON (the fields of kqcd plaquette)");
  add_grid_option(cmd, s->grid);
  cmd->callback([&action, s] { action = [s] { return run_smear(*s); }; });
}

} // namespace kqcd::cli
