// Lattice indexing, site tables, parsing, random fields and the host conversions, on every
// enabled backend.
#include "test_harness.hpp"

#include <kqcd/comm/halo.hpp>
#include <kqcd/core/gpu_complex.hpp>
#include <kqcd/core/scratch.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/linalg/blas_many.hpp>
#include <kqcd/stencil/stencil_launch.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "host_fields.hpp"
#include "wilson_reference.hpp"

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <random>
#include <limits>
#include <set>
#include <span>

using namespace kqcd;

namespace {
/// Every GPUComplex operation of row i of (a, b, c), on the device: r(i, 0..7).
template <class View, class Out> struct GPUComplexOps {
  View a, b, c;
  Out r;
  using T = typename View::value_type::value_type;
  KOKKOS_FUNCTION void operator()(int i) const {
    const auto x = a(i), y = b(i), z = c(i);
    r(i, 0) = x + y;
    r(i, 1) = x - y;
    r(i, 2) = x * y;
    r(i, 3) = T(0.5) * x;
    r(i, 4) = conj(x);
    r(i, 5) = cmadd(x, y, z);
    r(i, 6) = cjmadd(x, y, z);
    r(i, 7) = GPUComplex<T>(norm2(x), -x.imag()) - (-z);
  }
};

/// Each team: thread t puts t + league_rank into a SharedMemoryCache and three multiples of it into
/// its ThreadLocalCache (the two at offsets from one ScratchLayout); after a barrier it reads its
/// neighbour's shared value and its own local values back: out(team, t) = (t+1) % n + rank + 6 (t + rank).
template <class Out> struct ScratchCacheKernel {
  Out out;
  int team_size;
  KOKKOS_FUNCTION ScratchLayout<2> layout() const {
    return {{SharedMemoryCache<double>::bytes(std::size_t(team_size)), ThreadLocalCache<double, 3>::bytes(team_size)}};
  }
  template <class Member> KOKKOS_FUNCTION void operator()(const Member& team) const {
    const auto l = layout();
    char* base = detail::team_scratch_base(team, l.total());
    const SharedMemoryCache<double> shared(base, l.offset(0));
    const int t = team.team_rank(), n = team.team_size(), rank = team.league_rank();
    const ThreadLocalCache<double, 3> local(base, l.offset(1), t, n);
    shared[std::size_t(t)] = t + rank;
    for (int k = 0; k < 3; ++k) local[k] = (k + 1) * (t + rank);
    SharedMemoryCache<double>::sync(team);
    out(rank, t) = shared[std::size_t((t + 1) % n)] + local[0] + local[1] + local[2];
  }
};
} // namespace

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

TEST_CASE("on-the-fly neighbours step the index as the wrapped coordinates say", "[core]") {
  // compute_neighbour steps the checkerboard index; the reference rebuilds it from coordinates.
  for (const auto& dims : {std::array<int, Nd>{4, 6, 2, 8}, std::array<int, Nd>{2, 3, 1, 4}, std::array<int, Nd>{6, 2, 5, 2}}) {
    const Lattice lat(dims);
    int bad = 0;
    for (int p = 0; p < 2; ++p)
      for (int s = 0; s < lat.cb_volume(); ++s)
        for (int mu = 0; mu < Nd; ++mu)
          for (int dir = -1; dir <= 1; dir += 2) {
            Coords c = lat.cb_coords(s, p);
            const int x = c.x[mu] + dir;
            c.x[mu] = (x + lat.dim(mu)) % lat.dim(mu);
            const Neighbour n = detail::compute_neighbour(lat, s, p, mu, dir);
            if (n.index != lat.cb_index(c) || n.crossed != (x < 0 || x >= lat.dim(mu))) ++bad;
          }
    CAPTURE(lat.to_string());
    REQUIRE(bad == 0);
  }
}

