// The choices of a multigrid solve (multigrid/multigrid.hpp), in a header of their own so that
// option parsers and records can hold them without the solver's kernels.
#pragma once

#include <kqcd/core/lattice.hpp>

#include <array>
#include <cstdint>

namespace kqcd::mg {

/// The choices of a multigrid solve.
struct MultigridParams {
  std::array<int, Nd> block{4, 4, 4, 4}; ///< Aggregate extents.
  int n_vec = 24; ///< Test vectors (2 n_vec coarse components per coarse site).
  int setup_sweeps = 0; ///< Smoother sweeps on D v = 0 per test vector, before the inverse iteration.
  int setup_iterations = 100; ///< CG iterations of inverse iteration on D v = 0 per test vector at most (a block of vectors at once).
  double setup_tol = 5e-6; ///< The inverse iteration stops where |D v| has fallen by this factor.
  int smoother_steps = 4; ///< MR steps per smoothing (before and after the coarse correction).
  double coarse_tol = 0.1; ///< Relative residual of the coarse solve.
  int coarse_max_iter = 200; ///< GCR iterations of the coarse solve at most.
  bool coarse_even_odd = true; ///< The coarsest level's GCR on its even-odd preconditioned operator where every coarse extent is even.
  std::uint64_t seed = 2024; ///< Seed of the random starting vectors.
  int verbosity = 0; ///< 1: progress lines on stderr during the setup.
  int levels = 2; ///< Levels, the fine one included (2 or more).
  std::array<int, Nd> coarse_block{2, 2, 2, 2}; ///< Aggregate extents on the coarse levels (three or more levels).
  int kcycle_max_iter = 8; ///< GCR iterations on an intermediate level per cycle at most (three or more levels).
};

} // namespace kqcd::mg
