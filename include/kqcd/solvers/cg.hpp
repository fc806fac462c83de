// Conjugate gradient, written once for two systems: the normal equations D^dag D x = D^dag b
// (cg_normal) and a Hermitian positive-definite A x = b (cg), in one precision or mixed: the
// Krylov loop runs with the sloppy operator, and reliable updates recompute the true residual
// b - D x in the outer precision whenever the iterated residual has fallen by reliable_delta (and
// before declaring convergence), keeping the search direction. Convergence is declared on the true
// residual of D x = b (A x = b).
//
// Operators provide vector_type, create_vector() and apply(out, in, isign) with isign = -1 the
// adjoint (ignored by a Hermitian operator).
#pragma once

#include <kqcd/core/profile.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/outer_residual.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace kqcd {

namespace detail {
/// CG on D^dag D (normal) or on a Hermitian positive-definite A (not normal), sloppy operator sop,
/// with reliable updates.
template <bool normal, class Op, class SloppyOp>
SolverResult cg_solve(const Op& op, const SloppyOp& sop, typename Op::vector_type& x, const typename Op::vector_type& b,
                      const SolverParams& params) {
  ProfileScope prof(normal ? "kqcd::cg_normal" : "kqcd::cg");
  auto compute = prof.phase(ProfilePhase::compute); // work vectors are allocated inside
  SolverResult res;
  constexpr bool same_precision = std::is_same_v<typename Op::vector_type, typename SloppyOp::vector_type>;
  const double delta = same_precision ? 0.0 : params.reliable_delta;
  detail::OuterResidual<Op> outer(op, b, params, "CG", res);
  const double b2 = outer.b2(), target2 = outer.target2();
  auto finish = [&](SolverStatus st, double r2, const std::string& why) { return outer.finish(st, r2, why); };
  double r2_true;
  if (auto done = outer.start(x, r2_true)) return *done;
  auto& r = outer.r();
  auto& t = outer.t();
  auto true_residual = [&] { return outer.update(x); };

  auto rs = sop.create_vector("cg_rs");
  auto ps = sop.create_vector("cg_ps");
  auto aps = sop.create_vector("cg_aps");
  auto tmp = [&] { // D^dag D's intermediate: the normal mode only
    if constexpr (normal) return sop.create_vector("cg_tmp");
    else return nullptr;
  }();
  auto xs = sop.create_vector("cg_xs"); // correction accumulated since the last reliable update
  // The residual of the system CG iterates on: D^dag r, or r.
  auto system_residual = [&] {
    if constexpr (normal) {
      op.apply(t, r, -1);
      blas::copy(rs, t);
    } else {
      blas::copy(rs, r);
    }
  };
  system_residual();
  double rr = blas::norm2(rs);
  // Stop the sloppy iteration when the normal residual suggests the true one is small enough;
  // the estimate is corrected at every reliable update.
  double tol_n2 = target2 * rr / r2_true;
  double max_rr = rr;
  blas::copy(ps, rs);

  while (res.iterations < params.max_iter) {
    if constexpr (normal) {
      sop.apply(tmp, ps, 1);
      sop.apply(aps, tmp, -1);
    } else {
      sop.apply(aps, ps, 1);
    }
    const double pap = blas::rdot(ps, aps);
    if (!(pap > 0.0) || !std::isfinite(pap))
      return finish(SolverStatus::breakdown, r2_true, "p^dag A p = " + std::to_string(pap) + " is not positive");
    const double alpha = rr / pap;
    const double rr_new = blas::axpy_norm2(-alpha, aps, rs);
    ++res.iterations;
    if (!std::isfinite(rr_new)) return finish(SolverStatus::breakdown, r2_true, "residual is not finite");

    if (!(rr_new < tol_n2 || rr_new < delta * delta * max_rr)) {
      // xs += alpha ps and ps = rs + beta ps in one pass.
      blas::axpy_zpbx(alpha, ps, xs, rs, rr_new / rr);
      rr = rr_new;
      max_rr = std::max(max_rr, rr);
      continue;
    }
    // A reliable update (or the end): the correction moves into x and the true residual is taken.
    blas::axpy(alpha, ps, xs);
    blas::copy(t, xs);
    blas::axpy(1.0, t, x);
    blas::zero(xs);
    r2_true = true_residual();
    detail::solver_progress(params, 2, "[kqcd] %s CG iteration %d: true residual %.3e\n", res.iterations,
                            std::sqrt(r2_true / b2));
    if (r2_true <= target2) return finish(SolverStatus::converged, r2_true, "true residual below tolerance");
    system_residual();
    const double rr_true = blas::norm2(rs);
    if (rr_new < tol_n2) tol_n2 = std::min(tol_n2, 0.5 * rr_true * target2 / r2_true);
    blas::axpby(1.0, rs, rr_true / rr, ps);
    rr = max_rr = rr_true;
  }
  blas::copy(t, xs);
  blas::axpy(1.0, t, x);
  r2_true = true_residual();
  if (r2_true <= target2) return finish(SolverStatus::converged, r2_true, "true residual below tolerance");
  return finish(SolverStatus::max_iterations, r2_true, "iteration limit " + std::to_string(params.max_iter) + " reached");
}
} // namespace detail

/// Mixed-precision CG on the normal equations, sloppy operator sop, with reliable updates.
template <class Op, class SloppyOp>
SolverResult cg_normal(const Op& op, const SloppyOp& sop, typename Op::vector_type& x, const typename Op::vector_type& b,
                       const SolverParams& params) {
  return detail::cg_solve<true>(op, sop, x, b, params);
}

/// Mixed-precision CG on a Hermitian positive-definite operator A x = b, sloppy operator sop.
template <class Op, class SloppyOp>
SolverResult cg(const Op& op, const SloppyOp& sop, typename Op::vector_type& x, const typename Op::vector_type& b,
                const SolverParams& params) {
  return detail::cg_solve<false>(op, sop, x, b, params);
}

/// CG on a Hermitian positive-definite operator in its own precision.
template <class Op>
SolverResult cg(const Op& op, typename Op::vector_type& x, const typename Op::vector_type& b, const SolverParams& params) {
  if constexpr (detail::OperatorHandle<Op>)
    return op.visit([&](const auto& o, auto& xo, const auto& bo) { return cg(o, xo, bo, params); }, x, b);
  else return cg(op, op, x, b, params);
}

/// CG on the normal equations in the operator's own precision (an operator handle: on the layout it
/// chose, stencil/operator_handle.hpp).
template <class Op>
SolverResult cg_normal(const Op& op, typename Op::vector_type& x, const typename Op::vector_type& b,
                       const SolverParams& params) {
  if constexpr (detail::OperatorHandle<Op>)
    return op.visit([&](const auto& o, auto& xo, const auto& bo) { return cg_normal(o, xo, bo, params); }, x, b);
  else return cg_normal(op, op, x, b, params);
}

} // namespace kqcd
