// Distributed Wilson-type operators and solvers against the single-process computation of the
// same global fields: every rank also builds the whole lattice on its own (no decomposition) from
// the same seeds and compares its sub-lattice's sites. Run at 1, 2 and 4 ranks over several
// process grids. Comparisons are reduced over the ranks before they are checked, so every rank
// takes the same path through the tests (a one-sided failure cannot deadlock a collective).
#include "test_harness.hpp"

#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/process_grid.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/smearing.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/block_cg.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/stencil/domain_wall_5d.hpp>
#include <kqcd/stencil/operators.hpp>

#include "host_fields.hpp"
#include "mpi_compare.hpp"

#include <catch2/matchers/catch_matchers_string.hpp>
#include <mpi.h>

#include <array>
#include <cmath>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {

const Lattice global_lattice({8, 4, 4, 8});

} // namespace

TEMPLATE_LIST_TEST_CASE("process grid: sub-lattices tile the global lattice", "[mpi]", Configs) {
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    const Lattice& l = pg.lattice();
    CAPTURE(pg.to_string());
    double v = double(l.volume());
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(v == double(global_lattice.volume()));
    CHECK(l.global_dims() == global_lattice.dims());
    CHECK(l.distributed() == (pg.size() > 1));
  }
  // A grid that does not fit is refused with a message naming it.
  CHECK_THROWS_AS(ProcessGrid(global_lattice, {3, 1, 1, 1}), kqcd::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("halo exchange: every ghost site of each direction, side, parity and depth holds its global site",
                        "[mpi][halo]", EnabledExecutionSpaces) {
  using ES = TestType;
  using View = Kokkos::View<double* [2], typename ES::memory_space>;
  const Lattice global({8, 8, 8, 16}); // local extents of at least 3 in split directions on 4 ranks
  for (const auto& g : process_grids())
    for (int depth : {1, 3}) {
      ProcessGrid pg(global, g);
      const Lattice lat = pg.lattice().with_ghost_depth(depth);
      CAPTURE(pg.to_string(), depth, comm::transport_name(pg.transport()));
      for (int parity = 0; parity < 2; ++parity) {
        // Each local site holds its global lexicographic index and parity; the ghost rows start at -1.
        View v("halo_sites", lat.cb_volume() + lat.ghost_sites());
        auto h = Kokkos::create_mirror_view(v);
        Kokkos::deep_copy(h, -1.0);
        for (int s = 0; s < lat.cb_volume(); ++s) {
          h(s, 0) = double(lat.global_lex_index(lat.cb_coords(s, parity)));
          h(s, 1) = parity;
        }
        Kokkos::deep_copy(v, h);
        HaloExchange<View, ES> halo(lat);
        if (pg.transport() == comm::Transport::nccl && !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible)
          CHECK(halo.path() == "device memory (NCCL)");
        halo.exchange(v, parity);
        Kokkos::deep_copy(h, v);
        // Ghost row f of slot (mu, side): layer f / n beyond the face, the site at x_mu = L + layer
        // (side 0, from the forward neighbour) or -1 - layer (side 1), wrapped onto the global lattice.
        long wrong = 0, checked = 0;
        for (int mu = 0; mu < Nd; ++mu)
          if (lat.partitioned(mu))
            for (int side = 0; side < 2; ++side) {
              const int n = lat.face_sites(mu), L = lat.dim(mu);
              for (int f = 0; f < depth * n; ++f) {
                const int layer = f / n, x_mu = side == 0 ? L + layer : -1 - layer;
                Coords c = lat.face_coords(mu, f % n, x_mu, parity);
                std::int64_t index = 0;
                for (int nu = Nd - 1; nu >= 0; --nu)
                  index = index * global.dim(nu) + (c.x[nu] + lat.origin(nu) + global.dim(nu)) % global.dim(nu);
                const int row = lat.cb_volume() + lat.ghost_offset(mu, side) + f;
                wrong += h(row, 0) != double(index) || h(row, 1) != parity;
                ++checked;
              }
            }
        MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &checked, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(wrong == 0);
        CHECK(checked == (pg.size() > 1 ? 2L * depth * [&] {
          long faces = 0; // every rank's faces: the split directions' two sides
          for (int mu = 0; mu < Nd; ++mu)
            if (lat.partitioned(mu)) faces += lat.face_sites(mu);
          return faces * pg.size();
        }() : 0L));
      }
    }
}

TEMPLATE_LIST_TEST_CASE("random fields are keyed by the global site", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Field = SpinorField<Kokkos::complex<Real>, Ns, ES>;
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Field a(pg.lattice()), b(global_lattice);
    random_spinor(a, 7);
    random_spinor(b, 7);
    CHECK(rel_diff_field(a, b) == 0.0);
    // Global reductions: the same norm and inner product as the undistributed field.
    Field c(pg.lattice()), d(global_lattice);
    random_spinor(c, 8);
    random_spinor(d, 8);
    CHECK(std::abs(blas::norm2(a[0]) - blas::norm2(b[0])) < 1e-12 * blas::norm2(b[0]));
    CHECK(Kokkos::abs(blas::cdot(a[1], c[1]) - blas::cdot(b[1], d[1])) < 1e-12 * blas::norm2(b[1]));
  }
}

