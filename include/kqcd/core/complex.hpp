// Complex arithmetic for kernels, written out in real and imaginary parts so that every
// multiply-add is a pair of fused multiply-adds.
#pragma once

#include <Kokkos_Complex.hpp>

/// kqcd: performance-portable lattice QCD on Kokkos.
namespace kqcd {

/// The complex type of kqcd's kernels.
template <class T> using complex = Kokkos::complex<T>;

/// c + a * b
template <class T>
KOKKOS_FORCEINLINE_FUNCTION complex<T> cmadd(const complex<T>& a, const complex<T>& b, const complex<T>& c) {
  return {c.real() + a.real() * b.real() - a.imag() * b.imag(), c.imag() + a.real() * b.imag() + a.imag() * b.real()};
}
/// c + conj(a) * b
template <class T>
KOKKOS_FORCEINLINE_FUNCTION complex<T> cjmadd(const complex<T>& a, const complex<T>& b, const complex<T>& c) {
  return {c.real() + a.real() * b.real() + a.imag() * b.imag(), c.imag() + a.real() * b.imag() - a.imag() * b.real()};
}
/// The complex product a b.
template <class T> KOKKOS_FORCEINLINE_FUNCTION complex<T> cmul(const complex<T>& a, const complex<T>& b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
/// conj(a) * b
template <class T> KOKKOS_FORCEINLINE_FUNCTION complex<T> cjmul(const complex<T>& a, const complex<T>& b) {
  return {a.real() * b.real() + a.imag() * b.imag(), a.real() * b.imag() - a.imag() * b.real()};
}

/// x a + y b with real x, y (an xpay update).
template <class T> KOKKOS_FORCEINLINE_FUNCTION complex<T> caxpby(T x, const complex<T>& a, T y, const complex<T>& b) {
  return {x * a.real() + y * b.real(), x * a.imag() + y * b.imag()};
}

/// Multiplication by a unit phase known at compile time: i^code (0: 1, 1: i, 2: -1, 3: -i).
template <int code, class T> KOKKOS_FORCEINLINE_FUNCTION complex<T> mul_i_pow(const complex<T>& z) {
  constexpr int c = ((code % 4) + 4) % 4;
  if constexpr (c == 0) return z;
  else if constexpr (c == 1) return {-z.imag(), z.real()};
  else if constexpr (c == 2) return {-z.real(), -z.imag()};
  else return {z.imag(), -z.real()};
}

/// a + i^code b with code known at compile time (a spin projection).
template <int code, class T> KOKKOS_FORCEINLINE_FUNCTION complex<T> add_i_pow(const complex<T>& a, const complex<T>& b) {
  return a + mul_i_pow<code>(b);
}

} // namespace kqcd
