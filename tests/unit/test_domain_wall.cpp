// Domain-wall fermions. The plain host reference of the five-dimensional Shamir / Moebius operator
// (tests/reference/domain_wall_reference.hpp) checked on its own terms: its adjoint against the
// gamma5-R5 identity, and the 4D propagator of the free field solved in position space against the
// momentum-space one (each 4-momentum's 4 Ls x 4 Ls system solved directly). kqcd's operator
// (stencil/domain_wall.hpp) against it on every backend, precision and layout (plain sites and the
// SIMD lanes' rows of vector sites): D5 and its adjoint, the 4D
// even-odd solve (one precision and mixed), the free propagator against momentum space, and the
// residual mass of a real configuration falling as Ls grows. The 5D even-odd preconditioned Shamir
// operator (stencil/domain_wall_5d.hpp) against the same reference, and its propagator against the
// 4D-preconditioned one's.
#include "test_harness.hpp"

#include "host_fields.hpp"
#include <domain_wall_reference.hpp>

#include <kqcd/fields/random_fields.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/measure/contraction.hpp>
#include <kqcd/measure/sources.hpp>
#include <kqcd/solvers/propagator.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/domain_wall_5d.hpp>

#include <array>
#include <numbers>

using namespace kqcd;
using namespace kqcd::test;

namespace {
using cvec = std::vector<std::complex<double>>;
ref::Field5 random_field5(const Lattice& lat, int Ls, std::uint64_t seed) {
  ref::Field5 f;
  for (int s = 0; s < Ls; ++s) f.push_back(random_host_spinor(lat, seed + std::uint64_t(s)));
  return f;
}
std::complex<double> dot5(const ref::Field5& a, const ref::Field5& b) {
  std::complex<double> d = 0;
  for (std::size_t s = 0; s < a.size(); ++s) d += ref::dot(a[s], b[s]);
  return d;
}
double diff5(const ref::Field5& a, const ref::Field5& b) {
  double d = 0, n = 0;
  for (std::size_t s = 0; s < a.size(); ++s) {
    for (std::size_t k = 0; k < a[s].size(); ++k) d += std::norm(a[s][k] - b[s][k]);
    n += ref::norm2(b[s]);
  }
  return std::sqrt(d / n);
}
/// |q - column (sigma, colour) of the free propagator S| / |column| (S: [site][sink spin][source
/// spin], colour-diagonal; q: [site][spin][colour]).
double column_diff(const cvec& q, const cvec& S, int sigma, int colour, std::int64_t volume) {
  double d = 0, n = 0;
  for (std::int64_t i = 0; i < volume; ++i)
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 3; ++c) {
        const std::complex<double> want = c == colour ? S[std::size_t((i * 4 + a) * 4 + sigma)] : 0.0;
        d += std::norm(q[std::size_t((i * 4 + a) * 3 + c)] - want);
        n += std::norm(want);
      }
  return std::sqrt(d / n);
}
/// Psi = D5^-1 B by CG on D5^dag D5 (the reference's operator and adjoint).
ref::Field5 solve5(const ref::Dims& d, const cvec& u, const ref::Field5& B, const ref::DomainWall& p, const std::array<cvec::value_type, 4>& b) {
  auto normal = [&](const ref::Field5& x) { return ref::domain_wall(d, u, ref::domain_wall(d, u, x, p, b), p, b, true); };
  ref::Field5 x(B.size(), cvec(B[0].size(), 0.0)), r = ref::domain_wall(d, u, B, p, b, true), q = r;
  double rr = dot5(r, r).real();
  const double stop = 1e-26 * rr;
  for (int it = 0; it < 2000 && rr > stop; ++it) {
    const ref::Field5 Aq = normal(q);
    const double alpha = rr / dot5(q, Aq).real();
    for (std::size_t s = 0; s < x.size(); ++s)
      for (std::size_t k = 0; k < x[s].size(); ++k) {
        x[s][k] += alpha * q[s][k];
        r[s][k] -= alpha * Aq[s][k];
      }
    const double rr_new = dot5(r, r).real();
    for (std::size_t s = 0; s < x.size(); ++s)
      for (std::size_t k = 0; k < x[s].size(); ++k) q[s][k] = r[s][k] + (rr_new / rr) * q[s][k];
    rr = rr_new;
  }
  return x;
}
} // namespace

