// Gauge compression (reconstruct-12/8), 16-bit half precision and the half sloppy operator: each
// against the uncompressed double operator (itself tested against the host reference in
// test_dslash), to the accuracy of its format; SU(3) violations refused; mixed CG to 1e-10.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/ops/blas.hpp>
#include <kqcd/ops/local_operators.hpp>
#include <kqcd/ops/wilson_operator.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>

#include "host_fields.hpp"

#include <wilson_reference.hpp>

#include <optional>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {
/// H psi on even sites with precision P and reconstruction Recon, returned in double.
template <class P, class Recon, class ES>
std::vector<std::complex<double>> hopping(const std::vector<std::complex<double>>& u_host,
                                          const std::vector<std::complex<double>>& psi_host, int isign) {
  using D = WilsonDslash<P, ES, ArchTraits<ES>::neighbour_mode, Recon>;
  using Real = typename D::real_type;
  typename D::gauge_type u(test_lattice);
  import_gauge(u, u_host);
  const D d(u, mixed_bc());
  CBSpinor<Kokkos::complex<Real>, Ns, ES> in_c(test_lattice, 1), out_c(test_lattice, 0);
  import_spinor(in_c, psi_host);
  typename D::spinor_type in(test_lattice, 1), out(test_lattice, 0);
  blas::copy(in, in_c);
  d.apply(out, in, isign, 0);
  blas::copy(out_c, out);
  std::vector<std::complex<double>> got(psi_host.size(), 0.0);
  export_spinor(out_c, got);
  return got;
}

template <class Recon> double recon_tolerance(double eps) {
  // Recon-8 divides by 1 - |a1|^2 (not small for Haar-random links); recon-12 multiplies two rows.
  return (std::is_same_v<Recon, Recon8> ? 20.0 : std::is_same_v<Recon, Recon12> ? 10.0 : 5.0) * eps;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("reconstruct-12 and -8 match reconstruct-18 in double", "[compress]", kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 61);
  const auto psi = random_host_spinor(test_lattice, 62);
  for (int isign : {1, -1}) {
    CAPTURE(isign);
    const auto want = hopping<double, Recon18, ES>(u, psi, isign);
    // recon-18 double is the host reference's hopping term (with the boundary phases).
    REQUIRE(ref::rel_diff(want, [&] {
              auto h = ref::hopping(test_lattice.dims(), u, psi, host_bc(mixed_bc()), isign);
              for (int s = 0; s < test_lattice.cb_volume(); ++s) // keep even sites
                for (int k = 0; k < 12; ++k) h[std::size_t(test_lattice.lex_index(test_lattice.cb_coords(s, 1)) * 12 + k)] = 0;
              return h;
            }()) < 1e-13);
    const double d18 = ref::rel_diff(hopping<Real, Recon18, ES>(u, psi, isign), want);
    const double d12 = ref::rel_diff(hopping<Real, Recon12, ES>(u, psi, isign), want);
    const double d8 = ref::rel_diff(hopping<Real, Recon8, ES>(u, psi, isign), want);
    CAPTURE(d18, d12, d8);
    REQUIRE(d18 < recon_tolerance<Recon18>(tol<Real>()));
    REQUIRE(d12 < recon_tolerance<Recon12>(tol<Real>()));
    REQUIRE(d8 < recon_tolerance<Recon8>(tol<Real>()));
    if constexpr (std::is_same_v<Real, double>) REQUIRE(d8 > 0.0); // recon-8 really reconstructed
  }
}

TEMPLATE_LIST_TEST_CASE("half precision Dslash matches double to 16-bit accuracy", "[compress][half]",
                        kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  const auto u = random_host_gauge(test_lattice, 71);
  const auto psi = random_host_spinor(test_lattice, 72);
  const auto want = hopping<double, Recon18, ES>(u, psi, 1);
  // 16-bit fixed point: 2^-15 of each site's largest component, summed over 8 hops and 3 colours.
  const double d18 = ref::rel_diff(hopping<kqcd::half, Recon18, ES>(u, psi, 1), want);
  const double d12 = ref::rel_diff(hopping<kqcd::half, Recon12, ES>(u, psi, 1), want);
  const double d8 = ref::rel_diff(hopping<kqcd::half, Recon8, ES>(u, psi, -1), hopping<double, Recon18, ES>(u, psi, -1));
  CAPTURE(d18, d12, d8);
  REQUIRE(d18 < 3e-4);
  REQUIRE(d12 < 3e-4);
  REQUIRE(d8 < 1e-3);
  REQUIRE(d18 > 1e-6); // it really ran in 16 bits
}

