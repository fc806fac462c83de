// The 12 spin-colour solves of a quark propagator: for each source spin s and colour c,
// make_source(b, s, c) fills the full source field b, the even-odd Schur system of `op` is solved
// with CG on the normal equations, and the odd sites are reconstructed into column (s, c) of S.
// S is the mass-normalised D^-1 eta (conventions.md). on_solve(spin, colour, result) is called
// after each solve (progress lines, logs).
#pragma once

#include <kqcd/fields/propagator.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/operators.hpp>

#include <vector>

namespace kqcd {

/// Solves for the twelve spin-colour columns of a propagator from make_source.
template <class Op, class Real, class ES, class MakeSource, class OnSolve>
std::vector<SolverResult> solve_propagator(const Op& op, PropagatorField<Real, ES>& S, MakeSource&& make_source,
                                           const SolverParams& params, OnSolve&& on_solve) {
  if (!(S.lattice() == op.lattice())) throw invalid_argument("solve_propagator: propagator and operator live on different lattices");
  std::vector<SolverResult> results;
  typename PropagatorField<Real, ES>::field_type b(S.lattice(), "prop_source");
  auto b_hat = op.create_vector("prop_source_even");
  for (int spin = 0; spin < Ns; ++spin)
    for (int colour = 0; colour < Nc; ++colour) {
      make_source(b, spin, colour);
      op.prepare_source(b_hat, b);
      auto& x = S.column(spin, colour);
      auto x_e = op.create_vector("prop_solution_even");
      SolverParams p = params;
      p.label = params.label + " s" + std::to_string(spin) + "c" + std::to_string(colour);
      results.push_back(cg_normal(op, x_e, b_hat, p));
      op.reconstruct(x, x_e, b);
      on_solve(spin, colour, results.back());
    }
  return results;
}

/// Solves for the twelve spin-colour columns of a propagator from make_source.
template <class Op, class Real, class ES, class MakeSource>
std::vector<SolverResult> solve_propagator(const Op& op, PropagatorField<Real, ES>& S, MakeSource&& make_source,
                                           const SolverParams& params) {
  return solve_propagator(op, S, make_source, params, [](int, int, const SolverResult&) {});
}

} // namespace kqcd
