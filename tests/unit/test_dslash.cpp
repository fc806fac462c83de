// The Wilson hopping term and operators against the plain host reference and physical identities.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/stencil/operators.hpp>

#include "host_fields.hpp"

#include <wilson_reference.hpp>

using namespace kqcd;
using namespace kqcd::test;

namespace {
ref::Dims dims(const Lattice& l) { return l.dims(); }

template <class ES, class Real, NeighbourMode mode>
std::vector<std::complex<double>> run_wilson(const Lattice& lat, const std::vector<std::complex<double>>& u_host,
                                             const std::vector<std::complex<double>>& psi_host, double mass,
                                             const BoundaryPhases& bc, int isign) {
  using Op = WilsonOperator<Real, ES, mode>;
  typename Op::gauge_type u(lat);
  import_gauge(u, u_host);
  Op op(u, bc, mass);
  auto in = op.create_vector(), out = op.create_vector();
  import_spinor(in, psi_host);
  op.apply(out, in, isign);
  return export_spinor(out);
}

} // namespace

TEMPLATE_LIST_TEST_CASE("Wilson operator matches the host reference", "[dslash]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 11);
  const auto psi = random_host_spinor(test_lattice, 12);
  const double mass = 0.13;
  for (const auto& bc : {mixed_bc(), parse_boundary_phases("0,p,a,0")}) {
    for (int isign : {1, -1}) {
      const auto want = ref::wilson(dims(test_lattice), u, psi, mass, host_bc(bc), isign);
      const auto got_t = run_wilson<ES, Real, NeighbourMode::table>(test_lattice, u, psi, mass, bc, isign);
      const auto got_f = run_wilson<ES, Real, NeighbourMode::on_the_fly>(test_lattice, u, psi, mass, bc, isign);
      CAPTURE(isign);
      REQUIRE(ref::rel_diff(got_t, want) < 5 * kqcd::test::tol<Real>());
      // Both neighbour modes run the same arithmetic in the same order.
      REQUIRE(got_t == got_f);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("gamma5-hermiticity and adjointness of D", "[dslash]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 21);
  const auto psi = random_host_spinor(test_lattice, 22);
  const auto phi = random_host_spinor(test_lattice, 23);
  const auto bc = mixed_bc();
  using Mode = std::integral_constant<NeighbourMode, ArchTraits<ES>::neighbour_mode>;
  const auto d_psi = run_wilson<ES, Real, Mode::value>(test_lattice, u, psi, 0.05, bc, 1);
  const auto ddag_phi = run_wilson<ES, Real, Mode::value>(test_lattice, u, phi, 0.05, bc, -1);
  // <phi, D psi> = <D^dag phi, psi>
  const auto lhs = ref::dot(phi, d_psi), rhs = ref::dot(ddag_phi, psi);
  REQUIRE(std::abs(lhs - rhs) < 10 * kqcd::test::tol<Real>() * std::sqrt(ref::norm2(phi) * ref::norm2(d_psi)));
  // D^dag psi = g5 D g5 psi
  const auto g5_d_g5 = ref::apply_g5(run_wilson<ES, Real, Mode::value>(test_lattice, u, ref::apply_g5(psi), 0.05, bc, 1));
  const auto ddag_psi = run_wilson<ES, Real, Mode::value>(test_lattice, u, psi, 0.05, bc, -1);
  REQUIRE(ref::rel_diff(ddag_psi, g5_d_g5) < 5 * kqcd::test::tol<Real>());
}

TEMPLATE_LIST_TEST_CASE("Wilson operator is gauge covariant", "[dslash]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 31);
  const auto psi = random_host_spinor(test_lattice, 32);
  // A random gauge transformation: the mu = 0 links of another random field.
  const auto gfield = random_host_gauge(test_lattice, 33);
  std::vector<std::complex<double>> g(std::size_t(test_lattice.volume()) * 9);
  for (std::size_t i = 0; i < std::size_t(test_lattice.volume()); ++i)
    for (int k = 0; k < 9; ++k) g[i * 9 + k] = gfield[i * 36 + k];
  const auto bc = mixed_bc();
  using Mode = std::integral_constant<NeighbourMode, ArchTraits<ES>::neighbour_mode>;
  const auto d_psi = run_wilson<ES, Real, Mode::value>(test_lattice, u, psi, 0.2, bc, 1);
  const auto d_psi_transformed = run_wilson<ES, Real, Mode::value>(
      test_lattice, ref::transform_gauge(dims(test_lattice), u, g), ref::transform_spinor(psi, g), 0.2, bc, 1);
  REQUIRE(ref::rel_diff(d_psi_transformed, ref::transform_spinor(d_psi, g)) < 10 * kqcd::test::tol<Real>());
}

TEMPLATE_LIST_TEST_CASE("single precision agrees with double", "[dslash]", MixedSpaces) {
  using ES = TestType;
  const auto u = random_host_gauge(test_lattice, 41);
  const auto psi = random_host_spinor(test_lattice, 42);
  constexpr auto mode = ArchTraits<ES>::neighbour_mode;
  const auto f = run_wilson<ES, float, mode>(test_lattice, u, psi, 0.1, mixed_bc(), 1);
  const auto d = run_wilson<ES, double, mode>(test_lattice, u, psi, 0.1, mixed_bc(), 1);
  const double diff = ref::rel_diff(f, d);
  REQUIRE(diff < 1e-6);
  REQUIRE(diff > 0.0); // they really ran in different precisions
}

TEMPLATE_LIST_TEST_CASE("hopping term on one parity, xpay and the Schur complement", "[dslash]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  using EO = WilsonEOOperator<Real, ES>;
  const Lattice& lat = test_lattice;
  const auto u_host = random_host_gauge(lat, 51);
  const auto psi_host = random_host_spinor(lat, 52);
  const double mass = -0.3;
  const auto bc = mixed_bc();
  typename EO::gauge_type u(lat);
  import_gauge(u, u_host);
  EO eo(u, bc, mass);
  // Reference: D_hat psi_e = A psi_e - H_eo H_oe psi_e / (4A), through the full host operator on a
  // field that vanishes on odd sites.
  auto psi_even = psi_host;
  for (int s = 0; s < lat.cb_volume(); ++s) {
    const auto site = lat.lex_index(lat.cb_coords(s, 1));
    for (int k = 0; k < 12; ++k) psi_even[std::size_t(site * 12 + k)] = 0;
  }
  const double A = 4 + mass;
  auto h_oe = ref::hopping(dims(lat), u_host, psi_even, host_bc(bc), 1);     // odd sites: H_oe psi_e
  for (int s = 0; s < lat.cb_volume(); ++s) {                                 // keep odd sites only
    const auto site = lat.lex_index(lat.cb_coords(s, 0));
    for (int k = 0; k < 12; ++k) h_oe[std::size_t(site * 12 + k)] = 0;
  }
  const auto h_eo_oe = ref::hopping(dims(lat), u_host, h_oe, host_bc(bc), 1); // even sites: H_eo H_oe psi_e
  std::vector<std::complex<double>> want(psi_host.size(), 0.0);
  for (int s = 0; s < lat.cb_volume(); ++s) {
    const auto site = lat.lex_index(lat.cb_coords(s, 0));
    for (int k = 0; k < 12; ++k) {
      const auto i = std::size_t(site * 12 + k);
      want[i] = A * psi_even[i] - h_eo_oe[i] / (4 * A);
    }
  }
  auto in = eo.create_vector(), out = eo.create_vector();
  import_spinor(in, psi_host);
  eo.apply(out, in, 1);
  std::vector<std::complex<double>> got(psi_host.size(), 0.0);
  export_spinor(out, got);
  REQUIRE(ref::rel_diff(got, want) < 10 * kqcd::test::tol<Real>());
  // Parity mismatches are refused.
  typename EO::vector_type odd(lat, 1);
  REQUIRE_THROWS_AS(eo.dslash().apply(out, odd, 1, 1), invalid_argument);
  REQUIRE_THROWS_AS(eo.dslash().apply(out, odd, 2, 0), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("the Wilson face pack: spin-projected faces carry (1 + sigma g_mu) psi and pass the kernel's projection unchanged",
                        "[dslash][halo]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  using C = Kokkos::complex<Real>;
  using Field = Kokkos::View<C* [Nc][Ns], typename ES::memory_space>;
  using Buffer = Kokkos::View<C*, typename ES::memory_space>;
  const Lattice lat({4, 6, 4, 2});
  const auto [psi, h_psi] = random_spinor_view<ES, Real>(lat.cb_volume(), 5);
  const int parity = 1;
  for (int mu = 0; mu < Nd; ++mu)
    for (int sigma : {1, -1}) {
      CAPTURE(mu, sigma);
      const int n = lat.face_sites(mu);
      Buffer buf("buf", n * Nc * 2);
      Field ghost("ghost", n);
      Kokkos::deep_copy(ghost, C(Real(7), Real(7)));
      // The x_mu = 0 face of a call of sign -sigma travels projected with 1 + sigma g_mu.
      const auto face = SpinProjectedFaces{-sigma}.face<Field>(mu, 0);
      REQUIRE(face.sigma == sigma);
      REQUIRE(SpinProjectedFaces{sigma}.components<Field>() == Nc * 2);
      using Copy = detail::FaceCopy<Field, Buffer, SpinProjectedFaces::Face<Field>>;
      Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, n), Copy{psi, buf, lat, mu, 0, 1, parity, 0, 1, Nc * 2, face, true});
      Kokkos::parallel_for(Kokkos::RangePolicy<ES>(0, n), Copy{ghost, buf, lat, mu, 0, 1, parity, 0, 1, Nc * 2, face, false});
      auto h_buf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buf);
      auto h_ghost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ghost);
      const auto& g = ref::gamma(mu);
      double err = 0, pass_err = 0, upper = 0;
      for (int f = 0; f < n; ++f) {
        const int s = lat.cb_index(lat.face_coords(mu, f, 0, parity));
        for (int c = 0; c < Nc; ++c)
          for (int a = 0; a < 2; ++a) {
            // The reference projector from the 4x4 gamma matrix.
            std::complex<double> want(h_psi(s, c, a).real(), h_psi(s, c, a).imag());
            std::complex<double> again(h_ghost(f, c, a).real(), h_ghost(f, c, a).imag());
            for (int b = 0; b < Ns; ++b) {
              want += double(sigma) * g[a][b] * std::complex<double>(h_psi(s, c, b).real(), h_psi(s, c, b).imag());
              again += double(sigma) * g[a][b] * std::complex<double>(h_ghost(f, c, b).real(), h_ghost(f, c, b).imag());
            }
            const C got = h_buf(f * Nc * 2 + 2 * c + a);
            err = std::max(err, std::abs(want - std::complex<double>(got.real(), got.imag())));
            // The receiver's projection of the ghost site gives the same half spinor back.
            pass_err = std::max(pass_err, std::abs(again - std::complex<double>(got.real(), got.imag())));
            upper = std::max(upper, double(Kokkos::abs(h_ghost(f, c, a + 2))));
          }
      }
      CHECK(err < 4 * kqcd::test::tol<Real>());
      CHECK(pass_err == 0.0);
      CHECK(upper == 0.0);
    }
}

TEMPLATE_LIST_TEST_CASE("a Kokkos graph of the even-odd operator gives what apply gives, on every submit and layout",
                        "[dslash][graph]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice lat({4, 6, 4, 8}); // splits into the lanes of every SIMD width
  GaugeField<Kokkos::complex<Real>, ES> u(lat);
  import_gauge(u, random_host_gauge(lat, 31));
  const std::vector<std::complex<double>> poison(std::size_t(lat.volume()) * 12, {7.0, -7.0}); // every site must be written
  for (const bool simd : {false, true}) {
    if (simd && !ArchTraits<ES>::simd_layout) continue;
    visit_layout<ES>(simd, [&]<class Tag>(Tag) {
      using Layout = typename Tag::template layout<Real, ES>;
      using Op = EvenOddOperator<WilsonMassTerm<Real, ES>, Layout>;
      using V = typename Op::vector_type;
      using Plain = typename Layout::plain_spinor_type;
      CAPTURE(Layout::name);
      const Op op(u, mixed_bc(), 0.07);
      // Host arrays in and out through a plain spinor and the layout's own conversions.
      auto put = [&](V& v, const std::vector<std::complex<double>>& h) {
        Plain p(lat, 0);
        import_spinor(p, h);
        op.layout().to_layout(v, p);
      };
      auto get = [&](const V& v) {
        Plain p(lat, 0);
        op.layout().from_layout(p, v);
        std::vector<std::complex<double>> h;
        export_spinor(p, h);
        return h;
      };
      for (int isign : {1, -1}) {
        CAPTURE(isign);
        auto in = op.create_vector(), want = op.create_vector(), got = op.create_vector();
        put(in, random_host_spinor(lat, 32));
        op.apply(want, in, isign);
        auto graph = op.make_graph(got, in, isign);
        const auto w = get(want);
        for (int submit = 0; submit < 3; ++submit) {
          put(got, poison);
          graph.submit();
          Kokkos::fence();
          REQUIRE(get(got) == w); // the same kernels with the same shapes: identical bits
        }
        // The graph reads `in` when submitted, not when made.
        blas::scale(2.0, in);
        op.apply(want, in, isign);
        graph.submit();
        Kokkos::fence();
        REQUIRE(get(got) == get(want));
      }
    });
  }
}
