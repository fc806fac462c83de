// The gauge-field summary that `kqcd plaquette`, `kqcd smear` and `kqcd generate` print: plaquette
// (total, spatial, temporal), link trace and temporal Polyakov loop, as JSON or as text.
#pragma once

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace kqcd::cli {

using DeviceGauge = GaugeField<Kokkos::complex<double>>;

nlohmann::json gauge_summary_json(const DeviceGauge& u);
/// Three lines: plaquette, link trace, Polyakov loop.
std::string gauge_summary_text(const DeviceGauge& u);

/// A configuration read by every rank of the process grid, each its own sites (one rank: the whole lattice).
/// The grid outlives the field.
struct LoadedGauge {
  HostGaugeConfig cfg; ///< lattice, format, precision, warnings (no links)
  std::unique_ptr<ProcessGrid> grid;
  DeviceGauge u;
};
LoadedGauge load_gauge(const std::string& path, const GaugeReadOptions& options, const std::string& grid);
/// The --grid option of the commands that run distributed under mpiexec.
void add_grid_option(CLI::App* cmd, std::string& grid);

} // namespace kqcd::cli
