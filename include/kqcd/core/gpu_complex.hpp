// GPUComplex<T>: a complex number that is CUDA's float2 / double2 (derived from it where Kokkos was
// built for CUDA, an equally aligned two-element struct elsewhere), with real and imaginary arithmetic
// written out so that every product is a pair of fused multiply-adds. Being a vector type, one load
// or store of it is one 8- or 16-byte transaction; kqcd stores packed links as GPUComplex
// (fields/packed_gauge.hpp) and converts to Kokkos::complex at the kernel's boundary.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <vector_types.h>
#endif

namespace kqcd {

namespace detail {
/// An x, y pair aligned to its size, as CUDA's vector types are.
template <class T> struct alignas(2 * sizeof(T)) vec2 {
  T x, y;
};
template <class T> struct gpu_vec2 {
  using type = vec2<T>;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <> struct gpu_vec2<float> {
  using type = ::float2;
};
template <> struct gpu_vec2<double> {
  using type = ::double2;
};
#endif
} // namespace detail

/// A complex number stored as CUDA's float2 / double2 (or an equally aligned pair), FMA arithmetic.
template <class T> struct GPUComplex : detail::gpu_vec2<T>::type {
  /// The real type.
  using value_type = T;
  /// The two-vector it derives from.
  using base_type = typename detail::gpu_vec2<T>::type;
  static_assert(sizeof(base_type) == 2 * sizeof(T) && alignof(base_type) == 2 * sizeof(T), "GPUComplex is a 2-vector");

  GPUComplex() = default;
  /// re + i im.
  KOKKOS_FORCEINLINE_FUNCTION constexpr GPUComplex(T re, T im = T(0)) : base_type{re, im} {}
  /// Converts from Kokkos::complex.
  template <class U> KOKKOS_FORCEINLINE_FUNCTION explicit GPUComplex(const Kokkos::complex<U>& z) : base_type{T(z.real()), T(z.imag())} {}
  /// Real part.
  KOKKOS_FORCEINLINE_FUNCTION constexpr T real() const { return this->x; }
  /// Imaginary part.
  KOKKOS_FORCEINLINE_FUNCTION constexpr T imag() const { return this->y; }
  /// Converts to `Kokkos::complex<U>`.
  template <class U> KOKKOS_FORCEINLINE_FUNCTION Kokkos::complex<U> to() const { return {U(this->x), U(this->y)}; }

  /// Adds b.
  KOKKOS_FORCEINLINE_FUNCTION GPUComplex& operator+=(const GPUComplex& b) {
    this->x += b.x;
    this->y += b.y;
    return *this;
  }
  /// Subtracts b.
  KOKKOS_FORCEINLINE_FUNCTION GPUComplex& operator-=(const GPUComplex& b) {
    this->x -= b.x;
    this->y -= b.y;
    return *this;
  }
};

/// Sum.
template <class T> KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> operator+(GPUComplex<T> a, const GPUComplex<T>& b) { return a += b; }
/// Difference.
template <class T> KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> operator-(GPUComplex<T> a, const GPUComplex<T>& b) { return a -= b; }
/// Negation.
template <class T> KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> operator-(const GPUComplex<T>& a) { return {-a.x, -a.y}; }
/// Product, as fused multiply-adds.
template <class T> KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> operator*(const GPUComplex<T>& a, const GPUComplex<T>& b) {
  return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
/// Real scalar times a.
template <class T> KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> operator*(T s, const GPUComplex<T>& a) { return {s * a.x, s * a.y}; }
/// Complex conjugate.
template <class T> KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> conj(const GPUComplex<T>& a) { return {a.x, -a.y}; }
/// |a|^2.
template <class T> KOKKOS_FORCEINLINE_FUNCTION T norm2(const GPUComplex<T>& a) { return a.x * a.x + a.y * a.y; }
/// c + a * b
template <class T>
KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> cmadd(const GPUComplex<T>& a, const GPUComplex<T>& b, const GPUComplex<T>& c) {
  return {c.x + a.x * b.x - a.y * b.y, c.y + a.x * b.y + a.y * b.x};
}
/// c + conj(a) * b
template <class T>
KOKKOS_FORCEINLINE_FUNCTION GPUComplex<T> cjmadd(const GPUComplex<T>& a, const GPUComplex<T>& b, const GPUComplex<T>& c) {
  return {c.x + a.x * b.x + a.y * b.y, c.y + a.x * b.y - a.y * b.x};
}

} // namespace kqcd
