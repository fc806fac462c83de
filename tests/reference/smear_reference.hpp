// A plain host reference for the smearing of conventions.md on lexicographic [site][mu][row][col]
// arrays: staple sums written out path by path, and one stout step with the exponential from its
// Taylor series (scaling and squaring), independent of the library's Cayley-Hamilton formula.
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

} // namespace kqcd::ref

namespace kqcd::ref {
/// U_mu(x) -> g(x) U_mu(x) g^dag(x + mu), g given as [site][row][col].
std::vector<std::complex<double>> gauge_transform(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                                  const std::vector<std::complex<double>>& g);
} // namespace kqcd::ref
