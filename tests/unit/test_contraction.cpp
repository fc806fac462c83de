// Contractions, sources, Gaussian smearing and propagators: the device kernels against plain host
// references (tests/reference/contraction_reference.hpp), C_15 = sum |S|^2, and the time-reversal
// symmetry C_n(t) = C_n(Lt - t) of a propagator on a time-reflection-symmetric configuration.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/gaussian_smear.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/solvers/propagator.hpp>

#include <contraction_reference.hpp>

#include <cmath>
#include <numbers>

using namespace kqcd;

namespace {
const Lattice lat({4, 4, 2, 6});

double max_abs(const std::vector<ref::cd>& v) {
  double m = 0;
  for (const auto& z : v) m = std::max(m, std::abs(z));
  return m;
}

template <class Real, class ES> void random_propagator(PropagatorField<Real, ES>& S, std::uint64_t seed) {
  for (int k = 0; k < SpinColour; ++k) random_spinor(S[k], seed + std::uint64_t(k));
}
template <class Real, class ES> std::vector<std::vector<ref::cd>> export_propagator(const PropagatorField<Real, ES>& S) {
  std::vector<std::vector<ref::cd>> r;
  for (int k = 0; k < SpinColour; ++k) r.push_back(export_spinor(S[k]));
  return r;
}
} // namespace

TEST_CASE("contraction: Gamma(n) tables equal the products of the gamma matrices", "[contraction]") {
  for (int n = 0; n < 16; ++n) {
    const auto g = ref::gamma_n(n);
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 4; ++c) {
        const auto z = c == gamma_basis.perm[n][s] ? i_pow<double>(gamma_basis.code[n][s]) : Kokkos::complex<double>(0, 0);
        CAPTURE(n, s, c);
        REQUIRE(std::abs(g[s][c] - ref::cd(z.real(), z.imag())) < 1e-15);
      }
  }
}

TEMPLATE_LIST_TEST_CASE("contraction: colour contractions against the host reference", "[contraction]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  SpinorField<Kokkos::complex<Real>, Ns, ES> a(lat), b(lat);
  random_spinor(a, 11);
  random_spinor(b, 12);
  const auto ha = export_spinor(a), hb = export_spinor(b);
  for (bool dr : {false, true}) {
    const auto dens = colour_contract(a, b, dr ? ContractType::degrand_rossi : ContractType::open);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dens);
    const auto want = ref::colour_contract(ha, hb, dr);
    std::vector<ref::cd> got(want.size()), diff(want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      got[i] = {h(i / 16, i % 16).real(), h(i / 16, i % 16).imag()};
      diff[i] = got[i] - want[i];
    }
    CAPTURE(dr);
    REQUIRE(max_abs(diff) <= 20 * kqcd::test::tol<Real>() * max_abs(want));
    // Timeslice sums with a momentum, against the host sum of the reference density.
    const Coords origin{{1, 2, 1, 4}};
    const Momentum mom{{1, -1, 1}};
    const auto sums = timeslice_sum<ES>(dens, lat, origin, mom);
    for (int t = 0; t < lat.dim(3); ++t)
      for (int n = 0; n < 16; ++n) {
        ref::cd s = 0;
        double scale = 0;
        for (std::int64_t x = 0; x < lat.volume(); ++x) {
          const auto c = lat.lex_coords(x);
          if ((c.x[3] - origin.x[3] + lat.dim(3)) % lat.dim(3) != t) continue;
          double ph = 0;
          for (int i = 0; i < 3; ++i) ph -= 2 * std::numbers::pi * mom.n[std::size_t(i)] * (c.x[i] - origin.x[i]) / lat.dim(i);
          s += std::polar(1.0, ph) * want[std::size_t(x * 16 + n)];
          scale += std::abs(want[std::size_t(x * 16 + n)]);
        }
        CAPTURE(t, n);
        REQUIRE(std::abs(sums[std::size_t(t)][std::size_t(n)] - s) <= 50 * kqcd::test::tol<Real>() * scale);
      }
  }
}

