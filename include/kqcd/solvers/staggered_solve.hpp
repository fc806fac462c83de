// M x = b for staggered fermions (stencil/staggered.hpp) through the even-odd system: CG on
// A x_e = 2m b_e - D_eo b_o with A = 4m^2 - D_eo D_oe, then x_o = (b_o - D_oe x_e) / 2m. The
// tolerance is on the even-site system's true residual.
#pragma once

#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/staggered.hpp>

namespace kqcd {

/// Solves M x = b (both parities); x's even sites are the initial guess.
template <class Real, class ES, class Layout>
SolverResult staggered_solve(const StaggeredEvenOddOperator<Real, ES, Layout>& op,
                             typename StaggeredEvenOddOperator<Real, ES, Layout>::field_type& x,
                             const typename StaggeredEvenOddOperator<Real, ES, Layout>::field_type& b, const SolverParams& params) {
  auto be = op.create_vector("staggered_be");
  op.prepare(be, b);
  const SolverResult res = cg(op, x[0], be, params);
  op.reconstruct(x, b);
  return res;
}

} // namespace kqcd