// Gamma5 R5 maps D5 to D5^dag for Shamir; for Moebius D_-^-1 D5 is the Gamma5-R5-Hermitian operator
// (D_- = 1 - c5 D_W(-M5) on each slice does not commute with the slice coupling), so
// D_-^dag D5^dag = G5 R5 D5 G5 R5 D_-^dag, which is the Shamir identity at c5 = 0.
TEST_CASE("domain-wall reference: the adjoint obeys D_-^dag D5^dag = G5 R5 D5 G5 R5 D_-^dag and <phi, D5 psi> = <D5^dag phi, psi>",
          "[domain-wall][reference]") {
  const Lattice lat({4, 2, 2, 4});
  const cvec u = random_host_gauge(lat, 31);
  const auto b = host_bc(mixed_bc());
  for (const ref::DomainWall p : {ref::DomainWall{5, 1.8, 1.5, 0.5, 0.03}, ref::DomainWall{4, 1.2, 1.0, 0.0, 0.2}}) {
    CAPTURE(p.Ls, p.b5, p.c5);
    const ref::Field5 psi = random_field5(lat, p.Ls, 32), phi = random_field5(lat, p.Ls, 40);
    // D_-^dag = 1 - c5 D_W(-M5)^dag on each slice.
    auto dminus_dag = [&](const ref::Field5& f) {
      ref::Field5 r(f.size());
      for (std::size_t k = 0; k < f.size(); ++k) {
        r[k] = ref::wilson(lat.dims(), u, f[k], -p.M5, b, -1);
        for (std::size_t i = 0; i < r[k].size(); ++i) r[k][i] = f[k][i] - p.c5 * r[k][i];
      }
      return r;
    };
    const ref::Field5 lhs5 = dminus_dag(ref::domain_wall(lat.dims(), u, psi, p, b, true));
    CHECK(diff5(lhs5, ref::g5_r5(ref::domain_wall(lat.dims(), u, ref::g5_r5(dminus_dag(psi)), p, b))) < 1e-14);
    if (p.c5 != 0.0) // Moebius: D5 itself is not Gamma5-R5-Hermitian
      CHECK(diff5(ref::domain_wall(lat.dims(), u, psi, p, b, true), ref::g5_r5(ref::domain_wall(lat.dims(), u, ref::g5_r5(psi), p, b))) > 1e-3);
    const auto lhs = dot5(phi, ref::domain_wall(lat.dims(), u, psi, p, b)), rhs = dot5(ref::domain_wall(lat.dims(), u, phi, p, b, true), psi);
    CHECK(std::abs(lhs - rhs) < 1e-12 * std::abs(lhs));
    // The mass couples the walls: m_f enters D5.
    ref::DomainWall heavier = p;
    heavier.mf += 0.1;
    CHECK(diff5(ref::domain_wall(lat.dims(), u, psi, heavier, b), ref::domain_wall(lat.dims(), u, psi, p, b)) > 1e-3);
  }
}

TEST_CASE("domain-wall reference: the free 4D propagator in position space equals the momentum-space one", "[domain-wall][reference]") {
  const Lattice lat({4, 4, 2, 6});
  GaugeField<Kokkos::complex<double>, Kokkos::DefaultHostExecutionSpace> unit(lat);
  unit_gauge(unit);
  const cvec u = export_gauge(unit);
  BoundaryPhases bc;
  bc.b[0] = BoundaryPhases::twist(0.4);
  bc.b[3] = -1.0;
  const std::array<double, 4> theta{0.4, 0.0, 0.0, std::numbers::pi};
  for (const ref::DomainWall p : {ref::DomainWall{6, 1.8, 1.5, 0.5, 0.05}, ref::DomainWall{4, 1.5, 1.0, 0.0, 0.1}}) {
    CAPTURE(p.Ls, p.b5, p.c5);
    const cvec S = ref::free_domain_wall_propagator(lat.dims(), p, theta);
    for (int sigma : {0, 3}) {
      CAPTURE(sigma);
      cvec eta(std::size_t(lat.volume()) * 12, 0.0);
      eta[std::size_t(sigma * 3 + 1)] = 1.0; // site 0, colour 1
      const ref::Field5 B = ref::domain_wall_source(lat.dims(), u, eta, p, host_bc(bc));
      const cvec q = ref::domain_wall_quark(solve5(lat.dims(), u, B, p, host_bc(bc)));
      CHECK(column_diff(q, S, sigma, 1, lat.volume()) < 1e-9);
    }
  }
}

