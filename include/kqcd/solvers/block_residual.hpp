// What the block solvers (cg_multi.hpp, block_cg.hpp) share: for a block of systems D x_r = b_r,
// |b_r|^2, the targets tol^2 |b_r|^2, the per-system coefficient vectors 0, 1, -1 of the block
// updates, and the true residual rv = b - D x (through the work block t), counted as a residual
// update of every system.
#pragma once

#include <kqcd/ops/blas_multi.hpp>
#include <kqcd/solvers/solver.hpp>

#include <cmath>
#include <vector>

namespace kqcd::detail {

template <class Op> struct BlockTrueResidual {
  using block_type = typename Op::multi_vector_type;
  BlockTrueResidual(const Op& op_, const block_type& b_, double tol)
      : op(op_), b(b_), b2(blas::norm2_each(b_)), target2(b2.size()), zero(b2.size(), 0.0), one(b2.size(), 1.0),
        minus_one(b2.size(), -1.0) {
    for (std::size_t r = 0; r < b2.size(); ++r) target2[r] = tol * tol * b2[r];
  }
  /// rv = b - D x (t is overwritten); returns |rv_r|^2.
  std::vector<double> operator()(const block_type& x, block_type& t, block_type& rv, std::vector<SolverResult>& res) const {
    op.apply(t, x, 1);
    blas::axpby_each(one, b, zero, rv);
    blas::axpby_each(minus_one, t, one, rv);
    for (auto& s : res) ++s.residual_updates;
    return blas::norm2_each(rv);
  }
  /// |b_r - D x_r| / |b_r| from |rv_r|^2.
  double relative(const std::vector<double>& r2, std::size_t r) const { return b2[r] > 0 ? std::sqrt(r2[r] / b2[r]) : 0.0; }

  const Op& op;
  const block_type& b;
  std::vector<double> b2, target2, zero, one, minus_one;
};

} // namespace kqcd::detail
