// Aggregation-based multigrid: the plain host reference (tests/reference/multigrid_reference.hpp),
// which kqcd's transfer operators and coarse operator are to be tested against, checked on its own
// terms: the prolongator's columns orthonormal on every aggregate (P^dag P = 1) and of one
// chirality each (g5 P = P g5_c), the coarse stencil built from the fine operator's structure equal
// to P^dag D P applied through the fine operator, and the coarse operator gamma5-Hermitian.
#include "test_harness.hpp"

#include "host_fields.hpp"
#include <multigrid_reference.hpp>

#include <random>

using namespace kqcd;
using namespace kqcd::test;

namespace {
using cvec = std::vector<std::complex<double>>;
cvec random_coarse(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist;
  cvec v(n);
  for (auto& z : v) z = {dist(gen), dist(gen)};
  return v;
}
struct Setup {
  // Coarse extents 3 and 4 along x and t: a forward and a backward neighbour are different aggregates.
  Lattice lat{{6, 4, 4, 8}};
  cvec u = random_host_gauge(lat, 41);
  std::array<std::complex<double>, 4> b = host_bc(mixed_bc());
  ref::Aggregation agg{lat.dims(), {2, 2, 2, 2}};
  ref::Transfer t{agg, {random_host_spinor(lat, 1), random_host_spinor(lat, 2), random_host_spinor(lat, 3)}};
};
} // namespace

TEST_CASE("multigrid reference: the transfer is orthonormal on every aggregate and keeps chirality", "[multigrid][reference]") {
  const Setup s;
  REQUIRE(s.t.n() == 6);
  const cvec phi = random_coarse(std::size_t(ref::volume(s.agg.coarse) * s.t.n()), 7);
  CHECK(ref::rel_diff(s.t.restrict_to_coarse(s.t.prolong(phi)), phi) < 1e-13);
  CHECK(ref::rel_diff(ref::apply_g5(s.t.prolong(phi)), s.t.prolong(ref::coarse_g5(phi, s.t.nv))) < 1e-13);
  // P P^dag projects: a fine field in the range of P is unchanged, a random one is not.
  const cvec psi = random_host_spinor(s.lat, 9);
  const cvec proj = s.t.prolong(s.t.restrict_to_coarse(psi));
  CHECK(ref::rel_diff(s.t.prolong(s.t.restrict_to_coarse(proj)), proj) < 1e-13);
  CHECK(ref::rel_diff(proj, psi) > 0.5);
  REQUIRE_THROWS_AS(ref::Aggregation(s.lat.dims(), {4, 2, 2, 2}), std::invalid_argument); // 4 does not divide 6
  REQUIRE_THROWS_AS(ref::Aggregation(s.lat.dims(), {6, 2, 2, 2}), std::invalid_argument); // one block along x
}

TEST_CASE("multigrid reference: the coarse stencil equals P^dag D P and is gamma5-Hermitian", "[multigrid][reference]") {
  const Setup s;
  const double mass = -0.3;
  const ref::CoarseOperator dc = ref::coarse_wilson(s.lat.dims(), s.u, mass, s.b, s.t);
  const std::size_t nc = std::size_t(ref::volume(s.agg.coarse) * s.t.n());
  const cvec phi = random_coarse(nc, 11), chi = random_coarse(nc, 12);
  const cvec galerkin = s.t.restrict_to_coarse(ref::wilson(s.lat.dims(), s.u, s.t.prolong(phi), mass, s.b, 1));
  CHECK(ref::rel_diff(dc.apply(phi), galerkin) < 1e-13);
  // <chi, D_c phi> = <g5 D_c g5 chi, phi>: D_c^dag = g5_c D_c g5_c, from D^dag = g5 D g5 and g5 P = P g5_c.
  const auto lhs = ref::dot(chi, dc.apply(phi));
  const auto rhs = ref::dot(ref::coarse_g5(dc.apply(ref::coarse_g5(chi, s.t.nv)), s.t.nv), phi);
  CHECK(std::abs(lhs - rhs) < 1e-12 * std::abs(lhs));
  // The mass enters X only, as (4 + m) on the diagonal (P^dag P = 1).
  const ref::CoarseOperator heavier = ref::coarse_wilson(s.lat.dims(), s.u, mass + 0.5, s.b, s.t);
  cvec diff = heavier.apply(phi);
  const cvec base = dc.apply(phi);
  for (std::size_t i = 0; i < diff.size(); ++i) diff[i] -= base[i] + 0.5 * phi[i];
  CHECK(std::sqrt(ref::norm2(diff) / ref::norm2(phi)) < 1e-13);
}
