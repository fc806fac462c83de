// Plain 3x3 complex matrix helpers shared by the host references: row-major std::array, gauge
// arrays in [site][mu][row][col] order with x fastest, periodic steps.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

namespace kqcd::ref {

using M = std::array<std::complex<double>, 9>;
using X = std::array<int, 4>;

inline std::int64_t site_index(const X& d, const X& x) {
  return x[0] + std::int64_t(d[0]) * (x[1] + std::int64_t(d[1]) * (x[2] + std::int64_t(d[2]) * x[3]));
}
inline X site_coords(const X& d, std::int64_t i) {
  X x{};
  for (int mu = 0; mu < 4; ++mu) {
    x[mu] = int(i % d[mu]);
    i /= d[mu];
  }
  return x;
}
inline M link(const std::vector<std::complex<double>>& u, const X& d, const X& x, int mu) {
  M m;
  const auto* p = &u[std::size_t((site_index(d, x) * 4 + mu) * 9)];
  for (int k = 0; k < 9; ++k) m[k] = p[k];
  return m;
}
inline M operator*(const M& a, const M& b) {
  M c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return c;
}
inline M operator+(M a, const M& b) {
  for (int k = 0; k < 9; ++k) a[k] += b[k];
  return a;
}
inline M dagger(const M& a) {
  M c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i * 3 + j] = std::conj(a[j * 3 + i]);
  return c;
}
inline std::complex<double> trace(const M& a) { return a[0] + a[4] + a[8]; }
/// x + by * mu, periodic.
inline X step(const X& d, X x, int mu, int by) {
  x[mu] = (x[mu] + by + d[mu]) % d[mu];
  return x;
}

} // namespace kqcd::ref
