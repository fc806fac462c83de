// Gauge-field algorithms' throughput on the default execution space, in double: one smearing step
// (APE, stout, HYP), one Runge-Kutta step of the Wilson flow, one heat-bath sweep (1 heat bath + 4
// over-relaxation passes). Reported per lattice site: sites per second and microseconds per site.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/ops/gradient_flow.hpp>
#include <kqcd/ops/heatbath.hpp>
#include <kqcd/ops/smearing.hpp>

#include <cstdio>
#include <functional>

namespace kqcd::bench {

namespace {
using ES = Kokkos::DefaultExecutionSpace;
using G = GaugeField<Kokkos::complex<double>, ES>;

/// Best-of-batches seconds per call of f.
double time_call(const std::function<void()>& f, bool quick) {
  f();
  ES().fence();
  double best = 1e30;
  int iters = 1;
  for (int batch = 0; batch < (quick ? 1 : 3); ++batch) {
    Kokkos::Timer t;
    for (int i = 0; i < iters; ++i) f();
    ES().fence();
    best = std::min(best, t.seconds() / iters);
    if (!quick && best < 0.2) iters = std::max(iters, int(0.3 / std::max(best, 1e-6)));
  }
  return best;
}
} // namespace

nlohmann::json run_gauge(const std::string& kind, const Lattice& lattice, bool quick) {
  G u(lattice), out(lattice);
  random_gauge(u, 1234);
  nlohmann::json results = nlohmann::json::array();
  auto record = [&](const std::string& name, double seconds, const std::string& note) {
    const double sites = double(lattice.volume());
    std::fprintf(stderr, "[kqcd bench %s] %s %s: %.3g s per call, %.3g Msites/s\n", kind.c_str(), name.c_str(),
                 lattice.to_string().c_str(), seconds, sites / seconds * 1e-6);
    results.push_back({{"case", name}, {"lattice", lattice.dims()}, {"precision", "double"},
                       {"time_per_call_s", seconds}, {"msites_per_s", sites / seconds * 1e-6},
                       {"us_per_site", seconds / sites * 1e6}, {"note", note}});
  };
  if (kind == "smear") {
    for (auto method : {SmearMethod::ape, SmearMethod::stout, SmearMethod::hyp}) {
      SmearParams sp;
      sp.method = method;
      sp.ape_c = 2.5;
      const char* name = method == SmearMethod::ape ? "ape" : method == SmearMethod::stout ? "stout" : "hyp";
      record(name, time_call([&] { smear_step(u, out, sp); }, quick), "one step, all four directions, 4 links per site");
    }
  } else if (kind == "flow") {
    WilsonFlow<Kokkos::complex<double>, ES> flow(lattice);
    record("wilson_flow_rk3", time_call([&] { flow.step(u, 0.01); }, quick), "one RK3 step (three stages)");
    record("clover_observables", time_call([&] { (void)clover_observables(u); }, quick), "E (clover) and Q");
  } else if (kind == "heatbath") {
    HeatbathParams hp;
    std::uint32_t sweep = 0;
    record("heatbath_sweep", time_call([&] { heatbath_sweep(u, hp, sweep++); }, quick),
           "one sweep: 1 heat bath + 4 over-relaxation passes + reunitarisation, beta 6");
  } else {
    throw invalid_argument("bench: unknown gauge benchmark '" + kind + "' (smear, flow, heatbath)");
  }
  return {{"provenance", to_json(make_provenance(ES::name()))}, {"results", results}};
}

} // namespace kqcd::bench
