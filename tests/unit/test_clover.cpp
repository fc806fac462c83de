// Wilson-clover, twisted mass and twisted clover operators (one hopping kernel + site-local
// policies) against the plain host reference (tests/reference/clover_reference.hpp) and physical
// identities: gamma5-hermiticity, the clover term Hermitian and block-diagonal, A^-1 A = 1,
// c_sw = 0 / mu = 0 give Wilson. Solves and the free field: test_clover_solvers.cpp.
#include "test_harness.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/stencil/operators.hpp>

#include "host_fields.hpp"

#include <clover_reference.hpp>

#include <memory>

using namespace kqcd;
using namespace kqcd::test;
using cd = std::complex<double>;

namespace {
constexpr double mass = 0.1, csw = 1.3, mu = 0.27;

/// Op from (u, bc, args...).
template <class Op, class... Args> std::unique_ptr<Op> make_op(const typename Op::gauge_type& u, const BoundaryPhases& bc, Args... args) {
  return std::make_unique<Op>(u, bc, args...);
}
/// D psi with the full operator Op built from (u, bc, args...).
template <class Op, class... Args>
std::vector<cd> run_full(const std::vector<cd>& u_host, const std::vector<cd>& psi, const BoundaryPhases& bc, int isign,
                         Args... args) {
  typename Op::gauge_type u(test_lattice);
  import_gauge(u, u_host);
  const auto op = make_op<Op>(u, bc, args...);
  auto in = op->create_vector(), out = op->create_vector();
  import_spinor(in, psi);
  op->apply(out, in, isign);
  return export_spinor(out);
}
/// D_hat psi_e with the even-odd operator (psi's odd sites ignored; the result's odd sites zero).
template <class Op, class... Args>
std::vector<cd> run_eo(const std::vector<cd>& u_host, const std::vector<cd>& psi, const BoundaryPhases& bc, int isign,
                       Args... args) {
  typename Op::gauge_type u(test_lattice);
  import_gauge(u, u_host);
  const auto op = make_op<Op>(u, bc, args...);
  auto in = op->create_vector(), out = op->create_vector();
  import_spinor(in, psi);
  op->apply(out, in, isign);
  std::vector<cd> got(psi.size(), 0.0);
  export_spinor(out, got);
  return got;
}
double rel_dot_diff(cd a, cd b, const std::vector<cd>& x, const std::vector<cd>& y) {
  return std::abs(a - b) / std::sqrt(ref::norm2(x) * ref::norm2(y));
}
} // namespace

TEMPLATE_LIST_TEST_CASE("clover, twisted and twisted-clover operators match the host reference", "[clover]",
                        kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 61);
  const auto psi = random_host_spinor(test_lattice, 62);
  const auto d = test_lattice.dims();
  for (const auto& bc : {mixed_bc(), parse_boundary_phases("0,p,a,0")})
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      const auto want_c = ref::clover_wilson(d, u, psi, mass, csw, 0.0, host_bc(bc), isign);
      const auto want_t = ref::clover_wilson(d, u, psi, mass, 0.0, mu, host_bc(bc), isign);
      const auto want_tc = ref::clover_wilson(d, u, psi, mass, csw, mu, host_bc(bc), isign);
      const auto got_c = run_full<PlainFullOperator<CloverTerm<Real, ES>>>(u, psi, bc, isign, mass, csw);
      const auto got_t = run_full<PlainFullOperator<TwistedMassTerm<Real, ES>>>(u, psi, bc, isign, mass, mu);
      const auto got_tc = run_full<PlainFullOperator<TwistedCloverTerm<Real, ES>>>(u, psi, bc, isign, mass, csw, mu);
      REQUIRE(ref::rel_diff(got_c, want_c) < 5 * kqcd::test::tol<Real>());
      REQUIRE(ref::rel_diff(got_t, want_t) < 5 * kqcd::test::tol<Real>());
      REQUIRE(ref::rel_diff(got_tc, want_tc) < 5 * kqcd::test::tol<Real>());
    }
}

