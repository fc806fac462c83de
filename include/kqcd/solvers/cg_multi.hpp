// Multi-right-hand-side CG: n independent systems D x_r = b_r on the normal equations, sharing the
// operator, so that every iteration applies D and D^dag to the whole block through the multi-RHS
// Dslash (one pass over the links for all right-hand sides). Each system has its own alpha and
// beta; a system whose true residual |b_r - D x_r| / |b_r| is below tol is frozen (alpha = 0)
// while the others go on. One precision; the operator provides multi_vector_type, create_multi(n)
// and apply(out, in, isign) on blocks.
#pragma once

#include <kqcd/ops/blas_multi.hpp>
#include <kqcd/solvers/block_residual.hpp>
#include <kqcd/solvers/solver.hpp>

#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace kqcd {

template <class Op>
std::vector<SolverResult> cg_normal_multi(const Op& op, typename Op::multi_vector_type& x,
                                          const typename Op::multi_vector_type& b, const SolverParams& params) {
  Kokkos::Timer timer;
  const int n = b.n_rhs();
  const auto un = std::size_t(n);
  std::vector<SolverResult> res(un);
  const detail::BlockTrueResidual<Op> truth(op, b, params.tol);
  const auto &target2 = truth.target2, &zero = truth.zero, &one = truth.one;

  auto t = op.create_multi(n, "cgm_t");
  auto rv = op.create_multi(n, "cgm_r");
  auto p = op.create_multi(n, "cgm_p");
  auto ap = op.create_multi(n, "cgm_ap");
  auto true_residual = [&]() { return truth(x, t, rv, res); };
  std::vector<double> r2 = true_residual();
  std::vector<bool> done(un);
  auto finish_if_converged = [&](std::size_t r) {
    if (done[r] || !(r2[r] <= target2[r])) return;
    done[r] = true;
    res[r].status = SolverStatus::converged;
    res[r].true_residual = truth.relative(r2, r);
    res[r].seconds = timer.seconds();
    res[r].message = "true residual below tolerance";
  };
  for (std::size_t r = 0; r < un; ++r) finish_if_converged(r);

  op.apply(t, rv, -1); // normal residual D^dag r
  blas::axpby_each(one, t, zero, p);
  std::vector<double> rr = blas::norm2_each(t), tol_n2(un);
  for (std::size_t r = 0; r < un; ++r) tol_n2[r] = r2[r] > 0 ? target2[r] * rr[r] / r2[r] : 0.0;
  auto& rs = t; // the normal residual lives in t from here on

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
    blas::axpby_each(alpha, p, one, x);
    blas::axpby_each(minus_alpha, ap, one, rs);
    std::vector<double> rr_new = blas::norm2_each(rs);
    const bool check = [&] {
      for (std::size_t r = 0; r < un; ++r)
        if (!done[r] && rr_new[r] < tol_n2[r]) return true;
      return false;
    }();
    if (check) {
      // The estimate says some system is done: compute the true residuals of the block (the rest
      // of the block's normal residuals are kept, so the other systems' iterations are untouched).
      auto keep = op.create_multi(n, "cgm_keep");
      blas::axpby_each(one, rs, zero, keep);
      r2 = true_residual();
      for (std::size_t r = 0; r < un; ++r) {
        finish_if_converged(r);
        if (!done[r] && rr_new[r] < tol_n2[r]) tol_n2[r] *= 0.5 * std::max(1e-4, target2[r] / r2[r]);
      }
      blas::axpby_each(one, keep, zero, rs);
    }
    std::vector<double> beta(un, 0.0), one_or_zero(un, 0.0);
    for (std::size_t r = 0; r < un; ++r) {
      if (done[r]) continue;
      beta[r] = rr_new[r] / rr[r];
      one_or_zero[r] = 1.0;
      rr[r] = rr_new[r];
    }
    blas::axpby_each(one_or_zero, rs, beta, p); // frozen systems: p = 0, so alpha p adds nothing
  }
  r2 = true_residual();
  for (std::size_t r = 0; r < un; ++r) {
    if (done[r]) continue;
    res[r].true_residual = truth.relative(r2, r);
    res[r].seconds = timer.seconds();
    res[r].status = r2[r] <= target2[r] ? SolverStatus::converged : SolverStatus::max_iterations;
    res[r].message = res[r].converged() ? "true residual below tolerance" : "iteration limit reached";
  }
  if (params.verbosity >= 1)
    for (int r = 0; r < n; ++r)
      std::fprintf(stderr, "[kqcd] %s multi-RHS CG system %d: %s after %d iterations, true residual %.3e\n",
                   params.label.c_str(), r, to_string(res[std::size_t(r)].status), res[std::size_t(r)].iterations,
                   res[std::size_t(r)].true_residual);
  return res;
}

} // namespace kqcd
