// Block CG (O'Leary 1980) on the normal equations D^dag D X = D^dag B for n right-hand sides that
// share one Krylov space, so the block needs fewer iterations than its slowest member alone. The
// n x n Hermitian positive definite systems of each iteration are solved on the host (Kokkos Kernels'
// batched LU where available, else kqcd's own elimination). Convergence is per system on the true
// residual |b_r - D x_r| / |b_r|; a block whose directions become linearly dependent stops.
#pragma once

#include <kqcd/build_info.hpp>
#include <kqcd/linalg/blas_multi.hpp>
#include <kqcd/solvers/block_solve.hpp>
#include <kqcd/solvers/solver.hpp>

#if KQCD_HAVE_KOKKOS_KERNELS
#include <KokkosBatched_InverseLU_Decl.hpp>
#include <KokkosBatched_LU_Decl.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <vector>

namespace kqcd {

/// The n x n solver block CG uses in this build.
inline constexpr const char* block_cg_dense_solver = KQCD_HAVE_KOKKOS_KERNELS ? "Kokkos Kernels batched LU" : "kqcd elimination";

namespace detail {
/// m^-1 b for an n x n Hermitian positive definite m (no pivoting); false if a pivot is not
/// clearly positive against m's diagonal (the block lost rank) or not finite.
inline bool block_solve(const blas::BlockMatrix& m, const blas::BlockMatrix& b, blas::BlockMatrix& out) {
  const int n = int(m.extent(0));
  blas::BlockMatrix a("kqcd::block_cg_lu", n, n);
  Kokkos::deep_copy(a, m);
  // An LU pivot of a Hermitian positive definite matrix is real and positive; a tiny one means the block lost rank.
  auto pivot_ok = [&](int k) { return a(k, k).real() > 1e-14 * Kokkos::abs(m(k, k)) && std::isfinite(a(k, k).real()); };
#if KQCD_HAVE_KOKKOS_KERNELS
  Kokkos::View<Kokkos::complex<double>*, Kokkos::HostSpace> work("kqcd::block_cg_work", std::size_t(n) * n);
  KokkosBatched::SerialLU<KokkosBatched::Algo::LU::Unblocked>::invoke(a);
  for (int k = 0; k < n; ++k)
    if (!pivot_ok(k)) return false;
  KokkosBatched::SerialInverseLU<KokkosBatched::Algo::InverseLU::Unblocked>::invoke(a, work);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      Kokkos::complex<double> s(0.0);
      for (int k = 0; k < n; ++k) s += a(i, k) * b(k, j);
      out(i, j) = s;
    }
#else
  // Gaussian elimination of [a | out], then back substitution.
  Kokkos::deep_copy(out, b);
  for (int k = 0; k < n; ++k) {
    if (!pivot_ok(k)) return false;
    for (int i = k + 1; i < n; ++i) {
      const Kokkos::complex<double> f = a(i, k) / a(k, k);
      for (int j = k; j < n; ++j) a(i, j) -= f * a(k, j);
      for (int j = 0; j < n; ++j) out(i, j) -= f * out(k, j);
    }
  }
  for (int i = n - 1; i >= 0; --i)
    for (int j = 0; j < n; ++j) {
      Kokkos::complex<double> s = out(i, j);
      for (int k = i + 1; k < n; ++k) s -= a(i, k) * out(k, j);
      out(i, j) = s / a(i, i);
    }
#endif
  return true;
}
} // namespace detail

/// Block CG on the normal equations for a block of right-hand sides.
template <class Op>
std::vector<SolverResult> block_cg_normal(const Op& op, typename Op::multi_vector_type& x,
                                          const typename Op::multi_vector_type& b, const SolverParams& params) {
  detail::BlockSolve<Op> solve(op, b, params, "block CG");
  auto& res = solve.res;
  const auto &zero = solve.zero, &one = solve.one;
  const int n = b.n_rhs();
  const auto un = std::size_t(n);

  auto t = op.create_multi(n, "bcg_t");
  auto rs = op.create_multi(n, "bcg_rs");
  auto p = op.create_multi(n, "bcg_p");
  auto q = op.create_multi(n, "bcg_q");
  auto all_converged = [&](const std::vector<double>& r2) {
    for (std::size_t r = 0; r < un; ++r)
      if (!solve.converged(r2, r)) return false;
    return true;
  };
  bool finished = false;
  auto finish = [&](const std::vector<double>& r2, SolverStatus failed, const char* why) {
    finished = true;
    for (std::size_t r = 0; r < un; ++r) solve.settle(r, r2, failed, why);
  };

  std::vector<double> r2 = solve.true_residual(x);
  if (all_converged(r2)) {
    finish(r2, SolverStatus::converged, "");
    return solve.report();
  }
  op.apply(rs, solve.residual(), -1); // the normal residual D^dag (b - D x)
  blas::axpby_each(one, rs, zero, p);
  blas::BlockMatrix g = blas::block_inner(rs, rs), alpha("kqcd::bcg_alpha", n, n), beta("kqcd::bcg_beta", n, n);
  // Stop estimates on the normal residual, scaled from the true one as in cg_normal_multi.
  std::vector<double> g_diag(un);
  for (std::size_t r = 0; r < un; ++r) g_diag[r] = g(r, r).real();
  std::vector<double> tol_n2 = solve.normal_targets(r2, g_diag);

  for (int iter = 0; iter < params.max_iter && !finished; ++iter) {
    op.apply(t, p, 1);
    op.apply(q, t, -1);
    const blas::BlockMatrix pq = blas::block_inner(p, q);
    if (!detail::block_solve(pq, g, alpha)) {
      finish(solve.true_residual(x), SolverStatus::breakdown, "block CG breakdown: P^dag A P is singular");
      break;
    }
    for (auto& s : res) ++s.iterations;
    blas::block_combine(x, x, p, alpha);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) alpha(i, j) = -alpha(i, j);
    blas::block_combine(rs, rs, q, alpha);
    const blas::BlockMatrix g_new = blas::block_inner(rs, rs);
    bool estimate_done = true;
    for (std::size_t r = 0; r < un; ++r) estimate_done = estimate_done && g_new(r, r).real() < tol_n2[r];
    detail::solver_progress(params, 2, "[kqcd] %s block CG iteration %d: largest normal residual^2 %.3e\n", iter + 1, [&] {
      double m = 0.0;
      for (int r = 0; r < n; ++r) m = std::max(m, g_new(r, r).real());
      return m;
    }());
    if (estimate_done) {
      r2 = solve.true_residual(x);
      if (all_converged(r2)) {
        finish(r2, SolverStatus::converged, "");
        break;
      }
      for (std::size_t r = 0; r < un; ++r)
        if (!solve.converged(r2, r)) solve.tighten(tol_n2, r2, r);
    }
    if (!detail::block_solve(g, g_new, beta)) {
      finish(solve.true_residual(x), SolverStatus::breakdown, "block CG breakdown: the residual block lost rank");
      break;
    }
    blas::block_combine(t, rs, p, beta); // P = R' + P beta, through t (p cannot be written while read)
    std::swap(p, t);
    g = g_new;
  }
  if (!finished) finish(solve.true_residual(x), SolverStatus::max_iterations, "iteration limit reached");
  return solve.report();
}

} // namespace kqcd
