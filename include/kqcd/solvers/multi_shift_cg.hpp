// Multi-shift CG: (A + sigma_s) x_s = b for every shift of a set in one Krylov space (Jegerlehner's
// recurrences, as MILC's ks_multicg and QUDA's multi-shift CG), A Hermitian positive definite and
// every sigma_s >= 0 relative to the smallest. The shifted systems' residuals stay collinear with the
// base system's (the smallest shift), r_s = zeta_s r, so one operator application per iteration
// serves every shift; a shift stops updating once |zeta_s r| reaches its own tolerance. The Krylov
// loop runs with the sloppy operator. Where that is of another precision, reliable updates (as QUDA's
// multi-shift CG) move the shifts' sloppy solutions into the outer precision and replace r by the
// base system's true residual whenever the iterated one has fallen by reliable_delta, so the base
// system reaches its tolerance in the shared loop (the other shifts keep the sloppy recurrences'
// drift, as their residuals are only inferred from the base system's). Each shift is
// then refined by CG on its own shifted operator in the outer precision (mixed precision with
// reliable updates where the two differ), starting from the multi-shift solution, so every result's
// true residual is checked in the outer precision.
//
// Operators provide vector_type, create_vector() and apply(out, in, isign) (Hermitian: isign ignored).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/linalg/blas.hpp>
#include <kqcd/solvers/cg.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd {

/// A + shift for an operator A: what a refinement solves for one shift.
template <class Op> class ShiftedOperator {
public:
  using vector_type = typename Op::vector_type; ///< A's vectors.
  /// A + shift (op outlives this).
  ShiftedOperator(const Op& op, double shift) : op_(&op), shift_(shift) {}
  /// A vector of A.
  vector_type create_vector(const std::string& label = "shifted_vector") const { return op_->create_vector(label); }
  /// out = (A + shift) in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    op_->apply(out, in, isign);
    blas::axpy(shift_, in, out);
  }
  /// The shift.
  double shift() const { return shift_; }

private:
  const Op* op_;
  double shift_;
};

/// Outcome of a multi-shift solve: each shift's (its status, the true residual of its own system,
/// the refinement's iterations and updates), and the shared Krylov loop's iterations.
struct MultiShiftResult {
  std::vector<SolverResult> shifts; ///< One per shift, in the order given.
  int iterations = 0;               ///< Iterations of the shared multi-shift loop.
  int residual_updates = 0;         ///< Reliable updates of the shared loop (mixed precision).
  double seconds = 0.0;             ///< Wall-clock seconds of the whole solve.
  /// Whether every shift converged.
  bool converged() const {
    return std::all_of(shifts.begin(), shifts.end(), [](const SolverResult& r) { return r.converged(); });
  }
};

