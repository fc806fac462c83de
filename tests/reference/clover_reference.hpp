// A plain host reference for the Wilson-clover and twisted-mass operators, written from
// conventions.md with full 4x4 gamma matrices, 3x3 link products and 12x12 site matrices on
// lexicographic arrays (the orders of wilson_reference.hpp): no packing, no chiral blocks.
#pragma once

#include "wilson_reference.hpp"

namespace kqcd::ref {

/// A(x) = (4 + m) + c_sw (i/4) sum_{mu,nu} sigma_{mu nu} F_{mu nu}(x) + i mu g5 for every site,
/// [site][12][12] with index spin * 3 + colour.
std::vector<cd> clover_site_matrices(const Dims& d, const std::vector<cd>& u, double mass, double csw, double mu);
/// out(x) = A(x) psi(x), or A(x)^dag psi(x).
std::vector<cd> apply_site_matrices(const std::vector<cd>& a, const std::vector<cd>& psi, bool dagger);
/// D psi = A psi - H psi / 2 (s = +1); D^dag psi = A^dag psi - H(s = -1) psi / 2 (s = -1).
std::vector<cd> clover_wilson(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, double mass, double csw,
                              double mu, const std::array<cd, 4>& b, int s);

} // namespace kqcd::ref
