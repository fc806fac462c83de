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

/// The same through a run-time handle (StaggeredEvenOddHandle, stencil/operator_handle.hpp: the
/// layout chosen when it was built) on plain fields x and b; x's even sites are the initial guess.
template <class Handle>
  requires detail::OperatorHandle<Handle> && requires(const Handle& h, typename Handle::vector_type& v, const typename Handle::field_type& f) {
    h.even_part(v, f);
  }
SolverResult staggered_solve(const Handle& op, typename Handle::field_type& x, const typename Handle::field_type& b, const SolverParams& params) {
  auto be = op.create_vector("staggered_be"), xe = op.create_vector("staggered_xe");
  op.prepare(be, b);
  op.even_part(xe, x);
  const SolverResult res = cg(op, xe, be, params);
  op.reconstruct(x, xe, b);
  return res;
}
} // namespace kqcd
