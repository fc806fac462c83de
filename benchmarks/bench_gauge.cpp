// Gauge-field algorithms' throughput in double: one smearing step (APE, stout, HYP), one
// Runge-Kutta step of the Wilson flow, one heat-bath sweep (1 heat bath + 4 over-relaxation
// passes). Reported per lattice site: sites per second and microseconds per site.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gradient_flow.hpp>
#include <kqcd/gauge/heatbath.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/stencil/local_operators.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>

namespace kqcd::bench {

namespace {
/// Best-of-batches seconds per call of f; a call slower than half a second is timed once after
/// the warm-up (a 16^4 HYP step on two CPU cores takes seconds).
template <class ES> double time_call(const std::function<void()>& f, bool quick) {
  Kokkos::Timer warm;
  f();
  ES().fence();
  double best = warm.seconds();
  int iters = 1;
  const int batches = quick || best > 0.5 ? 1 : 3;
  for (int batch = 0; batch < batches; ++batch) {
    Kokkos::Timer t;
    for (int i = 0; i < iters; ++i) f();
    ES().fence();
    best = std::min(best, t.seconds() / iters);
    if (!quick && best < 0.2) iters = std::max(iters, int(0.3 / std::max(best, 1e-6)));
  }
  return best;
}

template <class ES> nlohmann::json time_gauge(const std::string& kind, const Lattice& lattice, bool quick) {
  using G = GaugeField<Kokkos::complex<double>, ES>;
  G u(lattice), out(lattice);
  random_gauge(u, 1234);
  nlohmann::json results = nlohmann::json::array();
  auto record = [&](const std::string& name, double seconds, const std::string& note) {
    const double sites = double(lattice.volume());
    results.push_back({{"benchmark", kind + "_" + name},
                       {"case", name},
                       {"lattice", lattice.dims()},
                       {"precision", "double"},
                       {"time_per_call_s", seconds},
                       {"msites_per_s", sites / seconds * 1e-6},
                       {"us_per_site", seconds / sites * 1e6},
                       {"note", note}});
  };
  if (kind == "smear") {
    for (auto method : {SmearMethod::ape, SmearMethod::stout, SmearMethod::hyp}) {
      SmearParams sp;
      sp.method = method;
      sp.ape_c = 2.5;
      const char* name = method == SmearMethod::ape ? "ape" : method == SmearMethod::stout ? "stout" : "hyp";
      record(name, time_call<ES>([&] { smear_step(u, out, sp); }, quick), "one step, all four directions, 4 links per site");
    }
  } else if (kind == "flow") {
    WilsonFlow<Kokkos::complex<double>, ES> flow(lattice);
    record("wilson_flow_rk3", time_call<ES>([&] { flow.step(u, 0.01); }, quick), "one RK3 step (three stages)");
    record("clover_observables", time_call<ES>([&] { (void)clover_observables(u); }, quick), "E (clover) and Q");
  } else if (kind == "clover") {
    using Field = CloverField<double, ES>;
    constexpr double diag = 4.1, csw = 1.3, mu = 0.3;
    for (auto inverter : {Field::BlockInverter::ldl, Field::BlockInverter::kokkos_kernels}) {
      if (inverter == Field::BlockInverter::kokkos_kernels && !Field::kokkos_kernels_available) continue;
      const std::string how = inverter == Field::BlockInverter::ldl ? "ldl" : "kokkos_kernels";
      const std::string note = inverter == Field::BlockInverter::ldl ? "6x6 blocks inverted by kqcd's L D L^dag"
                                                                      : "6x6 blocks inverted by Kokkos Kernels' SerialLU + SerialInverseLU";
      record("build_inverse_" + how, time_call<ES>([&] { Field f(u, diag, csw, Field::Inverse::inverse, 0.0, inverter); }, quick),
             "A and A^-1 of both parities; " + note);
      record("build_twisted_" + how, time_call<ES>([&] { Field f(u, diag, csw, Field::Inverse::twisted, mu, inverter); }, quick),
             "A, X = B A and mu B of both parities, B = (A^2 + mu^2)^-1; " + note);
    }
  } else {
    HeatbathParams hp;
    std::uint32_t sweep = 0;
    record("sweep", time_call<ES>([&] { heatbath_sweep(u, hp, sweep++); }, quick),
           "one sweep: 1 heat bath + 4 over-relaxation passes + reunitarisation, beta 6");
  }
  return results;
}
} // namespace

nlohmann::json run_gauge(const std::string& kind, const Lattice& lattice, const std::string& backend_in, bool quick) {
  if (std::find(gauge_kinds.begin(), gauge_kinds.end(), kind) == gauge_kinds.end())
    throw invalid_argument("bench: unknown gauge benchmark '" + kind + "' (smear, flow, heatbath, clover)");
  const std::string backend = backend_or_default(backend_in);
  nlohmann::json results;
  on_backend(backend, [&]<class ES>() { results = time_gauge<ES>(kind, lattice, quick); });
  for (auto& r : results) {
    finish_record(r, kind, backend);
    std::fprintf(stderr, "[kqcd bench %s] %s %s on %s: %.3g s per call, %.3g Msites/s\n", kind.c_str(),
                 r["case"].get<std::string>().c_str(), lattice.to_string().c_str(), backend.c_str(),
                 r["time_per_call_s"].get<double>(), r["msites_per_s"].get<double>());
  }
  return results;
}

} // namespace kqcd::bench