TEST_CASE("the tiled site order visits every site once, slab of (z, t) slices by slab", "[core]") {
  for (const auto& dims : {std::array<int, Nd>{4, 2, 8, 12}, std::array<int, Nd>{2, 4, 6, 2}, std::array<int, Nd>{4, 4, 3, 3}, std::array<int, Nd>{4, 2, 4, 2}}) {
    const Lattice lat(dims);
    CAPTURE(lat.to_string());
    const std::vector<int> order = detail::tiled_site_order(lat);
    const int slice = lat.dim(0) / 2 * lat.dim(1);
    const int bz = lat.dim(2) % 4 == 0 ? 4 : lat.dim(2) % 2 == 0 ? 2 : 1, bt = lat.dim(3) % 4 == 0 ? 4 : lat.dim(3) % 2 == 0 ? 2 : 1;
    if (bz * bt == 1 || (bz == lat.dim(2) && bt == lat.dim(3))) {
      REQUIRE(order.empty()); // one slice per slab, or one slab: the index order itself
      continue;
    }
    REQUIRE(int(order.size()) == lat.cb_volume());
    std::vector<int> seen(order.size(), 0);
    int bad = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      ++seen.at(std::size_t(order[k]));
      // The k-th site lies in slab k / (bz bt slices), which counts slabs with z fastest.
      const Coords c = lat.cb_coords(order[k], 0);
      const int slab = int(k) / (bz * bt * slice), slabs_z = lat.dim(2) / bz;
      if (c.x[2] / bz != slab % slabs_z || c.x[3] / bt != slab / slabs_z) ++bad;
    }
    REQUIRE(bad == 0);
    REQUIRE(std::ranges::all_of(seen, [](int n) { return n == 1; }));
  }
}

TEMPLATE_LIST_TEST_CASE("a sweep visits its sites once as a run or wrapped run or list", "[core]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  using Sweep = SweepSites<typename ES::memory_space>;
  const int n = 40;
  const auto range = [](int a, int b) {
    std::vector<int> v;
    for (int s = a; s < b; ++s) v.push_back(s);
    return v;
  };
  // A split along the slowest direction: interior [8, 32), exterior [0, 8) and [32, 40).
  std::vector<int> exterior = range(0, 8), scattered = {3, 4, 9, 17, 30};
  for (int s : range(32, 40)) exterior.push_back(s);
  struct Case {
    const char* what;
    std::vector<int> sites;
    bool list;
    int first;
  };
  const Case cases[] = {{"interior", range(8, 32), false, 8},
                        {"exterior", exterior, false, 32},
                        {"every site", range(0, n), false, 0},
                        {"scattered", scattered, true, 0},
                        {"reordered", {5, 4, 6}, true, 0}};
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const Sweep sweep = Sweep::of(c.sites, n, "test_sweep");
    REQUIRE(sweep.use_list == c.list);
    REQUIRE(sweep.count == int(c.sites.size()));
    if (!c.list) REQUIRE(sweep.first == c.first);
    Kokkos::View<int*, typename ES::memory_space> got("got", c.sites.size());
    Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, sweep.count), KOKKOS_LAMBDA(int k) { got(k) = sweep(k); });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
    std::vector<int> visited(h.data(), h.data() + h.size());
    if (c.list) REQUIRE(visited == c.sites); // a list keeps its order
    std::ranges::sort(visited);
    std::vector<int> expected = c.sites;
    std::ranges::sort(expected);
    REQUIRE(visited == expected);
  }
  const Sweep all = Sweep::all(n);
  REQUIRE((all.count == n && all(0) == 0 && all(n - 1) == n - 1));
  // Every site in tiled order is a reordering, not a run: the order is the point.
  const Lattice lat({4, 2, 8, 12});
  REQUIRE(Sweep::of(detail::tiled_site_order(lat), lat.cb_volume(), "test_tiled").use_list);
}

