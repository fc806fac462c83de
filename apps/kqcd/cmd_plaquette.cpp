// kqcd plaquette: read a gauge configuration (any supported format, verified) and print its
// plaquette, link trace and temporal Polyakov loop, measured on the default execution space.
#include "commands.hpp"
#include "gauge_summary.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <cstdio>
#include <iostream>

namespace kqcd::cli {

namespace {
struct PlaquetteSettings {
  std::string config;
  std::string format = "auto";
  bool json = false;
  bool accept_bad = false;
  std::string grid = "auto";
};

int run_plaquette(const PlaquetteSettings& s) {
  GaugeReadOptions options;
  options.format = parse_gauge_format(s.format);
  options.accept_bad = s.accept_bad;
  const LoadedGauge loaded = load_gauge(s.config, options, s.grid);
  const HostGaugeConfig& cfg = loaded.cfg;
  const DeviceGauge& u = loaded.u;
  if (s.json) {
    std::cout << gauge_summary_json(u).dump(2) << "\n";
    return 0;
  }
  std::printf("%s: %s (%s precision), lattice %s\n", s.config.c_str(), cfg.format.c_str(), cfg.precision.c_str(),
              cfg.lattice.to_string().c_str());
  std::fputs(gauge_summary_text(u).c_str(), stdout);
  return 0;
}
} // namespace

void add_plaquette_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<PlaquetteSettings>();
  auto* cmd = app.add_subcommand("plaquette", "Read a gauge configuration and print plaquette, link trace, Polyakov loop");
  cmd->add_option("--config", s->config, "Gauge configuration file")->required();
  cmd->add_option("--format", s->format, "File format (auto: detected from the content)")
      ->check(CLI::IsMember({"auto", "nersc", "ildg", "milc"}))
      ->capture_default_str();
  cmd->add_flag("--json", s->json, "Print JSON");
  add_grid_option(cmd, s->grid);
  cmd->add_flag("--accept-bad", s->accept_bad, "Accept failed checksums, header values or SU(3) checks with a warning");
  cmd->callback([&action, s] { action = [s] { return run_plaquette(*s); }; });
}

} // namespace kqcd::cli
