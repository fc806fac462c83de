// The SIMD layout on a distributed lattice against the single-process plain layout on the whole
// lattice: the hopping term (recon 18 and 12, every sign, parity, overlap and halo form), the block
// of right-hand sides in lanes and multi-RHS CG on it, the even-odd and full clover and twisted-clover
// operators and CG on them; 16-bit spinors and links (the hopping term, mixed double-half CG with
// twisted clover); the domain-wall operators on rows of vector sites and CG on them.
// Run at 1, 2 and 4 ranks over several process grids; where the partition leaves too few
// unpartitioned dimensions for the lanes, the refusal is checked instead.
#include "test_harness.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/stencil/domain_wall_5d.hpp>
#include <kqcd/stencil/simd_local_operators.hpp>

#include "host_fields.hpp"
#include "mpi_compare.hpp"
#include "simd_cases.hpp"

#include <catch2/matchers/catch_matchers_string.hpp>

#include <array>
#include <cmath>

using namespace kqcd;
using namespace kqcd::test;

namespace {

// Every process grid of process_grids() leaves at least two unpartitioned extents of 8: the
// double-precision lanes (4 with AVX-512) always fit, single precision's 8 on one partitioned
// dimension only.
const Lattice simd_lattice({8, 8, 8, 8});

/// Whether the lattice splits into V's lanes; if not, the refusal names the partition.
template <class V> bool lanes_fit(const Lattice& lat) {
  if (SIMDGeometry::splits(lat, V::lanes)) return true;
  CHECK_THROWS_WITH(SIMDGeometry(lat, V::lanes), Catch::Matchers::ContainsSubstring("partitioned over ranks"));
  return false;
}

/// f(lat, ul) on each process grid whose partition leaves room for V's lanes: the rank's lattice
/// and its part of the random gauge field `seed` (random_gauge(ug, seed) on simd_lattice is the
/// single-process field).
template <class V, class Gauge, class F> void on_simd_grids(std::uint64_t seed, const F& f) {
  for (const auto& g : process_grids()) {
    ProcessGrid pg(simd_lattice, g);
    const Lattice& lat = pg.lattice();
    CAPTURE(pg.to_string());
    if (!lanes_fit<V>(lat)) continue;
    Gauge ul(lat);
    random_gauge(ul, seed);
    f(lat, ul);
  }
}

} // namespace

