// The 16 elements of the Clifford basis in the DeGrand-Rossi basis (conventions.md):
// Gamma(n) = g1^n0 g2^n1 g3^n2 g4^n3, n = n0 + 2 n1 + 4 n2 + 8 n3 (Gamma(15) = g5, Gamma(8) = g4).
// Each Gamma(n) has one non-zero entry per row: row s has i^code[n][s] in column perm[n][s].
// The tables are built at compile time from the g_mu tables of gamma.hpp.
#pragma once

#include <kqcd/core/gamma.hpp>

namespace kqcd {

/// Non-zero entries of the 16 gamma-basis matrices, as perm and code of gamma.hpp.
struct GammaBasisTable {
  int perm[16][4]; ///< column of the non-zero entry of each row
  int code[16][4]; ///< that entry as a power of i
};

namespace detail {
constexpr GammaBasisTable make_gamma_basis() {
  GammaBasisTable t{};
  for (int n = 0; n < 16; ++n) {
    int p[4] = {0, 1, 2, 3}, c[4] = {0, 0, 0, 0}; // the identity
    for (int mu = 0; mu < 4; ++mu) {
      if (!((n >> mu) & 1)) continue;
      // (A g)_{s, col}: row s of A has its entry in column p[s]; row p[s] of g in perm[mu][p[s]].
      for (int s = 0; s < 4; ++s) {
        const int k = p[s];
        p[s] = gamma_dr::perm[mu][k];
        c[s] = (c[s] + gamma_dr::code[mu][k]) % 4;
      }
    }
    for (int s = 0; s < 4; ++s) {
      t.perm[n][s] = p[s];
      t.code[n][s] = c[s];
    }
  }
  return t;
}
} // namespace detail

/// The table of the 16 gamma-basis matrices.
inline constexpr GammaBasisTable gamma_basis = detail::make_gamma_basis();

static_assert(gamma_basis.perm[15][0] == 0 && gamma_basis.perm[15][3] == 3 && gamma_basis.code[15][0] == 0 &&
                  gamma_basis.code[15][2] == 2,
              "Gamma(15) must be g5 = diag(1, 1, -1, -1)");

/// i^code as a complex number.
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> i_pow(int code) {
  switch (code & 3) {
  case 0: return {T(1), T(0)};
  case 1: return {T(0), T(1)};
  case 2: return {T(-1), T(0)};
  default: return {T(0), T(-1)};
  }
}

} // namespace kqcd
