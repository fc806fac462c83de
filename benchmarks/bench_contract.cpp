// Meson contractions: the 16-Gamma meson density of a propagator (12 spin-colour columns) and its
// zero-momentum timeslice sums, as `kqcd measure` runs them. GB/s by a byte model of our own
// (named in the record): the propagator read once, the density (16 complex doubles per site)
// written once and read back once by the timeslice sum.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/measure/contraction.hpp>

#include <cstdio>

namespace kqcd::bench {

namespace {
template <class ES, class Real> nlohmann::json time_contract(const Lattice& lattice, bool quick) {
  PropagatorField<Real, ES> S(lattice, "bench_prop");
  for (int k = 0; k < SpinColour; ++k) random_spinor(S[k], 100 + std::uint64_t(k));
  const Coords origin{{0, 0, 0, 0}};
  auto call = [&] { (void)meson_correlators(S, origin); }; // copies Lt x 16 sums back: a fence
  call();
  double best = 1e30;
  int iters = 1;
  for (int batch = 0; batch < (quick ? 1 : 3); ++batch) {
    Kokkos::Timer t;
    for (int i = 0; i < iters; ++i) call();
    best = std::min(best, t.seconds() / iters);
    if (!quick && best < 0.2) iters = std::max(iters, int(0.3 / std::max(best, 1e-6)));
  }
  const double sites = double(lattice.volume());
  const double bytes_per_site = SpinColour * SpinColour * 2.0 * sizeof(Real) + 2 * 16 * 2 * sizeof(double);
  return {{"time_per_call_s", best},
          {"msites_per_s", sites / best * 1e-6},
          {"gbytes_per_s", sites * bytes_per_site / best * 1e-9},
          {"bytes_per_site", bytes_per_site}};
}
} // namespace

nlohmann::json run_contract(const Lattice& lattice, const std::string& precision, const std::string& backend_in,
                            double copy_gbytes_per_s, bool quick) {
  if (precision != "single" && precision != "double")
    throw invalid_argument("precision '" + precision + "': expected single or double");
  const std::string backend = backend_or_default(backend_in);
  nlohmann::json r;
  on_backend(backend, [&]<class ES>() {
    r = precision == "single" ? time_contract<ES, float>(lattice, quick) : time_contract<ES, double>(lattice, quick);
  });
  r["benchmark"] = "meson_correlators";
  r["case"] = "16 Gamma, p = 0";
  r["lattice"] = lattice.dims();
  r["precision"] = precision;
  r["byte_model"] = "propagator read once + meson density (16 complex doubles) written and read once";
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  r["percent_of_copy"] = 100.0 * r["gbytes_per_s"].get<double>() / copy_gbytes_per_s;
  finish_record(r, "contract", backend);
  return r;
}

} // namespace kqcd::bench
