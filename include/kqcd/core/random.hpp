// Counter-based random numbers (Random123's Philox 4x32-10): every number is a pure function of
// (seed, counter), so a seed gives the same field on every backend and thread count.
#pragma once

#include <kqcd/core/complex.hpp>

#include <Kokkos_Core.hpp>
#include <Random123/philox.h>

#include <cstdint>

namespace kqcd {

/// Philox counter-based random numbers: the same stream for a (seed, counter) on every backend.
struct Philox {
  /// The key.
  std::uint64_t seed = 0;

  /// Four independent 32-bit words for the counter (a, b, c, d).
  KOKKOS_INLINE_FUNCTION philox4x32_ctr_t words(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) const {
    philox4x32_ctr_t ctr = {{a, b, c, d}};
    philox4x32_key_t key = {{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
    return philox4x32_R(10, ctr, key);
  }
  /// Uniform double in (0, 1] from two words.
  KOKKOS_INLINE_FUNCTION static double to_unit(std::uint32_t hi, std::uint32_t lo) {
    const std::uint64_t bits = (std::uint64_t(hi) << 21) ^ std::uint64_t(lo >> 11); // 53 bits
    return (double(bits & ((std::uint64_t(1) << 53) - 1)) + 1.0) * (1.0 / 9007199254740992.0);
  }
  /// Two independent standard normal numbers (Box-Muller) for the counter.
  KOKKOS_INLINE_FUNCTION Kokkos::complex<double> gaussian_pair(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                               std::uint32_t d) const {
    const philox4x32_ctr_t w = words(a, b, c, d);
    const double u1 = to_unit(w.v[0], w.v[1]), u2 = to_unit(w.v[2], w.v[3]);
    const double rad = Kokkos::sqrt(-2.0 * Kokkos::log(u1));
    const double ang = 2.0 * Kokkos::numbers::pi * u2;
    return {rad * Kokkos::cos(ang), rad * Kokkos::sin(ang)};
  }
};

/// A Haar-random SU(3) matrix: Gram-Schmidt on a matrix of complex Gaussians, third row the
/// conjugated cross product of the first two. Counter: (site, mu, stream).
KOKKOS_INLINE_FUNCTION void random_su3(const Philox& rng, std::uint32_t site, std::uint32_t mu, std::uint32_t stream,
                                       Kokkos::complex<double> m[3][3]) {
  using C = Kokkos::complex<double>;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b) m[a][b] = rng.gaussian_pair(site, mu, std::uint32_t(3 * a + b), stream);
  double n0 = 0;
  for (int b = 0; b < 3; ++b) n0 += Kokkos::real(m[0][b] * Kokkos::conj(m[0][b]));
  n0 = 1.0 / Kokkos::sqrt(n0);
  for (int b = 0; b < 3; ++b) m[0][b] *= n0;
  C proj(0.0);
  for (int b = 0; b < 3; ++b) proj += Kokkos::conj(m[0][b]) * m[1][b];
  for (int b = 0; b < 3; ++b) m[1][b] -= proj * m[0][b];
  double n1 = 0;
  for (int b = 0; b < 3; ++b) n1 += Kokkos::real(m[1][b] * Kokkos::conj(m[1][b]));
  n1 = 1.0 / Kokkos::sqrt(n1);
  for (int b = 0; b < 3; ++b) m[1][b] *= n1;
  m[2][0] = Kokkos::conj(m[0][1] * m[1][2] - m[0][2] * m[1][1]);
  m[2][1] = Kokkos::conj(m[0][2] * m[1][0] - m[0][0] * m[1][2]);
  m[2][2] = Kokkos::conj(m[0][0] * m[1][1] - m[0][1] * m[1][0]);
}

} // namespace kqcd
