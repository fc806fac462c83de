// A first kqcd program: build a random gauge field, solve the even-odd Wilson system for a
// random source with CG on the layout the backend's ArchTraits chooses (SIMD lanes on CPUs, a site
// per thread on GPUs), and check the solution with the full operator. It also shows that the
// SIMD kernels it compiles from kqcd's headers target the library's instruction set (the package
// exports its code-generating options).
#include <kqcd/core/simd_check.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/operators.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace kqcd;
  std::printf("SIMD kernels compiled here for %s, in the kqcd library for %s\n", simd_isa_name().c_str(),
              library_simd_isa().c_str());
  if (simd_isa_name() != library_simd_isa()) return 1;
  const Lattice lat({8, 8, 8, 8});
  GaugeField<Kokkos::complex<double>> u(lat);
  random_gauge(u, 2026);
  const double mass = wilson_mass_from_kappa(0.12);
  EvenOddOperator<WilsonMassTerm<double>> eo(u, BoundaryPhases::antiperiodic_time(), mass);
  WilsonOperator<double> full(u, BoundaryPhases::antiperiodic_time(), mass);

  auto b = full.create_vector("b"), x = full.create_vector("x"), check = full.create_vector("check");
  random_spinor(b, 7);
  auto b_hat = eo.create_vector(), x_e = eo.create_vector();
  eo.prepare_source(b_hat, b);
  SolverParams params;
  params.tol = 1e-10;
  params.verbosity = 1;
  const SolverResult res = cg_normal(eo, x_e, b_hat, params);
  eo.reconstruct(x, x_e, b);

  full.apply(check, x);
  double r2 = 0, b2 = 0;
  for (int p = 0; p < 2; ++p) {
    blas::axpy(-1.0, b[p], check[p]);
    r2 += blas::norm2(check[p]);
    b2 += blas::norm2(b[p]);
  }
  std::printf("8^4 random gauge field, kappa 0.12: CG %s in %d iterations, |D x - b| / |b| = %.2e\n",
              res.converged() ? "converged" : "did not converge", res.iterations, std::sqrt(r2 / b2));
  return res.converged() && std::sqrt(r2 / b2) < 1e-9 ? 0 : 1;
}