TEMPLATE_LIST_TEST_CASE("distributed SIMD hopping term equals the single-process one", "[mpi][simd]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Plain = WilsonDslash<Real, ES>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Spinor = typename Plain::spinor_type;
  const auto bc = mixed_bc();
  typename Plain::gauge_type ug(simd_lattice);
  random_gauge(ug, 101);
  const Plain dg(ug, bc);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(simd_lattice, g);
    const Lattice& lat = pg.lattice();
    CAPTURE(pg.to_string());
    // A lane split asked for in a partitioned dimension is refused, naming it.
    for (int mu = 0; mu < Nd; ++mu)
      if (lat.partitioned(mu) && lat.dim(mu) % 4 == 0) {
        std::array<int, Nd> split{1, 1, 1, 1};
        split[mu] = 2;
        CHECK_THROWS_WITH(SIMDGeometry(lat, 2, split), Catch::Matchers::ContainsSubstring("partitioned over"));
      }
    if (!lanes_fit<V>(lat)) continue;
    typename Plain::gauge_type ul(lat);
    random_gauge(ul, 101);
    auto check = [&]<class Recon, NeighbourMode mode>(std::type_identity<Recon>, std::integral_constant<NeighbourMode, mode>) {
      SIMDWilsonDslash<Real, ES, Recon, mode> dl(ul, bc);
      CAPTURE(Recon::name, mode == NeighbourMode::table);
      for (int target = 0; target < 2; ++target)
        for (int isign : {1, -1}) {
          Spinor inl(lat, 1 - target), ing(simd_lattice, 1 - target), outg(simd_lattice, target);
          random_spinor(inl, 102);
          random_spinor(ing, 102);
          dg.apply(outg, ing, isign, target);
          auto in = dl.create_spinor(1 - target), out = dl.create_spinor(target);
          to_simd(in, inl);
          for (bool overlap : {true, false})
            for (bool spin_projection : {true, false}) {
              CAPTURE(target, isign, overlap, spin_projection);
              dl.set_overlap(overlap);
              dl.set_spin_projection(spin_projection);
              blas::zero(out);
              dl.apply(out, in, isign, target);
              CHECK(rel_diff(plain(out), outg) < (Recon::pairs == 4 ? 50 : 4) * tol<Real>()); // recon-8: rebuilt links
            }
        }
      // Whole vector sites carry every lane of both faces of each partitioned direction; projected, half.
      dl.set_spin_projection(false);
      const double whole = dl.halo_bytes();
      dl.set_spin_projection(true);
      CHECK(dl.halo_bytes() == whole / 2);
      double faces = 0;
      for (int mu = 0; mu < Nd; ++mu)
        if (lat.partitioned(mu)) faces += 2.0 * lat.face_sites(mu);
      CHECK(whole == faces * Nc * Ns * sizeof(Kokkos::complex<Real>));
    };
    constexpr std::integral_constant<NeighbourMode, NeighbourMode::table> table;
    check(std::type_identity<Recon18>{}, table);
    check(std::type_identity<Recon12>{}, table);
    check(std::type_identity<Recon8>{}, table);
    // Neighbours computed on the fly: off-rank ones land in the same ghost rows.
    check(std::type_identity<Recon18>{}, std::integral_constant<NeighbourMode, NeighbourMode::on_the_fly>{});
  }
}