TEMPLATE_LIST_TEST_CASE("contraction: meson correlators against the host reference", "[contraction]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  PropagatorField<Real, ES> S(lat);
  random_propagator(S, 100);
  const auto hp = export_propagator(S);
  const Coords x0{{3, 1, 0, 2}};
  const std::vector<Momentum> moms{Momentum{}, Momentum{{1, 0, 0}}, Momentum{{0, 1, 1}}};
  const auto corr = meson_correlators(S, x0, moms);
  REQUIRE(corr.size() == moms.size());
  for (std::size_t m = 0; m < moms.size(); ++m) {
    const auto want = ref::meson_correlators(lat.dims(), hp, {3, 1, 0, 2}, moms[m].n);
    double scale = 0;
    for (const auto& row : want)
      for (const auto& z : row) scale = std::max(scale, std::abs(z));
    for (int t = 0; t < lat.dim(3); ++t)
      for (int n = 0; n < 16; ++n) {
        CAPTURE(m, t, n, corr[m][t][n], want[t][n]);
        REQUIRE(std::abs(corr[m][std::size_t(t)][std::size_t(n)] - want[std::size_t(t)][std::size_t(n)]) <=
                100 * kqcd::test::tol<Real>() * scale);
      }
  }
  // C_15(t) = sum_x |S|^2, computed by a separate kernel.
  const auto pc = propagator_correlator(S, x0);
  for (int t = 0; t < lat.dim(3); ++t) {
    CAPTURE(t, pc[t], corr[0][t][15]);
    REQUIRE(pc[std::size_t(t)] > 0);
    REQUIRE(std::abs(corr[0][std::size_t(t)][15].real() - pc[std::size_t(t)]) <= 10 * kqcd::test::tol<Real>() * pc[std::size_t(t)]);
    REQUIRE(std::abs(corr[0][std::size_t(t)][15].imag()) <= 10 * kqcd::test::tol<Real>() * pc[std::size_t(t)]);
  }
}

TEMPLATE_LIST_TEST_CASE("contraction: Gaussian smearing against the host reference", "[contraction][smearing]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  GaugeField<Kokkos::complex<Real>, ES> u(lat);
  random_gauge(u, 21);
  SpinorField<Kokkos::complex<Real>, Ns, ES> psi(lat);
  random_spinor(psi, 22);
  const auto hu = export_gauge(u);
  const auto hpsi = export_spinor(psi);
  SECTION("periodic") {
    gaussian_smear(psi, u, {2.5, 5});
    const auto want = ref::gaussian_smear(lat.dims(), hu, hpsi, 2.5, 5, {1.0, 1.0, 1.0});
    REQUIRE(ref::rel_diff(export_spinor(psi), want) < 20 * kqcd::test::tol<Real>());
    REQUIRE(ref::rel_diff(hpsi, want) > 0.1); // it did something
  }
  SECTION("twisted and zero boundaries, odd step count") {
    BoundaryPhases bc;
    bc.b[0] = BoundaryPhases::twist(0.7);
    bc.b[1] = 0.0;
    bc.b[2] = -1.0;
    gaussian_smear(psi, u, {1.5, 3}, bc);
    const auto want = ref::gaussian_smear(lat.dims(), hu, hpsi, 1.5, 3, {bc.b[0], bc.b[1], bc.b[2]});
    REQUIRE(ref::rel_diff(export_spinor(psi), want) < 20 * kqcd::test::tol<Real>());
  }
  SECTION("zero steps leave the field alone") {
    gaussian_smear(psi, u, {2.0, 0});
    REQUIRE(ref::rel_diff(export_spinor(psi), hpsi) == 0.0);
  }
  SECTION("on the SIMD lanes, and on the plain layout where asked") {
    const Lattice lanes_lat({4, 4, 4, 8}); // halved in y, z, t: 8 lanes
    GaugeField<Kokkos::complex<Real>, ES> v(lanes_lat);
    random_gauge(v, 23);
    SpinorField<Kokkos::complex<Real>, Ns, ES> phi(lanes_lat);
    random_spinor(phi, 24);
    const auto want = ref::gaussian_smear(lanes_lat.dims(), export_gauge(v), export_spinor(phi), 2.0, 4, {1.0, -1.0, 1.0});
    BoundaryPhases bc;
    bc.b[1] = -1.0;
    for (const LayoutChoice choice : {LayoutChoice::simd, LayoutChoice::plain}) {
      if (choice == LayoutChoice::simd && !ArchTraits<ES>::simd_layout) continue;
      CAPTURE(int(choice));
      SpinorField<Kokkos::complex<Real>, Ns, ES> copy(lanes_lat);
      for (int p = 0; p < 2; ++p) Kokkos::deep_copy(copy[p].view(), phi[p].view());
      gaussian_smear(copy, v, {2.0, 4}, bc, choice);
      REQUIRE(ref::rel_diff(export_spinor(copy), want) < 20 * kqcd::test::tol<Real>());
    }
  }
}

