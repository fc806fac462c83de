// M x = b for staggered fermions (stencil/staggered.hpp) through the even-odd system: CG on
// A x_e = 2m b_e - D_eo b_o with A = 4m^2 - D_eo D_oe, then x_o = (b_o - D_oe x_e) / 2m. The
// tolerance is on the even-site system's true residual. Several masses of the same links at once:
// A_i = A + 4 (m_i^2 - m^2) are shifts of one operator, solved by multi-shift CG.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/multi_shift_cg.hpp>
#include <kqcd/stencil/staggered.hpp>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

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

/// M_i x[i] = b for each mass m_i of `masses` (both parities; x's contents are ignored), the
/// operators of op's links: the even-site sources 2 m_i b_e - D_eo b_o are 2 m_i b_e plus a part
/// common to every mass, each solved for all masses by one multi-shift CG (the second only where b
/// has odd sites) with the sloppy operator sop; each mass's even-site system is then refined once
/// by CG (reliable updates where sop is of another precision) to params.tol on its true residual,
/// and its odd sites reconstructed. The results are per mass (iterations: its refinement's); the
/// total's iterations and reliable updates: the shared loops'.
template <class Op, class SloppyOp>
MultiShiftResult staggered_multi_mass_solve(const Op& op, const SloppyOp& sop, std::vector<typename Op::field_type>& x,
                                            const typename Op::field_type& b, const std::vector<double>& masses, const SolverParams& params) {
  const int n = int(masses.size());
  if (n == 0) throw invalid_argument("staggered multi-mass solve: no masses");
  if (int(x.size()) != n)
    throw invalid_argument("staggered multi-mass solve: " + std::to_string(x.size()) + " solutions for " + std::to_string(n) + " masses");
  std::vector<double> shifts;
  for (const double m : masses) {
    if (!(m > 0.0)) throw invalid_argument("staggered multi-mass solve: masses must be positive, found " + std::to_string(m));
    shifts.push_back(4.0 * (m * m - op.mass() * op.mass()));
  }
  // A_i y_i = b_e and A_i z_i = -D_eo b_o, so that x_e = 2 m_i y_i + z_i: both parts unrefined, each
  // mass refined once, as their sum.
  using V = typename Op::vector_type;
  auto solve_all = [&](const V& source) {
    std::vector<V> parts;
    for (int i = 0; i < n; ++i) parts.push_back(op.create_vector("staggered_part"));
    const MultiShiftResult shared = multi_shift_cg(op, sop, parts, source, shifts, params, {}, false);
    return std::tuple(std::move(parts), shared.iterations, shared.residual_updates);
  };
  auto [y, total_iterations, total_updates] = solve_all(b[0]);
  auto c = op.create_vector("staggered_c");
  op.prepare(c, b, 0.0);
  const bool odd_source = blas::norm2(c) > 0.0;
  std::vector<V> z;
  if (odd_source) {
    auto [parts, iterations, updates] = solve_all(c);
    z = std::move(parts);
    total_iterations += iterations;
    total_updates += updates;
  }
  MultiShiftResult total;
  total.iterations = total_iterations;
  total.residual_updates = total_updates;
  total.shifts.resize(std::size_t(n));
  auto be = op.create_vector("staggered_be");
  for (int i = 0; i < n; ++i) {
    const std::size_t k = std::size_t(i);
    blas::zero(x[k][0]);
    blas::axpy(2 * masses[k], y[k], x[k][0]);
    if (odd_source) blas::axpy(1.0, z[k], x[k][0]);
    op.prepare(be, b, masses[k]);
    SolverParams p = params;
    p.label = params.label + " mass " + std::to_string(masses[k]);
    total.shifts[k] = cg(ShiftedOperator<Op>(op, shifts[k]), ShiftedOperator<SloppyOp>(sop, shifts[k]), x[k][0], be, p);
    op.reconstruct(x[k], b, masses[k]);
  }
  return total;
}

/// The same in the operator's own precision.
template <class Real, class ES, class Layout>
MultiShiftResult staggered_multi_mass_solve(const StaggeredEvenOddOperator<Real, ES, Layout>& op,
                                            std::vector<typename StaggeredEvenOddOperator<Real, ES, Layout>::field_type>& x,
                                            const typename StaggeredEvenOddOperator<Real, ES, Layout>::field_type& b,
                                            const std::vector<double>& masses, const SolverParams& params) {
  return staggered_multi_mass_solve(op, op, x, b, masses, params);
}

/// M_i x_i = b for every mass of `masses` through a run-time staggered handle (one dispatch), b and
/// the x_i plain colour-vector fields; in the handle's layout as staggered_multi_mass_solve above.
template <class Handle>
  requires detail::OperatorHandle<Handle> && requires(const Handle& h, typename Handle::vector_type& v, const typename Handle::field_type& f) {
    h.even_part(v, f);
  }
MultiShiftResult staggered_multi_mass_solve(const Handle& op, std::vector<typename Handle::field_type>& x, const typename Handle::field_type& b,
                                            const std::vector<double>& masses, const SolverParams& params) {
  if (x.size() != masses.size())
    throw invalid_argument("staggered multi-mass solve: " + std::to_string(x.size()) + " solutions for " + std::to_string(masses.size()) + " masses");
  return op.visit([&](const auto& A) {
    using F = typename std::decay_t<decltype(A)>::field_type;
    if constexpr (std::is_same_v<F, typename Handle::field_type>) {
      return staggered_multi_mass_solve(A, x, b, masses, params);
    } else {
      F bl = A.create_field("staggered_mass_b");
      to_simd(bl, b);
      std::vector<F> xl;
      for (std::size_t i = 0; i < masses.size(); ++i) xl.push_back(A.create_field("staggered_mass_x"));
      const MultiShiftResult r = staggered_multi_mass_solve(A, xl, bl, masses, params);
      for (std::size_t i = 0; i < masses.size(); ++i) from_simd(x[i], xl[i]);
      return r;
    }
  });
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
