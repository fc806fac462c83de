// A plain host reference for the smearing and the Wilson flow of conventions.md on lexicographic
// [site][mu][row][col] arrays: staple sums written out path by path; stout and the flow with the
// exponential from its Taylor series (scaling and squaring), independent of the library's
// Cayley-Hamilton formula; APE and HYP with an SU(3) projection from the singular value
// decomposition, independent of the library's SU(2)-subgroup iteration.
#pragma once

#include <array>
#include <complex>
#include <vector>

namespace kqcd::ref {

/// C_mu(x) for every link, over all directions or the spatial ones (temporal staples then zero).
std::vector<std::complex<double>> staple_sums(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                              bool spatial_only);

/// One stout step U' = exp(iQ) U (temporal links copied when spatial_only).
std::vector<std::complex<double>> stout_step(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                             double rho, bool spatial_only);

/// exp(A) of a 3x3 matrix (row-major) by scaling and squaring of the Taylor series.
std::array<std::complex<double>, 9> expm(const std::array<std::complex<double>, 9>& a);

/// The W in SU(3) maximising Re tr(W V^dag) (Proj_SU3). With the SVD V = A S B^dag (one-sided
/// Jacobi) the maximiser is A diag(e^{i phi}) B^dag: for W = A Y B^dag the objective is
/// sum_{j,k} s_k cos(theta_j) |<y_j|e_k>|^2 (e^{i theta_j}, y_j the eigenpairs of Y), linear in a
/// doubly stochastic matrix, so a diagonal Y attains the maximum. phi maximises sum_k s_k cos phi_k
/// on sum_k phi_k = -arg(det A conj det B): a global search over a grid of the two free phases,
/// refined by Newton's method to machine precision.
std::array<std::complex<double>, 9> project_su3(const std::array<std::complex<double>, 9>& v);

/// One APE step U' = Proj_SU3(c U + C) (temporal links copied when spatial_only).
std::vector<std::complex<double>> ape_step(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                           double c, bool spatial_only);

/// One HYP step with conventions.md's three levels (a1, a2, a3 as there), all four directions.
std::vector<std::complex<double>> hyp_step(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                           double a1, double a2, double a3);

/// One step of Luescher's third-order Runge-Kutta integrator of the Wilson flow (arXiv:1006.4518,
/// eq. (C.1)-(C.3)), Z_i = eps TA(C(W_i) W_i^dag), TA the traceless anti-Hermitian part:
///   W1 = exp(Z0/4) W0,  W2 = exp(8/9 Z1 - 17/36 Z0) W1,  W3 = exp(3/4 Z2 - 8/9 Z1 + 17/36 Z0) W2.
std::vector<std::complex<double>> wilson_flow_step(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                                   double eps);

/// E = (2/V) sum_x sum_{mu<nu} Re tr(1 - P_{mu nu}(x)) = 36 (1 - plaquette).
double flow_energy_plaq(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u);

/// E = -(1/V) sum_x sum_{mu<nu} tr F_{mu nu}(x)^2 with the clover F_{mu nu} = (1/8)(Q_{mu nu} - Q_{nu mu}),
/// trace removed (conventions.md's leaves).
double flow_energy_clover(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u);

/// Q = -1/(32 pi^2) sum_x eps_{mu nu rho sigma} tr F_{mu nu} F_{rho sigma} (all 24 orderings,
/// eps_0123 = +1, F as in flow_energy_clover: anti-Hermitian).
double topological_charge_clover(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u);

} // namespace kqcd::ref

namespace kqcd::ref {
/// U_mu(x) -> g(x) U_mu(x) g^dag(x + mu), g given as [site][row][col].
std::vector<std::complex<double>> gauge_transform(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                                  const std::vector<std::complex<double>>& g);
} // namespace kqcd::ref