namespace {
/// The layouts of the domain-wall operators: plain sites, and the SIMD lanes where the backend has them.
struct PlainKind {
  template <class P, class ES> using layout = PlainStencilLayout<P, ES, Recon18, ArchTraits<ES>::neighbour_mode>;
  static constexpr bool simd = false;
};
struct SIMDKind {
  template <class P, class ES> using layout = SIMDStencilLayout<P, ES>;
  static constexpr bool simd = true;
};
/// (ES, P, Kind) for each (ES, P) of a configuration list and each layout of ES.
template <class Configs> struct with_kinds;
template <class... C> struct with_kinds<std::tuple<C...>> {
  template <class ES, class P>
  using both = std::conditional_t<ArchTraits<ES>::simd_layout, std::tuple<std::tuple<ES, P, PlainKind>, std::tuple<ES, P, SIMDKind>>,
                                  std::tuple<std::tuple<ES, P, PlainKind>>>;
  using type = decltype(std::tuple_cat(std::declval<both<space_of<C>, real_of<C>>>()...));
};
using DWConfigs = typename with_kinds<typename CartesianProduct<EnabledExecutionSpaces, CompiledOf<float, double, kqcd::half>>::type>::type;
using DWSolverConfigs = typename with_kinds<typename CartesianProduct<EnabledExecutionSpaces, CompiledOf<double>>::type>::type;
/// The double solves with a float sloppy operator.
using DWMixedConfigs = typename with_kinds<typename CartesianProduct<MixedSpaces, std::tuple<double>>::type>::type;
template <class Config> using kind_of = std::tuple_element_t<2, Config>;
/// The operators of precision P on ES in layout Kind.
///@{
template <class P, class ES, class Kind> using DWOp = DomainWallOperator<P, ES, Recon18, typename Kind::template layout<P, ES>>;
template <class P, class ES, class Kind> using DWOp5 = DomainWall5DOperator<P, ES, Recon18, typename Kind::template layout<P, ES>>;
///@}
/// The lattice `plain`, or on the SIMD lanes `simd` (one that splits into 8 lanes).
template <class Kind> Lattice lattice_for(const Lattice& plain, const Lattice& simd) { return Kind::simd ? simd : plain; }
template <class P> constexpr double dwf_tol() { return PrecisionTraits<P>::is_half ? 3e-4 : 10 * tol<P>(); }
DomainWallParams params_of(const ref::DomainWall& p) { return {p.Ls, p.M5, p.b5, p.c5, p.mf}; }

/// Parity `parity` of a host 5D field as a block of the operator's storage.
template <class Op> typename Op::vector_type to_block(const Op& op, const ref::Field5& f, int parity) {
  auto block = op.create_spinor(parity);
  typename Op::dslash_type::spinor_type row(op.geometry(), parity);
  for (int s = 0; s < op.Ls(); ++s) {
    import_spinor(row, f[std::size_t(s)]);
    block.insert(s, row);
  }
  return block;
}
/// The even and odd blocks back into a host 5D field.
template <class Op> ref::Field5 to_host(const Op& op, const typename Op::vector_type& e, const typename Op::vector_type& o) {
  ref::Field5 f(std::size_t(op.Ls()));
  typename Op::dslash_type::spinor_type row(op.geometry(), 0);
  typename Op::dslash_type::spinor_type row_o(op.geometry(), 1);
  for (int s = 0; s < op.Ls(); ++s) {
    e.extract(s, row);
    export_spinor(row, f[std::size_t(s)]);
    o.extract(s, row_o);
    export_spinor(row_o, f[std::size_t(s)]);
  }
  return f;
}
/// A host 5D field as the 5D-preconditioned operator's two 5D parities, and back.
template <class Op5> std::array<typename Op5::vector_type, 2> to_parity_pair(const Op5& op, const ref::Field5& f) {
  using Block = typename Op5::block_type;
  Block full[2] = {Block(op.geometry(), 0, op.Ls()), Block(op.geometry(), 1, op.Ls())};
  for (int q = 0; q < 2; ++q) {
    typename Op5::dslash_type::spinor_type row(op.geometry(), q);
    for (int s = 0; s < op.Ls(); ++s) {
      import_spinor(row, f[std::size_t(s)]);
      full[q].insert(s, row);
    }
  }
  std::array<typename Op5::vector_type, 2> v{op.create_spinor(0), op.create_spinor(1)};
  op.split(v[0], v[1], full[0], full[1]);
  return v;
}
template <class Op5> ref::Field5 parity_pair_to_host(const Op5& op, const typename Op5::vector_type& e, const typename Op5::vector_type& o) {
  using Block = typename Op5::block_type;
  Block full[2] = {Block(op.geometry(), 0, op.Ls()), Block(op.geometry(), 1, op.Ls())};
  op.merge(full[0], full[1], e, o);
  ref::Field5 f(std::size_t(op.Ls()));
  for (int q = 0; q < 2; ++q) {
    typename Op5::dslash_type::spinor_type row(op.geometry(), q);
    for (int s = 0; s < op.Ls(); ++s) {
      full[q].extract(s, row);
      export_spinor(row, f[std::size_t(s)]);
    }
  }
  return f;
}
/// x (x_e, x_o) solving D5 x = b through the operator's even-odd CG to 1e-10, mixed with the
/// sloppy operator (itself: double alone).
template <class Op, class Sloppy, class V>
void solve_even_odd(const Op& op, const Sloppy& sloppy, V& x_e, V& x_o, const V& b_e, const V& b_o) {
  auto b_hat = op.create_vector();
  op.prepare_source(b_hat, b_e, b_o);
  SolverParams params;
  params.tol = 1e-10;
  params.max_iter = 4000;
  SolverResult res;
  if constexpr (std::is_same_v<Op, Sloppy>) res = cg_normal(op, x_e, b_hat, params);
  else res = cg_normal(op, sloppy, x_e, b_hat, params);
  CAPTURE(res.iterations, res.true_residual);
  REQUIRE(res.converged());
  op.reconstruct(x_o, x_e, b_o);
}
const ref::DomainWall shamir{6, 1.8, 1.0, 0.0, 0.05}, moebius{6, 1.5, 1.5, 0.5, 0.1};
/// More slices than a warp's half: blocks of 20 rows.
const ref::DomainWall long_moebius{20, 1.6, 1.2, 0.2, 0.02};
} // namespace

