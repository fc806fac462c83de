// Gamma matrices in the DeGrand-Rossi basis (conventions.md). Each g_mu has one non-zero entry
// per row: row s has i^code(mu, s) in column perm(mu, s). Kernels use these tables at compile time.
#pragma once

#include <kqcd/core/complex.hpp>

/// Gamma matrices in the DeGrand-Rossi basis.
namespace kqcd::gamma_dr {

/// Column of the non-zero entry of row s of g_{mu+1}.
inline constexpr int perm[4][4] = {{3, 2, 1, 0}, {3, 2, 1, 0}, {2, 3, 0, 1}, {2, 3, 0, 1}};
/// That entry as a power of i: 0 -> 1, 1 -> i, 2 -> -1, 3 -> -i.
inline constexpr int code[4][4] = {{1, 1, 3, 3}, {2, 0, 0, 2}, {1, 3, 3, 1}, {0, 0, 0, 0}};

/// The same tables for run-time indices in device code (CUDA cannot index a host constexpr array
/// with a run-time value).
KOKKOS_INLINE_FUNCTION constexpr int perm_at(int mu, int s) { return mu < 2 ? 3 - s : s ^ 2; }
/// The same as code, for run-time indices in device code.
KOKKOS_INLINE_FUNCTION constexpr int code_at(int mu, int s) {
  constexpr int t[4][4] = {{1, 1, 3, 3}, {2, 0, 0, 2}, {1, 3, 3, 1}, {0, 0, 0, 0}};
  return t[mu][s];
}
namespace detail {
constexpr bool tables_agree() {
  for (int mu = 0; mu < 4; ++mu)
    for (int s = 0; s < 4; ++s)
      if (perm_at(mu, s) != perm[mu][s] || code_at(mu, s) != code[mu][s]) return false;
  return true;
}
static_assert(tables_agree(), "perm_at/code_at must match perm/code");
} // namespace detail

/// gamma_5 = diag(1, 1, -1, -1): the sign of spin s.
KOKKOS_INLINE_FUNCTION constexpr int g5_sign(int s) { return s < 2 ? 1 : -1; }

} // namespace kqcd::gamma_dr
