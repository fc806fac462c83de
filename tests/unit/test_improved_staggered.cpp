// Improved staggered fermions: asqtad and HISQ links built on the device (gauge/staggered_links.hpp)
// against MILC's construction written out in tests/reference/staggered_links_reference.hpp (phased
// links, every path walked), through the improved operator on every layout and precision; the
// links of a unit field, gauge covariance of the HISQ links, the U(3) projection, the free
// propagator with a Naik term against the exact momentum-space sum, and the local staggered meson
// correlators (measure/staggered_spectrum.hpp) of the free field against the same sum.
#include "test_harness.hpp"

#include <catch2/matchers/catch_matchers_string.hpp>

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/gauge/staggered_links.hpp>
#include <kqcd/measure/staggered_spectrum.hpp>
#include <kqcd/solvers/staggered_solve.hpp>
#include <kqcd/stencil/operator_handle.hpp>
#include <kqcd/stencil/staggered.hpp>

#include "host_fields.hpp"
#include "stencil_layouts.hpp"
#include <smear_reference.hpp>
#include <staggered_links_reference.hpp>
#include <stencil_reference.hpp>
#include <su3_reference.hpp>
#include <wilson_reference.hpp>

#include <map>
#include <numbers>
#include <random>

using namespace kqcd;
using namespace kqcd::test;

