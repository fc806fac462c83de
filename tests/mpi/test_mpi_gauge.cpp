// Distributed gauge-field features against the single-process computation of the same global
// field (every rank also builds the whole lattice from the same seed): the extended field with
// its corners, plaquette, Polyakov loops, clover observables, APE/stout/HYP smearing, the Wilson
// flow and the clover operators with their solves (gauge files: test_mpi_io.cpp). Run at 1, 2 and
// 4 ranks over several grids; comparisons are reduced over the ranks before they are checked, so
// every rank takes the same path (a one-sided failure cannot deadlock a collective).
#include "test_harness.hpp"

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/comm/process_grid.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/gradient_flow.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/gauge/staggered_links.hpp>
#include <kqcd/gauge/topology.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/gaussian_smear.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/measure/staggered_spectrum.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/operator_handle.hpp>
#include <kqcd/stencil/operators.hpp>

#include "host_fields.hpp"
#include "mpi_compare.hpp"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {

const Lattice global_lattice({4, 4, 4, 8});

std::vector<std::array<int, Nd>> grids() {
  switch (ProcessGrid::world_size()) {
  case 1: return {{1, 1, 1, 1}};
  case 2: return {{1, 1, 1, 2}, {2, 1, 1, 1}, {1, 1, 2, 1}};
  case 4: return {{1, 1, 2, 2}, {2, 1, 1, 2}, {1, 1, 1, 4}, {2, 2, 1, 1}};
  default: return {{0, 0, 0, 0}};
  }
}

/// max |local - global| / max |global| over the sites of a full spinor field, over the ranks.
template <class Field> double spinor_field_diff(const Field& l, const Field& g) {
  double d = 0, scale = 0;
  for (int p = 0; p < 2; ++p) {
    const Lattice& ll = l[p].lattice();
    const Lattice& gl = g[p].lattice();
    auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l[p].view());
    auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g[p].view());
    for (int s = 0; s < gl.cb_volume(); ++s)
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) scale = std::max(scale, double(Kokkos::abs(gh(s, c, sp))));
    for (int s = 0; s < ll.cb_volume(); ++s) {
      Coords x = ll.cb_coords(s, p);
      for (int mu = 0; mu < Nd; ++mu) x.x[mu] += ll.origin(mu);
      const int gs = gl.cb_index(x);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) d = std::max(d, double(Kokkos::abs(lh(s, c, sp) - gh(gs, c, sp))));
    }
  }
  return global_max(d) / scale;
}

/// max |a - b| / max |b| over all timeslices and components (the same on every rank).
double sums_diff(const TimesliceSums& a, const TimesliceSums& b) {
  double d = 0, scale = 0;
  if (a.size() != b.size()) return 1e300;
  for (std::size_t t = 0; t < a.size(); ++t)
    for (std::size_t n = 0; n < a[t].size(); ++n) {
      d = std::max(d, std::abs(a[t][n] - b[t][n]));
      scale = std::max(scale, std::abs(b[t][n]));
    }
  return global_max(d / scale);
}

} // namespace

TEMPLATE_LIST_TEST_CASE("extended gauge field: every site, corners included, holds the global link", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  Gauge ug(global_lattice);
  random_gauge(ug, 501);
  for (const auto& g : grids())
    for (int depth : {1, 2}) {
      ProcessGrid pg(global_lattice, g);
      CAPTURE(pg.to_string(), depth);
      const Lattice& ll = pg.lattice();
      Gauge ul(ll);
      random_gauge(ul, 501);
      const LatticeExtension ext(ll, depth);
      const Gauge ue = ext.extend(ul);
      // Extended site c is the global site origin + c - shift, wrapped periodically.
      const double d = link_diff(ue, ug, [&](Coords c) {
        for (int mu = 0; mu < Nd; ++mu) {
          const int G = global_lattice.dim(mu);
          c.x[mu] = ((c.x[mu] - ext.map().shift[mu] + ll.origin(mu)) % G + G) % G;
        }
        return c;
      });
      CHECK(d == 0.0);
    }
}

