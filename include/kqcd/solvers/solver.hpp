// Parameters and results shared by the Krylov solvers.
#pragma once

#include <cstdio>
#include <string>

namespace kqcd {

/// Tolerance and iteration limits of a solve.
struct SolverParams {
  double tol = 1e-10;          ///< target |b - D x| / |b|, checked on the true residual in the outer precision
  int max_iter = 10000;        ///< iterations of the (sloppy) Krylov loop
  double reliable_delta = 0.1; ///< mixed precision: recompute the true residual when |r| fell by this factor
  int verbosity = 0;           ///< 0 silent; 1 a summary line; 2 also every true-residual update (stderr)
  /// Name in profiles and logs.
  std::string label = "solver";
};

/// How a solve ended.
enum class SolverStatus { converged, max_iterations, breakdown };

/// Name of status s.
inline const char* to_string(SolverStatus s) {
  switch (s) {
  case SolverStatus::converged: return "converged";
  case SolverStatus::max_iterations: return "not converged: iteration limit reached";
  case SolverStatus::breakdown: return "not converged: breakdown";
  }
  return "unknown";
}

/// Outcome of a solve: status, iterations, residual.
struct SolverResult {
  /// How the solve ended.
  SolverStatus status = SolverStatus::max_iterations;
  int iterations = 0;             ///< Krylov iterations
  int residual_updates = 0;       ///< true-residual (reliable) updates
  double true_residual = 0.0;     ///< |b - D x| / |b| computed in the outer precision at the end
  /// Wall-clock seconds of the solve.
  double seconds = 0.0;
  std::string message;            ///< why it stopped, in words
  /// Whether the solve converged.
  bool converged() const { return status == SolverStatus::converged; }
};

namespace detail {
/// An operator handle over layouts (stencil/operator_handle.hpp): solvers visit the layout's
/// operator and vectors once per solve and run on their own types.
template <class Op> concept OperatorHandle = requires { requires Op::operator_handle; };

inline void solver_progress(const SolverParams& p, int level, const char* fmt, int iter, double res) {
  if (p.verbosity >= level) std::fprintf(stderr, fmt, p.label.c_str(), iter, res);
}
} // namespace detail

} // namespace kqcd
