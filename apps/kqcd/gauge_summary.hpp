// The gauge-field summary that `kqcd plaquette`, `kqcd smear` and `kqcd generate` print: plaquette
// (total, spatial, temporal), link trace and temporal Polyakov loop, as JSON or as text.
#pragma once

#include <kqcd/fields/gauge_field.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace kqcd::cli {

using DeviceGauge = GaugeField<Kokkos::complex<double>>;

nlohmann::json gauge_summary_json(const DeviceGauge& u);
/// Three lines: plaquette, link trace, Polyakov loop.
std::string gauge_summary_text(const DeviceGauge& u);

} // namespace kqcd::cli