TEMPLATE_LIST_TEST_CASE("distributed gauge observables equal the single-process ones", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  Gauge ug(global_lattice);
  random_gauge(ug, 601);
  // Smeared once so that the observables are far from zero (a random field's plaquette is ~0).
  SmearParams sp;
  sp.method = SmearMethod::stout;
  sp.rho = 0.1;
  const Gauge sg = smear(ug, sp);
  const auto pg_ = plaquette(sg);
  const auto cg_ = clover_observables(sg);
  for (const auto& g : grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 601);
    const Gauge sl = smear(ul, sp);
    const auto pl = plaquette(sl);
    CHECK(std::abs(pl.total - pg_.total) < 10 * tol<Real>());
    CHECK(std::abs(pl.spatial - pg_.spatial) < 10 * tol<Real>());
    CHECK(std::abs(pl.temporal - pg_.temporal) < 10 * tol<Real>());
    const auto cl = clover_observables(sl);
    CHECK(std::abs(cl.energy - cg_.energy) < 10 * tol<Real>() * std::abs(cg_.energy));
    CHECK(std::abs(cl.charge - cg_.charge) < 1e3 * tol<Real>());
    for (int dir = 0; dir < Nd; ++dir) {
      CAPTURE(dir);
      const auto l = polyakov_loop(sl, dir), r = polyakov_loop(sg, dir);
      CHECK(Kokkos::abs(l - r) < 10 * tol<Real>());
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed asqtad and HISQ links and staggered mesons equal the single-process ones", "[mpi]",
                        EnabledExecutionSpaces) {
  using ES = TestType;
  using Gauge = GaugeField<Kokkos::complex<double>, ES>;
  // Local extents of 4 and 6: the paths reach two (asqtad) and three (HISQ) sites into the neighbours.
  const Lattice global({8, 6, 8, 12});
  std::vector<std::array<int, Nd>> grids{{1, 1, 1, 1}};
  if (ProcessGrid::world_size() == 2) grids = {{2, 1, 1, 1}, {1, 1, 1, 2}, {1, 1, 2, 1}};
  if (ProcessGrid::world_size() == 4) grids = {{2, 1, 2, 1}, {1, 1, 2, 2}, {2, 1, 1, 2}};
  Gauge ug(global);
  random_gauge(ug, 731);
  const BoundaryPhases bc = parse_boundary_phases("p,p,p,a");
  const std::vector<double> masses{0.4, 0.8};
  SolverParams sp;
  sp.tol = 1e-10;
  for (const auto& params : {StaggeredLinkParams{StaggeredAction::asqtad, 0.9, 0.0}, StaggeredLinkParams{StaggeredAction::hisq, 1.0, 0.2}}) {
    CAPTURE(to_string(params.action));
    const auto lg = make_staggered_links(ug, params);
    const auto mg = staggered_mesons(make_staggered_operator<double, ES>(lg.fat, bc, masses[0], lg.long_links()),
                                     parse_source("point:1,2,3,4"), masses, sp);
    for (const auto& g : grids) {
      ProcessGrid pg(global, g);
      CAPTURE(pg.to_string());
      Gauge ul(pg.lattice());
      random_gauge(ul, 731);
      const auto ll = make_staggered_links(ul, params);
      CHECK(gauge_diff(ll.fat, lg.fat) < 1e-13);
      CHECK(gauge_diff(ll.lng, lg.lng) < 1e-13);
      const auto ml = staggered_mesons(make_staggered_operator<double, ES>(ll.fat, bc, masses[0], ll.long_links()),
                                       parse_source("point:1,2,3,4"), masses, sp);
      double worst = 0;
      for (std::size_t i = 0; i < masses.size(); ++i)
        for (std::size_t n = 0; n < staggered_meson_labels.size(); ++n)
          for (std::size_t t = 0; t < mg.correlators[i][n].size(); ++t)
            worst = std::max(worst, std::abs(ml.correlators[i][n][t] - mg.correlators[i][n][t]) / mg.correlators[i][0][0]);
      CHECK(global_max(worst) < 1e-9);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed APE, stout and HYP smearing equal the single-process ones", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  Gauge ug(global_lattice);
  random_gauge(ug, 701);
  std::vector<SmearParams> params(4);
  params[0].method = SmearMethod::ape;
  params[0].ape_c = 2.5;
  params[1].method = SmearMethod::stout;
  params[1].rho = 0.12;
  params[2].method = SmearMethod::stout;
  params[2].spatial_only = true;
  params[3].method = SmearMethod::hyp;
  for (auto& sp : params) sp.steps = 2;
  for (const auto& g : grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 701);
    for (std::size_t i = 0; i < params.size(); ++i) {
      CAPTURE(i);
      // Each step is compared through the callback, so a halo left stale after step 1 shows.
      std::vector<Gauge> steps;
      const Gauge sl = smear(ul, params[i], [&](int, const Gauge& f) {
        Gauge copy(f.lattice());
        for (int p = 0; p < 2; ++p) Kokkos::deep_copy(copy[p].view(), f[p].view());
        steps.push_back(copy);
      });
      const Gauge sg = smear(ug, params[i]);
      REQUIRE(steps.size() == 2);
      CHECK(gauge_diff(sl, sg) < 50 * tol<Real>());
      CHECK(gauge_diff(steps[1], sg) < 50 * tol<Real>());
      SmearParams one = params[i];
      one.steps = 1;
      CHECK(gauge_diff(steps[0], smear(ug, one)) < 50 * tol<Real>());
      // Smearing changed the links (the comparison is not of two copies of the input).
      CHECK(gauge_diff(sl, ug) > 1e-2);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed Wilson flow equals the single-process one", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  Gauge ug(global_lattice);
  random_gauge(ug, 801);
  const auto mg = wilson_flow(ug, 0.02, 0.06);
  for (const auto& g : grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 801);
    const auto ml = wilson_flow(ul, 0.02, 0.06);
    REQUIRE(ml.size() == mg.size());
    for (std::size_t i = 0; i < ml.size(); ++i) {
      CAPTURE(i);
      CHECK(std::abs(ml[i].plaquette - mg[i].plaquette) < 10 * tol<Real>());
      CHECK(std::abs(ml[i].e_clover - mg[i].e_clover) < 10 * tol<Real>() * std::abs(mg[i].e_clover));
      CHECK(std::abs(ml[i].charge - mg[i].charge) < 1e3 * tol<Real>());
    }
    CHECK(gauge_diff(ul, ug) < 100 * tol<Real>());
  }
}

TEMPLATE_LIST_TEST_CASE("distributed clover operators and solves equal the single-process ones", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Clover = PlainFullOperator<CloverTerm<Real, ES>>;
  using CloverDyn = PlainFullOperator<CloverTerm<Real, ES, CloverInverse::dynamic>>;
  using TwistedClover = PlainFullOperator<TwistedCloverTerm<Real, ES>>;
  using CloverEO = PlainEvenOddOperator<CloverTerm<Real, ES>>;
  using TwistedCloverEO = PlainEvenOddOperator<TwistedCloverTerm<Real, ES>>;
  using Gauge = typename Clover::gauge_type;
  const auto bc = mixed_bc();
  Gauge ug(global_lattice);
  random_gauge(ug, 901);
  const double solve_tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  const double agree = sizeof(Real) == 4 ? 2e-3 : 1e-7;
  SolverParams params;
  params.tol = solve_tol;
  params.max_iter = 500;
  const auto spinor_diff = [](const auto& l, const auto& g) {
    double d = 0, scale = 0;
    for (int p = 0; p < 2; ++p) {
      const Lattice& ll = l[p].lattice();
      auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l[p].view());
      auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g[p].view());
      for (int s = 0; s < ll.cb_volume(); ++s) {
        Coords x = ll.cb_coords(s, l[p].parity());
        for (int mu = 0; mu < Nd; ++mu) x.x[mu] += ll.origin(mu);
        const int gs = global_lattice.cb_index(x);
        for (int c = 0; c < Nc; ++c)
          for (int sp = 0; sp < Ns; ++sp) {
            d = std::max(d, double(Kokkos::abs(lh(s, c, sp) - gh(gs, c, sp))));
            scale = std::max(scale, double(Kokkos::abs(gh(gs, c, sp))));
          }
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return global_max(d) / scale;
  };
  for (const auto& g : grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 901);
    const Clover cl(ul, bc, 0.1, 1.2), cgl(ug, bc, 0.1, 1.2);
    const CloverDyn dl(ul, bc, 0.1, 1.2), dg(ug, bc, 0.1, 1.2);
    const TwistedClover tl(ul, bc, 0.1, 1.2, 0.3), tg(ug, bc, 0.1, 1.2, 0.3);
    auto inl = cl.create_vector(), ing = cgl.create_vector(), outl = cl.create_vector(), outg = cgl.create_vector();
    random_spinor(inl, 902);
    random_spinor(ing, 902);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      cl.apply(outl, inl, isign);
      cgl.apply(outg, ing, isign);
      CHECK(spinor_diff(outl, outg) < 10 * tol<Real>());
      dl.apply(outl, inl, isign);
      dg.apply(outg, ing, isign);
      CHECK(spinor_diff(outl, outg) < 10 * tol<Real>());
      tl.apply(outl, inl, isign);
      tg.apply(outg, ing, isign);
      CHECK(spinor_diff(outl, outg) < 10 * tol<Real>());
    }
    {
      const CloverEO el(ul, bc, 1.0, 1.2), eg(ug, bc, 1.0, 1.2);
      auto bl = el.create_vector(), bg = eg.create_vector(), xl = el.create_vector(), xg = eg.create_vector();
      random_spinor(bl, 903);
      random_spinor(bg, 903);
      const auto rl = cg_normal(el, xl, bl, params), rg = cg_normal(eg, xg, bg, params);
      CHECK(rl.converged());
      CHECK(rg.converged());
      CHECK(std::abs(rl.iterations - rg.iterations) <= 2);
      CHECK(spinor_diff(std::array{xl, xl}, std::array{xg, xg}) < agree);
    }
    {
      const TwistedCloverEO el(ul, bc, 1.0, 1.2, 0.25), eg(ug, bc, 1.0, 1.2, 0.25);
      auto bl = el.create_vector(), bg = eg.create_vector(), xl = el.create_vector(), xg = eg.create_vector();
      random_spinor(bl, 904);
      random_spinor(bg, 904);
      const auto rl = bicgstab(el, xl, bl, params), rg = bicgstab(eg, xg, bg, params);
      CHECK(rl.converged());
      CHECK(spinor_diff(std::array{xl, xl}, std::array{xg, xg}) < agree);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed sources, Gaussian smearing and contractions equal the single-process ones", "[mpi]",
                        Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  using Spinor = SpinorField<Kokkos::complex<Real>, Ns, ES>;
  using Prop = PropagatorField<Real, ES>;
  Gauge ug(global_lattice);
  random_gauge(ug, 1001);
  // Sources at global sites and timeslices on different ranks.
  const std::vector<std::string> sources = {"point:1,2,3,5", "point:3,0,1,1", "wall:6", "z2:3,9", "z4:7,4"};
  const Coords origin{{1, 2, 3, 5}};
  const std::vector<Momentum> momenta = {Momentum{}, Momentum{{1, 0, 0}}, Momentum{{0, 1, 2}}};
  Prop Sg(global_lattice);
  for (int k = 0; k < SpinColour; ++k) random_spinor(Sg[k], 1100 + std::uint64_t(k));
  const auto cg_ = meson_correlators(Sg, origin, momenta);
  const auto pg_ = propagator_correlator(Sg, origin);
  for (const auto& g : grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    for (const auto& text : sources) {
      CAPTURE(text);
      const SourceSpec spec = parse_source(text);
      Spinor bl(pg.lattice()), bg(global_lattice);
      make_source(bl, spec, 2, 1);
      make_source(bg, spec, 2, 1);
      CHECK(spinor_field_diff(bl, bg) == 0.0);
    }
    {
      Gauge ul(pg.lattice());
      random_gauge(ul, 1001);
      Spinor pl(pg.lattice()), pgf(global_lattice);
      random_spinor(pl, 1002);
      random_spinor(pgf, 1002);
      const GaussianSmearParams gp{2.0, 5};
      gaussian_smear(pl, ul, gp, mixed_bc());
      gaussian_smear(pgf, ug, gp, mixed_bc());
      CHECK(spinor_field_diff(pl, pgf) < 20 * tol<Real>());
    }
    Prop Sl(pg.lattice());
    for (int k = 0; k < SpinColour; ++k) random_spinor(Sl[k], 1100 + std::uint64_t(k));
    const auto cl = meson_correlators(Sl, origin, momenta);
    REQUIRE(cl.size() == cg_.size());
    for (std::size_t m = 0; m < cl.size(); ++m) {
      CAPTURE(m);
      CHECK(sums_diff(cl[m], cg_[m]) < 100 * tol<Real>());
    }
    const auto pl = propagator_correlator(Sl, origin);
    REQUIRE(pl.size() == pg_.size());
    for (std::size_t t = 0; t < pl.size(); ++t) CHECK(std::abs(pl[t] - pg_[t]) < 100 * tol<Real>() * std::abs(pg_[t]));
  }
}
