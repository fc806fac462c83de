// The colour-hop stencils distributed (staggered with and without a Naik term: ghost zones one and
// three layers deep; the covariant Laplacian and derivative) against the single-process computation
// of the same global fields, at 1, 2 and 4 ranks, with and without the halo overlapped, on every
// layout of the backend (the single-process reference on the plain layout); blocks of right-hand
// sides distributed against each right-hand side alone; compressed long links (recon 9) likewise.
#include "test_harness.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/solvers/staggered_solve.hpp>
#include <kqcd/stencil/laplace.hpp>
#include <kqcd/stencil/staggered.hpp>

#include "host_fields.hpp"
#include "mpi_compare.hpp"
#include "stencil_layouts.hpp"
#include <mpi.h>

#include <array>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {

/// Extents whose splits leave even local extents of 4 and 6, at least the three layers a Naik hop
/// reads from a neighbouring rank; on the SIMD layout, three dimensions left whole on each rank
/// split into 8 lanes with sub-lattices at least 3 sites long.
template <class Layout> const Lattice& global_lattice_of() {
  static const Lattice plain({8, 6, 8, 12}), simd({8, 8, 8, 16});
  return is_simd_layout<Layout> ? simd : plain;
}

template <class Layout> std::vector<std::array<int, Nd>> stencil_grids() {
  switch (ProcessGrid::world_size()) {
  case 1: return {{1, 1, 1, 1}};
  case 2: return is_simd_layout<Layout> ? std::vector<std::array<int, Nd>>{{2, 1, 1, 1}, {1, 1, 1, 2}}
                                        : std::vector<std::array<int, Nd>>{{2, 1, 1, 1}, {1, 1, 2, 1}, {1, 1, 1, 2}};
  case 4: return is_simd_layout<Layout> ? std::vector<std::array<int, Nd>>{{1, 1, 1, 4}}
                                        : std::vector<std::array<int, Nd>>{{2, 1, 2, 1}, {1, 1, 2, 2}, {2, 1, 1, 2}};
  default: return {{0, 0, 0, 0}};
  }
}

/// Both parities of f on the plain layout (f itself there).
template <class Field> auto plain_copy(const Field& f) {
  using S = std::remove_cvref_t<decltype(f[0])>;
  if constexpr (requires { f[0].geometry(); }) {
    SpinorField<Kokkos::complex<typename S::real_type>, S::n_spin, typename S::execution_space> p(f.lattice());
    from_simd(p, f);
    return p;
  } else {
    return f;
  }
}
} // namespace

