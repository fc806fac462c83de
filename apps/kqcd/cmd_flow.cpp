// kqcd flow: the Wilson flow of a gauge configuration (gauge/gradient_flow.hpp): plaquette, E and t^2 E
// from the plaquette and the clover, and the clover topological charge after every step.
#include "commands.hpp"
#include "gauge_summary.hpp"

#include <bench.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/gauge/gradient_flow.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace kqcd::cli {

namespace {
struct FlowSettings {
  std::string config, format = "auto", grid = "auto";
  double eps = 0.01, tmax = 1.0;
  bool json = false, accept_bad = false;
};

int run_flow(const FlowSettings& s) {
  if (!(s.eps > 0)) throw invalid_argument("--eps must be positive, found " + std::to_string(s.eps));
  if (!(s.tmax >= 0)) throw invalid_argument("--tmax must be >= 0, found " + std::to_string(s.tmax));
  GaugeReadOptions options;
  options.format = parse_gauge_format(s.format);
  options.accept_bad = s.accept_bad;
  LoadedGauge loaded = load_gauge(s.config, options, s.grid);
  const HostGaugeConfig& cfg = loaded.cfg;
  DeviceGauge& u = loaded.u;
  if (!s.json) std::printf("%10s %16s %16s %14s %16s %14s %12s\n", "t", "plaquette", "E(plaq)", "t^2E(plaq)", "E(clover)",
                           "t^2E(clover)", "Q");
  nlohmann::json rows = nlohmann::json::array();
  Kokkos::Timer timer;
  const auto ms = wilson_flow(u, s.eps, s.tmax, [&](const FlowMeasurement& m) {
    if (s.json)
      rows.push_back({{"t", m.t}, {"plaquette", m.plaquette}, {"e_plaq", m.e_plaq}, {"t2e_plaq", m.t2e_plaq},
                      {"e_clover", m.e_clover}, {"t2e_clover", m.t2e_clover}, {"charge", m.charge}});
    else
      std::printf("%10.5f %16.12f %16.10f %14.10f %16.10f %14.10f %12.6f\n", m.t, m.plaquette, m.e_plaq, m.t2e_plaq,
                  m.e_clover, m.t2e_clover, m.charge);
  });
  const double step = ms.size() > 1 ? ms[1].t : s.eps;
  if (loaded.grid->rank() == 0) std::fprintf(stderr, "[kqcd flow] %zu steps of %g in %.2f s\n", ms.size() - 1, step, timer.seconds());
  if (s.json) {
    nlohmann::json j{{"lattice", cfg.lattice.dims()}, {"eps", step}, {"tmax", s.tmax},
                     {"integrator", "Luescher RK3"}, {"measurements", rows},
                     {"provenance", bench::provenance_json()}};
    std::cout << j.dump(2) << "\n";
  }
  return 0;
}
} // namespace

void add_flow_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<FlowSettings>();
  auto* cmd = app.add_subcommand("flow", "Wilson flow: E(t), t^2 E(t) (plaquette and clover) and the topological charge");
  cmd->add_option("--config", s->config, "Gauge configuration file")->required();
  cmd->add_option("--eps", s->eps, "Step size (the last step is adjusted to land on tmax)")->capture_default_str();
  cmd->add_option("--tmax", s->tmax, "Final flow time")->capture_default_str();
  cmd->add_option("--format", s->format, "Input format (auto: detected from the content)")
      ->check(CLI::IsMember({"auto", "nersc", "ildg", "milc"}))
      ->capture_default_str();
  cmd->add_flag("--accept-bad", s->accept_bad, "Accept failed checksums, header values or SU(3) checks with a warning");
  cmd->add_flag("--json", s->json, "Print JSON");
  add_grid_option(cmd, s->grid);
  cmd->callback([&action, s] { action = [s] { return run_flow(*s); }; });
}

} // namespace kqcd::cli
