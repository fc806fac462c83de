// Gauge compression (reconstruct-12/8) and 16-bit half precision: each against the uncompressed
// double operator (itself tested against the host reference in test_dslash), to the accuracy of its
// format; SU(3) violations refused. Solvers and multi-RHS blocks: test_compress_solvers.cpp.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/stencil/local_operators.hpp>

#include "host_fields.hpp"

#include <wilson_reference.hpp>

using namespace kqcd;
using namespace kqcd::test;

namespace {
/// H psi on even sites with precision P and reconstruction Recon, returned in double.
template <class P, class Recon, class ES>
std::vector<std::complex<double>> hopping(const std::vector<std::complex<double>>& u_host,
                                          const std::vector<std::complex<double>>& psi_host, int isign) {
  using D = WilsonDslash<P, ES, ArchTraits<ES>::neighbour_mode, Recon>;
  typename D::gauge_type u(test_lattice);
  import_gauge(u, u_host);
  const D d(u, mixed_bc());
  typename D::spinor_type in(test_lattice, 1), out(test_lattice, 0);
  import_spinor(in, psi_host);
  d.apply(out, in, isign, 0);
  std::vector<std::complex<double>> got(psi_host.size(), 0.0);
  export_spinor(out, got);
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
                        HalfSpaces) {
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

TEMPLATE_LIST_TEST_CASE("half spinors round trip with a per-site norm", "[compress][half]", HalfSpaces) {
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

TEMPLATE_LIST_TEST_CASE("16-bit spinors import, export and draw noise as the plain layout's do", "[compress][half]",
                        HalfSpaces) {
  using ES = TestType;
  const auto psi = random_host_spinor(test_lattice, 83);
  // Each parity's sites to ~2^-15 of the site's largest component; the other parity's left as they were.
  const auto check_parity = [&](const std::vector<std::complex<double>>& got, int parity) {
    for (int s = 0; s < test_lattice.volume(); ++s) {
      const auto i = std::size_t(s) * Ns * Nc;
      const bool ours = test_lattice.parity(test_lattice.lex_coords(s)) == parity;
      double m = 0, e = 0;
      for (int k = 0; k < Ns * Nc; ++k) {
        m = std::max({m, std::abs(psi[i + k].real()), std::abs(psi[i + k].imag())});
        e = std::max(e, std::abs(got[i + k] - (ours ? psi[i + k] : 0.0)));
      }
      if (e > m * 3e-5) return false;
    }
    return true;
  };
  for (int parity = 0; parity < 2; ++parity) {
    HalfCBSpinor<ES> h(test_lattice, parity);
    import_spinor(h, psi);
    std::vector<std::complex<double>> got(psi.size(), 0.0);
    export_spinor(h, got);
    REQUIRE(check_parity(got, parity));
  }
  FullSpinor<HalfCBSpinor<ES>> full(test_lattice);
  import_spinor(full, psi);
  const auto both = export_spinor(full);
  REQUIRE(ref::rel_diff(both, psi) < 3e-5);

  HalfCBSpinor<ES> h(test_lattice, 1);
  CBSpinor<Kokkos::complex<float>, Ns, ES> f(test_lattice, 1);
  random_spinor(h, 91);
  random_spinor(f, 91);
  std::vector<std::complex<double>> noise_h(psi.size(), 0.0), noise_f(psi.size(), 0.0);
  export_spinor(h, noise_h);
  export_spinor(f, noise_f);
  REQUIRE(blas::norm2(f) > 0.5 * Ns * Nc * test_lattice.cb_volume());
  REQUIRE(ref::rel_diff(noise_h, noise_f) < 3e-5);
}

TEMPLATE_LIST_TEST_CASE("16-bit conversions through float bit patterns are exact and round to nearest", "[compress][half]",
                        HalfSpaces) {
  using ES = TestType;
  // exact_float(i) == float(i) over the range of sums of two 16-bit reals (and beyond); to_fixed16(v)
  // is v * half_scale rounded to the nearest integer, for v over [-1, 1] and both signs.
  const int n = 1 << 18;
  int bad_int = 0, bad_round = 0;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<ES>(0, n),
      KOKKOS_LAMBDA(int k, int& bi, int& br) {
        const int i = k - n / 2;
        if (exact_float(i) != float(i)) ++bi;
        const float v = float(i) / float(n / 2) * 1.0000001f - 1e-9f * float(k % 7);
        const float vc = v > 1.0f ? 1.0f : v < -1.0f ? -1.0f : v;
        const double want = double(vc) * double(half_scale);
        const short got = to_fixed16(vc);
        if (!(Kokkos::fabs(double(got) - want) <= 0.5 + 1e-3)) ++br;
      },
      Kokkos::Sum<int>(bad_int), Kokkos::Sum<int>(bad_round));
  REQUIRE(bad_int == 0);
  REQUIRE(bad_round == 0);
  REQUIRE(to_fixed16(1.0f) == 32767);
  REQUIRE(to_fixed16(-1.0f) == -32767);
  REQUIRE(to_fixed16(1.7f / half_scale) == 2);
  REQUIRE(to_fixed16(-2.6f / half_scale) == -3);
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
  const double wilson = ref::rel_diff(run(WilsonEOOperator<Real, ES, mode, Recon12>(u, bc, 0.1)),
                                      run(WilsonEOOperator<Real, ES, mode, Recon18>(u, bc, 0.1)));
  const double twisted = ref::rel_diff(run(EvenOddOperator<TwistedMassTerm<Real, ES>, PlainLayout<Real, ES, mode, Recon12>>(u, bc, 0.1, 0.2)),
                                       run(EvenOddOperator<TwistedMassTerm<Real, ES>, PlainLayout<Real, ES, mode, Recon18>>(u, bc, 0.1, 0.2)));
  CAPTURE(wilson, twisted);
  REQUIRE(wilson < 10 * tol<Real>());
  REQUIRE(twisted < 10 * tol<Real>());
}