TEMPLATE_LIST_TEST_CASE("half spinors round trip with a per-site norm", "[compress][half]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  auto psi = random_host_spinor(test_lattice, 81);
  for (std::size_t i = 0; i < psi.size(); ++i) psi[i] *= (i / 12) % 3 == 0 ? 1e-6 : 1e3; // sites of very different size
  CBSpinor<Kokkos::complex<double>, Ns, ES> a(test_lattice, 0), b(test_lattice, 0);
  import_spinor(a, psi);
  HalfCBSpinor<ES> h(test_lattice, 0);
  blas::copy(h, a);
  blas::copy(b, h);
  std::vector<std::complex<double>> got(psi.size(), 0.0), want(psi.size(), 0.0);
  export_spinor(a, want);
  export_spinor(b, got);
  // Every site keeps ~2^-15 of its own largest component, however small the site.
  for (int s = 0; s < test_lattice.cb_volume(); ++s) {
    const auto i = std::size_t(test_lattice.lex_index(test_lattice.cb_coords(s, 0)) * 12);
    double m = 0, e = 0;
    for (int k = 0; k < 12; ++k) {
      m = std::max({m, std::abs(want[i + k].real()), std::abs(want[i + k].imag())});
      e = std::max(e, std::abs(got[i + k] - want[i + k]));
    }
    REQUIRE(e <= m * 3e-5);
  }
  REQUIRE(std::abs(blas::norm2(h) / blas::norm2(a) - 1.0) < 1e-4);
}

