// Multi-right-hand-side CG: n independent systems D x_r = b_r on the normal equations, sharing the
// operator, so that every iteration applies D and D^dag to the whole block through the multi-RHS
// Dslash (one pass over the links for all right-hand sides). Each system has its own alpha and
// beta; a system whose true residual |b_r - D x_r| / |b_r| is below tol is frozen (alpha = 0)
// while the others go on. In one precision, or mixed as cg_normal: the block iterates with the
// sloppy operator, and whenever some running system's iterated residual has fallen by
// reliable_delta (or its estimate says it is done) the corrections move into x, the true residuals
// of the block are taken in the outer precision and replace the iterated ones, keeping the search
// directions. Operators provide multi_vector_type, create_multi(n) and apply(out, in, isign) on blocks.
#pragma once

#include <kqcd/linalg/blas_multi.hpp>
#include <kqcd/solvers/block_solve.hpp>
#include <kqcd/solvers/solver.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

namespace kqcd {

/// Independent CGs on the normal equations for several right-hand sides, sharing operator applications.
template <class Op, class SloppyOp>
std::vector<SolverResult> cg_normal_multi(const Op& op, const SloppyOp& sop, typename Op::multi_vector_type& x,
                                          const typename Op::multi_vector_type& b, const SolverParams& params) {
  detail::BlockSolve<Op> solve(op, b, params, "multi-RHS CG");
  using SloppyBlock = typename SloppyOp::multi_vector_type;
  constexpr bool same_precision = std::is_same_v<typename Op::multi_vector_type, SloppyBlock>;
  const double delta = same_precision ? 0.0 : params.reliable_delta;
  auto& res = solve.res;
  const auto &zero = solve.zero, &one = solve.one;
  const int n = b.n_rhs();
  const auto un = std::size_t(n);

  auto rs = sop.create_multi(n, "cgm_rs");
  auto p = sop.create_multi(n, "cgm_p");
  auto ap = sop.create_multi(n, "cgm_ap");
  // Mixed: the corrections since the last reliable update, in the sloppy precision, and an outer
  // block to carry them into x. One precision: x itself.
  SloppyBlock xs_sloppy;
  typename Op::multi_vector_type t;
  if constexpr (!same_precision) {
    xs_sloppy = sop.create_multi(n, "cgm_xs");
    t = op.create_multi(n, "cgm_t");
  }
  SloppyBlock* xs_target = &xs_sloppy;
  if constexpr (same_precision) xs_target = &x;
  auto& xs = *xs_target;
  auto accumulate = [&] {
    if constexpr (!same_precision) {
      blas::copy(t, xs);
      blas::axpby_each(one, t, one, x);
      blas::axpby_each(zero, xs, zero, xs);
    }
  };
  // rs = D^dag (b - D x) from the latest true residual, in the sloppy precision; returns |rs_r|^2.
  auto normal_residual = [&] {
    if constexpr (same_precision) {
      op.apply(rs, solve.residual(), -1);
    } else {
      op.apply(t, solve.residual(), -1);
      blas::copy(rs, t);
    }
    return blas::norm2_each(rs);
  };

  std::vector<double> r2 = solve.true_residual(x);
  std::vector<bool> done(un), broke(un);
  auto finish_if_converged = [&](std::size_t r) {
    if (done[r] || !solve.converged(r2, r)) return;
    done[r] = true;
    solve.settle(r, r2, SolverStatus::converged, "");
  };
  for (std::size_t r = 0; r < un; ++r) finish_if_converged(r);

  std::vector<double> rr = normal_residual();
  blas::axpby_each(one, rs, zero, p);
  std::vector<double> tol_n2 = solve.normal_targets(r2, rr);
  std::vector<double> max_rr = rr;

  for (int iter = 0; iter < params.max_iter && !std::all_of(done.begin(), done.end(), [](bool d) { return d; }); ++iter) {
    sop.apply(ap, p, 1);
    sop.apply(ap, ap, -1);
    const std::vector<double> pap = blas::rdot_each(p, ap);
    std::vector<double> alpha(un, 0.0), minus_alpha(un, 0.0);
    for (std::size_t r = 0; r < un; ++r) {
      if (done[r]) continue;
      if (!(pap[r] > 0.0) || !std::isfinite(pap[r])) {
        done[r] = broke[r] = true; // its true residual is taken with the others' at the end
        continue;
      }
      alpha[r] = rr[r] / pap[r];
      minus_alpha[r] = -alpha[r];
      ++res[r].iterations;
    }
    const std::vector<double> rr_new = blas::axpy_norm2_each(minus_alpha, ap, rs);
    // p = rs + beta p for the running systems, beta = rr_next / rr; frozen ones get p = 0, so alpha
    // p adds nothing.
    std::vector<double> beta(un, 0.0), one_or_zero(un, 0.0);
    auto next_direction = [&](const std::vector<double>& rr_next) {
      for (std::size_t r = 0; r < un; ++r) {
        if (done[r]) continue;
        beta[r] = rr_next[r] / rr[r];
        one_or_zero[r] = 1.0;
        rr[r] = rr_next[r];
        max_rr[r] = std::max(max_rr[r], rr[r]);
      }
    };
    const bool update = [&] {
      for (std::size_t r = 0; r < un; ++r)
        if (!done[r] && (rr_new[r] < tol_n2[r] || rr_new[r] < delta * delta * max_rr[r])) return true;
      return false;
    }();
    if (!update) {
      next_direction(rr_new);
      blas::axpy_zpbx_each(alpha, p, xs, one_or_zero, rs, beta); // xs += alpha p and the new p in one pass
      continue;
    }
    // Some system asks for its true residual: the block's (in one precision the normal residuals are
    // kept, so the other systems' iterations are untouched; mixed, they are replaced).
    blas::axpby_each(alpha, p, one, xs);
    accumulate();
    r2 = solve.true_residual(x);
    for (std::size_t r = 0; r < un; ++r) {
      finish_if_converged(r);
      if (!done[r] && rr_new[r] < tol_n2[r]) solve.tighten(tol_n2, r2, r);
    }
    if constexpr (same_precision) {
      next_direction(rr_new);
    } else {
      next_direction(normal_residual());
      for (std::size_t r = 0; r < un; ++r)
        if (!done[r]) max_rr[r] = rr[r];
    }
    blas::axpby_each(one_or_zero, rs, beta, p);
  }
  accumulate();
  r2 = solve.true_residual(x);
  for (std::size_t r = 0; r < un; ++r) {
    if (broke[r]) solve.settle(r, r2, SolverStatus::breakdown, "p^dag A p is not positive");
    else if (!done[r]) solve.settle(r, r2, SolverStatus::max_iterations, "iteration limit reached");
  }
  return solve.report();
}

/// Multi-RHS CG in the operator's own precision.
template <class Op>
std::vector<SolverResult> cg_normal_multi(const Op& op, typename Op::multi_vector_type& x, const typename Op::multi_vector_type& b,
                                          const SolverParams& params) {
  return cg_normal_multi(op, op, x, b, params);
}

} // namespace kqcd
