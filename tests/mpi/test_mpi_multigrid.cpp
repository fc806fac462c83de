// Multigrid on a process grid against the single-process computation of the same global fields, at
// 1, 2 and 4 ranks: aggregates within each rank, the coarse operators of two levels (built from the
// neighbours' links and test vectors, applied across the coarse halo) on the same random coarse
// field, and the three-level multigrid solve of the even-odd clover system. Comparisons are reduced
// over the ranks before they are checked (mpi_compare.hpp).
#include "test_harness.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/multigrid/multigrid.hpp>

#include "host_fields.hpp"
#include "mpi_compare.hpp"

#include <catch2/matchers/catch_matchers_string.hpp>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {

const Lattice global_lattice({8, 8, 8, 8});

/// Grids splitting one and two directions, down to one coarse site per rank along t.
std::vector<std::array<int, Nd>> multigrid_grids() {
  switch (ProcessGrid::world_size()) {
  case 1: return {{1, 1, 1, 1}};
  case 2: return {{1, 1, 1, 2}, {2, 1, 1, 1}};
  case 4: return {{1, 1, 2, 2}, {2, 1, 1, 2}, {1, 1, 1, 4}};
  default: return {{0, 0, 0, 0}};
  }
}

/// max |local - global| over this rank's coarse sites (the global field's site at the same global
/// coarse coordinates), relative to the largest |global| component, over the ranks.
template <class C> double coarse_rel_diff(const C& local, const C& global) {
  const auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.view());
  const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global.view());
  const mg::CoarseGeometry& lg = local.coarse_geometry();
  const mg::CoarseGeometry& gg = global.coarse_geometry();
  const int n = local.n();
  double scale = 0, diff = 0;
  for (int i = 0; i < gg.volume() * n; ++i) scale = std::max(scale, double(Kokkos::abs(g(i))));
  for (int c = 0; c < lg.volume(); ++c) {
    Coords x = lg.coords(c);
    for (int mu = 0; mu < Nd; ++mu) x.x[mu] += lg.origin[mu];
    const int gc = gg.index(x);
    for (int k = 0; k < n; ++k) diff = std::max(diff, double(Kokkos::abs(l(c * n + k) - g(gc * n + k))));
  }
  return global_max(diff / scale);
}

/// D_c and D_c^dag of coarse operator dc on the random coarse field of seed 77.
template <class Op> std::array<typename Op::vector_type, 2> coarse_images(const Op& dc) {
  auto v = dc.create_vector();
  mg::random_coarse(v, 77);
  std::array<typename Op::vector_type, 2> out{dc.create_vector(), dc.create_vector()};
  dc.apply(out[0], v, 1);
  dc.apply(out[1], v, -1);
  return out;
}

/// S v, the source map and the solution map of the even-odd coarse operator s on one random field.
template <class S> std::array<typename S::vector_type, 3> even_odd_images(const S& s) {
  auto v = s.create_vector();
  mg::random_coarse(v, 78);
  std::array<typename S::vector_type, 3> out{s.create_vector(), s.create_vector(), s.create_vector()};
  s.apply(out[0], v, 1);
  s.prepare_source(out[1], v);
  blas::copy(out[2], v);
  s.reconstruct(out[2], v);
  return out;
}

} // namespace

TEMPLATE_LIST_TEST_CASE("distributed multigrid: coarse operators and the three-level solve equal the single-process ones",
                        "[mpi][multigrid]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Term = CloverTerm<Real, ES>;
  using Full = PlainFullOperator<Term>;
  using EO = PlainEvenOddOperator<Term>;
  using Cycle = mg::Multigrid<Full, EO>;
  const auto bc = mixed_bc();
  const double mass = 0.1, csw = 1.0;
  mg::MultigridParams p;
  p.block = {2, 2, 2, 2};
  p.coarse_block = {2, 2, 1, 1}; // level 2 aggregates along x and y: t split into one coarse site per rank stays whole
  p.n_vec = 4;
  p.setup_sweeps = 4;
  p.setup_iterations = 10; // inverse iteration amplifies the grids' different rounding as it converges
  p.levels = 3;
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  params.max_iter = 400;
  const double coarse_tol = sizeof(Real) == 4 ? 1e-3 : 1e-9, agree = sizeof(Real) == 4 ? 5e-3 : 1e-7;

  GaugeField<Kokkos::complex<Real>, ES> ug(global_lattice);
  random_gauge(ug, 601);
  const Full fg(ug, bc, mass, csw);
  const EO eg(ug, bc, mass, csw);
  const Cycle mgg(fg, eg, ug, bc, p);
  REQUIRE(mgg.next() != nullptr);
  const auto d1g = coarse_images(mgg.coarse());
  const auto d2g = coarse_images(mgg.next()->coarse());
  REQUIRE(mgg.next()->coarse_even_odd() != nullptr); // level 2 is 2x2x4x4
  const auto eog = even_odd_images(*mgg.next()->coarse_even_odd());
  auto bg = eg.create_vector(), xg = eg.create_vector();
  random_spinor(bg, 602);
  REQUIRE(mg::multigrid(eg, xg, bg, mgg, params).converged());

  for (const auto& g : multigrid_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    const Lattice& lat = pg.lattice();
    GaugeField<Kokkos::complex<Real>, ES> ul(lat);
    random_gauge(ul, 601);
    const Full fl(ul, bc, mass, csw);
    const EO el(ul, bc, mass, csw);
    const Cycle mgl(fl, el, ul, bc, p);
    const auto d1l = coarse_images(mgl.coarse());
    const auto d2l = coarse_images(mgl.next()->coarse());
    for (int s = 0; s < 2; ++s) {
      CAPTURE(s);
      CHECK(coarse_rel_diff(d1l[s], d1g[s]) < coarse_tol);
      CHECK(coarse_rel_diff(d2l[s], d2g[s]) < coarse_tol);
    }
    // The coarsest level's even-odd operator (a rank's coarse extents odd on some grids).
    REQUIRE(mgl.next()->coarse_even_odd() != nullptr);
    {
      const auto eol = even_odd_images(*mgl.next()->coarse_even_odd());
      for (int s = 0; s < 3; ++s) {
        CAPTURE(s);
        CHECK(coarse_rel_diff(eol[s], eog[s]) < coarse_tol);
      }
    }
    auto bl = el.create_vector(), xl = el.create_vector();
    random_spinor(bl, 602);
    CHECK(mg::multigrid(el, xl, bl, mgl, params).converged());
    CHECK(rel_diff(xl, xg) < agree);
    // Aggregates do not straddle ranks: a block longer than a rank's extent is refused, naming it.
    if (lat.dim(3) % 4 != 0)
      CHECK_THROWS_WITH(mg::Aggregation<ES>(lat, {2, 2, 2, 4}), Catch::Matchers::ContainsSubstring("straddle"));
  }
}
