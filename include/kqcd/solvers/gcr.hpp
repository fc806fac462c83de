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

/// GCR's directions per restart unless a caller says otherwise.
inline constexpr int gcr_default_directions = 16;

/// GCR's work vectors, kept across the solves of one operator (a multigrid level's coarse solve
/// runs once per cycle: on GPUs allocating and freeing them each time costs more than the solve's
/// small kernels). Made by the first solve that is given the workspace.
template <class V> struct GcrWorkspace {
  std::vector<V> z;     ///< The directions, n_krylov of them.
  std::vector<V> q;     ///< Their images under D.
  std::vector<V> outer; ///< The true residual and a work vector (detail::OuterResidual).
};

/// Solves D x = b by flexible GCR restarted every n_krylov directions, right-preconditioned by
/// precond(z, r) (z ~ D^-1 r); x holds the initial guess. Each iteration applies the preconditioner
/// and D once; every restart recomputes the true residual, on which convergence is declared. With
/// a workspace (which belongs to op) the work vectors are its, made on the first use.
template <class Op, class Precond = NoPreconditioner>
SolverResult gcr(const Op& op, typename Op::vector_type& x, const typename Op::vector_type& b, const SolverParams& params,
                 Precond&& precond = {}, int n_krylov = gcr_default_directions, GcrWorkspace<typename Op::vector_type>* workspace = nullptr) {
  ProfileScope prof("kqcd::gcr");
  auto compute = prof.phase(ProfilePhase::compute);
  if (n_krylov < 1) throw invalid_argument("gcr: " + std::to_string(n_krylov) + " directions per restart, expected at least 1");
  using V = typename Op::vector_type;
  GcrWorkspace<V> own;
  GcrWorkspace<V>& w = workspace ? *workspace : own;
  if (int(w.z.size()) != n_krylov) {
    w.z.clear();
    w.q.clear();
    for (int i = 0; i < n_krylov; ++i) {
      w.z.push_back(op.create_vector("GCR_z" + std::to_string(i)));
      w.q.push_back(op.create_vector("GCR_q" + std::to_string(i)));
    }
  }
  if (w.outer.empty()) w.outer = {op.create_vector("GCR_r"), op.create_vector("GCR_t")};
  SolverResult res;
  detail::OuterResidual<Op> outer(op, b, params, "GCR", res, w.outer[0], w.outer[1]);
  const double target2 = outer.target2();
  double r2;
  if (auto done = outer.start(x, r2)) return *done;
  auto& r = outer.r();
  auto& z = w.z;
  auto& q = w.q;
  // Each direction's z_k is kept as the preconditioner gave it; only q_k = D z_k is orthogonalised
  // (q_k += sum_j B(j, k) q_j). The solution's update of a restart cycle, sum_k alpha_k D^-1 q_k,
  // is then sum_k chi_k z_k with chi_k = alpha_k + sum_{j > k} B(k, j) chi_j, in one pass at its end
  // (QUDA's GCR): two fewer passes over the vectors per iteration.
  const auto n = std::size_t(n_krylov);
  std::vector<double> qq(n, 0.0); // |q_j|^2
  std::vector<Kokkos::complex<double>> B(n * n), alpha(n), chi(n), beta;
  std::size_t m = 0; // directions of this restart cycle
  auto update_solution = [&] {
    for (std::size_t k = m; k-- > 0;) {
      chi[k] = alpha[k];
      for (std::size_t j = k + 1; j < m; ++j) chi[k] += B[k * n + j] * chi[j];
    }
    if (m > 0) blas::caxpy_many<V>(std::span<const Kokkos::complex<double>>(chi.data(), m), std::span<const V>(z.data(), m), x);
    m = 0;
  };
  while (res.iterations < params.max_iter) {
    double rr = r2;
    for (int i = 0; i < n_krylov && res.iterations < params.max_iter && rr > target2; ++i) {
      const auto k = std::size_t(i);
      precond(z[k], r);
      op.apply(q[k], z[k], 1);
      // Orthogonalise q_i against the earlier q_j: classical Gram-Schmidt, the inner products in
      // one pass and the update in one.
      double qqi;
      if (i == 0) {
        qqi = blas::norm2(q[k]);
      } else {
        const std::span<const V> qs(q.data(), k);
        beta = blas::cdot_many(qs, q[k]);
        for (std::size_t j = 0; j < k; ++j) beta[j] = -beta[j] / qq[j];
        qqi = blas::caxpy_many_norm2<V>(beta, qs, q[k]);
        for (std::size_t j = 0; j < k; ++j) B[j * n + k] = beta[j];
      }
      if (!(qqi > 0.0) || !std::isfinite(qqi)) {
        update_solution();
        return outer.finish(SolverStatus::breakdown, r2, "|D z|^2 = " + std::to_string(qqi));
      }
      qq[k] = qqi;
      alpha[k] = blas::cdot(q[k], r) / qqi;
      m = k + 1;
      rr = blas::caxpy_norm2(-alpha[k], q[k], r);
      ++res.iterations;
      if (!std::isfinite(rr)) {
        update_solution();
        return outer.finish(SolverStatus::breakdown, r2, "residual is not finite");
      }
    }
    update_solution();
    r2 = outer.update(x);
    if (r2 <= target2) return outer.finish(SolverStatus::converged, r2, "");
  }
  return outer.finish(SolverStatus::max_iterations, r2, "iteration limit");
}

} // namespace kqcd
