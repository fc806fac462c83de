// Plain host references for the colour-hop stencils, written from conventions.md on lexicographic
// arrays (x fastest): no checkerboarding, no Kokkos, nothing of kqcd. Gauge arrays are
// [site][mu][row][col]; fields [site][spin][colour] with n_spin spin components (1: a colour vector).
// A hop across the boundary picks up b_mu forward and conj(b_mu) backward, once per crossing.
#pragma once

#include <array>
#include <complex>
#include <vector>

namespace kqcd::ref {

using cd = std::complex<double>;
using Dims = std::array<int, 4>;

/// MILC's staggered phase eta_mu(x): eta_t = 1, eta_x = (-1)^t, eta_y = (-1)^(t+x), eta_z = (-1)^(t+x+y).
int staggered_eta(int mu, const std::array<int, 4>& x);
/// D psi = sum_mu eta_mu(x) [V_mu(x) psi(x+mu) - V_mu^dag(x-mu) psi(x-mu)]
///       + eta_mu(x) [W_mu(x) psi(x+3mu) - W_mu^dag(x-3mu) psi(x-3mu)] (no W: w empty).
std::vector<cd> staggered_dslash(const Dims& d, const std::vector<cd>& v, const std::vector<cd>& w, const std::vector<cd>& psi,
                                 const std::array<cd, 4>& b);
/// sum_{mu < ndim} [U_mu(x) psi(x+mu) + U_mu^dag(x-mu) psi(x-mu)] - 2 ndim psi(x).
std::vector<cd> laplacian(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, int n_spin, int ndim,
                          const std::array<cd, 4>& b);
/// U_mu(x) psi(x+mu) (dir = +1) or U_mu^dag(x-mu) psi(x-mu) (dir = -1).
std::vector<cd> covariant_derivative(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, int n_spin, int mu, int dir,
                                     const std::array<cd, 4>& b);
/// psi(x) -> g(x) psi(x) for every spin component (g: [site][row][col]).
std::vector<cd> transform_field(const std::vector<cd>& psi, const std::vector<cd>& g, int n_spin);
/// The free staggered propagator G(x; x0) = (2m + D)^-1 with fat links c1 and long links c3 times the
/// unit matrix (naive: c1 = 1, c3 = 0), from the exact momentum-space sum (colour-diagonal; one value
/// per site): G = (2m - D) g, g(y) = (1/V) sum_p e^{i p y} / (4 m^2 + 4 sum_mu (c1 sin p_mu +
/// c3 sin 3 p_mu)^2), p_mu = (2 pi n + theta_mu) / L_mu with b_mu = e^{i theta_mu}.
std::vector<cd> free_staggered_propagator(const Dims& d, double mass, const std::array<double, 4>& theta, const std::array<int, 4>& x0,
                                          double c1 = 1.0, double c3 = 0.0);

} // namespace kqcd::ref