TEMPLATE_LIST_TEST_CASE("even-odd Schur complements match the host reference", "[clover]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice& lat = test_lattice;
  const auto u = random_host_gauge(lat, 71);
  auto psi = random_host_spinor(lat, 72);
  for (int s = 0; s < lat.cb_volume(); ++s) { // even sites only
    const auto site = lat.lex_index(lat.cb_coords(s, 1));
    for (int k = 0; k < 12; ++k) psi[std::size_t(site * 12 + k)] = 0;
  }
  const auto bc = mixed_bc();
  // The Schur identity: with x = (psi_e, chi_o), chi_o = A_oo^-1 H_oe psi_e / 2 (the device's
  // reconstruct with b = 0), the host operator gives [D x]_o = 0 and [D x]_e = D_hat psi_e.
  // The library's own operator types only: a new term type would compile its Dslash kernels here.
  auto check = [&]<class Op>(Op*, double mu_, double csw_, auto... term_args) {
    for (int isign : {1, -1}) {
      CAPTURE(isign, mu_, csw_);
      typename Op::gauge_type ud(lat);
      import_gauge(ud, u);
      Op op(ud, bc, mass, term_args...);
      typename Op::field_type zero(lat), x(lat);
      auto xe = op.create_vector(), out = op.create_vector();
      import_spinor(xe, psi);
      op.reconstruct(x, xe, zero, isign); // x = (psi_e, A_oo^-1 H_oe psi_e / 2)
      const auto xh = export_spinor(x);
      const auto dx = ref::clover_wilson(lat.dims(), u, xh, mass, csw_, mu_, host_bc(bc), isign);
      op.apply(out, xe, isign);
      std::vector<cd> got(psi.size(), 0.0);
      export_spinor(out, got);
      std::vector<cd> want_e(psi.size(), 0.0), odd(psi.size(), 0.0);
      for (int s = 0; s < lat.cb_volume(); ++s)
        for (int p = 0; p < 2; ++p) {
          const auto site = lat.lex_index(lat.cb_coords(s, p));
          for (int k = 0; k < 12; ++k) (p == 0 ? want_e : odd)[std::size_t(site * 12 + k)] = dx[std::size_t(site * 12 + k)];
        }
      REQUIRE(std::sqrt(ref::norm2(odd) / ref::norm2(psi)) < 10 * kqcd::test::tol<Real>());
      REQUIRE(ref::rel_diff(got, want_e) < 10 * kqcd::test::tol<Real>());
    }
  };
  check(static_cast<WilsonEOOperator<Real, ES>*>(nullptr), 0.0, 0.0);
  check(static_cast<CloverEOOperator<Real, ES>*>(nullptr), 0.0, csw, csw);
  check(static_cast<DynamicCloverEOOperator<Real, ES>*>(nullptr), 0.0, csw, csw);
  check(static_cast<TwistedMassEOOperator<Real, ES>*>(nullptr), mu, 0.0, mu);
  check(static_cast<TwistedCloverEOOperator<Real, ES>*>(nullptr), mu, csw, csw, mu);
}

TEMPLATE_LIST_TEST_CASE("c_sw = 0 and mu = 0 give the Wilson operator", "[clover]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 81);
  const auto psi = random_host_spinor(test_lattice, 82);
  const auto bc = mixed_bc();
  for (int isign : {1, -1}) {
    // WilsonOperator = PlainFullOperator<WilsonMassTerm>: the Wilson reference of the host.
    const auto w = ref::wilson(test_lattice.dims(), u, psi, mass, host_bc(bc), isign);
    const double t = 2 * kqcd::test::tol<Real>();
    REQUIRE(ref::rel_diff(run_full<PlainFullOperator<CloverTerm<Real, ES>>>(u, psi, bc, isign, mass, 0.0), w) < t);
    REQUIRE(ref::rel_diff(run_full<PlainFullOperator<TwistedMassTerm<Real, ES>>>(u, psi, bc, isign, mass, 0.0), w) < t);
    REQUIRE(ref::rel_diff(run_full<PlainFullOperator<TwistedCloverTerm<Real, ES>>>(u, psi, bc, isign, mass, 0.0, 0.0), w) < t);
    REQUIRE(ref::rel_diff(run_full<WilsonOperator<Real, ES>>(u, psi, bc, isign, mass), w) < t);
    // WilsonEOOperator folds A = 4 + m into its kernels; the other terms apply it as a site-local policy.
    const auto we = run_eo<WilsonEOOperator<Real, ES>>(u, psi, bc, isign, mass);
    REQUIRE(ref::rel_diff(run_eo<CloverEOOperator<Real, ES>>(u, psi, bc, isign, mass, 0.0), we) < t);
    REQUIRE(ref::rel_diff(run_eo<DynamicCloverEOOperator<Real, ES>>(u, psi, bc, isign, mass, 0.0), we) < t);
    REQUIRE(ref::rel_diff(run_eo<TwistedMassEOOperator<Real, ES>>(u, psi, bc, isign, mass, 0.0), we) < t);
    REQUIRE(ref::rel_diff(run_eo<TwistedCloverEOOperator<Real, ES>>(u, psi, bc, isign, mass, 0.0, 0.0), we) < t);
  }
}

