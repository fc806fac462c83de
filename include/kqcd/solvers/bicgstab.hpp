// BiCGStab on D x = b (for the even-odd preconditioned operator), in one precision or mixed with
// reliable updates as in cg.hpp: the Krylov loop runs in the sloppy precision and the true
// residual is recomputed in the outer precision when the iterated one has fallen by
// reliable_delta and before convergence is declared.
#pragma once

#include <kqcd/core/profile.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/outer_residual.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace kqcd {

/// Mixed-precision BiCGStab for op x = b, with sloppy operator sop and reliable updates.
template <class Op, class SloppyOp>
SolverResult bicgstab(const Op& op, const SloppyOp& sop, typename Op::vector_type& x, const typename Op::vector_type& b,
                      const SolverParams& params) {
  ProfileScope prof("kqcd::bicgstab");
  auto compute = prof.phase(ProfilePhase::compute); // work vectors are allocated inside
  using cplx = Kokkos::complex<double>;
  SolverResult res;
  constexpr bool same_precision = std::is_same_v<typename Op::vector_type, typename SloppyOp::vector_type>;
  const double delta = same_precision ? 0.0 : params.reliable_delta;
  detail::OuterResidual<Op> outer(op, b, params, "BiCGStab", res);
  const double b2 = outer.b2(), target2 = outer.target2();
  auto finish = [&](SolverStatus st, double r2, const std::string& why) { return outer.finish(st, r2, why); };
  double r2_true;
  if (auto done = outer.start(x, r2_true)) return *done;
  auto& r = outer.r();
  auto& t = outer.t();
  auto true_residual = [&] { return outer.update(x); };

  auto rs = sop.create_vector("bicg_rs");
  auto r0 = sop.create_vector("bicg_r0");
  auto ps = sop.create_vector("bicg_p");
  auto vs = sop.create_vector("bicg_v");
  auto ts = sop.create_vector("bicg_t");
  auto xs = sop.create_vector("bicg_xs");
  blas::copy(rs, r);
  blas::copy(r0, rs);
  cplx rho(1.0), alpha(1.0), omega(1.0);
  double rr = blas::norm2(rs), max_rr = rr;

  auto reliable_update = [&]() {
    blas::copy(t, xs);
    blas::axpy(1.0, t, x);
    blas::zero(xs);
    r2_true = true_residual();
    blas::copy(rs, r);
    rr = blas::norm2(rs);
    max_rr = rr;
    detail::solver_progress(params, 2, "[kqcd] %s BiCGStab iteration %d: true residual %.3e\n", res.iterations,
                            std::sqrt(r2_true / b2));
  };

  while (res.iterations < params.max_iter) {
    const cplx rho_new = blas::cdot(r0, rs);
    if (Kokkos::abs(rho_new) <= 1e-30 * b2 || !std::isfinite(rho_new.real()))
      return finish(SolverStatus::breakdown, r2_true, "rho = <r0, r> vanished");
    const cplx beta = (rho_new / rho) * (alpha / omega);
    rho = rho_new;
    blas::cxpaypbz(rs, beta, ps, -beta * omega, vs, ps); // p = r + beta (p - omega v)
    sop.apply(vs, ps, 1);
    const cplx r0v = blas::cdot(r0, vs);
    if (Kokkos::abs(r0v) == 0.0) return finish(SolverStatus::breakdown, r2_true, "<r0, A p> vanished");
    alpha = rho / r0v;
    blas::caxpy(-alpha, vs, rs); // s = r - alpha v, kept in rs
    sop.apply(ts, rs, 1);
    const auto [ts_dot_s, tt] = blas::cdot_norm2(ts, rs);
    if (tt == 0.0) {
      blas::caxpy(alpha, ps, xs);
      ++res.iterations;
      reliable_update();
      if (r2_true <= target2) return finish(SolverStatus::converged, r2_true, "true residual below tolerance");
      return finish(SolverStatus::breakdown, r2_true, "A s vanished");
    }
    omega = ts_dot_s / tt;
    blas::cxpaypbz(xs, alpha, ps, omega, rs, xs); // x += alpha p + omega s
    rr = blas::caxpy_norm2(-omega, ts, rs);       // r = s - omega t
    ++res.iterations;
    if (!std::isfinite(rr)) return finish(SolverStatus::breakdown, r2_true, "residual is not finite");
    if (rr < target2 || rr < delta * delta * max_rr) {
      reliable_update();
      if (r2_true <= target2) return finish(SolverStatus::converged, r2_true, "true residual below tolerance");
    }
    max_rr = std::max(max_rr, rr);
  }
  reliable_update();
  if (r2_true <= target2) return finish(SolverStatus::converged, r2_true, "true residual below tolerance");
  return finish(SolverStatus::max_iterations, r2_true, "iteration limit " + std::to_string(params.max_iter) + " reached");
}

/// BiCGStab for op x = b in one precision (an operator handle: on the layout it chose).
template <class Op>
SolverResult bicgstab(const Op& op, typename Op::vector_type& x, const typename Op::vector_type& b,
                      const SolverParams& params) {
  if constexpr (detail::OperatorHandle<Op>)
    return op.visit([&](const auto& o, auto& xo, const auto& bo) { return bicgstab(o, xo, bo, params); }, x, b);
  else return bicgstab(op, op, x, b, params);
}

} // namespace kqcd