TEMPLATE_LIST_TEST_CASE("contraction: sources", "[contraction][sources]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  SpinorField<Kokkos::complex<double>, Ns, ES> b(lat);
  SECTION("point") {
    make_source(b, parse_source("point:1,2,1,3", &lat), 2, 1);
    const auto h = export_spinor(b);
    const auto site = lat.lex_index(Coords{{1, 2, 1, 3}});
    REQUIRE(h[std::size_t(site * 12 + 2 * 3 + 1)] == ref::cd(1.0));
    REQUIRE(ref::norm2(h) == 1.0);
  }
  SECTION("wall and noise") {
    for (const char* text : {"wall:4", "z2:4,7", "z4:4"}) {
      make_source(b, parse_source(text, &lat), 1, 2);
      const auto h = export_spinor(b);
      for (std::int64_t x = 0; x < lat.volume(); ++x)
        for (int k = 0; k < 12; ++k) {
          const auto z = h[std::size_t(x * 12 + k)];
          CAPTURE(text, x, k, z.real(), z.imag());
          const bool on = lat.lex_coords(x).x[3] == 4 && k == 1 * 3 + 2;
          REQUIRE(std::abs(z) == (on ? 1.0 : 0.0));
          if (std::string(text) != "z4:4") REQUIRE(z.imag() == 0.0);
        }
    }
  }
  SECTION("parse errors name the text") {
    for (const char* bad : {"point:1,2,3", "pt:0,0,0,0", "wall:x", "point:0,0,0,9", "z2:1,-4", "point"}) {
      CAPTURE(bad);
      try {
        parse_source(bad, &lat);
        FAIL("no error");
      } catch (const kqcd::invalid_argument& e) {
        REQUIRE(std::string(e.what()).find(bad) != std::string::npos);
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("contraction: time-reversal symmetry of C_n(t) on a periodic configuration", "[contraction][solvers]",
                        kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  // A random configuration made symmetric under t -> -t: U_i(x, Lt - t) = U_i(x, t) and
  // U_t(x, Lt - 1 - t) = U_t(x, t)^dag. The propagator from a source at t = 0 then satisfies
  // C_n(t) = C_n(Lt - t) for every Gamma(n), up to the solver tolerance.
  const Lattice tl({4, 4, 4, 8});
  GaugeField<Kokkos::complex<Real>, ES> u(tl);
  random_gauge(u, 31);
  auto h = export_gauge(u);
  const int Lt = tl.dim(3);
  for (std::int64_t x = 0; x < tl.volume(); ++x) {
    auto c = tl.lex_coords(x);
    const int t = c.x[3];
    auto link = [&](std::int64_t site, int mu) { return &h[std::size_t((site * 4 + mu) * 9)]; };
    if (t > Lt / 2) { // spatial links: copy from Lt - t
      Coords m = c;
      m.x[3] = Lt - t;
      for (int mu = 0; mu < 3; ++mu) std::copy(link(tl.lex_index(m), mu), link(tl.lex_index(m), mu) + 9, link(x, mu));
    }
    if (t >= Lt / 2) { // temporal links: U_t(x, t) = U_t(x, Lt - 1 - t)^dag
      Coords m = c;
      m.x[3] = Lt - 1 - t;
      const auto* src = link(tl.lex_index(m), 3);
      auto* dst = link(x, 3);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) dst[a * 3 + b] = std::conj(src[b * 3 + a]);
    }
  }
  const auto random_links = export_gauge(u);
  const auto src = parse_source("point:1,2,3,0", &tl);
  // C_n(t) from the point source on the links `host`.
  auto correlators = [&](const std::vector<std::complex<double>>& host) {
    import_gauge(u, host);
    WilsonEOOperator<Real, ES> eo(u, BoundaryPhases::periodic(), wilson_mass_from_kappa(0.115));
    PropagatorField<Real, ES> S(tl);
    SolverParams params;
    params.tol = sizeof(Real) == 4 ? 1e-6 : 1e-11;
    int solves = 0;
    const auto results = solve_propagator(
        eo, S, [&](auto& b, int spin, int colour) { make_source(b, src, spin, colour); }, params,
        [&](int, int, const SolverResult&) { ++solves; });
    REQUIRE(solves == 12);
    for (const auto& r : results) REQUIRE(r.converged());
    return meson_correlators(S, src.origin)[0];
  };
  const double tol = sizeof(Real) == 4 ? 1e-4 : 1e-8;
  // The largest |C_n(t) - C_n(Lt - t)| in units of the tolerance (relative, floored at 1e-3 of the channel's scale).
  auto asymmetry = [&](const auto& corr) {
    double worst = 0;
    for (int n = 0; n < 16; ++n) {
      double scale = 0;
      for (int t = 0; t < Lt; ++t) scale = std::max(scale, std::abs(corr[std::size_t(t)][std::size_t(n)].real()));
      for (int t = 1; t < Lt / 2; ++t) {
        const double a = corr[std::size_t(t)][std::size_t(n)].real(), b = corr[std::size_t(Lt - t)][std::size_t(n)].real();
        worst = std::max(worst, std::abs(a - b) / (tol * std::max(std::abs(a), 1e-3 * scale)));
      }
    }
    return worst;
  };
  CHECK(asymmetry(correlators(h)) <= 1.0);
  // The symmetry is not trivial: the random configuration it was made from breaks it.
  CHECK(asymmetry(correlators(random_links)) > 100.0);
}