TEMPLATE_LIST_TEST_CASE("distributed SIMD blocks of right-hand sides equal the single-process hopping term", "[mpi][simd]",
                        SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Plain = WilsonDslash<Real, ES>;
  using Block = SIMDBlockWilsonDslash<Real, ES>;
  using Spinor = typename Plain::spinor_type;
  const auto bc = mixed_bc();
  typename Plain::gauge_type ug(simd_lattice);
  random_gauge(ug, 111);
  const Plain dg(ug, bc);
  for (const auto& g : process_grids()) {
    ProcessGrid pg(simd_lattice, g);
    const Lattice& lat = pg.lattice();
    CAPTURE(pg.to_string());
    typename Plain::gauge_type ul(lat);
    random_gauge(ul, 111);
    Block dl(ul, bc);
    const int target = 1, isign = -1;
    auto in = dl.create_spinor(1 - target), out = dl.create_spinor(target);
    for (int r = 0; r < Block::rhs_per_spinor; ++r) {
      Spinor s(lat, 1 - target);
      random_spinor(s, 112 + r);
      in.insert(r, s);
    }
    dl.apply(out, in, isign, target);
    double worst = 0;
    for (int r = 0; r < Block::rhs_per_spinor; ++r) {
      Spinor ing(simd_lattice, 1 - target), outg(simd_lattice, target), outl(lat, target);
      random_spinor(ing, 112 + r);
      dg.apply(outg, ing, isign, target);
      out.extract(r, outl);
      worst = std::max(worst, rel_diff(outl, outg));
    }
    CHECK(worst < 4 * tol<Real>());
    if constexpr (std::is_same_v<Real, float> && precision_compiled<kqcd::half>) {
      // 16-bit lanes (right-hand sides of different magnitudes): each lane's norm travels with its site.
      using HalfBlock = SIMDBlockWilsonDslash<kqcd::half, ES>;
      const HalfBlock hl(ul, bc), hg(ug, bc);
      auto inl = hl.create_spinor(1 - target), outl = hl.create_spinor(target);
      auto ing = hg.create_spinor(1 - target), outg = hg.create_spinor(target);
      for (int r = 0; r < HalfBlock::rhs_per_spinor; ++r) {
        Spinor sl(lat, 1 - target), sg(simd_lattice, 1 - target);
        random_spinor(sl, 112 + r);
        random_spinor(sg, 112 + r);
        blas::scale(std::pow(10.0, r % 4), sl);
        blas::scale(std::pow(10.0, r % 4), sg);
        inl.insert(r, sl);
        ing.insert(r, sg);
      }
      hl.apply(outl, inl, isign, target);
      hg.apply(outg, ing, isign, target);
      double worst_half = 0;
      for (int r = 0; r < HalfBlock::rhs_per_spinor; ++r) {
        Spinor l(lat, target), gs(simd_lattice, target);
        outl.extract(r, l);
        outg.extract(r, gs);
        worst_half = std::max(worst_half, rel_diff(l, gs));
      }
      CHECK(worst_half < 1e-5);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("distributed SIMD clover and twisted-clover operators (even-odd and full) and CG equal the single-process ones",
                        "[mpi][simd][solver]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  const auto bc = mixed_bc();
  const double mass = 1.0, csw = 1.2, mu = 0.3; // heavy: short solves under oversubscribed ranks
  const double solve_tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  const double agree = sizeof(Real) == 4 ? 2e-3 : 1e-7;
  SolverParams params;
  params.tol = solve_tol;
  params.max_iter = 500;
  Gauge ug(simd_lattice);
  random_gauge(ug, 301);
  // The single-process operators and solve once, each grid's against them.
  auto check = [&]<class Term>(std::type_identity<Term>, auto... args) {
    CAPTURE(Term::name);
    using Plain = typename PlainEvenOddOperator<Term>::vector_type;
    using Field = SpinorField<Kokkos::complex<Real>, Ns, ES>;
    const PlainEvenOddOperator<Term> eg(ug, bc, mass, args...);
    const PlainFullOperator<Term> fg(ug, bc, mass, args...);
    Plain bg(simd_lattice, 0), xg(simd_lattice, 0);
    random_spinor(bg, 302);
    Field psig(simd_lattice);
    random_spinor(psig, 303);
    std::vector<Plain> outg;
    std::vector<Field> dg;
    for (int isign : {1, -1}) {
      outg.emplace_back(simd_lattice, 0);
      eg.apply(outg.back(), bg, isign);
      dg.emplace_back(simd_lattice);
      fg.apply(dg.back(), psig, isign);
    }
    const auto rg = cg_normal(eg, xg, bg, params);
    on_simd_grids<V, Gauge>(301, [&](const Lattice& lat, const Gauge& ul) {
      const SIMDEvenOddOperator<Term> el(ul, bc, mass, args...);
      Plain bl(lat, 0);
      random_spinor(bl, 302);
      auto b = el.create_vector(), out = el.create_vector(), x = el.create_vector();
      to_simd(b, bl);
      for (int k = 0; k < 2; ++k) {
        const int isign = k == 0 ? 1 : -1;
        CAPTURE(isign);
        el.apply(out, b, isign);
        CHECK(rel_diff(plain(out), outg[std::size_t(k)]) < 8 * tol<Real>());
      }
      // The full operator D on both parities.
      const SIMDFullOperator<Term> fl(ul, bc, mass, args...);
      Field psil(lat);
      random_spinor(psil, 303);
      auto psi = fl.create_vector(), dpsi = fl.create_vector();
      to_simd(psi, psil);
      for (int k = 0; k < 2; ++k) {
        const int isign = k == 0 ? 1 : -1;
        CAPTURE(isign);
        fl.apply(dpsi, psi, isign);
        for (int p = 0; p < 2; ++p) CHECK(rel_diff(plain(dpsi[p]), dg[std::size_t(k)][p]) < 8 * tol<Real>());
      }
      const auto rl = cg_normal(el, x, b, params);
      CHECK(rl.converged());
      CHECK(rl.true_residual <= solve_tol);
      CHECK(std::abs(rl.iterations - rg.iterations) <= 2);
      CHECK(rel_diff(plain(x), xg) < agree);
    });
  };
  check(std::type_identity<CloverTerm<Real, ES>>{}, csw);
  check(std::type_identity<TwistedCloverTerm<Real, ES>>{}, csw, mu);
}

TEMPLATE_LIST_TEST_CASE("distributed multi-RHS CG on SIMD lane blocks equals single-process CG for each system",
                        "[mpi][simd][multi][solver]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Gauge = GaugeField<Kokkos::complex<Real>, ES>;
  using Plain = typename WilsonEOOperator<Real, ES>::vector_type;
  const auto bc = mixed_bc();
  const double mass = 1.0; // heavy: short solves under oversubscribed ranks
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  params.max_iter = 500;
  const double agree = sizeof(Real) == 4 ? 2e-3 : 1e-7;
  Gauge ug(simd_lattice);
  random_gauge(ug, 401);
  // Wilson, and a site-local term whose blocks are broadcast to the lanes.
  auto check = [&]<class Term>(std::type_identity<Term>, auto... args) {
    CAPTURE(Term::name);
    const PlainEvenOddOperator<Term> eg(ug, bc, mass, args...);
    // The single-process solves once, each grid's against them.
    const int n = V::lanes;
    std::vector<Plain> xg;
    std::vector<SolverResult> single;
    for (int r = 0; r < n; ++r) {
      Plain bg(simd_lattice, 0);
      random_spinor(bg, 402 + std::uint64_t(r));
      xg.emplace_back(simd_lattice, 0);
      single.push_back(cg_normal(eg, xg.back(), bg, params));
    }
    on_simd_grids<V, Gauge>(401, [&](const Lattice& lat, const Gauge& ul) {
      const SIMDEvenOddOperator<Term> el(ul, bc, mass, args...);
      auto b = el.create_multi(n), x = el.create_multi(n);
      for (int r = 0; r < n; ++r) {
        Plain s(lat, 0);
        random_spinor(s, 402 + std::uint64_t(r));
        b.insert(r, s);
      }
      const auto res = cg_normal_multi(el, x, b, params);
      for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        Plain xl(lat, 0);
        CHECK(res[std::size_t(r)].converged());
        CHECK(std::abs(res[std::size_t(r)].iterations - single[std::size_t(r)].iterations) <= 2);
        x.extract(r, xl);
        CHECK(rel_diff(xl, xg[std::size_t(r)]) < agree);
      }
    });
  };
  check(std::type_identity<WilsonMassTerm<Real, ES>>{});
  check(std::type_identity<TwistedCloverTerm<Real, ES>>{}, 1.1, 0.2);
}

TEMPLATE_LIST_TEST_CASE("distributed 16-bit SIMD hopping term and mixed double-half CG equal the single-process ones",
                        "[mpi][simd][half]", SIMDHalfSpaces) {
  using ES = TestType;
  using V = typename ArchTraits<ES>::template simd_complex<float>;
  using Gauge = GaugeField<Kokkos::complex<float>, ES>;
  using Half = SIMDHalfSpinor<V, ES>;
  const auto bc = mixed_bc();
  Gauge ug(simd_lattice);
  random_gauge(ug, 401);
  GaugeField<Kokkos::complex<double>, ES> ugd(simd_lattice);
  convert_gauge(ugd, ug);
  const SIMDWilsonDslash<kqcd::half, ES> dg(ug, bc);
  const auto as_plain = [](const Half& h) {
    CBSpinor<Kokkos::complex<float>, Ns, ES> p(h.lattice(), h.parity());
    from_simd(p, h);
    return p;
  };
  // The twisted-clover solve on the whole lattice, in double.
  const double mass = 1.0, csw = 1.2, mu = 0.3;
  using Term = TwistedCloverTerm<double, ES>;
  const PlainEvenOddOperator<Term> eg(ugd, bc, mass, csw, mu);
  SolverParams params;
  params.tol = 1e-10;
  params.max_iter = 500;
  typename PlainEvenOddOperator<Term>::vector_type bg(simd_lattice, 0), xg(simd_lattice, 0);
  random_spinor(bg, 403);
  (void)cg_normal(eg, xg, bg, params);
  on_simd_grids<V, Gauge>(401, [&](const Lattice& lat, const Gauge& ul) {
    SIMDWilsonDslash<kqcd::half, ES> dl(ul, bc);
    for (int target = 0; target < 2; ++target)
      for (int isign : {1, -1}) {
        CBSpinor<Kokkos::complex<float>, Ns, ES> inl(lat, 1 - target), ing(simd_lattice, 1 - target);
        random_spinor(inl, 402);
        random_spinor(ing, 402);
        auto in = dl.create_spinor(1 - target), out = dl.create_spinor(target);
        auto in_g = dg.create_spinor(1 - target), out_g = dg.create_spinor(target);
        to_simd(in, inl);
        to_simd(in_g, ing);
        dg.apply(out_g, in_g, isign, target);
        const auto want = as_plain(out_g);
        for (bool overlap : {true, false}) {
          CAPTURE(target, isign, overlap);
          dl.set_overlap(overlap);
          blas::zero(out);
          dl.apply(out, in, isign, target);
          CHECK(rel_diff(as_plain(out), want) < 4 * tol<float>());
        }
      }
    // 16-bit sites travel whole with their norms, projected or not.
    double faces = 0;
    for (int mu_ = 0; mu_ < Nd; ++mu_)
      if (lat.partitioned(mu_)) faces += 2.0 * lat.face_sites(mu_);
    CHECK(dl.halo_bytes() == faces * (Nc * Ns * 2 * sizeof(short) + sizeof(float)));
    // Mixed double-half CG (double lanes outside, 16-bit float lanes inside) reaches the solution.
    GaugeField<Kokkos::complex<double>, ES> uld(lat);
    convert_gauge(uld, ul);
    const SIMDEvenOddOperator<Term> el(uld, bc, mass, csw, mu);
    const SIMDEvenOddOperator<TwistedCloverTerm<kqcd::half, ES>> sloppy(ul, bc, mass, csw, mu);
    typename PlainEvenOddOperator<Term>::vector_type bl(lat, 0);
    random_spinor(bl, 403);
    auto b = el.create_vector(), x = el.create_vector();
    to_simd(b, bl);
    const auto res = cg_normal(el, sloppy, x, b, params);
    CAPTURE(res.iterations, res.residual_updates, res.true_residual);
    CHECK(res.converged());
    CHECK(res.true_residual <= params.tol);
    CHECK(rel_diff(plain(x), xg) < 1e-7);
  });
}

namespace {
/// The rows of a plain block in the SIMD lanes of geometry g (SB, each row through SS), and back.
template <class SB, class SS, class PB, class PS> SB block_to_lanes(const SIMDGeometry& g, const PB& b) {
  SB out(g, b.parity(), b.n_rhs());
  PS row(b.lattice(), b.parity());
  SS lane(g, b.parity());
  for (int r = 0; r < b.n_rhs(); ++r) {
    b.extract(r, row);
    to_simd(lane, row);
    out.insert(r, lane);
  }
  return out;
}
template <class PB, class PS, class SS, class SB> PB block_from_lanes(const SB& b) {
  PB out(b.lattice(), b.parity(), b.n_rhs());
  PS row(b.lattice(), b.parity());
  SS lane(b.geometry(), b.parity());
  for (int r = 0; r < b.n_rhs(); ++r) {
    b.extract(r, lane);
    from_simd(row, lane);
    out.insert(r, row);
  }
  return out;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("distributed SIMD domain-wall operators (D_hat, its adjoint, D5; 5D-preconditioned) and even-odd CG equal the "
                        "single-process plain ones",
                        "[mpi][simd][domain-wall]", SIMDConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using V = typename ArchTraits<ES>::template simd_complex<Real>;
  using Plain = DomainWallOperator<Real, ES>;
  using Lanes = SIMDDomainWallOperator<Real, ES>;
  using PB = typename Plain::vector_type;
  using PS = typename Plain::dslash_type::spinor_type;
  using SB = typename Lanes::vector_type;
  using SS = typename Lanes::dslash_type::spinor_type;
  const auto bc = mixed_bc();
  const DomainWallParams p{4, 1.6, 1.5, 0.5, 0.1}, p5{4, 1.6, 1.0, 0.0, 0.1};
  typename Plain::gauge_type ug(simd_lattice);
  random_gauge(ug, 601);
  const Plain og(ug, bc, p);
  const PB eg = random_block<PB, PS>(simd_lattice, 0, 610, p.Ls), xg = random_block<PB, PS>(simd_lattice, 1, 620, p.Ls);
  const auto diff = [](const SB& local, const PB& global) { return block_rel_diff<PS>(block_from_lanes<PB, PS, SS>(local), global); };
  // CG on the normal equations of D_hat, single-process once.
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
  params.max_iter = 1000;
  PB sg = og.create_vector();
  const auto rg = cg_normal(og, sg, eg, params);
  on_simd_grids<V, typename Plain::gauge_type>(601, [&](const Lattice& lat, const auto& ul) {
    const Lanes ol(ul, bc, p);
    const SB el = block_to_lanes<SB, SS, PB, PS>(ol.geometry(), random_block<PB, PS>(lat, 0, 610, p.Ls));
    const SB xl = block_to_lanes<SB, SS, PB, PS>(ol.geometry(), random_block<PB, PS>(lat, 1, 620, p.Ls));
    check_domain_wall_apply(ol, og, el, eg, xl, xg, diff, 8 * tol<Real>());
    // The 5D-preconditioned Shamir operator on the same fields, split by 5D parity.
    const SIMDDomainWall5DOperator<Real, ES> ol5(ul, bc, p5);
    const DomainWall5DOperator<Real, ES> og5(ug, bc, p5);
    auto vl = std::array{ol5.create_spinor(0), ol5.create_spinor(1)}, wl = vl;
    auto vg = std::array{og5.create_spinor(0), og5.create_spinor(1)}, wg = vg;
    ol5.split(vl[0], vl[1], el, xl);
    og5.split(vg[0], vg[1], eg, xg);
    wl = {ol5.create_spinor(0), ol5.create_spinor(1)};
    wg = {og5.create_spinor(0), og5.create_spinor(1)};
    ol5.apply_full(wl[0], wl[1], vl[0], vl[1], -1);
    og5.apply_full(wg[0], wg[1], vg[0], vg[1], -1);
    SB fl[2] = {SB(ol5.geometry(), 0, p5.Ls), SB(ol5.geometry(), 1, p5.Ls)};
    PB fg[2] = {PB(simd_lattice, 0, p5.Ls), PB(simd_lattice, 1, p5.Ls)};
    ol5.merge(fl[0], fl[1], wl[0], wl[1]);
    og5.merge(fg[0], fg[1], wg[0], wg[1]);
    CHECK(diff(fl[0], fg[0]) < 8 * tol<Real>());
    CHECK(diff(fl[1], fg[1]) < 8 * tol<Real>());
    // CG on the normal equations of D_hat.
    SB sl = ol.create_vector();
    const auto rl = cg_normal(ol, sl, el, params);
    CHECK(rl.converged());
    CHECK(std::abs(rl.iterations - rg.iterations) <= 2);
    CHECK(diff(sl, sg) < (sizeof(Real) == 4 ? 2e-3 : 1e-7));
  });
}
