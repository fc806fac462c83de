#include "gauge_summary.hpp"

#include <bench.hpp>
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/gauge_observables.hpp>

#include <cstdio>

namespace kqcd::cli {

nlohmann::json gauge_summary_json(const DeviceGauge& u) {
  const auto plaq = plaquette(u);
  const double trace = link_trace(u);
  const auto poly = polyakov_loop(u, Nd - 1);
  return {{"lattice", u.lattice().global_dims()}, {"plaquette", plaq.total}, {"spatial", plaq.spatial},
          {"temporal", plaq.temporal},     {"link_trace", trace},     {"polyakov", {poly.real(), poly.imag()}},
          {"provenance", bench::provenance_json()}};
}

std::string gauge_summary_text(const DeviceGauge& u) {
  const auto plaq = plaquette(u);
  const double trace = link_trace(u);
  const auto poly = polyakov_loop(u, Nd - 1);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "plaquette  %.12f (spatial %.12f, temporal %.12f)\nlink trace %.12f\npolyakov   %.12f %+.12f i (t direction)\n",
                plaq.total, plaq.spatial, plaq.temporal, trace, poly.real(), poly.imag());
  return buf;
}

LoadedGauge load_gauge(const std::string& path, const GaugeReadOptions& options, const std::string& grid) {
  LoadedGauge g;
  const auto shape = parse_grid(grid); // bad text fails before the file is read
  const GaugeFileLayout layout = read_gauge_header(path, options);
  g.cfg.lattice = layout.lattice;
  g.cfg.format = layout.format;
  g.cfg.precision = layout.precision;
  g.grid = std::make_unique<ProcessGrid>(g.cfg.lattice, shape);
  g.u = DeviceGauge(g.grid->lattice());
  g.cfg.warnings = read_gauge_into(g.u, path, layout, options);
  if (g.grid->rank() == 0)
    for (const auto& w : g.cfg.warnings) std::fprintf(stderr, "kqcd: warning: %s\n", w.c_str());
  if (g.grid->size() > 1 && g.grid->rank() == 0)
    std::fprintf(stderr, "[kqcd] %s on a %s process grid, %s sites per rank\n", g.cfg.lattice.to_string().c_str(),
                 g.grid->to_string().c_str(), g.grid->lattice().to_string().c_str());
  return g;
}

void add_grid_option(CLI::App* cmd, std::string& grid) {
  cmd->add_option("--grid", grid, "MPI process grid GXxGYxGZxGT over the lattice under mpiexec, or auto")->capture_default_str();
}

} // namespace kqcd::cli