namespace {
using cvec = std::vector<std::complex<double>>;
using DGauge = GaugeField<Kokkos::complex<double>>;

/// A smooth-ish SU(3) field: each link I + 0.6 R (R Haar-random) made unitary by Gram-Schmidt with
/// the third row conj(row0 x row1), so that HISQ's first-level links are far from singular.
cvec rough_host_gauge(const Lattice& lat, std::uint64_t seed) {
  cvec u = random_host_gauge(lat, seed);
  for (std::size_t l = 0; l < u.size() / 9; ++l) {
    std::complex<double>* m = &u[l * 9];
    for (int k = 0; k < 9; ++k) m[k] = (k % 4 == 0 ? 1.0 : 0.0) + 0.6 * m[k];
    auto normalise = [&](int r) {
      double n = 0;
      for (int c = 0; c < 3; ++c) n += std::norm(m[r * 3 + c]);
      for (int c = 0; c < 3; ++c) m[r * 3 + c] /= std::sqrt(n);
    };
    normalise(0);
    std::complex<double> proj = 0;
    for (int c = 0; c < 3; ++c) proj += std::conj(m[c]) * m[3 + c];
    for (int c = 0; c < 3; ++c) m[3 + c] -= proj * m[c];
    normalise(1);
    m[6] = std::conj(m[1] * m[5] - m[2] * m[4]);
    m[7] = std::conj(m[2] * m[3] - m[0] * m[5]);
    m[8] = std::conj(m[0] * m[4] - m[1] * m[3]);
  }
  return u;
}
template <class ES> GaugeField<Kokkos::complex<double>, ES> to_device(const Lattice& lat, const cvec& h) {
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  import_gauge(u, h);
  return u;
}
template <class Field> cvec host(const Field& f) { return export_spinor(f); }
cvec random_colour_field(const Lattice& lat, std::uint64_t seed) {
  SpinorField<Kokkos::complex<double>, 1, Kokkos::DefaultHostExecutionSpace> s(lat);
  random_spinor(s, seed);
  return export_spinor(s);
}
StaggeredLinkParams params_of(StaggeredAction a) {
  StaggeredLinkParams p;
  p.action = a;
  if (a == StaggeredAction::asqtad) p.u0 = 0.87;
  if (a == StaggeredAction::hisq) p.naik_epsilon = -0.21;
  return p;
}
/// MILC's phased links of a host field, and the Dslash on them, cached per lattice and action.
const cvec& milc_dslash_of(const Lattice& lat, StaggeredAction a, const cvec& u, const cvec& psi, const BoundaryPhases& bc) {
  static std::map<std::pair<std::array<int, 4>, int>, cvec> cache;
  const auto key = std::pair(lat.dims(), int(a));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const StaggeredLinkParams p = params_of(a);
  const cvec phased = ref::milc_phased_links(lat.dims(), u, host_bc(bc));
  const auto links = a == StaggeredAction::asqtad ? ref::milc_asqtad_links(lat.dims(), phased, p.u0)
                                                   : ref::milc_hisq_links(lat.dims(), phased, p.naik_epsilon);
  return cache[key] = ref::milc_dslash(lat.dims(), links.first, links.second, psi);
}
double max_abs_diff_from(const cvec& links, std::complex<double> c) {
  double worst = 0;
  for (std::size_t l = 0; l < links.size(); ++l) worst = std::max(worst, std::abs(links[l] - (l % 9 % 4 == 0 ? c : 0.0)));
  return worst;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("asqtad and HISQ links of a unit field are the sums of their path coefficients", "[staggered][links]",
                        EnabledExecutionSpaces) {
  using ES = TestType;
  const Lattice lat({4, 4, 4, 6});
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  unit_gauge(u);
  // Paths per link: 6 three-link staples, 24 five-link, 48 seven-link, 6 Lepage; kqcd's links are
  // unphased, so the 3- and 7-link staples (odd plaquette count) enter with MILC's sign flipped.
  const double u0 = 0.87, u2 = 1 / (u0 * u0), u4 = u2 * u2, u6 = u4 * u2;
  const auto asq = make_staggered_links(u, StaggeredLinkParams{StaggeredAction::asqtad, u0, 0.0});
  CHECK(max_abs_diff_from(export_gauge(asq.fat), 5.0 / 8 + 6 * u2 / 16 + 24 * u4 / 64 + 48 * u6 / 384 - 6 * u4 / 16) < 1e-14);
  CHECK(max_abs_diff_from(export_gauge(asq.lng), -u2 / 24) < 1e-14);
  const double eps = -0.3;
  const auto hisq = make_staggered_links(u, StaggeredLinkParams{StaggeredAction::hisq, 1.0, eps});
  // First level: 1/8 + 6/16 + 24/64 + 48/384 = 1, a unit matrix again after the U(3) projection.
  CHECK(max_abs_diff_from(export_gauge(hisq.fat), 1.0 + eps / 8 + 6.0 / 16 + 24.0 / 64 + 48.0 / 384 - 6 * 2.0 / 16) < 1e-14);
  CHECK(max_abs_diff_from(export_gauge(hisq.lng), -(1 + eps) / 24) < 1e-14);
  const auto naive = make_staggered_links(u, StaggeredLinkParams{StaggeredAction::naive, 1.0, 0.0});
  CHECK(naive.long_links() == nullptr);
  CHECK(max_abs_diff_from(export_gauge(naive.fat), 1.0) == 0.0);
  // Parameters that do not belong to the action are refused.
  CHECK_THROWS_AS(make_staggered_links(u, StaggeredLinkParams{StaggeredAction::hisq, 0.9, 0.0}), kqcd::invalid_argument);
  CHECK_THROWS_AS(make_staggered_links(u, StaggeredLinkParams{StaggeredAction::asqtad, 1.0, 0.1}), kqcd::invalid_argument);
  CHECK_THROWS_AS(make_staggered_links(u, StaggeredLinkParams{StaggeredAction::asqtad, -1.0, 0.0}), kqcd::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("improved staggered operator of asqtad and HISQ links matches MILC's construction", "[staggered][links]",
                        StencilConfigsWithHalf) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  using Op = StaggeredOperator<Real, ES, Layout>;
  using Gauge = typename Op::gauge_type;
  const Lattice& lat = naik_lattice<Layout>();
  const cvec u = rough_host_gauge(lat, 81), psi = random_colour_field(lat, 82);
  const auto bc = mixed_bc();
  const double mass = 0.06;
  // M psi with the long links stored whole, or compressed (a constant times U(3): recon 13 and 9).
  Gauge fat(lat), lng(lat);
  auto apply = [&]<class LongRecon>() {
    const StaggeredOperator<Real, ES, typename Layout::template with_long_links<LongRecon>> M(fat, bc, mass, &lng);
    auto in = M.create_vector(), out = M.create_vector();
    import_spinor(in, psi);
    M.apply(out, in);
    return host(out);
  };
  for (const auto action : {StaggeredAction::asqtad, StaggeredAction::hisq}) {
    CAPTURE(to_string(action));
    const auto links = make_staggered_links(to_device<ES>(lat, u), params_of(action));
    convert_gauge(fat, links.fat);
    convert_gauge(lng, links.lng);
    cvec want = milc_dslash_of(lat, action, u, psi, bc);
    for (std::size_t k = 0; k < want.size(); ++k) want[k] += 2 * mass * psi[k];
    CHECK(ref::rel_diff(apply.template operator()<Recon18>(), want) < 10 * stencil_tol<TestType>());
    CHECK(ref::rel_diff(apply.template operator()<Recon13>(), want) < 10 * stencil_tol<TestType>());
    CHECK(ref::rel_diff(apply.template operator()<Recon9>(), want) < 10 * stencil_tol<TestType>());
  }
  // Fat links are no constant times U(3): compressed, they are refused.
  using Compressed = StaggeredOperator<Real, ES, typename Layout::template with_long_links<Recon13>>;
  CHECK_THROWS_WITH(Compressed(fat, bc, mass, &fat), Catch::Matchers::ContainsSubstring("constant times U(3)"));
}

TEMPLATE_LIST_TEST_CASE("HISQ links are gauge covariant", "[staggered][links]", EnabledExecutionSpaces) {
  using ES = TestType;
  const Lattice lat({4, 4, 6, 4});
  const cvec u = rough_host_gauge(lat, 91);
  cvec g = random_host_gauge(lat, 92);
  cvec gs(std::size_t(lat.volume()) * 9);
  for (std::size_t i = 0; i < gs.size() / 9; ++i)
    for (int k = 0; k < 9; ++k) gs[i * 9 + k] = g[i * 36 + k];
  const StaggeredLinkParams p{StaggeredAction::hisq, 1.0, 0.1};
  const auto a = make_staggered_links(to_device<ES>(lat, u), p);
  const auto b = make_staggered_links(to_device<ES>(lat, ref::gauge_transform(lat.dims(), u, gs)), p);
  const cvec fa = export_gauge(a.fat), la = export_gauge(a.lng), fb = export_gauge(b.fat), lb = export_gauge(b.lng);
  // fat^g(x) = g(x) fat(x) g(x+mu)^dag, long^g(x) = g(x) long(x) g(x+3mu)^dag.
  using ref::operator*;
  const ref::X d = lat.dims();
  auto gm = [&](const ref::X& x) {
    ref::M m;
    for (int k = 0; k < 9; ++k) m[std::size_t(k)] = gs[std::size_t(ref::site_index(d, x) * 9 + k)];
    return m;
  };
  double worst = 0, scale = 0;
  for (std::int64_t i = 0; i < lat.volume(); ++i) {
    ref::X x{};
    std::int64_t r = i;
    for (int mu = 0; mu < 4; ++mu) x[std::size_t(mu)] = int(r % d[std::size_t(mu)]), r /= d[std::size_t(mu)];
    for (int mu = 0; mu < 4; ++mu) {
      const ref::M wf = gm(x) * ref::link(fa, d, x, mu) * ref::dagger(gm(ref::step(d, x, mu, 1)));
      const ref::M wl = gm(x) * ref::link(la, d, x, mu) * ref::dagger(gm(ref::step(d, x, mu, 3)));
      const ref::M gf = ref::link(fb, d, x, mu), gl = ref::link(lb, d, x, mu);
      for (int k = 0; k < 9; ++k) {
        worst = std::max({worst, std::abs(wf[std::size_t(k)] - gf[std::size_t(k)]), std::abs(wl[std::size_t(k)] - gl[std::size_t(k)])});
        scale = std::max(scale, std::abs(gf[std::size_t(k)]));
      }
    }
  }
  CHECK(worst < 1e-12 * scale);
}

TEST_CASE("U(3) projection is the polar factor", "[staggered][links]") {
  std::mt19937_64 gen(7);
  std::normal_distribution<double> dist;
  for (int trial = 0; trial < 50; ++trial) {
    SU3<double> v;
    ref::M h;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        // Random matrices, some nearly unitary (the smeared links' case), some far from it.
        const std::complex<double> z(dist(gen), dist(gen));
        const std::complex<double> e = (a == b ? 1.0 : 0.0) + (trial % 2 ? 1.0 : 0.05) * z;
        v.m[a][b] = Kokkos::complex<double>(e.real(), e.imag());
        h[std::size_t(a * 3 + b)] = e;
      }
    const SU3<double> w = project_u3(v);
    const ref::M want = ref::u3_projection(h);
    double diff = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) diff = std::max(diff, std::abs(std::complex<double>(w.m[a][b].real(), w.m[a][b].imag()) - want[std::size_t(a * 3 + b)]));
    CAPTURE(trial);
    CHECK(diff < 1e-11);
  }
  // The unit matrix times a phase is its own projection.
  SU3<double> z = SU3<double>::identity();
  for (int a = 0; a < 3; ++a) z.m[a][a] = Kokkos::complex<double>(0.6, 0.8);
  const SU3<double> wz = project_u3(z);
  CHECK(std::abs(wz.m[1][1].real() - 0.6) + std::abs(wz.m[1][1].imag() - 0.8) + std::abs(wz.m[0][1].real()) < 1e-14);
}

TEMPLATE_LIST_TEST_CASE("free asqtad propagator equals the momentum-space sum with the Naik term", "[staggered][links]", StencilConfigs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Layout = layout_of<TestType>;
  using Op = StaggeredEvenOddOperator<Real, ES, Layout>;
  const Lattice& lat = naik_lattice<Layout>();
  const double mass = 0.2;
  const std::array<double, 4> theta{0.0, 0.4, 0.0, std::numbers::pi};
  BoundaryPhases bc;
  for (int mu = 0; mu < Nd; ++mu) bc.b[mu] = BoundaryPhases::twist(theta[std::size_t(mu)]);
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  unit_gauge(u);
  const auto links = make_staggered_links(u, StaggeredLinkParams{StaggeredAction::asqtad, 1.0, 0.0});
  typename Op::gauge_type fat(lat), lng(lat);
  convert_gauge(fat, links.fat);
  convert_gauge(lng, links.lng);
  const Op op(fat, bc, mass, &lng);
  const std::array<int, 4> x0{1, 2, 0, 3};
  const int colour = 2;
  auto b = op.create_field(), x = op.create_field();
  import_spinor(b, colour_point_source(lat, x0, colour));
  SolverParams params;
  params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-12;
  REQUIRE(staggered_solve(op, x, b, params).status == SolverStatus::converged);
  // asqtad's free links: fat 9/8 (one-link 5/8 and the staples' 3/8 + 3/8 + 1/8 - Lepage's 3/8), long -1/24.
  const cvec g = ref::free_staggered_propagator(lat.dims(), mass, theta, x0, 9.0 / 8, -1.0 / 24);
  cvec want(g.size() * Nc, 0.0);
  for (std::size_t s = 0; s < g.size(); ++s) want[s * Nc + colour] = g[s];
  CHECK(ref::rel_diff(host(x), want) < (sizeof(Real) == 4 ? 2e-4 : 1e-10));
}

TEMPLATE_LIST_TEST_CASE("local staggered meson correlators of the free field equal the momentum-space sum", "[staggered][spectrum]",
                        EnabledExecutionSpaces) {
  using ES = TestType;
  const Lattice lat({4, 4, 4, 8});
  const std::array<double, 4> theta{0.0, 0.0, 0.0, std::numbers::pi};
  const BoundaryPhases bc = parse_boundary_phases("p,p,p,a");
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  unit_gauge(u);
  const auto links = make_staggered_links(u, StaggeredLinkParams{StaggeredAction::hisq, 1.0, 0.0});
  const std::vector<double> masses{0.3, 0.12};
  const auto A = make_staggered_operator<double, ES>(links.fat, bc, masses[1], links.long_links());
  const SourceSpec src = parse_source("point:1,2,3,5", &lat);
  SolverParams params;
  params.tol = 1e-12;
  int calls = 0;
  const StaggeredMesons m = staggered_mesons(A, src, masses, params, [&](int colour, const MultiShiftResult& r) {
    CHECK(colour == calls++);
    CHECK(r.converged());
  });
  CHECK(calls == 3);
  REQUIRE(m.correlators.size() == 2);
  const std::array<int, 4> x0{1, 2, 3, 5};
  for (std::size_t i = 0; i < masses.size(); ++i) {
    CAPTURE(masses[i]);
    // HISQ's free links are asqtad's (u0 = 1): fat 9/8, long -1/24; G colour-diagonal, so the sum over
    // source and sink colours is 3 |g|^2.
    const cvec g = ref::free_staggered_propagator(lat.dims(), masses[i], theta, x0, 9.0 / 8, -1.0 / 24);
    std::vector<std::array<double, 8>> want(8, std::array<double, 8>{});
    for (std::int64_t s = 0; s < lat.volume(); ++s) {
      const Coords c = lat.lex_coords(s);
      int d[4];
      for (int mu = 0; mu < 4; ++mu) d[mu] = c.x[mu] - x0[std::size_t(mu)];
      const int phase[8] = {0, d[0] + d[1] + d[2] + d[3], d[0], d[1], d[2], d[1] + d[2], d[0] + d[2], d[0] + d[1]};
      const int t = (c.x[3] - x0[3] + 8) % 8;
      for (int n = 0; n < 8; ++n) want[std::size_t(t)][std::size_t(n)] += ((phase[n] % 2 + 2) % 2 ? -3.0 : 3.0) * std::norm(g[std::size_t(s)]);
    }
    double scale = 0;
    for (const auto& w : want) scale = std::max(scale, w[0]);
    for (int n = 0; n < 8; ++n)
      for (int t = 0; t < 8; ++t) {
        CAPTURE(staggered_meson_labels[std::size_t(n)], t);
        CHECK(std::abs(m.correlators[i][std::size_t(n)][std::size_t(t)] - want[std::size_t(t)][std::size_t(n)]) < 1e-10 * scale);
      }
  }
}

