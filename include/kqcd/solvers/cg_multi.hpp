// Multi-right-hand-side CG: n independent systems D x_r = b_r on the normal equations, sharing the
// operator, so that every iteration applies D and D^dag to the whole block through the multi-RHS
// Dslash (one pass over the links for all right-hand sides). Each system has its own alpha and
// beta; a system whose true residual |b_r - D x_r| / |b_r| is below tol is frozen (alpha = 0)
// while the others go on. One precision; the operator provides multi_vector_type, create_multi(n)
// and apply(out, in, isign) on blocks.
#pragma once

#include <kqcd/ops/blas_multi.hpp>
#include <kqcd/solvers/block_solve.hpp>
#include <kqcd/solvers/solver.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace kqcd {

template <class Op>
std::vector<SolverResult> cg_normal_multi(const Op& op, typename Op::multi_vector_type& x,
                                          const typename Op::multi_vector_type& b, const SolverParams& params) {
  detail::BlockSolve<Op> solve(op, b, params, "multi-RHS CG");
  auto& res = solve.res;
  const auto &zero = solve.zero, &one = solve.one;
  const int n = b.n_rhs();
  const auto un = std::size_t(n);

  auto rs = op.create_multi(n, "cgm_rs");
  auto p = op.create_multi(n, "cgm_p");
  auto ap = op.create_multi(n, "cgm_ap");
  std::vector<double> r2 = solve.true_residual(x);
  std::vector<bool> done(un);
  auto finish_if_converged = [&](std::size_t r) {
    if (done[r] || !solve.converged(r2, r)) return;
    done[r] = true;
    solve.settle(r, r2, SolverStatus::converged, "");
  };
  for (std::size_t r = 0; r < un; ++r) finish_if_converged(r);

  op.apply(rs, solve.residual(), -1); // normal residual D^dag r
  blas::axpby_each(one, rs, zero, p);
  std::vector<double> rr = blas::norm2_each(rs);
  std::vector<double> tol_n2 = solve.normal_targets(r2, rr);

  for (int iter = 0; iter < params.max_iter && !std::all_of(done.begin(), done.end(), [](bool d) { return d; }); ++iter) {
    op.apply(ap, p, 1);
    op.apply(ap, ap, -1);
    const std::vector<double> pap = blas::rdot_each(p, ap);
    std::vector<double> alpha(un, 0.0), minus_alpha(un, 0.0);
    for (std::size_t r = 0; r < un; ++r) {
      if (done[r]) continue;
      if (!(pap[r] > 0.0) || !std::isfinite(pap[r])) {
        done[r] = true;
        res[r].status = SolverStatus::breakdown;
        res[r].message = "p^dag A p is not positive";
        continue;
      }
      alpha[r] = rr[r] / pap[r];
      minus_alpha[r] = -alpha[r];
      ++res[r].iterations;
    }
    const std::vector<double> rr_new = blas::axpy_norm2_each(minus_alpha, ap, rs);
    // p = rs + beta p for the running systems; frozen ones get p = 0, so alpha p adds nothing.
    auto next_direction = [&](std::vector<double>& beta, std::vector<double>& one_or_zero) {
      for (std::size_t r = 0; r < un; ++r) {
        if (done[r]) continue;
        beta[r] = rr_new[r] / rr[r];
        one_or_zero[r] = 1.0;
        rr[r] = rr_new[r];
      }
    };
    std::vector<double> beta(un, 0.0), one_or_zero(un, 0.0);
    const bool check = [&] {
      for (std::size_t r = 0; r < un; ++r)
        if (!done[r] && rr_new[r] < tol_n2[r]) return true;
      return false;
    }();
    if (!check) {
      next_direction(beta, one_or_zero);
      blas::axpy_zpbx_each(alpha, p, x, one_or_zero, rs, beta); // x += alpha p and the new p in one pass
      continue;
    }
    // The estimate says some system is done: the true residuals of the block (the normal residuals
    // are kept, so the other systems' iterations are untouched).
    blas::axpby_each(alpha, p, one, x);
    r2 = solve.true_residual(x);
    for (std::size_t r = 0; r < un; ++r) {
      finish_if_converged(r);
      if (!done[r] && rr_new[r] < tol_n2[r]) solve.tighten(tol_n2, r2, r);
    }
    next_direction(beta, one_or_zero);
    blas::axpby_each(one_or_zero, rs, beta, p);
  }
  r2 = solve.true_residual(x);
  for (std::size_t r = 0; r < un; ++r)
    if (!done[r]) solve.settle(r, r2, SolverStatus::max_iterations, "iteration limit reached");
  return solve.report();
}

} // namespace kqcd