TEMPLATE_LIST_TEST_CASE("distributed hopping term equals the single-process one", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Dslash = WilsonDslash<Real, ES>;
  using Gauge = typename Dslash::gauge_type;
  using Spinor = typename Dslash::spinor_type;
  const auto bc = mixed_bc();
  Gauge ug(global_lattice);
  random_gauge(ug, 101);
  const Dslash dg(ug, bc);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 101);
    Dslash dl(ul, bc);
    // Host backends hand MPI the field's memory; a GPU backend stages through the host unless
    // MPI is GPU-aware.
    constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ES::memory_space>::accessible;
    if (host_memory) CHECK(dl.halo_path() == "host memory");
    for (int target = 0; target < 2; ++target)
      for (int isign : {1, -1}) {
        Spinor inl(pg.lattice(), 1 - target), ing(global_lattice, 1 - target);
        random_spinor(inl, 102);
        random_spinor(ing, 102);
        Spinor outg(global_lattice, target), projected(pg.lattice(), target);
        dg.apply(outg, ing, isign, target);
        for (bool overlap : {true, false})
          for (bool spin_projection : {true, false}) {
            CAPTURE(target, isign, overlap, spin_projection);
            dl.set_overlap(overlap);
            dl.set_spin_projection(spin_projection);
            Spinor outl(pg.lattice(), target);
            dl.apply(outl, inl, isign, target);
            // Same arithmetic in the same order on every site: equal up to FMA contraction.
            CHECK(rel_diff(outl, outg) < 4 * tol<Real>());
            if (spin_projection) {
              Kokkos::deep_copy(projected.view(), outl.view());
            } else {
              // The projected halo carries exactly the half spinors the kernel would form.
              CHECK(max_abs_diff(outl, projected) == 0.0);
            }
          }
        // A spin-projected halo is half of a whole-spinor one.
        dl.set_spin_projection(false);
        const double whole = dl.halo_bytes();
        dl.set_spin_projection(true);
        CHECK(dl.halo_bytes() == whole / 2);
        CHECK((whole > 0) == (pg.size() > 1));
        // Whole spinors: both faces of every partitioned direction; a block sends each of its own.
        double faces = 0;
        for (int mu = 0; mu < Nd; ++mu)
          if (pg.lattice().partitioned(mu)) faces += 2.0 * pg.lattice().face_sites(mu);
        CHECK(whole == faces * Nc * Ns * sizeof(Kokkos::complex<Real>));
        CHECK(dl.halo_bytes(4) == 4 * dl.halo_bytes());
      }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed Wilson and twisted-mass operators equal the single-process ones", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Wilson = WilsonOperator<Real, ES>;
  using Twisted = PlainFullOperator<TwistedMassTerm<Real, ES>>;
  using Gauge = typename Wilson::gauge_type;
  const auto bc = mixed_bc();
  Gauge ug(global_lattice);
  random_gauge(ug, 201);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 201);
    const Wilson wl(ul, bc, 0.1), wg(ug, bc, 0.1);
    const Twisted tl(ul, bc, 0.1, 0.3), tg(ug, bc, 0.1, 0.3);
    auto inl = wl.create_vector(), ing = wg.create_vector(), outl = wl.create_vector(), outg = wg.create_vector();
    random_spinor(inl, 202);
    random_spinor(ing, 202);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      wl.apply(outl, inl, isign);
      wg.apply(outg, ing, isign);
      CHECK(rel_diff_field(outl, outg) < 4 * tol<Real>());
      tl.apply(outl, inl, isign);
      tg.apply(outg, ing, isign);
      CHECK(rel_diff_field(outl, outg) < 4 * tol<Real>());
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed even-odd solves equal the single-process ones", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using EO = WilsonEOOperator<Real, ES>;
  using TwistedEO = PlainEvenOddOperator<TwistedMassTerm<Real, ES>>;
  using Gauge = typename EO::gauge_type;
  const auto bc = mixed_bc();
  // A heavy quark (m = 1) keeps the solves short under oversubscribed ranks. Float solves stop near
  // 1e-5; the two runs' solutions then differ by about that much.
  const double solve_tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  const double agree = sizeof(Real) == 4 ? 2e-3 : 1e-7;
  Gauge ug(global_lattice);
  random_gauge(ug, 301);
  SolverParams params;
  params.tol = solve_tol;
  params.max_iter = 500; // m = 1 converges in tens of iterations; a broken operator fails fast
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 301);
    {
      const EO el(ul, bc, 1.0), eg(ug, bc, 1.0);
      auto bl = el.create_vector(), bg = eg.create_vector(), xl = el.create_vector(), xg = eg.create_vector();
      random_spinor(bl, 302);
      random_spinor(bg, 302);
      const auto rl = cg_normal(el, xl, bl, params), rg = cg_normal(eg, xg, bg, params);
      CHECK(rl.converged());
      CHECK(rl.true_residual <= solve_tol);
      CHECK(std::abs(rl.iterations - rg.iterations) <= 2);
      CHECK(rel_diff(xl, xg) < agree);
      // The distributed residual, recomputed here with the distributed operator.
      auto t = el.create_vector(), u = el.create_vector();
      el.apply_normal(t, xl);
      el.apply(u, bl, -1); // D^dag b
      blas::axpy(-1.0, u, t);
      CHECK(std::sqrt(blas::norm2(t) / blas::norm2(u)) < 10 * solve_tol);
    }
    {
      const TwistedEO el(ul, bc, 1.0, 0.25), eg(ug, bc, 1.0, 0.25);
      auto bl = el.create_vector(), bg = eg.create_vector(), xl = el.create_vector(), xg = eg.create_vector();
      random_spinor(bl, 303);
      random_spinor(bg, 303);
      const auto rl = bicgstab(el, xl, bl, params), rg = bicgstab(eg, xg, bg, params);
      CHECK(rl.converged());
      CHECK(rl.true_residual <= solve_tol);
      CHECK(rel_diff(xl, xg) < agree);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed blocks of right-hand sides equal the single-process ones", "[mpi][multi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using EO = WilsonEOOperator<Real, ES>;
  using Dslash = typename EO::dslash_type;
  using Single = typename Dslash::spinor_type;
  using Block = typename Dslash::multi_spinor_type;
  const auto bc = mixed_bc();
  const int n = 3;
  typename EO::gauge_type ug(global_lattice);
  random_gauge(ug, 501);
  const EO eg(ug, bc, 1.0);
  auto make_block_of = random_block<Block, Single>;
  auto make_block = [&](const Lattice& lat, int parity, unsigned seed) { return make_block_of(lat, parity, seed, n); };
  auto block_diff = [](const Block& local, const Block& global) { return block_rel_diff<Single>(local, global); };
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    typename EO::gauge_type ul(pg.lattice());
    random_gauge(ul, 501);
    EO el(ul, bc, 1.0);
    for (bool spin_projection : {true, false}) {
      CAPTURE(spin_projection);
      el.set_spin_projection(spin_projection);
      for (int isign : {1, -1}) {
        const Block inl = make_block(pg.lattice(), 1, 510), ing = make_block(global_lattice, 1, 510);
        const Block xl = make_block(pg.lattice(), 0, 520), xg = make_block(global_lattice, 0, 520);
        Block outl(pg.lattice(), 0, n), outg(global_lattice, 0, n);
        el.dslash().apply(outl, inl, isign, 0);
        eg.dslash().apply(outg, ing, isign, 0);
        CHECK(block_diff(outl, outg) < 4 * tol<Real>());
        el.dslash().apply_xpay(outl, inl, isign, 0, Real(0.7), xl, Real(-0.3));
        eg.dslash().apply_xpay(outg, ing, isign, 0, Real(0.7), xg, Real(-0.3));
        CHECK(block_diff(outl, outg) < 4 * tol<Real>());
      }
    }
    // A block of one right-hand side has a halo of its own too.
    {
      const Block inl = make_block_of(pg.lattice(), 1, 560, 1), ing = make_block_of(global_lattice, 1, 560, 1);
      Block outl(pg.lattice(), 0, 1), outg(global_lattice, 0, 1);
      el.dslash().apply(outl, inl, 1, 0);
      eg.dslash().apply(outg, ing, 1, 0);
      CHECK(block_diff(outl, outg) < 4 * tol<Real>());
    }
    // Per-right-hand-side and block reductions are global sums.
    const Block al = make_block(pg.lattice(), 0, 530), ag = make_block(global_lattice, 0, 530);
    const std::vector<double> nl = blas::norm2_each(al), ng = blas::norm2_each(ag);
    for (int r = 0; r < n; ++r) CHECK(std::abs(nl[std::size_t(r)] - ng[std::size_t(r)]) < 1e-12 * ng[std::size_t(r)]);
    const auto ml = blas::block_inner(al, al), mg = blas::block_inner(ag, ag);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) CHECK(Kokkos::abs(ml(i, j) - mg(i, j)) < 1e-12 * ng[0]);
    // Multi-RHS CG and block CG on the even-odd system.
    const double solve_tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
    SolverParams params;
    params.tol = solve_tol;
    params.max_iter = 500;
    const Block bl = make_block(pg.lattice(), 0, 540), bg = make_block(global_lattice, 0, 540);
    for (bool block : {false, true}) {
      CAPTURE(block);
      Block xl = el.create_multi(n), xg = eg.create_multi(n);
      const auto rl = block ? block_cg_normal(el, xl, bl, params) : cg_normal_multi(el, xl, bl, params);
      const auto rg = block ? block_cg_normal(eg, xg, bg, params) : cg_normal_multi(eg, xg, bg, params);
      for (int r = 0; r < n; ++r) {
        CHECK(rl[std::size_t(r)].converged());
        CHECK(std::abs(rl[std::size_t(r)].iterations - rg[std::size_t(r)].iterations) <= 2);
      }
      CHECK(block_diff(xl, xg) < (sizeof(Real) == 4 ? 2e-3 : 1e-7));
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed half-precision operator, 16-bit blocks, mixed double-half CG equal the single-process ones",
                        "[mpi][half]", HalfSpaces) {
  using ES = TestType;
  constexpr auto mode = ArchTraits<ES>::neighbour_mode;
  using EO = WilsonEOOperator<double, ES>;
  using Half = WilsonEOOperator<kqcd::half, ES, mode, Recon12>;
  using Float = typename WilsonEOOperator<float, ES>::vector_type;
  const auto bc = mixed_bc();
  typename EO::gauge_type ug(global_lattice);
  random_gauge(ug, 601);
  GaugeField<Kokkos::complex<float>, ES> ugf(global_lattice);
  convert_gauge(ugf, ug);
  const EO eg(ug, bc, 1.0);
  const Half hg(ugf, bc, 1.0);
  // The single-process solves once (mixed double-half CG to 1e-10, and on a block of three
  // right-hand sides), each grid's against them.
  SolverParams params;
  params.tol = 1e-10;
  params.max_iter = 1000;
  const int n = 3;
  auto bg = eg.create_vector(), xg = eg.create_vector(), xr = eg.create_vector();
  auto mbg = eg.create_multi(n), mxg = eg.create_multi(n);
  random_spinor(bg, 603);
  const auto rg = cg_normal(eg, hg, xg, bg, params);
  for (int r = 0; r < n; ++r) {
    random_spinor(xr, 620 + unsigned(r));
    mbg.insert(r, xr);
  }
  const auto mg = cg_normal_multi(eg, hg, mxg, mbg, params);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    typename EO::gauge_type ul(pg.lattice());
    random_gauge(ul, 601);
    GaugeField<Kokkos::complex<float>, ES> ulf(pg.lattice());
    convert_gauge(ulf, ul);
    const EO el(ul, bc, 1.0);
    const Half hl(ulf, bc, 1.0);
    // The 16-bit operator: the same arithmetic on every site.
    Float fl(pg.lattice(), 0), fg(global_lattice, 0);
    random_spinor(fl, 602);
    random_spinor(fg, 602);
    auto inl = hl.create_vector(), ing = hg.create_vector(), outl = hl.create_vector(), outg = hg.create_vector();
    blas::copy(inl, fl);
    blas::copy(ing, fg);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      hl.apply(outl, inl, isign);
      hg.apply(outg, ing, isign);
      blas::copy(fl, outl);
      blas::copy(fg, outg);
      CHECK(rel_diff(fl, fg) < 1e-5);
    }
    CHECK(std::abs(blas::norm2(outl) - blas::norm2(outg)) < 1e-6 * blas::norm2(outg));
    // Mixed double-half CG to 1e-10 in double.
    auto bl = el.create_vector(), xl = el.create_vector();
    random_spinor(bl, 603);
    const auto rl = cg_normal(el, hl, xl, bl, params);
    CHECK(rl.converged());
    CHECK(rl.true_residual <= 1e-10);
    CHECK(std::abs(rl.iterations - rg.iterations) <= 3);
    CHECK(rel_diff(xl, xg) < 1e-7);
    // 16-bit blocks of right-hand sides (sites and their norms in the halo), and mixed multi-RHS CG.
    auto hbl = hl.create_multi(n), hbg = hg.create_multi(n), hol = hl.create_multi(n), hog = hg.create_multi(n);
    auto mbl = el.create_multi(n), mxl = el.create_multi(n);
    for (int r = 0; r < n; ++r) {
      random_spinor(fl, 610 + unsigned(r));
      random_spinor(fg, 610 + unsigned(r));
      blas::scale(std::pow(10.0, 2 * r), fl);
      blas::scale(std::pow(10.0, 2 * r), fg);
      blas::copy(inl, fl);
      blas::copy(ing, fg);
      hbl.insert(r, inl);
      hbg.insert(r, ing);
      random_spinor(bl, 620 + unsigned(r));
      mbl.insert(r, bl);
    }
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      hl.apply(hol, hbl, isign);
      hg.apply(hog, hbg, isign);
      // The tuned block launch shapes of the two lattices may differ and round a float result to the
      // other side of a 16-bit step: agreement to 16-bit accuracy (a lost halo or norm is O(1)).
      for (int r = 0; r < n; ++r) {
        hol.extract(r, outl);
        hog.extract(r, outg);
        blas::copy(fl, outl);
        blas::copy(fg, outg);
        CHECK(rel_diff(fl, fg) < 1e-4);
      }
    }
    const auto ml = cg_normal_multi(el, hl, mxl, mbl, params);
    for (int r = 0; r < n; ++r) {
      CHECK(ml[std::size_t(r)].converged());
      CHECK(std::abs(ml[std::size_t(r)].iterations - mg[std::size_t(r)].iterations) <= 3);
      mxl.extract(r, xl);
      mxg.extract(r, xr);
      CHECK(rel_diff(xl, xr) < 1e-7);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("gauge fields: global link trace; what is not distributed refuses", "[mpi]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  Gauge ug(global_lattice);
  random_gauge(ug, 401);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 401);
    CHECK(std::abs(link_trace(ul) - link_trace(ug)) < 10 * tol<Real>());
    if (pg.size() > 1) {
      // Features not yet distributed say so instead of wrapping around the sub-lattice
      // (the plaquette, Polyakov loop and clover term are tested in test_mpi_gauge.cpp).
      Gauge out(pg.lattice());
      CHECK_THROWS_AS(smear_step(ul, out, SmearParams{}), kqcd::invalid_argument);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed domain-wall operators (D5, D_hat, its adjoint; 4D- and 5D-preconditioned) and the even-odd CG equal "
                        "the single-process ones",
                        "[mpi][domain-wall]", Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Op = DomainWallOperator<Real, ES>;
  using Block = typename Op::vector_type;
  using Single = typename Op::dslash_type::spinor_type;
  const auto bc = mixed_bc();
  const DomainWallParams p{4, 1.6, 1.5, 0.5, 0.1};
  typename Op::gauge_type ug(global_lattice);
  random_gauge(ug, 601);
  const Op og(ug, bc, p);
  // A 5D field: slice s from seed + s.
  auto make = [&](const Lattice& lat, int parity, unsigned seed) { return random_block<Block, Single>(lat, parity, seed, p.Ls); };
  auto diff = [](const Block& local, const Block& global) { return block_rel_diff<Single>(local, global); };
  // CG on the normal equations of D_hat, single-process once.
  const Block eg = make(global_lattice, 0, 610), xg = make(global_lattice, 1, 620);
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  params.max_iter = 1000;
  Block sg = og.create_vector();
  const auto rg = cg_normal(og, sg, eg, params);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    typename Op::gauge_type ul(pg.lattice());
    random_gauge(ul, 601);
    const Op ol(ul, bc, p);
    const Block el = make(pg.lattice(), 0, 610), xl = make(pg.lattice(), 1, 620);
    check_domain_wall_apply(ol, og, el, eg, xl, xg, diff, 8 * tol<Real>());
    // The 5D-preconditioned Shamir operator on the same fields, split by 5D parity.
    using Op5 = DomainWall5DOperator<Real, ES>;
    const DomainWallParams p5{4, 1.6, 1.0, 0.0, 0.1};
    const Op5 ol5(ul, bc, p5), og5(ug, bc, p5);
    auto split = [](const Op5& op, const Block& e, const Block& o) {
      std::array<typename Op5::vector_type, 2> v{op.create_spinor(0), op.create_spinor(1)};
      op.split(v[0], v[1], e, o);
      return v;
    };
    auto merged = [](const Op5& op, const typename Op5::vector_type& e, const typename Op5::vector_type& o) {
      std::array<Block, 2> f{Block(op.lattice(), 0, op.Ls()), Block(op.lattice(), 1, op.Ls())};
      op.merge(f[0], f[1], e, o);
      return f;
    };
    const auto vl = split(ol5, el, xl), vg = split(og5, eg, xg);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      auto wl = split(ol5, el, xl), wg = split(og5, eg, xg);
      ol5.apply_full(wl[0], wl[1], vl[0], vl[1], isign);
      og5.apply_full(wg[0], wg[1], vg[0], vg[1], isign);
      const auto fl = merged(ol5, wl[0], wl[1]), fg = merged(og5, wg[0], wg[1]);
      CHECK(diff(fl[0], fg[0]) < 8 * tol<Real>());
      CHECK(diff(fl[1], fg[1]) < 8 * tol<Real>());
      ol5.apply(wl[0], vl[0], isign);
      og5.apply(wg[0], vg[0], isign);
      const auto hl = merged(ol5, wl[0], vl[1]), hg = merged(og5, wg[0], vg[1]);
      CHECK(diff(hl[0], hg[0]) < 8 * tol<Real>());
      CHECK(diff(hl[1], hg[1]) < 8 * tol<Real>());
    }
    Block sl = ol.create_vector();
    const auto rl = cg_normal(ol, sl, el, params);
    CHECK(rl.converged());
    CHECK(std::abs(rl.iterations - rg.iterations) <= 2);
    CHECK(diff(sl, sg) < (sizeof(Real) == 4 ? 2e-3 : 1e-7));
  }
}
