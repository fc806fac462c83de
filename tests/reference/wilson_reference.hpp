// A plain host reference for the Wilson operator, written from conventions.md with full 4x4
// gamma matrices and lexicographic arrays: no checkerboarding, no spin projection, no Kokkos.
// Gauge arrays are [site][mu][row][col]; spinors [site][spin][colour] (host_convert.hpp orders).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

namespace kqcd::ref {

using cd = std::complex<double>;
using Dims = std::array<int, 4>;

using Mat4 = std::array<std::array<cd, 4>, 4>; ///< A 4x4 spin matrix.

std::int64_t volume(const Dims& d);
/// Gamma(n) of the DeGrand-Rossi basis as 4x4 matrices (mu = 0..3 -> g1..g4, 4 -> g5).
const Mat4& gamma(int mu);
/// a b of 4x4 matrices.
Mat4 mul4(const Mat4& a, const Mat4& b);

/// One term of H: (1 - s g_mu) U_mu(x) psi(x+mu) (dir = +1) or (1 + s g_mu) U_mu^dag(x-mu) psi(x-mu)
/// (dir = -1), with boundary phases b (forward b_mu, backward conj(b_mu)).
std::vector<cd> hop(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, const std::array<cd, 4>& b, int s, int mu,
                    int dir);
/// H psi = sum_mu [(1 - s g_mu) U_mu(x) psi(x+mu) + (1 + s g_mu) U_mu^dag(x-mu) psi(x-mu)],
/// s = +1 (D) or -1 (D^dag), with boundary phases b (forward b_mu, backward conj(b_mu)).
std::vector<cd> hopping(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, const std::array<cd, 4>& b,
                        int s);
/// D psi = (4 + m) psi - H psi / 2 (dagger: s = -1).
std::vector<cd> wilson(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, double mass,
                       const std::array<cd, 4>& b, int s);
/// gamma_5 psi
std::vector<cd> apply_g5(const std::vector<cd>& psi);
/// Gauge transformation g(x) in SU(3) ([site][row][col]): U_mu(x) -> g(x) U_mu(x) g(x+mu)^dag.
std::vector<cd> transform_gauge(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& g);
/// psi(x) -> g(x) psi(x)
std::vector<cd> transform_spinor(const std::vector<cd>& psi, const std::vector<cd>& g);

double norm2(const std::vector<cd>& v);
cd dot(const std::vector<cd>& a, const std::vector<cd>& b); ///< sum conj(a) b
/// |a - b| / |b|
double rel_diff(const std::vector<cd>& a, const std::vector<cd>& b);

/// The pion correlator of the free Wilson propagator with twisted boundaries, from the exact
/// momentum-space sum (shared/data/README.md): C(t) = sum_x |S(x, t; 0)|^2.
std::vector<double> free_pion_correlator(const Dims& d, double mass, const std::array<double, 3>& theta);

} // namespace kqcd::ref
