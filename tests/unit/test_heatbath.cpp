// Quenched generation: the 8^4 plaquette at beta = 6.0 after thermalisation against the published
// value and the MILC configuration, reproducibility for a seed, over-relaxation keeping the action,
// unitarity, bad parameters. (Thread-count independence: the cli.generate tests.)
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/heatbath.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <cmath>

using namespace kqcd;
using Catch::Matchers::WithinAbs;
using G = GaugeField<Kokkos::complex<double>>;

TEST_CASE("heat bath thermalises the 8^4 beta 6.0 plaquette to the published value", "[smear][heatbath]") {
  const Lattice lat({8, 8, 8, 8});
  G u(lat);
  unit_gauge(u);
  HeatbathParams hp;
  hp.beta = 6.0;
  hp.n_or = 4;
  hp.seed = 2024;
  const int therm = 30, measure = 30;
  Kokkos::Timer timer;
  for (int s = 0; s < therm; ++s) heatbath_sweep(u, hp, std::uint32_t(s));
  double sum = 0;
  for (int s = 0; s < measure; ++s) {
    heatbath_sweep(u, hp, std::uint32_t(therm + s));
    sum += plaquette(u).total;
  }
  const double avg = sum / measure;
  const auto milc = read_gauge(kqcd::test::shared_data("milc-l8888-b6.0.milc"));
  G w(milc.lattice);
  import_gauge(w, milc.links);
  WARN("8^4 beta 6.0: plaquette averaged over sweeps " << therm + 1 << ".." << therm + measure << " = " << avg
                                                        << " (published 0.5937, MILC file " << plaquette(w).total << "); "
                                                        << (therm + measure) << " sweeps in " << timer.seconds() << " s");
  REQUIRE_THAT(avg, WithinAbs(0.5937, 0.002));
  REQUIRE_THAT(avg, WithinAbs(plaquette(w).total, 0.002));
  REQUIRE(max_su3_deviation(export_gauge(u)) < 1e-13);
}

TEST_CASE("heat bath is reproducible and over-relaxation keeps the action", "[smear][heatbath]") {
  const Lattice lat({4, 4, 4, 6});
  HeatbathParams hp;
  hp.beta = 5.7;
  hp.n_or = 2;
  hp.seed = 7;
  auto generate = [&](std::uint64_t seed) {
    G u(lat);
    hot_start(u, seed);
    hp.seed = seed;
    for (int s = 0; s < 3; ++s) heatbath_sweep(u, hp, std::uint32_t(s));
    return export_gauge(u);
  };
  const auto a = generate(7), b = generate(7), c = generate(8);
  REQUIRE(a == b);
  REQUIRE(a != c);

  G u(lat);
  import_gauge(u, a);
  const double before = plaquette(u).total;
  overrelax_pass(u, hp);
  REQUIRE_THAT(plaquette(u).total, WithinAbs(before, 1e-12));
  REQUIRE(export_gauge(u) != a);

  G odd(Lattice({4, 4, 4, 5}));
  REQUIRE_THROWS_AS(heatbath_sweep(odd, hp, 0), invalid_argument);
  hp.beta = -1;
  REQUIRE_THROWS_AS(heatbath_sweep(u, hp, 0), invalid_argument);
}