TEMPLATE_LIST_TEST_CASE("links outside SU(3) are refused by reconstruct-12 and -8", "[compress]", kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  auto u_host = random_host_gauge(test_lattice, 91);
  GaugeField<Kokkos::complex<Real>, ES> u(test_lattice);
  import_gauge(u, u_host);
  REQUIRE_NOTHROW(PackedGauge<Real, Recon12, ES>(u));
  REQUIRE_NOTHROW(PackedGauge<Real, Recon8, ES>(u));
  u_host[5 * 36 + 2 * 9 + 4] *= 1.01; // one element of one link
  import_gauge(u, u_host);
  REQUIRE_NOTHROW(PackedGauge<Real, Recon18, ES>(u));
  REQUIRE_THROWS_AS((PackedGauge<Real, Recon12, ES>(u)), invalid_argument);
  REQUIRE_THROWS_AS((PackedGauge<Real, Recon8, ES>(u)), invalid_argument);
  // The unit gauge is SU(3) but has no recon-8 representation.
  std::vector<std::complex<double>> unit(u_host.size(), 0.0);
  for (std::size_t l = 0; l < unit.size() / 9; ++l)
    for (int a = 0; a < 3; ++a) unit[l * 9 + std::size_t(4 * a)] = 1.0;
  import_gauge(u, unit);
  REQUIRE_NOTHROW(PackedGauge<Real, Recon12, ES>(u));
  REQUIRE_THROWS_AS((PackedGauge<Real, Recon8, ES>(u)), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("even-odd operators with reconstruct-12 match reconstruct-18", "[compress]", kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  constexpr auto mode = ArchTraits<ES>::neighbour_mode;
  const auto u_host = random_host_gauge(test_lattice, 101);
  const auto psi = random_host_spinor(test_lattice, 102);
  GaugeField<Kokkos::complex<Real>, ES> u(test_lattice);
  import_gauge(u, u_host);
  auto run = [&](const auto& op) {
    auto in = op.create_vector(), out = op.create_vector();
    import_spinor(in, psi);
    op.apply(out, in, 1);
    std::vector<std::complex<double>> got(psi.size(), 0.0);
    export_spinor(out, got);
    return got;
  };
  const auto bc = mixed_bc();
  const double wilson = ref::rel_diff(run(WilsonEOOperator<Real, ES, mode, Recon12>(u, 0.1, bc)),
                                      run(WilsonEOOperator<Real, ES, mode, Recon18>(u, 0.1, bc)));
  const double twisted = ref::rel_diff(run(EvenOddOperator<TwistedMassTerm<Real, ES>, mode, Recon12>(u, bc, 0.1, 0.2)),
                                       run(EvenOddOperator<TwistedMassTerm<Real, ES>, mode, Recon18>(u, bc, 0.1, 0.2)));
  CAPTURE(wilson, twisted);
  REQUIRE(wilson < 10 * tol<Real>());
  REQUIRE(twisted < 10 * tol<Real>());
}

TEMPLATE_LIST_TEST_CASE("mixed double-half CG and BiCGStab with reliable updates reach 1e-10", "[compress][half][solvers]",
                        kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  constexpr auto mode = ArchTraits<ES>::neighbour_mode;
  const Lattice lat({4, 4, 4, 8});
  using EO = WilsonEOOperator<double, ES>;
  typename EO::gauge_type u(lat);
  random_gauge(u, 5);
  const double mass = wilson_mass_from_kappa(0.12);
  const auto bc = BoundaryPhases::antiperiodic_time();
  const EO eo(u, mass, bc);
  GaugeField<Kokkos::complex<float>, ES> uf(lat);
  convert_gauge(uf, u);
  const WilsonEOOperator<kqcd::half, ES, mode, Recon12> sloppy(uf, mass, bc);
  typename EO::field_type b(lat), x(lat);
  random_spinor(b, 6);
  for (bool use_bicgstab : {false, true}) {
    CAPTURE(use_bicgstab);
    auto b_hat = eo.create_vector(), x_e = eo.create_vector();
    eo.prepare_source(b_hat, b);
    SolverParams params;
    params.tol = 1e-10;
    const auto res = use_bicgstab ? bicgstab(eo, sloppy, x_e, b_hat, params) : cg_normal(eo, sloppy, x_e, b_hat, params);
    // The even-odd system's residual with the double operator, computed here.
    auto t = eo.create_vector();
    eo.apply(t, x_e, 1);
    std::vector<std::complex<double>> dxe(std::size_t(lat.volume()) * 12, 0.0), bh(dxe.size(), 0.0);
    export_spinor(t, dxe);
    export_spinor(b_hat, bh);
    const double r_eo = ref::rel_diff(dxe, bh);
    CAPTURE(r_eo);
    REQUIRE(r_eo <= 1e-10);
    eo.reconstruct(x, x_e, b);
    // The full system, with the host reference operator in double.
    std::array<std::complex<double>, 4> hb{1.0, 1.0, 1.0, -1.0};
    const auto dx = ref::wilson(lat.dims(), export_gauge(u), export_spinor(x), mass, hb, 1);
    const double r = ref::rel_diff(dx, export_spinor(b));
    CAPTURE(res.iterations, res.residual_updates, res.true_residual, r);
    REQUIRE(res.converged());
    REQUIRE(res.residual_updates > 2);
    REQUIRE(r < 1e-9);
  }
}

TEMPLATE_LIST_TEST_CASE("multi-RHS Dslash equals the single-RHS one for each right-hand side, in every launch shape",
                        "[compress][multi]", kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using D = WilsonDslash<Real, ES>;
  using Single = typename D::spinor_type;
  using Block = typename D::multi_spinor_type;
  typename D::gauge_type u(test_lattice);
  import_gauge(u, random_host_gauge(test_lattice, 111));
  D d(u, mixed_bc());
  // The tuned shape, then each block shape the tuner chooses from (kernels/dslash_wilson.hpp).
  const int team = ArchTraits<ES>::max_team_size > 1 ? 32 : 1;
  const std::vector<std::optional<LaunchConfig>> shapes = {std::nullopt,
                                                           LaunchConfig{PolicyKind::team, team, team},
                                                           LaunchConfig{PolicyKind::team_scratch, team, team},
                                                           LaunchConfig{PolicyKind::mdrange, 0, 8},
                                                           LaunchConfig{PolicyKind::range, 0, 0}};
  for (const auto& shape : shapes)
  for (int n : {2, 5, 16}) {
    if (shape) d.set_block_launch(*shape);
    CAPTURE(n, shape ? shape->to_string() : "tuned");
    Block in(test_lattice, 1, n), x(test_lattice, 0, n), out(test_lattice, 0, n), out_xpay(test_lattice, 0, n);
    std::vector<Single> in_s, x_s;
    for (int r = 0; r < n; ++r) {
      in_s.emplace_back(test_lattice, 1);
      x_s.emplace_back(test_lattice, 0);
      import_spinor(in_s.back(), random_host_spinor(test_lattice, 200 + 2 * r));
      import_spinor(x_s.back(), random_host_spinor(test_lattice, 201 + 2 * r));
      in.insert(r, in_s.back());
      x.insert(r, x_s.back());
    }
    for (int isign : {1, -1}) {
      d.apply(out, in, isign, 0);
      d.apply_xpay(out_xpay, in, isign, 0, Real(0.7), x, Real(-0.3));
      for (int r = 0; r < n; ++r) {
        Single want(test_lattice, 0), got(test_lattice, 0);
        d.apply(want, in_s[std::size_t(r)], isign, 0);
        out.extract(r, got);
        std::vector<std::complex<double>> w(std::size_t(test_lattice.volume()) * 12, 0.0), g(w.size(), 0.0);
        export_spinor(want, w);
        export_spinor(got, g);
        REQUIRE(ref::norm2(w) > 0.0);
        // The same arithmetic, but the vector-lane call site may contract FMAs differently.
        REQUIRE(ref::rel_diff(g, w) < 5 * tol<Real>());
        d.apply_xpay(want, in_s[std::size_t(r)], isign, 0, Real(0.7), x_s[std::size_t(r)], Real(-0.3));
        out_xpay.extract(r, got);
        export_spinor(want, w);
        export_spinor(got, g);
        REQUIRE(ref::rel_diff(g, w) < 5 * tol<Real>());
      }
    }
  }
  Block wrong(test_lattice, 0, 3), in2(test_lattice, 1, 2);
  REQUIRE_THROWS_AS(d.apply(wrong, in2, 1, 0), invalid_argument);
  REQUIRE_THROWS_AS(Block(test_lattice, 0, 17), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("multi-RHS CG solves each system of the block", "[compress][multi][solvers]", kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  const Lattice lat({4, 4, 4, 8});
  using EO = WilsonEOOperator<Real, ES>;
  typename EO::gauge_type u(lat);
  random_gauge(u, 5);
  const double mass = wilson_mass_from_kappa(0.12);
  const EO eo(u, mass, BoundaryPhases::antiperiodic_time());
  const int n = 3;
  auto b = eo.create_multi(n), x = eo.create_multi(n);
  std::vector<typename EO::vector_type> b_s;
  for (int r = 0; r < n; ++r) {
    typename EO::field_type full(lat);
    random_spinor(full, 300 + std::uint64_t(r));
    b_s.push_back(eo.create_vector());
    eo.prepare_source(b_s.back(), full);
    b.insert(r, b_s.back());
  }
  SolverParams params;
  params.tol = sizeof(Real) == 8 ? 1e-10 : 1e-5;
  const auto res = cg_normal_multi(eo, x, b, params);
  REQUIRE(res.size() == std::size_t(n));
  for (int r = 0; r < n; ++r) {
    CAPTURE(r, res[std::size_t(r)].iterations, res[std::size_t(r)].true_residual);
    REQUIRE(res[std::size_t(r)].converged());
    // Check with the single-RHS operator, and against the single-RHS CG solution.
    auto xr = eo.create_vector(), dx = eo.create_vector(), x1 = eo.create_vector();
    x.extract(r, xr);
    eo.apply(dx, xr, 1);
    blas::axpy(-1.0, b_s[std::size_t(r)], dx);
    REQUIRE(std::sqrt(blas::norm2(dx) / blas::norm2(b_s[std::size_t(r)])) <= params.tol * 1.0001);
    const auto single = cg_normal(eo, x1, b_s[std::size_t(r)], params);
    REQUIRE(single.converged());
    blas::axpy(-1.0, xr, x1);
    REQUIRE(std::sqrt(blas::norm2(x1) / blas::norm2(xr)) < (sizeof(Real) == 8 ? 1e-7 : 1e-2)); // both solve to tol
  }
}
