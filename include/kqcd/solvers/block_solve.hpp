// What the block solvers (cg_multi.hpp, block_cg.hpp) share for a block of systems D x_r = b_r:
// the results, |b_r|^2 and the targets tol^2 |b_r|^2, the per-system coefficient vectors 0, 1, -1
// of the block updates, the true residual rv = b - D x (counted as a residual update of every
// system), the stop estimates on the normal residual scaled from it, how a system's result is
// settled, and the closing report.
#pragma once

#include <kqcd/linalg/blas_multi.hpp>
#include <kqcd/solvers/solver.hpp>

#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace kqcd::detail {

template <class Op> class BlockSolve {
  Kokkos::Timer timer_; // first: the solve's clock starts before anything else is set up

public:
  using block_type = typename Op::multi_vector_type;
  /// `name` labels the closing report ("multi-RHS CG", "block CG").
  BlockSolve(const Op& op, const block_type& b, const SolverParams& params, const char* name)
      : res(std::size_t(b.n_rhs())), b2(blas::norm2_each(b)), target2(b2.size()), zero(b2.size(), 0.0), one(b2.size(), 1.0),
        minus_one(b2.size(), -1.0), op_(op), b_(b), params_(params), name_(name), t_(op.create_multi(b.n_rhs(), "kqcd::block_t")),
        rv_(op.create_multi(b.n_rhs(), "kqcd::block_r")) {
    for (std::size_t r = 0; r < b2.size(); ++r) target2[r] = params.tol * params.tol * b2[r];
  }
  std::size_t size() const { return b2.size(); }
  /// rv = b - D x; returns |rv_r|^2.
  std::vector<double> true_residual(const block_type& x) {
    op_.apply(t_, x, 1);
    blas::axpby_each(one, b_, zero, rv_);
    blas::axpby_each(minus_one, t_, one, rv_);
    for (auto& s : res) ++s.residual_updates;
    return blas::norm2_each(rv_);
  }
  /// The residual of the latest true_residual().
  const block_type& residual() const { return rv_; }
  bool converged(const std::vector<double>& r2, std::size_t r) const { return r2[r] <= target2[r]; }
  /// Stop estimates on the normal residuals |s_r|^2 (= rs2[r]) that correspond to the targets on
  /// the true residuals |r_r|^2 = r2[r]: target2 |s|^2 / |r|^2.
  std::vector<double> normal_targets(const std::vector<double>& r2, const std::vector<double>& rs2) const {
    std::vector<double> t(size());
    for (std::size_t r = 0; r < size(); ++r) t[r] = r2[r] > 0 ? target2[r] * rs2[r] / r2[r] : 0.0;
    return t;
  }
  /// An estimate said system r was done and its true residual says not: a tighter estimate.
  void tighten(std::vector<double>& normal_target2, const std::vector<double>& r2, std::size_t r) const {
    normal_target2[r] *= 0.5 * std::max(1e-4, target2[r] / r2[r]);
  }
  /// System r ends: converged if its true residual is below the target, else `failed` with `why`.
  void settle(std::size_t r, const std::vector<double>& r2, SolverStatus failed, const char* why) {
    SolverResult& s = res[r];
    s.true_residual = b2[r] > 0 ? std::sqrt(r2[r] / b2[r]) : 0.0;
    s.seconds = timer_.seconds();
    s.status = converged(r2, r) ? SolverStatus::converged : failed;
    s.message = s.converged() ? "true residual below tolerance" : why;
  }
  /// A line per system on stderr (verbosity >= 1); returns the results.
  std::vector<SolverResult> report() const {
    if (params_.verbosity >= 1)
      for (std::size_t r = 0; r < size(); ++r)
        std::fprintf(stderr, "[kqcd] %s %s system %zu: %s after %d iterations, true residual %.3e\n", params_.label.c_str(),
                     name_, r, to_string(res[r].status), res[r].iterations, res[r].true_residual);
    return res;
  }

  std::vector<SolverResult> res;
  std::vector<double> b2, target2, zero, one, minus_one;

private:
  const Op& op_;
  const block_type& b_;
  const SolverParams& params_;
  const char* name_;
  block_type t_, rv_;
};

} // namespace kqcd::detail