TEMPLATE_LIST_TEST_CASE("distributed staggered operators equal the single-process ones", "[mpi][stencil]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  using Op = StaggeredOperator<Real, ES>;
  using EO = StaggeredEvenOddOperator<Real, ES>;
  using OpL = StaggeredOperator<Real, ES, Layout>;
  using EOL = StaggeredEvenOddOperator<Real, ES, Layout>;
  using Gauge = typename Op::gauge_type;
  const Lattice& global_lattice = global_lattice_of<Layout>();
  const auto bc = mixed_bc();
  Gauge vg(global_lattice), wg(global_lattice);
  random_gauge(vg, 501);
  random_gauge(wg, 502);
  for (const bool naik : {false, true}) {
    const Op mg(vg, bc, 0.2, naik ? &wg : nullptr);
    auto ing = mg.create_vector(), outg = mg.create_vector();
    random_spinor(ing, 503);
    mg.apply(outg, ing);
    for (const auto& g : stencil_grids<Layout>()) {
      ProcessGrid pg(global_lattice, g);
      CAPTURE(pg.to_string(), naik);
      Gauge vl(pg.lattice()), wl(pg.lattice());
      random_gauge(vl, 501);
      random_gauge(wl, 502);
      OpL ml(vl, bc, 0.2, naik ? &wl : nullptr);
      CHECK(ml.dslash().descriptor().depth == (naik ? 3 : 1));
      auto inl = ml.create_vector(), outl = ml.create_vector();
      random_spinor(inl, 503);
      for (const bool overlap : {true, false}) {
        CAPTURE(overlap);
        ml.dslash().launcher().set_overlap(overlap);
        ml.apply(outl, inl);
        CHECK(rel_diff_field(plain_copy(outl), outg) < 4 * tol<Real>());
      }
      // The long links compressed (recon 9: the SU(3) part and the phase), ghost zone included.
      if (naik) {
        const StaggeredOperator<Real, ES, typename Layout::template with_long_links<Recon9>> mc(vl, bc, 0.2, &wl);
        auto outc = mc.create_vector();
        mc.apply(outc, inl);
        CHECK(rel_diff_field(plain_copy(outc), outg) < 4 * tol<Real>());
      }
      // A block of right-hand sides (rows of the plain layout's fields, their halo exchanged
      // together) equals each right-hand side alone.
      if constexpr (OpL::dslash_type::has_blocks) {
        const auto& d = ml.dslash();
        auto in_b = d.create_block(1, 2), out_b = d.create_block(0, 2);
        std::vector<typename OpL::dslash_type::spinor_type> ins{d.create_spinor(1), d.create_spinor(1)};
        for (int r = 0; r < 2; ++r) {
          random_spinor(ins[r], 505 + r);
          in_b.insert(r, ins[r]);
        }
        d.apply(out_b, in_b, 0, d.available_hops());
        for (int r = 0; r < 2; ++r) {
          auto want = d.create_spinor(0), got = d.create_spinor(0);
          d.apply(want, ins[r], 0, d.available_hops());
          out_b.extract(r, got);
          CHECK(same_sites(got, want));
        }
        CHECK(d.halo_bytes(2) == 2 * d.halo_bytes());
      }
      // Whole colour vectors, depth layers of both faces of every split direction.
      double faces = 0;
      for (int mu = 0; mu < Nd; ++mu)
        if (pg.lattice().partitioned(mu)) faces += 2.0 * pg.lattice().face_sites(mu);
      CHECK(ml.dslash().halo_bytes() == (naik ? 3 : 1) * faces * Nc * sizeof(Kokkos::complex<Real>));
      // A field whose ghost zone is too shallow is refused, naming the problem.
      if (naik && pg.size() > 1) {
        typename OpL::field_type shallow(Layout::geometry(pg.lattice(), {}));
        CHECK_THROWS_AS(ml.apply(outl, shallow), kqcd::invalid_argument);
      }
    }
  }
  // The even-odd solve with the Naik term.
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  params.max_iter = 500;
  const double agree = sizeof(Real) == 4 ? 2e-3 : 1e-7;
  const EO eg(vg, bc, 0.5, &wg);
  auto bg = eg.create_field(), xg = eg.create_field();
  random_spinor(bg, 504);
  REQUIRE(staggered_solve(eg, xg, bg, params).converged());
  for (const auto& g : stencil_grids<Layout>()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge vl(pg.lattice()), wl(pg.lattice());
    random_gauge(vl, 501);
    random_gauge(wl, 502);
    const EOL el(vl, bc, 0.5, &wl);
    auto bl = el.create_field(), xl = el.create_field();
    random_spinor(bl, 504);
    const auto res = staggered_solve(el, xl, bl, params);
    CHECK(res.converged());
    CHECK(rel_diff_field(plain_copy(xl), xg) < agree);
  }
}

TEMPLATE_LIST_TEST_CASE("distributed Laplacian and covariant derivative equal the single-process ones", "[mpi][stencil]",
                        StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  using Lap = Laplacian<Ns, Real, ES>;
  using Cov = CovariantDerivative<1, Real, ES>;
  using LapL = Laplacian<Ns, Real, ES, Layout>;
  using CovL = CovariantDerivative<1, Real, ES, Layout>;
  using Gauge = typename Lap::gauge_type;
  const Lattice& global_lattice = global_lattice_of<Layout>();
  const auto bc = mixed_bc();
  Gauge ug(global_lattice);
  random_gauge(ug, 511);
  const Lap lg(ug, bc, 3);
  const Cov cg(ug, bc);
  typename Lap::field_type sg(global_lattice), lapg(global_lattice);
  typename Cov::field_type vg(global_lattice), covg(global_lattice);
  random_spinor(sg, 512);
  random_spinor(vg, 513);
  lg.apply(lapg, sg);
  for (const auto& g : stencil_grids<Layout>()) {
    ProcessGrid pg(global_lattice, g);
    CAPTURE(pg.to_string());
    Gauge ul(pg.lattice());
    random_gauge(ul, 511);
    const LapL ll(ul, bc, 3);
    const CovL cl(ul, bc);
    auto sl = ll.create_field(), lapl = ll.create_field();
    auto vl = cl.create_field(), covl = cl.create_field();
    random_spinor(sl, 512);
    random_spinor(vl, 513);
    ll.apply(lapl, sl);
    CHECK(rel_diff_field(plain_copy(lapl), lapg) < 4 * tol<Real>());
    for (int mu = 0; mu < Nd; ++mu)
      for (int dir : {1, -1}) {
        CAPTURE(mu, dir);
        cg.apply(covg, vg, mu, dir);
        cl.apply(covl, vl, mu, dir);
        CHECK(rel_diff_field(plain_copy(covl), covg) < 4 * tol<Real>());
      }
  }
}