TEMPLATE_LIST_TEST_CASE("the exterior runs where the faces landed and is joined after it", "[core]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  detail::OverlapSweep<ES> overlap(Lattice({4, 4, 4, 4}));
  std::vector<std::string> seen;
  const auto start = [&] { seen.push_back("start"); };
  const auto sweep = [&](const auto* sites, const ES&) { seen.push_back(sites ? "part" : "every site"); };
  const auto landed = [&] {
    seen.push_back("finish");
    return SideStream<ES>{ES(), [&] { seen.push_back("join"); }};
  };
  const auto finished = [&] { seen.push_back("finish"); };
  const auto run = [&](const auto& finish) {
    seen.clear();
    overlap.run(0, start, sweep, finish, [](auto) {});
    return seen;
  };
  using V = std::vector<std::string>;
  // Interior beside the messages, the exterior on the faces' stream, then the join.
  REQUIRE(run(landed) == V{"start", "part", "finish", "part", "join"});
  REQUIRE(run(finished) == V{"start", "part", "finish", "part"});
  // Without overlap every site runs after the join, on the compute stream.
  overlap.set_overlap(false);
  REQUIRE(run(landed) == V{"start", "finish", "join", "every site"});
  REQUIRE(run(finished) == V{"start", "finish", "every site"});
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

TEMPLATE_LIST_TEST_CASE("fused blas updates and reductions match host arithmetic", "[core]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice lat({4, 4, 4, 4});
  CBSpinor<Kokkos::complex<Real>, Ns, ES> x(lat, 1), y(lat, 1);
  random_spinor(x, 3);
  random_spinor(y, 4);
  std::vector<std::complex<double>> hx, hy;
  export_spinor(x, hx);
  export_spinor(y, hy);
  const double eps = 10 * kqcd::test::tol<Real>();
  auto host_norm = [](const std::vector<std::complex<double>>& v) {
    double n = 0;
    for (const auto& z : v) n += std::norm(z);
    return n;
  };
  // The lexicographic host arrays hold zeros on the other parity, so whole-array sums are parity sums.
  std::complex<double> hdot(0);
  for (std::size_t k = 0; k < hx.size(); ++k) hdot += std::conj(hx[k]) * hy[k];
  const auto [dot, nx] = blas::cdot_norm2(x, y);
  REQUIRE(std::abs(std::complex<double>(dot.real(), dot.imag()) - hdot) < eps * host_norm(hx));
  REQUIRE_THAT(nx, Catch::Matchers::WithinRel(host_norm(hx), eps));

  const double n_real = blas::axpy_norm2(-0.7, x, y); // y = y - 0.7 x
  for (std::size_t k = 0; k < hy.size(); ++k) hy[k] -= 0.7 * hx[k];
  std::vector<std::complex<double>> got;
  export_spinor(y, got);
  double err = 0;
  for (std::size_t k = 0; k < hy.size(); ++k) err = std::max(err, std::abs(got[k] - hy[k]));
  REQUIRE(err < eps);
  REQUIRE_THAT(n_real, Catch::Matchers::WithinRel(host_norm(hy), eps));

  const std::complex<double> a(0.4, -1.1);
  const double n_cplx = blas::caxpy_norm2({a.real(), a.imag()}, x, y); // y = y + a x
  for (std::size_t k = 0; k < hy.size(); ++k) hy[k] += a * hx[k];
  export_spinor(y, got);
  err = 0;
  for (std::size_t k = 0; k < hy.size(); ++k) err = std::max(err, std::abs(got[k] - hy[k]));
  REQUIRE(err < eps);
  REQUIRE_THAT(n_cplx, Catch::Matchers::WithinRel(host_norm(hy), eps));

  // Multi-shift CG's updates of nine shifts (two batches) with r = x: x_s += a_s p_s, then
  // p_s = z_s r + b_s p_s.
  using CB = CBSpinor<Kokkos::complex<Real>, Ns, ES>;
  std::vector<CB> ps, xs;
  std::vector<CB*> pp, xp;
  std::vector<double> a_s, b_s, z_s;
  std::vector<std::vector<std::complex<double>>> hp, hxs;
  for (int s = 0; s < 9; ++s) {
    ps.emplace_back(lat, 1);
    xs.emplace_back(lat, 1);
    random_spinor(ps.back(), 10 + s);
    random_spinor(xs.back(), 30 + s);
    hp.emplace_back();
    hxs.emplace_back();
    export_spinor(ps.back(), hp.back());
    export_spinor(xs.back(), hxs.back());
    a_s.push_back(0.1 * (s + 1));
    b_s.push_back(0.9 - 0.05 * s);
    z_s.push_back(1.0 / (s + 1));
  }
  for (int s = 0; s < 9; ++s) {
    pp.push_back(&ps[std::size_t(s)]);
    xp.push_back(&xs[std::size_t(s)]);
  }
  blas::axpy_zpbx_shifts(a_s, pp, xp, x, b_s, z_s);
  err = 0;
  for (std::size_t s = 0; s < 9; ++s) {
    std::vector<std::complex<double>> gp, gx;
    export_spinor(ps[s], gp);
    export_spinor(xs[s], gx);
    for (std::size_t k = 0; k < hx.size(); ++k) {
      err = std::max(err, std::abs(gx[k] - (hxs[s][k] + a_s[s] * hp[s][k])));
      err = std::max(err, std::abs(gp[k] - (z_s[s] * hx[k] + b_s[s] * hp[s][k])));
    }
  }
  REQUIRE(err < eps);
  CHECK_THROWS_AS(blas::axpy_zpbx_shifts(a_s, pp, xp, x, b_s, std::vector<double>(3, 1.0)), kqcd::invalid_argument);

  // Gram-Schmidt's BLAS over 18 vectors (two passes): <v_j, y> for every j, y += sum_j a_j v_j.
  std::vector<CB> vs;
  std::vector<std::vector<std::complex<double>>> hv;
  std::vector<Kokkos::complex<double>> coef;
  for (int j = 0; j < 18; ++j) {
    vs.emplace_back(lat, 1);
    random_spinor(vs.back(), 50 + j);
    hv.emplace_back();
    export_spinor(vs.back(), hv.back());
    coef.emplace_back(0.1 * j - 0.8, 0.05 * j);
  }
  const std::span<const CB> all(vs);
  export_spinor(y, hy);
  const auto dots = blas::cdot_many(all, y);
  REQUIRE(dots.size() == vs.size());
  err = 0;
  for (std::size_t j = 0; j < vs.size(); ++j) {
    std::complex<double> h(0);
    for (std::size_t k = 0; k < hy.size(); ++k) h += std::conj(hv[j][k]) * hy[k];
    err = std::max(err, std::abs(std::complex<double>(dots[j].real(), dots[j].imag()) - h) / std::sqrt(host_norm(hv[j]) * host_norm(hy)));
  }
  REQUIRE(err < eps);
  const double n_many = blas::caxpy_many_norm2<CB>(coef, all, y);
  for (std::size_t j = 0; j < vs.size(); ++j)
    for (std::size_t k = 0; k < hy.size(); ++k) hy[k] += std::complex<double>(coef[j].real(), coef[j].imag()) * hv[j][k];
  export_spinor(y, got);
  err = 0;
  for (std::size_t k = 0; k < hy.size(); ++k) err = std::max(err, std::abs(got[k] - hy[k]));
  REQUIRE(err < 10 * eps);
  REQUIRE_THAT(n_many, Catch::Matchers::WithinRel(host_norm(hy), eps));
  blas::caxpy_many<CB>(std::span(coef).first(3), all.first(3), y);
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t k = 0; k < hy.size(); ++k) hy[k] += std::complex<double>(coef[j].real(), coef[j].imag()) * hv[j][k];
  export_spinor(y, got);
  err = 0;
  for (std::size_t k = 0; k < hy.size(); ++k) err = std::max(err, std::abs(got[k] - hy[k]));
  REQUIRE(err < 10 * eps);
  CHECK_THROWS_AS(blas::caxpy_many<CB>(std::span(coef).first(2), all.first(3), y), kqcd::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("GPUComplex is a two-vector whose arithmetic matches std::complex on the device", "[core]",
                        kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using T = kqcd::test::real_of<TestType>;
  using C = GPUComplex<T>;
  static_assert(sizeof(C) == 2 * sizeof(T) && alignof(C) == 2 * sizeof(T), "one vector load");
  static_assert(std::is_trivially_copyable_v<C>);
  constexpr int n = 64;
  Kokkos::View<C*, typename ES::memory_space> a("a", n), b("b", n), c("c", n);
  Kokkos::View<C* [8], typename ES::memory_space> r("r", n);
  auto ha = Kokkos::create_mirror_view(a), hb = Kokkos::create_mirror_view(b), hc = Kokkos::create_mirror_view(c);
  std::mt19937 gen(5);
  std::uniform_real_distribution<T> dist(-2, 2);
  for (int i = 0; i < n; ++i) {
    ha(i) = C(dist(gen), dist(gen));
    hb(i) = C(dist(gen), dist(gen));
    hc(i) = C(dist(gen), dist(gen));
  }
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);
  Kokkos::deep_copy(c, hc);
  Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, n), GPUComplexOps<decltype(a), decltype(r)>{a, b, c, r});
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  const double eps = 8 * std::numeric_limits<T>::epsilon();
  for (int i = 0; i < n; ++i) {
    const std::complex<double> x(ha(i).real(), ha(i).imag()), y(hb(i).real(), hb(i).imag()), z(hc(i).real(), hc(i).imag());
    const std::complex<double> want[8] = {x + y,      x - y,         x * y,           0.5 * x,
                                          std::conj(x), z + x * y, z + std::conj(x) * y, std::complex<double>(std::norm(x), -x.imag()) + z};
    for (int k = 0; k < 8; ++k) {
      const std::complex<double> got(hr(i, k).real(), hr(i, k).imag());
      CAPTURE(i, k, got, want[k]);
      REQUIRE(std::abs(got - want[k]) <= eps * (1 + std::abs(want[k])) * 4);
    }
  }
  // Converts to and from Kokkos::complex exactly.
  const Kokkos::complex<T> k(T(0.25), T(-3));
  REQUIRE(C(k).template to<T>() == k);
}

