// Lattice indexing, site tables, parsing, random fields and the host conversions, on every
// enabled backend.
#include "test_harness.hpp"

#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/ops/blas.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <set>

using namespace kqcd;

TEST_CASE("checkerboard indexing covers each site once and inverts", "[core]") {
  const Lattice lat({4, 6, 2, 8});
  std::set<std::int64_t> seen;
  for (int p = 0; p < 2; ++p)
    for (int s = 0; s < lat.cb_volume(); ++s) {
      const Coords c = lat.cb_coords(s, p);
      REQUIRE(Lattice::parity(c) == p);
      REQUIRE(lat.cb_index(c) == s);
      REQUIRE(lat.lex_index(c) / 2 == s);
      seen.insert(lat.lex_index(c));
    }
  REQUIRE(std::int64_t(seen.size()) == lat.volume());
}

TEST_CASE("lattice and boundary parsing reject bad text with a message", "[core]") {
  REQUIRE(parse_lattice("4x6x2x8").dims() == std::array<int, 4>{4, 6, 2, 8});
  REQUIRE_THROWS_AS(parse_lattice("4x4x4"), invalid_argument);
  REQUIRE_THROWS_AS(parse_lattice("3x4x4x4"), invalid_argument); // odd Lx
  REQUIRE_THROWS_AS(parse_lattice("4x4x4xq"), invalid_argument);
  REQUIRE_THROWS_AS(parse_lattice("4x-4x4x4"), invalid_argument);
  const auto bc = parse_boundary_phases("p,a,0,t:0.5");
  REQUIRE(bc.b[0] == Kokkos::complex<double>(1.0));
  REQUIRE(bc.b[1] == Kokkos::complex<double>(-1.0));
  REQUIRE(bc.b[2] == Kokkos::complex<double>(0.0));
  REQUIRE_THAT(bc.b[3].imag(), Catch::Matchers::WithinRel(std::sin(0.5), 1e-15));
  REQUIRE_THROWS_AS(parse_boundary_phases("p,a,0"), invalid_argument);
  REQUIRE_THROWS_AS(parse_boundary_phases("p,a,0,x"), invalid_argument);
  REQUIRE_THROWS_AS(parse_boundary_phases("p,a,0,t:nan"), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("a trivial kernel runs on every backend", "[core]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  const int n = 1000;
  Kokkos::View<double*, typename ES::memory_space> v("v", n);
  Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, n), KOKKOS_LAMBDA(int i) { v(i) = 2.0 * i; });
  double sum = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<ES>(0, n), KOKKOS_LAMBDA(int i, double& acc) { acc += v(i); }, sum);
  REQUIRE(sum == double(n) * (n - 1));
}

TEMPLATE_LIST_TEST_CASE("site tables: both modes agree with the coordinates", "[core]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  const Lattice lat({4, 6, 2, 8});
  const BoundaryPhases bc;
  SiteTable<NeighbourMode::table, ES> table(lat, bc);
  SiteTable<NeighbourMode::on_the_fly, ES> fly(lat, bc);
  int mismatches = 0;
  for (int p = 0; p < 2; ++p)
    Kokkos::parallel_reduce(
        Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
        KOKKOS_LAMBDA(int s, int& bad) {
          Coords c = lat.cb_coords(s, p);
          const Neighbour a = table.template neighbour<3, -1>(s, p), b = fly.template neighbour<3, -1>(s, p);
          const Neighbour e = table.template neighbour<0, 1>(s, p), f = fly.template neighbour<0, 1>(s, p);
          c.x[3] = (c.x[3] + lat.dim(3) - 1) % lat.dim(3);
          if (a.index != b.index || a.crossed != b.crossed || a.index != lat.cb_index(c)) ++bad;
          if (e.index != f.index || e.crossed != f.crossed) ++bad;
        },
        Kokkos::Sum<int>(mismatches));
  REQUIRE(mismatches == 0);
}

TEMPLATE_LIST_TEST_CASE("random gauge links are SU(3) and host conversion round-trips", "[core]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  using C = Kokkos::complex<Real>;
  const Lattice lat({4, 6, 2, 8});
  GaugeField<C, ES> u(lat);
  random_gauge(u, 7);
  const auto host = export_gauge(u, HostGaugeOrder::milc);
  double worst = 0;
  for (std::size_t l = 0; l < host.size() / 9; ++l) {
    const auto* m = &host[l * 9];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        std::complex<double> d(0);
        for (int k = 0; k < 3; ++k) d += m[a * 3 + k] * std::conj(m[b * 3 + k]);
        worst = std::max(worst, std::abs(d - (a == b ? 1.0 : 0.0)));
      }
    const auto det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    worst = std::max(worst, std::abs(det - 1.0));
  }
  REQUIRE(worst < 10 * kqcd::test::tol<Real>());
  // Round trip through the QDP order.
  const auto qdp = export_gauge(u, HostGaugeOrder::qdp);
  GaugeField<C, ES> v(lat);
  import_gauge(v, qdp, HostGaugeOrder::qdp);
  REQUIRE(export_gauge(v, HostGaugeOrder::milc) == host);
  std::vector<std::complex<double>> wrong(5);
  REQUIRE_THROWS_AS(import_gauge(v, wrong), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("blas reductions match host sums", "[core]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice lat({4, 4, 4, 4});
  SpinorField<Kokkos::complex<Real>, Ns, ES> x(lat), y(lat);
  random_spinor(x, 1);
  random_spinor(y, 2);
  const auto hx = export_spinor(x), hy = export_spinor(y);
  std::complex<double> dot(0);
  double nx = 0;
  for (int p = 0; p < 2; ++p) {
    const auto d = blas::cdot(x[p], y[p]);
    dot += std::complex<double>(d.real(), d.imag());
    nx += blas::norm2(x[p]);
  }
  std::complex<double> hdot(0);
  double hn = 0;
  for (std::size_t k = 0; k < hx.size(); ++k) {
    hdot += std::conj(hx[k]) * hy[k];
    hn += std::norm(hx[k]);
  }
  REQUIRE(std::abs(dot - hdot) < 1e-12 * std::sqrt(hn * hn));
  REQUIRE_THAT(nx, Catch::Matchers::WithinRel(hn, 1e-12));
  blas::axpby(2.0, x[0], -1.0, y[0]);
  std::vector<std::complex<double>> hy2;
  export_spinor(y[0], hy2);
  const Lattice& L = lat;
  double err = 0;
  for (int s = 0; s < L.cb_volume(); ++s) {
    const auto site = L.lex_index(L.cb_coords(s, 0));
    for (int k = 0; k < 12; ++k) {
      const std::size_t i = std::size_t(site * 12 + k);
      err = std::max(err, std::abs(hy2[i] - (2.0 * hx[i] - hy[i])));
    }
  }
  REQUIRE(err < 10 * kqcd::test::tol<Real>());
}
