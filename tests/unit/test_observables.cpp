// Gauge observables on every backend in float and double: against the plain host reference on a
// random field with an asymmetric lattice, the unit field, and the reference configurations.
#include "test_harness.hpp"

#include <gauge_reference.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>

using namespace kqcd;
using Catch::Matchers::WithinAbs;

TEMPLATE_LIST_TEST_CASE("gauge observables match the host reference", "[observables]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const double tol = 10 * kqcd::test::tol<Real>();
  const Lattice lat({4, 6, 2, 8});
  GaugeField<Kokkos::complex<Real>, ES> u(lat);
  random_gauge(u, 11);
  const auto host = export_gauge(u);
  const auto want = ref::gauge_observables(lat.dims(), host);
  const auto got = plaquette(u);
  REQUIRE_THAT(got.total, WithinAbs(want.plaquette, tol));
  REQUIRE_THAT(got.spatial, WithinAbs(want.spatial, tol));
  REQUIRE_THAT(got.temporal, WithinAbs(want.temporal, tol));
  REQUIRE_THAT(link_trace(u), WithinAbs(want.link_trace, tol));
  for (int dir = 0; dir < Nd; ++dir) {
    const auto p = polyakov_loop(u, dir);
    const auto q = ref::polyakov_loop(lat.dims(), host, dir);
    REQUIRE_THAT(p.real(), WithinAbs(q.real(), tol));
    REQUIRE_THAT(p.imag(), WithinAbs(q.imag(), tol));
  }
  REQUIRE_THROWS_AS(polyakov_loop(u, 4), invalid_argument);

  unit_gauge(u);
  REQUIRE(plaquette(u).total == 1.0);
  REQUIRE(link_trace(u) == 1.0);
  REQUIRE(polyakov_loop(u).real() == 1.0);
}

TEMPLATE_LIST_TEST_CASE("observables of the reference configurations", "[observables]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const double tol = sizeof(Real) == 4 ? 1e-6 : 1e-9;
  const auto cfg = read_gauge(kqcd::test::shared_data("purgaug-l4448.nersc"));
  GaugeField<Kokkos::complex<Real>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  const auto p = plaquette(u);
  // chroma printed six digits: 0.902263 (spatial 0.862579, temporal 0.941947), Polyakov 0.864752 + 0.002155 i
  REQUIRE_THAT(p.total, WithinAbs(0.9022631188, tol));
  REQUIRE_THAT(p.spatial, WithinAbs(0.862579, 5e-7));
  REQUIRE_THAT(p.temporal, WithinAbs(0.941947, 5e-7));
  REQUIRE_THAT(link_trace(u), WithinAbs(0.7346409505, tol));
  const auto poly = polyakov_loop(u);
  REQUIRE_THAT(poly.real(), WithinAbs(0.864752, 5e-7));
  REQUIRE_THAT(poly.imag(), WithinAbs(0.002155, 5e-7));

  // MILC prints Re tr (not / 3) of the spatial and space-time plaquettes.
  const auto milc = read_gauge(kqcd::test::shared_data("milc-l4444.milc"));
  GaugeField<Kokkos::complex<Real>, ES> w(milc.lattice);
  import_gauge(w, milc.links);
  const auto q = plaquette(w);
  REQUIRE_THAT(3 * q.spatial, WithinAbs(1.7946751560761731, 3 * tol));
  REQUIRE_THAT(3 * q.temporal, WithinAbs(1.7744257976067317, 3 * tol));
}

TEMPLATE_LIST_TEST_CASE("load_gauge reads a configuration onto the device in one call", "[observables][io]",
                        kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  // Plaquettes of ../shared/data/README.md.
  for (const auto& [file, plaquette] : {std::pair{"milc-l4444.milc", 0.5948501589}, std::pair{"purgaug-l4448.nersc", 0.9022631188}}) {
    CAPTURE(file);
    const auto path = kqcd::test::shared_data(file);
    const auto u = load_gauge<ES>(path);
    const auto host = read_gauge(path);
    REQUIRE(u.lattice().dims() == host.lattice.dims());
    REQUIRE(export_gauge(u) == host.links);
    REQUIRE_THAT(kqcd::plaquette(u).total, WithinAbs(plaquette, 1e-9));
  }
  REQUIRE_THROWS_AS(load_gauge<ES>(kqcd::test::shared_data("README.md")), io_error);
}