TEMPLATE_LIST_TEST_CASE("scratch caches at their offsets hold shared and per-thread values", "[core]",
                        kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  const int league = 5;
  const int team = std::min(32, ArchTraits<ES>::max_team_size);
  Kokkos::View<double**, Kokkos::LayoutRight, typename ES::memory_space> out("out", league, team);
  ScratchCacheKernel<decltype(out)> k{out, team};
  const auto l = k.layout();
  REQUIRE(l.offset(1) == SharedMemoryCache<double>::bytes(std::size_t(team)));
  REQUIRE(l.offset(1) % 16 == 0);
  REQUIRE(l.total() == l.offset(1) + ThreadLocalCache<double, 3>::bytes(team));
  Kokkos::TeamPolicy<ES> policy(league, team);
  policy.set_scratch_size(0, Kokkos::PerTeam(l.total()));
  Kokkos::deep_copy(out, -1.0);
  Kokkos::parallel_for(policy, k);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int r = 0; r < league; ++r)
    for (int t = 0; t < team; ++t) REQUIRE(h(r, t) == double((t + 1) % team + r + 6 * (t + r)));
}

TEMPLATE_LIST_TEST_CASE("halo faces: whole rows carry every component, bit for bit", "[core][halo]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  using C = Kokkos::complex<Real>;
  using Field = Kokkos::View<C* [Nc][Ns], typename ES::memory_space>;
  using Buffer = Kokkos::View<C*, typename ES::memory_space>;
  const Lattice lat({4, 6, 4, 2});
  const auto [psi, h_psi] = kqcd::test::random_spinor_view<ES, Real>(lat.cb_volume(), 5);
  const int parity = 1;
  for (int mu = 0; mu < Nd; ++mu) {
    CAPTURE(mu);
    const int n = lat.face_sites(mu);
    Buffer buf("buf", n * Nc * Ns);
    Field ghost("ghost", n);
    using Copy = detail::FaceCopy<Field, Buffer, WholeRows::Face<Field>>;
    Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, n), Copy{psi, buf, lat, mu, lat.dim(mu) - 1, -1, parity, 0, 1, Nc * Ns, {}, true});
    Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, n), Copy{ghost, buf, lat, mu, 0, 1, parity, 0, 1, Nc * Ns, {}, false});
    auto h_ghost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ghost);
    int differ = 0;
    for (int f = 0; f < n; ++f) {
      const int s = lat.cb_index(lat.face_coords(mu, f, lat.dim(mu) - 1, parity));
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) differ += h_ghost(f, c, sp) != h_psi(s, c, sp);
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("KQCD_GPU_AWARE_MPI is 0, 1 or auto", "[core][halo]") {
  CHECK(comm::parse_gpu_aware_setting(nullptr) == std::nullopt);
  CHECK(comm::parse_gpu_aware_setting("auto") == std::nullopt);
  CHECK(comm::parse_gpu_aware_setting("1") == std::optional<bool>(true));
  CHECK(comm::parse_gpu_aware_setting("0") == std::optional<bool>(false));
  CHECK_THROWS_WITH(comm::parse_gpu_aware_setting("yes"), Catch::Matchers::ContainsSubstring("KQCD_GPU_AWARE_MPI"));
}

