// Gauge files on a process grid with their header values measured on the field: the parallel
// reader and writer of io/distributed_gauge.hpp with the distributed plaquette and link trace of
// gauge/gauge_observables.hpp (the values NERSC headers carry and every reader checks).
#pragma once

#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/io/distributed_gauge.hpp>

#include <string>
#include <utility>
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

/// A gauge file as a device field in one call, on one process: the format detected from the
/// content, the checksums, SU(3) and header values verified (io_error naming the problem otherwise).
/// Verification failures accepted with options.accept_bad go to *warnings where given.
template <class ES = Kokkos::DefaultExecutionSpace>
GaugeField<Kokkos::complex<double>, ES> load_gauge(const std::string& path, const GaugeReadOptions& options = {},
                                                   std::vector<std::string>* warnings = nullptr) {
  const GaugeFileLayout layout = read_gauge_header(path, options);
  GaugeField<Kokkos::complex<double>, ES> u(layout.lattice);
  std::vector<std::string> accepted = read_gauge_into(u, path, layout, options);
  if (warnings) *warnings = std::move(accepted);
  return u;
}

/// write_gauge of io/distributed_gauge.hpp, NERSC headers with header_observables().
template <class GT, class ES>
void write_gauge(const std::string& path, GaugeFormat format, const GaugeField<GT, ES>& u, bool force = false) {
  write_gauge(path, format, u, force, header_observables<GT, ES>);
}

} // namespace kqcd
