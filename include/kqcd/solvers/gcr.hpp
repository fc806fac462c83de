// Flexible GCR (generalised conjugate residual, restarted) with a right preconditioner that may change
// from one application to the next (a multigrid cycle, a few iterations of another solver), and the
// minimal-residual (MR) iteration, the usual multigrid smoother. Written once over the operator
// concept (vector_type, create_vector(), apply(out, in, isign)) and the BLAS.
#pragma once

#include <kqcd/core/profile.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/linalg/blas_many.hpp>
#include <kqcd/solvers/outer_residual.hpp>

#include <cmath>
#include <span>
#include <string>
#include <vector>

namespace kqcd {

/// x = sum of `steps` MR corrections of D x = b from x = 0 (r = b - D x; x += a r, a = <D r, r> / |D r|^2),
/// a smoother and a preconditioner of fixed cost; on return r holds the iterated residual b - D x, t
/// is a work vector.
template <class Op>
void mr_steps(const Op& op, typename Op::vector_type& x, const typename Op::vector_type& b, int steps, typename Op::vector_type& r,
              typename Op::vector_type& t) {
  blas::zero(x);
  blas::copy(r, b);
  for (int k = 0; k < steps; ++k) {
    op.apply(t, r, 1);
    const double tt = blas::norm2(t);
    if (!(tt > 0.0)) return;
    const Kokkos::complex<double> a = blas::cdot(t, r) / tt;
    blas::caxpy(a, r, x);
    blas::caxpy(-a, t, r);
  }
}

/// The preconditioner of no preconditioning: z = r.
struct NoPreconditioner {
  /// z = r.
  template <class V> void operator()(V& z, const V& r) const { blas::copy(z, r); }
};

/// Solves D x = b by flexible GCR restarted every n_krylov directions, right-preconditioned by
/// precond(z, r) (z ~ D^-1 r); x holds the initial guess. Each iteration applies the preconditioner
/// and D once; every restart recomputes the true residual, on which convergence is declared.
template <class Op, class Precond = NoPreconditioner>
SolverResult gcr(const Op& op, typename Op::vector_type& x, const typename Op::vector_type& b, const SolverParams& params,
                 Precond&& precond = {}, int n_krylov = 16) {
  ProfileScope prof("kqcd::gcr");
  auto compute = prof.phase(ProfilePhase::compute);
  if (n_krylov < 1) throw invalid_argument("gcr: " + std::to_string(n_krylov) + " directions per restart, expected at least 1");
  SolverResult res;
  detail::OuterResidual<Op> outer(op, b, params, "GCR", res);
  const double target2 = outer.target2();
  double r2;
  if (auto done = outer.start(x, r2)) return *done;
  auto& r = outer.r();
  using V = typename Op::vector_type;
  std::vector<V> z, q;
  for (int i = 0; i < n_krylov; ++i) {
    z.push_back(op.create_vector("GCR_z" + std::to_string(i)));
    q.push_back(op.create_vector("GCR_q" + std::to_string(i)));
  }
  std::vector<double> qq(std::size_t(n_krylov), 0.0); // |q_j|^2
  std::vector<Kokkos::complex<double>> beta;
  while (res.iterations < params.max_iter) {
    double rr = r2;
    for (int i = 0; i < n_krylov && res.iterations < params.max_iter && rr > target2; ++i) {
      const auto k = std::size_t(i);
      precond(z[k], r);
      op.apply(q[k], z[k], 1);
      // Orthogonalise q_i against the earlier q_j, carrying z_i along (D z_i = q_i stays true):
      // classical Gram-Schmidt, the inner products in one pass and each update in one.
      double qqi;
      if (i == 0) {
        qqi = blas::norm2(q[k]);
      } else {
        const std::span<const V> qs(q.data(), k), zs(z.data(), k);
        beta = blas::cdot_many(qs, q[k]);
        for (std::size_t j = 0; j < k; ++j) beta[j] = -beta[j] / qq[j];
        qqi = blas::caxpy_many_norm2<V>(beta, qs, q[k]);
        blas::caxpy_many<V>(beta, zs, z[k]);
      }
      if (!(qqi > 0.0) || !std::isfinite(qqi)) return outer.finish(SolverStatus::breakdown, r2, "|D z|^2 = " + std::to_string(qqi));
      qq[k] = qqi;
      const Kokkos::complex<double> alpha = blas::cdot(q[k], r) / qqi;
      blas::caxpy(alpha, z[k], x);
      rr = blas::caxpy_norm2(-alpha, q[k], r);
      ++res.iterations;
      if (!std::isfinite(rr)) return outer.finish(SolverStatus::breakdown, r2, "residual is not finite");
    }
    r2 = outer.update(x);
    if (r2 <= target2) return outer.finish(SolverStatus::converged, r2, "");
  }
  return outer.finish(SolverStatus::max_iterations, r2, "iteration limit");
}

} // namespace kqcd
