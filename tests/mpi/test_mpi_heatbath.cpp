// The distributed heat bath against the single-process one: the same hot start (keyed by global
// site), a few sweeps of heat bath, over-relaxation and reunitarisation on 1, 2 and 4 ranks over
// several process grids give the single-process links and plaquette to rounding (the random
// numbers are keyed by global site, and the halo is refreshed between sub-sweeps); an
// over-relaxation pass keeps the distributed plaquette.
#include "test_harness.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/heatbath.hpp>

#include "mpi_compare.hpp"

#include <cmath>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {
std::vector<std::array<int, Nd>> heatbath_grids() {
  switch (ProcessGrid::world_size()) {
  case 1: return {{1, 1, 1, 1}};
  case 2: return {{1, 1, 1, 2}, {2, 1, 1, 1}, {1, 1, 2, 1}, {0, 0, 0, 0}};
  case 4: return {{1, 1, 2, 2}, {2, 1, 1, 2}, {1, 1, 1, 4}, {2, 2, 1, 1}};
  default: return {{0, 0, 0, 0}};
  }
}
} // namespace

TEMPLATE_LIST_TEST_CASE("distributed heat bath sweeps equal the single-process ones", "[mpi][heatbath]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  const Lattice global({4, 4, 4, 8});
  HeatbathParams hp;
  hp.beta = 5.7;
  hp.n_or = 2;
  hp.seed = 31;
  const int sweeps = 3;
  // The single-process answer, on every rank.
  Gauge ug(global);
  hot_start(ug, hp.seed);
  for (int s = 0; s < sweeps; ++s) heatbath_sweep(ug, hp, std::uint32_t(s));
  const double plaq = plaquette(ug).total;
  // Float links: the same arithmetic on the same numbers, but a link's last bit may still decide
  // an accept-reject step differently, so the float tolerance is loose.
  const double link_tol = sizeof(Real) == 8 ? 1e-12 : 1e-4;
  for (const auto& shape : heatbath_grids()) {
    ProcessGrid pg(global, shape);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    hot_start(ul, hp.seed);
    CHECK(gauge_diff(ul, Gauge([&] {
            Gauge h(global);
            hot_start(h, hp.seed);
            return h;
          }())) == 0.0);
    for (int s = 0; s < sweeps; ++s) heatbath_sweep(ul, hp, std::uint32_t(s));
    CHECK(gauge_diff(ul, ug) < link_tol);
    CHECK(std::abs(plaquette(ul).total - plaq) < (sizeof(Real) == 8 ? 1e-12 : 1e-5));
    // Over-relaxation keeps the action, and matches the single-process pass.
    const double before = plaquette(ul).total;
    overrelax_pass(ul, hp);
    Gauge ug2(global);
    Kokkos::deep_copy(ug2[0].view(), ug[0].view());
    Kokkos::deep_copy(ug2[1].view(), ug[1].view());
    overrelax_pass(ug2, hp);
    CHECK(std::abs(plaquette(ul).total - before) < (sizeof(Real) == 8 ? 1e-12 : 1e-5));
    CHECK(gauge_diff(ul, ug2) < link_tol);
  }
}