TEMPLATE_LIST_TEST_CASE("the clover term is Hermitian, block-diagonal and packed as the reference", "[clover]",
                        kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice& lat = test_lattice;
  const auto u = random_host_gauge(lat, 91);
  const auto a = ref::clover_site_matrices(lat.dims(), u, mass, csw, 0.0);
  double herm = 0, offblock = 0, norm = 0;
  for (std::int64_t i = 0; i < lat.volume(); ++i)
    for (int r = 0; r < 12; ++r)
      for (int c = 0; c < 12; ++c) {
        const cd x = a[std::size_t(i * 144 + r * 12 + c)];
        norm += std::norm(x);
        herm += std::norm(x - std::conj(a[std::size_t(i * 144 + c * 12 + r)]));
        if ((r / 6) != (c / 6)) offblock += std::norm(x);
      }
  REQUIRE(std::sqrt(herm / norm) < 1e-15);
  REQUIRE(std::sqrt(offblock / norm) < 1e-15);
  // The device's packed blocks equal the reference's 6x6 chiral blocks.
  GaugeField<Kokkos::complex<Real>, ES> ud(lat);
  import_gauge(ud, u);
  CloverField<Real, ES> f(ud, 4.0 + mass, csw, CloverField<Real, ES>::Inverse::none);
  double diff = 0, nrm = 0, nontrivial = 0;
  for (int p = 0; p < 2; ++p) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.term(p));
    for (int s = 0; s < lat.cb_volume(); ++s) {
      const auto site = lat.lex_index(lat.cb_coords(s, p));
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j <= i; ++j) {
            const cd want = a[std::size_t(site * 144 + (6 * b + i) * 12 + 6 * b + j)];
            const cd got = i == j ? cd(h(s, b, i), 0) : cd(h(s, b, clover_pack::offdiag(i, j)), h(s, b, clover_pack::offdiag(i, j) + 1));
            diff += std::norm(got - want);
            nrm += std::norm(want);
            if (i != j) nontrivial += std::norm(want);
          }
    }
  }
  REQUIRE(nontrivial > 1.0); // the random field really gives a clover term
  REQUIRE(std::sqrt(diff / nrm) < 5 * kqcd::test::tol<Real>());
}

TEMPLATE_LIST_TEST_CASE("the site-local inverses times the site-local terms are the identity", "[clover]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const Lattice& lat = test_lattice;
  GaugeField<Kokkos::complex<Real>, ES> u(lat);
  random_gauge(u, 101);
  SpinorField<Kokkos::complex<Real>, Ns, ES> v(lat), w(lat), z(lat);
  random_spinor(v, 102);
  const auto vh = export_spinor(v);
  auto roundtrip = [&](const auto& term) {
    for (int isign : {1, -1})
      for (int p = 0; p < 2; ++p) {
        apply_site_local(w[p], v[p], term.local(p, isign));
        apply_site_local(z[p], w[p], term.inverse(p, isign));
      }
    const double d = ref::rel_diff(export_spinor(z), vh);
    REQUIRE(d < 10 * kqcd::test::tol<Real>());
    REQUIRE(ref::rel_diff(export_spinor(w), vh) > 0.01); // A is not trivially the identity
  };
  roundtrip(CloverTerm<Real, ES>(u, -0.2, 1.5));
  roundtrip(CloverTerm<Real, ES, CloverInverse::dynamic>(u, -0.2, 1.5));
  roundtrip(TwistedCloverTerm<Real, ES>(u, -0.2, 1.5, 0.4));
  roundtrip(TwistedMassTerm<Real, ES>(u, -0.2, 0.4));
  // The stored inverse and the in-kernel Cholesky solve agree.
  CloverTerm<Real, ES> st(u, -0.2, 1.5);
  CloverTerm<Real, ES, CloverInverse::dynamic> dy(u, -0.2, 1.5);
  for (int p = 0; p < 2; ++p) {
    apply_site_local(w[p], v[p], st.inverse(p, 1));
    apply_site_local(z[p], v[p], dy.inverse(p, 1));
  }
  REQUIRE(ref::rel_diff(export_spinor(z), export_spinor(w)) < 10 * kqcd::test::tol<Real>());
  // The blocks inverted by Kokkos Kernels' batched LU where kqcd has it (a clear error otherwise).
  using Field = CloverField<Real, ES>;
  constexpr auto kk = Field::BlockInverter::kokkos_kernels;
  if constexpr (Field::kokkos_kernels_available) {
    roundtrip(CloverTerm<Real, ES>(u, -0.2, 1.5, kk));
    roundtrip(TwistedCloverTerm<Real, ES>(u, -0.2, 1.5, 0.4, kk));
    const CloverTerm<Real, ES> lu(u, -0.2, 1.5, kk);
    for (int p = 0; p < 2; ++p) {
      apply_site_local(w[p], v[p], st.inverse(p, 1));
      apply_site_local(z[p], v[p], lu.inverse(p, 1));
    }
    REQUIRE(ref::rel_diff(export_spinor(z), export_spinor(w)) < 10 * kqcd::test::tol<Real>());
  } else {
    REQUIRE_THROWS_AS((CloverTerm<Real, ES>(u, -0.2, 1.5, kk)), kqcd::invalid_argument);
  }
}

