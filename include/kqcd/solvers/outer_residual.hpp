// What the single-right-hand-side Krylov solvers (cg.hpp, bicgstab.hpp) share: the source norm and
// the stopping target, the true residual r = b - D x in the outer precision, and the closing
// record with its summary line.
#pragma once

#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/solver.hpp>

#include <Kokkos_Timer.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace kqcd::detail {

template <class Op> class OuterResidual {
public:
  using vector_type = typename Op::vector_type;

  /// solver names the method in the summary line and the work vectors ("CG" -> "CG_r").
  OuterResidual(const Op& op, const vector_type& b, const SolverParams& params, const char* solver, SolverResult& res)
      : OuterResidual(op, b, params, solver, res, op.create_vector(std::string(solver) + "_r"), op.create_vector(std::string(solver) + "_t")) {}
  /// The same with the residual and work vectors r and t (handles to the caller's storage).
  OuterResidual(const Op& op, const vector_type& b, const SolverParams& params, const char* solver, SolverResult& res, const vector_type& r,
                const vector_type& t)
      : op_(op), b_(b), params_(params), solver_(solver), res_(res), b2_(blas::norm2(b)), target2_(params.tol * params.tol * b2_), r_(r),
        t_(t) {}

  double b2() const { return b2_; }
  /// |r|^2 at which the solve has converged.
  double target2() const { return target2_; }
  /// r = b - D x; returns |r|^2.
  double update(const vector_type& x) {
    op_.apply(t_, x, 1);
    blas::copy(r_, b_);
    blas::axpy(-1.0, t_, r_);
    ++res_.residual_updates;
    return blas::norm2(r_);
  }
  /// The solve's first true residual r = b - D x (|r|^2 into r2), or the closed record where nothing
  /// is left to do: a zero source (x = 0), or an initial guess that already solves the system.
  std::optional<SolverResult> start(vector_type& x, double& r2) {
    r2 = 0.0;
    if (b2_ == 0.0) {
      blas::zero(x);
      return finish(SolverStatus::converged, 0.0, "zero source");
    }
    r2 = update(x);
    if (r2 <= target2_) return finish(SolverStatus::converged, r2, "initial guess already solves the system");
    return std::nullopt;
  }
  /// The residual of the last update().
  vector_type& r() { return r_; }
  /// Work vector of the outer precision (free between updates).
  vector_type& t() { return t_; }

  /// Closes the record (status, relative true residual from |r|^2, time, reason) and prints the
  /// summary line at verbosity 1.
  SolverResult finish(SolverStatus st, double r2, const std::string& why) {
    res_.status = st;
    res_.true_residual = b2_ > 0 ? std::sqrt(r2 / b2_) : 0.0;
    res_.seconds = timer_.seconds();
    res_.message = why;
    if (params_.verbosity >= 1)
      std::fprintf(stderr, "[kqcd] %s %s: %s after %d iterations, true residual %.3e, %.3f s\n", params_.label.c_str(),
                   solver_.c_str(), to_string(st), res_.iterations, res_.true_residual, res_.seconds);
    return res_;
  }

private:
  Kokkos::Timer timer_; // first member: starts before the source norm
  const Op& op_;
  const vector_type& b_;
  const SolverParams& params_;
  std::string solver_;
  SolverResult& res_;
  double b2_, target2_;
  vector_type r_, t_;
};

} // namespace kqcd::detail