/// (A + shifts[s]) x[s] = b for every s: the shared Krylov loop with sloppy operator sop (reliable
/// updates through op where sop is of another precision), then a CG refinement of each shift with op
/// (reliable updates likewise). x's contents are ignored (the multi-shift loop starts from zero).
/// params.tol applies to every shift unless tols gives one per shift. Shifts must be finite and at least -(the smallest eigenvalue of
/// A): the smallest is the base system, the others are >= it. refine = false leaves the shared
/// loop's solutions as they are (a caller that refines a combination of them itself); each shift's
/// result then reports the loop's iterated residual.
template <class Op, class SloppyOp>
MultiShiftResult multi_shift_cg(const Op& op, const SloppyOp& sop, std::vector<typename Op::vector_type>& x, const typename Op::vector_type& b,
                                const std::vector<double>& shifts, const SolverParams& params, std::vector<double> tols = {},
                                bool refine = true) {
  ProfileScope prof("kqcd::multi_shift_cg");
  const auto t0 = std::chrono::steady_clock::now();
  const int n = int(shifts.size());
  if (n == 0) throw invalid_argument("multi_shift_cg: no shifts");
  if (int(x.size()) != n)
    throw invalid_argument("multi_shift_cg: " + std::to_string(x.size()) + " solution vectors for " + std::to_string(n) + " shifts");
  if (tols.empty()) tols.assign(std::size_t(n), params.tol);
  if (int(tols.size()) != n) throw invalid_argument("multi_shift_cg: " + std::to_string(tols.size()) + " tolerances for " + std::to_string(n) + " shifts");
  constexpr bool mixed = !std::is_same_v<typename Op::vector_type, typename SloppyOp::vector_type>;
  for (int s = 0; s < n; ++s) {
    if (!std::isfinite(shifts[std::size_t(s)])) throw invalid_argument("multi_shift_cg: shift " + std::to_string(s) + " is not finite");
    if (!(tols[std::size_t(s)] > 0.0)) throw invalid_argument("multi_shift_cg: tolerance of shift " + std::to_string(s) + " must be positive");
  }
  const int base = int(std::min_element(shifts.begin(), shifts.end()) - shifts.begin());
  const double sigma0 = shifts[std::size_t(base)];
  MultiShiftResult out;
  out.shifts.resize(std::size_t(n));
  std::vector<double> iterated(std::size_t(n), 0.0); // each shift's |zeta_s r| / |b| when it stopped updating

  {
    auto compute = prof.phase(ProfilePhase::compute);
    // The shared loop, in the sloppy operator's precision.
    using SV = typename SloppyOp::vector_type;
    auto r = sop.create_vector("mscg_r"), ap = sop.create_vector("mscg_ap");
    blas::copy(r, b);
    const double b2 = blas::norm2(r);
    // xs: each shift's solution in the sloppy precision (mixed: its correction since the last
    // reliable update, which moves it into x).
    std::vector<SV> xs, ps;
    for (int s = 0; s < n; ++s) {
      xs.push_back(sop.create_vector("mscg_x"));
      ps.push_back(sop.create_vector("mscg_p"));
      blas::zero(xs.back());
      blas::copy(ps.back(), r);
      if constexpr (mixed) blas::zero(x[std::size_t(s)]);
    }
    std::optional<typename Op::vector_type> t; // mixed: the outer precision's work vector
    if constexpr (mixed) t.emplace(op.create_vector("mscg_t"));
    auto move_in = [&](std::size_t i) { // mixed: x_s += xs_s, xs_s = 0
      blas::copy(*t, xs[i]);
      blas::axpy(1.0, *t, x[i]);
      blas::zero(xs[i]);
    };
    // zeta_s at k (z), k - 1 (z_old) and k + 1 (z_new); alpha and beta of the base system at k - 1.
    std::vector<double> z(std::size_t(n), 1.0), z_old(std::size_t(n), 1.0), z_new(std::size_t(n), 1.0);
    std::vector<double> step(std::size_t(n), 0.0); // alpha_s = alpha zeta_s(k + 1) / zeta_s(k)
    // A shift is done once its iterated residual |zeta_s r| reaches its tolerance; a done shift stops
    // updating, except the base system, which drives the loop while any shift goes on.
    std::vector<bool> done(std::size_t(n), !(b2 > 0.0));
    auto updating = [&](int s) { return s == base || !done[std::size_t(s)]; };
    double rr = b2, alpha_old = 1.0, beta_old = 0.0, max_rr = b2;
    std::vector<SV*> p_on, x_on; // each iteration's updating shifts and their coefficients
    std::vector<double> a_on, b_on, z_on;
    while (std::find(done.begin(), done.end(), false) != done.end() && out.iterations < params.max_iter) {
      // The base system's step: ap = (A + sigma0) p_base.
      const SV& pb = ps[std::size_t(base)];
      sop.apply(ap, pb, 1);
      if (sigma0 != 0.0) blas::axpy(sigma0, pb, ap);
      const double pap = blas::rdot(pb, ap);
      if (!(pap > 0.0) || !std::isfinite(pap)) break; // reported per shift by the refinement below
      const double alpha = rr / pap;
      // Each shift's zeta at k + 1 and its step alpha_s.
      for (int s = 0; s < n; ++s) {
        const std::size_t i = std::size_t(s);
        if (!updating(s)) continue;
        if (s != base) {
          const double d = shifts[i] - sigma0;
          const double den = alpha * beta_old * (z_old[i] - z[i]) + z_old[i] * alpha_old * (1.0 + alpha * d);
          z_new[i] = den != 0.0 ? z[i] * z_old[i] * alpha_old / den : 0.0;
        }
        step[i] = z[i] != 0.0 ? alpha * z_new[i] / z[i] : 0.0;
      }
      double rr_new = blas::axpy_norm2(-alpha, ap, r);
      ++out.iterations;
      if (!std::isfinite(rr_new)) break;
      // A reliable update: the solutions (x_s += alpha_s p_s first) move into the outer precision
      // and r becomes the base system's true residual b - (A + sigma0) x_base; the other shifts keep
      // r_s = zeta_s r. The directions then take the new r.
      const bool reliable = mixed && rr_new < params.reliable_delta * params.reliable_delta * max_rr;
      if constexpr (mixed) {
        if (reliable) {
          for (int s = 0; s < n; ++s)
            if (updating(s)) {
              blas::axpy(step[std::size_t(s)], ps[std::size_t(s)], xs[std::size_t(s)]);
              move_in(std::size_t(s));
            }
          ShiftedOperator<Op>(op, sigma0).apply(*t, x[std::size_t(base)]);
          blas::axpby(1.0, b, -1.0, *t);
          blas::copy(r, *t);
          rr_new = blas::norm2(r);
          max_rr = rr_new;
          ++out.residual_updates;
          detail::solver_progress(params, 2, "[kqcd] %s multi-shift CG iteration %d: base true residual %.3e\n", out.iterations,
                                  std::sqrt(rr_new / b2));
        }
        max_rr = std::max(max_rr, rr_new);
      }
      const double beta = rr_new / rr;
      // The shifts that go on take x_s += alpha_s p_s and p_s = zeta_s r + beta_s p_s in one pass;
      // one that has just reached its tolerance takes only its last solution step.
      p_on.clear();
      x_on.clear();
      a_on.clear();
      b_on.clear();
      z_on.clear();
      for (int s = 0; s < n; ++s) {
        const std::size_t i = std::size_t(s);
        if (!updating(s)) continue;
        // |r_s| = |zeta_s| |r|.
        if (z_new[i] * z_new[i] * rr_new <= tols[i] * tols[i] * b2 && !done[i]) {
          done[i] = true;
          iterated[i] = std::abs(z_new[i]) * std::sqrt(rr_new / b2);
        }
        const double zr = z[i] != 0.0 ? z_new[i] / z[i] : 0.0;
        z_old[i] = z[i];
        z[i] = z_new[i];
        if (updating(s)) {
          p_on.push_back(&ps[i]);
          x_on.push_back(&xs[i]);
          a_on.push_back(reliable ? 0.0 : step[i]); // a reliable update has taken the step
          b_on.push_back(beta * zr * zr);
          z_on.push_back(z_new[i]);
        } else if (!reliable) {
          blas::axpy(step[i], ps[i], xs[i]); // its direction is no longer needed
        }
      }
      blas::axpy_zpbx_shifts(a_on, p_on, x_on, r, b_on, z_on);
      detail::solver_progress(params, 2, "[kqcd] %s multi-shift CG iteration %d: base residual %.3e\n", out.iterations,
                              std::sqrt(rr_new / b2));
      rr = rr_new;
      alpha_old = alpha;
      beta_old = beta;
    }
    for (int s = 0; s < n; ++s) {
      const std::size_t i = std::size_t(s);
      if constexpr (mixed) move_in(i);
      else blas::copy(x[i], xs[i]);
      if (updating(s) && b2 > 0.0) iterated[i] = std::abs(z[i]) * std::sqrt(rr / b2); // the base's and the unfinished ones' now
      if (!refine) {
        SolverResult& res = out.shifts[i];
        res.status = done[i] ? SolverStatus::converged : SolverStatus::max_iterations;
        res.true_residual = iterated[i];
        res.message = done[i] ? "iterated residual below tolerance (not refined)" : "iteration limit or breakdown of the shared loop (not refined)";
      }
    }
  }

  // Each shift refined (and its true residual checked) in the outer precision.
  for (int s = 0; s < n && refine; ++s) {
    const std::size_t i = std::size_t(s);
    SolverParams p = params;
    p.tol = tols[i];
    p.label = params.label + " shift " + std::to_string(s);
    out.shifts[i] = cg(ShiftedOperator<Op>(op, shifts[i]), ShiftedOperator<SloppyOp>(sop, shifts[i]), x[i], b, p);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (params.verbosity >= 1)
    std::fprintf(stderr, "[kqcd] %s multi-shift CG: %d shifts, %d shared iterations, %s (%.3f s)\n", params.label.c_str(), n,
                 out.iterations, out.converged() ? "all converged" : "not all converged", out.seconds);
  return out;
}

/// Multi-shift CG in the operator's own precision.
template <class Op>
MultiShiftResult multi_shift_cg(const Op& op, std::vector<typename Op::vector_type>& x, const typename Op::vector_type& b,
                                const std::vector<double>& shifts, const SolverParams& params, std::vector<double> tols = {}) {
  return multi_shift_cg(op, op, x, b, shifts, params, std::move(tols), true);
}

} // namespace kqcd
