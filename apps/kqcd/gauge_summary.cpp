#include "gauge_summary.hpp"

#include <bench.hpp>
#include <kqcd/ops/gauge_observables.hpp>

#include <cstdio>

namespace kqcd::cli {

nlohmann::json gauge_summary_json(const DeviceGauge& u) {
  const auto plaq = plaquette(u);
  const double trace = link_trace(u);
  const auto poly = polyakov_loop(u, Nd - 1);
  return {{"lattice", u.lattice().dims()}, {"plaquette", plaq.total}, {"spatial", plaq.spatial},
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

} // namespace kqcd::cli
