// Plain host references for contractions and Gaussian quark smearing, written from
// conventions.md with full 4x4 gamma matrices and lexicographic arrays (no Kokkos). Spinors are
// [site][spin][colour], gauge fields [site][mu][row][col] (host_convert.hpp orders); a propagator
// is 12 spinors, column k = source spin * 3 + source colour.
#pragma once

#include "wilson_reference.hpp"

namespace kqcd::ref {

/// Gamma(n) = g1^n0 g2^n1 g3^n2 g4^n3 (n = n0 + 2 n1 + 4 n2 + 8 n3) by matrix multiplication.
Mat4 gamma_n(int n);

/// Per site, 16 values: open: sum_c conj(a_{mu c}) b_{nu c} at mu * 4 + nu;
/// degrand_rossi (dr = true): a^dag Gamma(n) b at n.
std::vector<cd> colour_contract(const std::vector<cd>& a, const std::vector<cd>& b, bool dr);

/// result[t][n] = sum_{x in timeslice (t + x0_t) mod Lt} exp(-i p.(x - x0)) tr[g5 S^dag g5 Gamma(n) S Gamma(n)]
/// with p_i = 2 pi mom_i / L_i, from 12x12 matrices per site.
std::vector<std::array<cd, 16>> meson_correlators(const Dims& d, const std::vector<std::vector<cd>>& prop,
                                                  const std::array<int, 4>& x0, const std::array<int, 3>& mom);

/// (1 + w^2/(4N) Lap)^N psi with spatial hops, boundary phases b (forward b_mu, backward conj(b_mu)).
std::vector<cd> gaussian_smear(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, double w, int n,
                               const std::array<cd, 3>& b);

} // namespace kqcd::ref
