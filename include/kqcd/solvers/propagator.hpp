// The 12 spin-colour solves of a quark propagator: for each source spin s and colour c,
// make_source(b, s, c) fills the full source field b, the even-odd Schur system of `op` is solved
// (with CG on the normal equations, or a given solver: multigrid), and the odd sites are
// reconstructed into column (s, c) of S.
// S is the mass-normalised D^-1 eta (conventions.md). on_solve(spin, colour, result) is called
// after each solve (progress lines, logs).
#pragma once

#include <kqcd/fields/propagator.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/operators.hpp>

#include <vector>

namespace kqcd {

/// Solves for the twelve spin-colour columns of a propagator from make_source, each even-odd system
/// by solve(x_e, b_hat, params) (returning its SolverResult; x_e zero on entry).
template <class Op, class Real, class ES, class MakeSource, class Solve, class OnSolve>
std::vector<SolverResult> solve_propagator_with(const Op& op, PropagatorField<Real, ES>& S, MakeSource&& make_source, Solve&& solve,
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
      results.push_back(solve(x_e, b_hat, p));
      op.reconstruct(x, x_e, b);
      on_solve(spin, colour, results.back());
    }
  return results;
}

/// Solves for the twelve spin-colour columns of a propagator from make_source (CG on the normal
/// equations of each even-odd system).
template <class Op, class Real, class ES, class MakeSource, class OnSolve>
std::vector<SolverResult> solve_propagator(const Op& op, PropagatorField<Real, ES>& S, MakeSource&& make_source,
                                           const SolverParams& params, OnSolve&& on_solve) {
  return solve_propagator_with(
      op, S, make_source, [&](auto& x, const auto& b, const SolverParams& p) { return cg_normal(op, x, b, p); }, params, on_solve);
}

/// Solves for the twelve spin-colour columns of a propagator from make_source.
template <class Op, class Real, class ES, class MakeSource>
std::vector<SolverResult> solve_propagator(const Op& op, PropagatorField<Real, ES>& S, MakeSource&& make_source,
                                           const SolverParams& params) {
  return solve_propagator(op, S, make_source, params, [](int, int, const SolverResult&) {});
}

/// The domain-wall propagator (DomainWallOperator, conventions.md): for each of the twelve
/// spin-colour columns, the 4D source make_source(eta, spin, colour), the 5D system D5 Psi =
/// D_- [delta_{s,0} P+ eta + delta_{s,Ls-1} P- eta] solved by CG on the 4D even-odd normal equations
/// with the sloppy operator sop (mixed precision with reliable updates; sop = op: one precision),
/// then the quark field S = P- Psi(0) + P+ Psi(Ls-1) and the midpoint field of the residual mass
/// mid = P+ Psi(Ls/2-1) + P- Psi(Ls/2) (Ls even; mid == nullptr: not kept). on_solve(spin, colour,
/// result) after each solve.
template <class Op, class SloppyOp, class Real, class ES, class MakeSource, class OnSolve>
std::vector<SolverResult> solve_domain_wall_propagator(const Op& op, const SloppyOp& sop, PropagatorField<Real, ES>& S,
                                                       PropagatorField<Real, ES>* mid, MakeSource&& make_source,
                                                       const SolverParams& params, OnSolve&& on_solve) {
  if (!(S.lattice() == op.lattice()) || (mid && !(mid->lattice() == op.lattice())))
    throw invalid_argument("solve_domain_wall_propagator: propagator and operator live on different lattices");
  const int Ls = op.Ls();
  if (mid && Ls % 2 != 0) throw invalid_argument("solve_domain_wall_propagator: the midpoint field needs an even Ls, found " + std::to_string(Ls));
  std::vector<SolverResult> results;
  typename PropagatorField<Real, ES>::field_type eta(S.lattice(), "dwf_source");
  auto b_e = op.create_spinor(0, "dwf_b_even"), b_o = op.create_spinor(1, "dwf_b_odd"), b_hat = op.create_vector("dwf_b_hat");
  auto x_e = op.create_vector("dwf_x_even"), x_o = op.create_spinor(1, "dwf_x_odd");
  for (int spin = 0; spin < Ns; ++spin)
    for (int colour = 0; colour < Nc; ++colour) {
      make_source(eta, spin, colour);
      op.source(b_e, b_o, eta);
      op.prepare_source(b_hat, b_e, b_o);
      blas::zero(x_e);
      SolverParams p = params;
      p.label = params.label + " s" + std::to_string(spin) + "c" + std::to_string(colour);
      results.push_back(cg_normal(op, sop, x_e, b_hat, p));
      op.reconstruct(x_o, x_e, b_o);
      op.walls(S.column(spin, colour), x_e, x_o);
      if (mid) op.walls(mid->column(spin, colour), x_e, x_o, Ls / 2, Ls / 2 - 1);
      on_solve(spin, colour, results.back());
    }
  return results;
}

} // namespace kqcd