TEMPLATE_LIST_TEST_CASE("gamma5-hermiticity of the clover and twisted operators", "[clover]", kqcd::test::Configs) {
  using ES = kqcd::test::space_of<TestType>;
  using Real = kqcd::test::real_of<TestType>;
  const auto u = random_host_gauge(test_lattice, 111);
  const auto psi = random_host_spinor(test_lattice, 112);
  const auto phi = random_host_spinor(test_lattice, 113);
  const auto bc = mixed_bc();
  const double t = 10 * kqcd::test::tol<Real>();
  auto check = [&](auto run) {
    // <phi, D psi> = <D^dag phi, psi>, and D(mu)^dag = g5 D(-mu) g5
    const auto d_psi = run(psi, 1, 1.0), ddag_phi = run(phi, -1, 1.0);
    REQUIRE(rel_dot_diff(ref::dot(phi, d_psi), ref::dot(ddag_phi, psi), phi, d_psi) < t);
    const auto g5dg5 = ref::apply_g5(run(ref::apply_g5(psi), 1, -1.0));
    REQUIRE(ref::rel_diff(run(psi, -1, 1.0), g5dg5) < 5 * kqcd::test::tol<Real>());
  };
  check([&](const auto& x, int s, double) { return run_full<PlainFullOperator<CloverTerm<Real, ES>>>(u, x, bc, s, mass, csw); });
  check([&](const auto& x, int s, double sm) { return run_full<PlainFullOperator<TwistedMassTerm<Real, ES>>>(u, x, bc, s, mass, sm * mu); });
  check([&](const auto& x, int s, double sm) {
    return run_full<PlainFullOperator<TwistedCloverTerm<Real, ES>>>(u, x, bc, s, mass, csw, sm * mu);
  });
  // The Schur complements: <phi_e, D_hat psi_e> = <D_hat^dag phi_e, psi_e>.
  auto check_eo = [&](auto run) {
    const auto d_psi = run(psi, 1), ddag_phi = run(phi, -1);
    auto even = [&](std::vector<cd> x) {
      for (int s = 0; s < test_lattice.cb_volume(); ++s) {
        const auto site = test_lattice.lex_index(test_lattice.cb_coords(s, 1));
        for (int k = 0; k < 12; ++k) x[std::size_t(site * 12 + k)] = 0;
      }
      return x;
    };
    REQUIRE(rel_dot_diff(ref::dot(even(phi), d_psi), ref::dot(ddag_phi, even(psi)), phi, d_psi) < t);
  };
  check_eo([&](const auto& x, int s) { return run_eo<CloverEOOperator<Real, ES>>(u, x, bc, s, mass, csw); });
  check_eo([&](const auto& x, int s) { return run_eo<DynamicCloverEOOperator<Real, ES>>(u, x, bc, s, mass, csw); });
  check_eo([&](const auto& x, int s) { return run_eo<TwistedMassEOOperator<Real, ES>>(u, x, bc, s, mass, mu); });
  check_eo([&](const auto& x, int s) { return run_eo<TwistedCloverEOOperator<Real, ES>>(u, x, bc, s, mass, csw, mu); });
}