// The reference is the Moebius formula throughout: at b5 = 1, c5 = 0 it is compared with kqcd's Shamir
// operator (which skips the Moebius factor b5 + c5 K).
TEMPLATE_LIST_TEST_CASE("domain-wall operator: D5 and D5^dag equal the host reference (Shamir, Moebius, Ls 6 and 20)", "[domain-wall]",
                        DWConfigs) {
  using ES = space_of<TestType>;
  using P = real_of<TestType>;
  using Op = DWOp<P, ES, kind_of<TestType>>;
  const Lattice lat = lattice_for<kind_of<TestType>>(Lattice({4, 2, 2, 6}), Lattice({4, 4, 4, 8}));
  GaugeField<Kokkos::complex<compute_t<P>>, ES> u(lat);
  random_gauge(u, 77);
  const cvec hu = export_gauge(u);
  const BoundaryPhases bc = mixed_bc();
  for (const ref::DomainWall& p : {shamir, moebius, long_moebius}) {
    CAPTURE(p.Ls, p.b5, p.c5);
    const Op op(u, bc, params_of(p));
    const ref::Field5 psi = random_field5(lat, p.Ls, 91);
    const auto in_e = to_block(op, psi, 0), in_o = to_block(op, psi, 1);
    auto out_e = op.create_spinor(0), out_o = op.create_spinor(1);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      op.apply_full(out_e, out_o, in_e, in_o, isign);
      const double d = diff5(to_host(op, out_e, out_o), ref::domain_wall(lat.dims(), hu, psi, p, host_bc(bc), isign < 0));
      CAPTURE(d);
      CHECK(d < dwf_tol<P>());
    }
  }
  // Bad parameters are refused by name.
  REQUIRE_THROWS_AS(Op(u, bc, DomainWallParams{1, 1.8, 1.0, 0.0, 0.1}), invalid_argument);
  REQUIRE_THROWS_AS(Op(u, bc, DomainWallParams{8, -1.0, 1.0, 0.0, 0.1}), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("domain-wall operator: the 4D even-odd CG solve (double, double-single, double-half) solves D5 x = b",
                        "[domain-wall][solvers]", DWSolverConfigs) {
  using ES = space_of<TestType>;
  using Kind = kind_of<TestType>;
  using Op = DWOp<double, ES, Kind>;
  const Lattice lat = lattice_for<Kind>(Lattice({4, 4, 2, 4}), Lattice({4, 4, 4, 4}));
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  random_gauge(u, 5);
  const cvec hu = export_gauge(u);
  const BoundaryPhases bc = mixed_bc();
  for (const ref::DomainWall& p : {shamir, moebius}) {
    CAPTURE(p.b5, p.c5);
    const Op op(u, bc, params_of(p));
    GaugeField<Kokkos::complex<float>, ES> uf(lat);
    convert_gauge(uf, u);
    const ref::Field5 b = random_field5(lat, p.Ls, 13);
    const auto b_e = to_block(op, b, 0), b_o = to_block(op, b, 1);
    for_compiled<double, float, kqcd::half>([&]<class S>() { // double; double-single; double-half
      CAPTURE(PrecisionTraits<S>::name);
      auto x_e = op.create_vector(), x_o = op.create_spinor(1);
      if constexpr (std::is_same_v<S, double>) solve_even_odd(op, op, x_e, x_o, b_e, b_o);
      else solve_even_odd(op, DWOp<S, ES, Kind>(uf, bc, params_of(p)), x_e, x_o, b_e, b_o);
      const ref::Field5 Dx = ref::domain_wall(lat.dims(), hu, to_host(op, x_e, x_o), p, host_bc(bc));
      const double r = diff5(Dx, b);
      CAPTURE(r);
      CHECK(r < 1e-9);
    });
  }
}

TEMPLATE_LIST_TEST_CASE("domain-wall operator: the free 4D propagator equals the momentum-space one", "[domain-wall][solvers]",
                        DWSolverConfigs) {
  using ES = space_of<TestType>;
  using Op = DWOp<double, ES, kind_of<TestType>>;
  const Lattice lat = lattice_for<kind_of<TestType>>(Lattice({4, 4, 2, 6}), Lattice({4, 4, 4, 8}));
  GaugeField<Kokkos::complex<double>, ES> u(lat);
  unit_gauge(u);
  BoundaryPhases bc;
  bc.b[0] = BoundaryPhases::twist(0.4);
  bc.b[3] = -1.0;
  const std::array<double, 4> theta{0.4, 0.0, 0.0, std::numbers::pi};
  for (const ref::DomainWall& p : {moebius, shamir}) {
    CAPTURE(p.b5, p.c5);
    const Op op(u, bc, params_of(p));
    const cvec S = ref::free_domain_wall_propagator(lat.dims(), p, theta);
    for (int sigma : {1, 2}) {
      CAPTURE(sigma);
      typename Op::field4_type eta(lat), q(lat);
      cvec h(std::size_t(lat.volume()) * 12, 0.0);
      h[std::size_t(sigma * 3 + 2)] = 1.0; // site 0, colour 2
      import_spinor(eta, h);
      auto b_e = op.create_spinor(0), b_o = op.create_spinor(1), b_hat = op.create_vector(), x_e = op.create_vector(),
           x_o = op.create_spinor(1);
      op.source(b_e, b_o, eta);
      op.prepare_source(b_hat, b_e, b_o);
      SolverParams params;
      params.tol = 1e-11;
      params.max_iter = 4000;
      REQUIRE(cg_normal(op, x_e, b_hat, params).converged());
      op.reconstruct(x_o, x_e, b_o);
      op.walls(q, x_e, x_o);
      CHECK(column_diff(export_spinor(q), S, sigma, 2, lat.volume()) < 1e-9);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("domain-wall residual mass on a real configuration falls as Ls grows", "[domain-wall][solvers]",
                        DWMixedConfigs) {
  using ES = space_of<TestType>;
  using Kind = kind_of<TestType>;
  const auto cfg = read_gauge(shared_data("milc-l4444.milc"));
  GaugeField<Kokkos::complex<double>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  GaugeField<Kokkos::complex<float>, ES> uf(cfg.lattice);
  convert_gauge(uf, u);
  const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
  const SourceSpec point = parse_source("point:0,0,0,0", &cfg.lattice);
  const Coords& origin = point.origin;
  std::vector<double> mres;
  for (int Ls : {4, 8}) {
    const DomainWallParams p{Ls, 1.8, 1.5, 0.5, 0.1};
    const DWOp<double, ES, Kind> op(u, bc, p);
    const DWOp<float, ES, Kind> sloppy(uf, bc, p);
    PropagatorField<double, ES> S(cfg.lattice), mid(cfg.lattice);
    SolverParams params;
    params.tol = 1e-8;
    const auto results = solve_domain_wall_propagator(
        op, sloppy, S, &mid, [&](auto& eta, int spin, int colour) { make_source(eta, point, spin, colour); }, params,
        [](int, int, const SolverResult&) {});
    for (const auto& r : results) REQUIRE(r.converged());
    mres.push_back(residual_mass(mid, S, origin).plateau); // t = 1 .. 3 of Lt = 4
  }
  CAPTURE(mres[0], mres[1]);
  CHECK(mres[0] > 0);
  CHECK(mres[1] > 0);
  CHECK(mres[1] < 0.25 * mres[0]);
}

TEMPLATE_LIST_TEST_CASE("5D-preconditioned Shamir operator: D5 and D5^dag equal the host reference, D_hat^dag is D_hat's adjoint",
                        "[domain-wall]", DWConfigs) {
  using ES = space_of<TestType>;
  using P = real_of<TestType>;
  using Op5 = DWOp5<P, ES, kind_of<TestType>>;
  const Lattice lat = lattice_for<kind_of<TestType>>(Lattice({4, 2, 2, 6}), Lattice({4, 4, 4, 8}));
  GaugeField<Kokkos::complex<compute_t<P>>, ES> u(lat);
  random_gauge(u, 78);
  const cvec hu = export_gauge(u);
  const BoundaryPhases bc = mixed_bc();
  for (const ref::DomainWall& p : {shamir, ref::DomainWall{20, 1.4, 1.0, 0.0, 0.02}}) {
    CAPTURE(p.Ls);
    const Op5 op(u, bc, params_of(p));
    const ref::Field5 psi = random_field5(lat, p.Ls, 93);
    // split and merge are each other's inverse.
    const auto in = to_parity_pair(op, psi);
    CHECK(diff5(parity_pair_to_host(op, in[0], in[1]), psi) < dwf_tol<P>());
    auto out_e = op.create_spinor(0), out_o = op.create_spinor(1);
    for (int isign : {1, -1}) {
      CAPTURE(isign);
      op.apply_full(out_e, out_o, in[0], in[1], isign);
      const double d = diff5(parity_pair_to_host(op, out_e, out_o), ref::domain_wall(lat.dims(), hu, psi, p, host_bc(bc), isign < 0));
      CAPTURE(d);
      CHECK(d < dwf_tol<P>());
    }
    // <phi, D_hat psi> = <D_hat^dag phi, psi> on the 5D-even sites; apply in place equals apply.
    const auto phi = to_parity_pair(op, random_field5(lat, p.Ls, 7));
    auto a = op.create_vector(), b = op.create_vector(), c = op.create_vector();
    op.apply(a, in[0], 1);
    op.apply(b, phi[0], -1);
    const auto lhs = blas::cdot(phi[0], a), rhs = blas::cdot(b, in[0]);
    CHECK(Kokkos::abs(lhs - rhs) < dwf_tol<P>() * Kokkos::abs(lhs));
    blas::copy(c, in[0]);
    op.apply(c, c, 1);
    blas::axpy(-1.0, a, c);
    CHECK(std::sqrt(blas::norm2(c) / blas::norm2(a)) < dwf_tol<P>());
  }
  // Moebius and odd Ls are refused by name.
  REQUIRE_THROWS_AS(Op5(u, bc, params_of(moebius)), invalid_argument);
  REQUIRE_THROWS_AS(Op5(u, bc, DomainWallParams{5, 1.8, 1.0, 0.0, 0.1}), invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("5D-preconditioned Shamir solve (double, double-single, double-half) solves D5 x = b; its propagator equals "
                        "the 4D-preconditioned one",
                        "[domain-wall][solvers]", DWSolverConfigs) {
  using ES = space_of<TestType>;
  using Kind = kind_of<TestType>;
  using Op5 = DWOp5<double, ES, Kind>;
  {
    const Lattice lat = lattice_for<Kind>(Lattice({4, 4, 2, 4}), Lattice({4, 4, 4, 4}));
    GaugeField<Kokkos::complex<double>, ES> u(lat);
    random_gauge(u, 6);
    const cvec hu = export_gauge(u);
    const BoundaryPhases bc = mixed_bc();
    const Op5 op(u, bc, params_of(shamir));
    GaugeField<Kokkos::complex<float>, ES> uf(lat);
    convert_gauge(uf, u);
    const ref::Field5 b = random_field5(lat, shamir.Ls, 14);
    const auto bv = to_parity_pair(op, b);
    for_compiled<double, float, kqcd::half>([&]<class S>() { // double; double-single; double-half
      CAPTURE(PrecisionTraits<S>::name);
      auto x_e = op.create_vector(), x_o = op.create_spinor(1);
      if constexpr (std::is_same_v<S, double>) solve_even_odd(op, op, x_e, x_o, bv[0], bv[1]);
      else solve_even_odd(op, DWOp5<S, ES, Kind>(uf, bc, params_of(shamir)), x_e, x_o, bv[0], bv[1]);
      const double r = diff5(ref::domain_wall(lat.dims(), hu, parity_pair_to_host(op, x_e, x_o), shamir, host_bc(bc)), b);
      CAPTURE(r);
      CHECK(r < 1e-9);
    });
  }
  // The quark propagator and the midpoint field of a real configuration, both preconditionings.
  const auto cfg = read_gauge(shared_data("milc-l4444.milc"));
  GaugeField<Kokkos::complex<double>, ES> u(cfg.lattice);
  import_gauge(u, cfg.links);
  const BoundaryPhases bc = BoundaryPhases::antiperiodic_time();
  const SourceSpec point = parse_source("point:1,0,2,1", &cfg.lattice);
  const DomainWallParams p{8, 1.8, 1.0, 0.0, 0.05};
  SolverParams params;
  params.tol = 1e-10;
  const auto solve = [&](const auto& op) {
    std::array<PropagatorField<double, ES>, 2> S{PropagatorField<double, ES>(cfg.lattice), PropagatorField<double, ES>(cfg.lattice)};
    const auto results = solve_domain_wall_propagator(
        op, op, S[0], &S[1], [&](auto& eta, int spin, int colour) { make_source(eta, point, spin, colour); }, params,
        [](int, int, const SolverResult&) {});
    for (const auto& r : results) REQUIRE(r.converged());
    return S;
  };
  const auto S4 = solve(DWOp<double, ES, Kind>(u, bc, p));
  const auto S5 = solve(Op5(u, bc, p));
  for (int f = 0; f < 2; ++f)
    for (int k = 0; k < Ns * Nc; ++k) {
      CAPTURE(f, k);
      const cvec a = export_spinor(S4[std::size_t(f)][k]), b = export_spinor(S5[std::size_t(f)][k]);
      double d = 0, n = 0;
      for (std::size_t i = 0; i < a.size(); ++i) d += std::norm(a[i] - b[i]), n += std::norm(a[i]);
      CHECK(std::sqrt(d / n) < 1e-8);
    }
}
