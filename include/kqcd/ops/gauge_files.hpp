// Gauge files on a process grid with their header values measured on the field: the parallel
// reader and writer of io/distributed_gauge.hpp with the distributed plaquette and link trace of
// ops/gauge_observables.hpp (the values NERSC headers carry and every reader checks).
#pragma once

#include <kqcd/io/distributed_gauge.hpp>
#include <kqcd/ops/gauge_observables.hpp>

#include <string>
#include <vector>

namespace kqcd {

/// The plaquette and link trace a gauge file's header states, measured on u (collective).
template <class GT, class ES> GaugeHeaderObservables header_observables(const GaugeField<GT, ES>& u) {
  return {plaquette(u).total, link_trace(u)};
}

/// read_gauge_into of io/distributed_gauge.hpp, the header checked against header_observables().
template <class GT, class ES>
std::vector<std::string> read_gauge_into(GaugeField<GT, ES>& u, const std::string& path, const GaugeFileLayout& layout,
                                         const GaugeReadOptions& options = {}) {
  return read_gauge_into(u, path, layout, options, header_observables<GT, ES>);
}

/// write_gauge of io/distributed_gauge.hpp, NERSC headers with header_observables().
template <class GT, class ES>
void write_gauge(const std::string& path, GaugeFormat format, const GaugeField<GT, ES>& u, bool force = false) {
  write_gauge(path, format, u, force, header_observables<GT, ES>);
}

} // namespace kqcd