TEST_CASE("KQCD_TRANSPORT is mpi, nccl or auto; auto keeps one rank on MPI; nccl needs a build with it", "[core][halo]") {
  CHECK(comm::parse_transport_setting(nullptr) == std::nullopt);
  CHECK(comm::parse_transport_setting("auto") == std::nullopt);
  CHECK(comm::parse_transport_setting("mpi") == std::optional(comm::Transport::mpi));
  CHECK(comm::parse_transport_setting("nccl") == std::optional(comm::Transport::nccl));
  CHECK_THROWS_WITH(comm::parse_transport_setting("ucx"), Catch::Matchers::ContainsSubstring("KQCD_TRANSPORT"));
  const char* before = std::getenv("KQCD_TRANSPORT");
  const std::string saved = before ? before : "";
  unsetenv("KQCD_TRANSPORT");
  CHECK(comm::choose_transport(1) == comm::Transport::mpi);
  setenv("KQCD_TRANSPORT", "mpi", 1);
  CHECK(comm::choose_transport(4) == comm::Transport::mpi);
  setenv("KQCD_TRANSPORT", "nccl", 1);
  if (KQCD_HAVE_NCCL) CHECK(comm::choose_transport(2) == comm::Transport::nccl);
  else CHECK_THROWS_WITH(comm::choose_transport(2), Catch::Matchers::ContainsSubstring("built without NCCL"));
  if (before) setenv("KQCD_TRANSPORT", saved.c_str(), 1);
  else unsetenv("KQCD_TRANSPORT");
}
