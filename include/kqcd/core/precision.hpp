// Storage precisions of the operators: float, double, or `half` (QUDA's 16-bit fixed point).
// PrecisionTraits<P> names the arithmetic type of the kernels (float for half) and the element
// type a field of precision P stores; the 16-bit formats are in fields/half_spinor.hpp (spinors,
// per-site norm) and fields/packed_gauge.hpp (links, fixed scale).
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kqcd {

/// Tag of the 16-bit fixed-point precision: reals stored as short, computed in float.
struct half {};

/// Two 16-bit fixed-point reals (one complex number), aligned for one 32-bit load.
struct alignas(4) short2_t {
  /// The two 16-bit parts.
  ///@{
  short x, y;
  ///@}
};

/// W values stored together and aligned to their size, so that one W * sizeof(T)-byte load or store
/// moves them all (QUDA's short4/float4 packing): on CUDA a read-only view of them is fetched as one
/// 8- or 16-byte transaction instead of W separate ones.
template <class T, int W> struct alignas(W * sizeof(T)) Packed {
  static_assert(W == 1 || W == 2 || W == 4, "Packed holds 1, 2 or 4 values");
  T v[W]; ///< the W elements
};

/// Fixed-point scale of a 16-bit real: value = stored / half_scale (times a norm or range).
inline constexpr float half_scale = 32767.0f;

/// Compute type and name of storage precision P.
template <class P> struct PrecisionTraits {
  static_assert(std::is_floating_point_v<P>, "precision must be float, double or kqcd::half");
  /// The type kernels compute in.
  using compute_type = P;
  /// Whether P is the 16-bit tag.
  static constexpr bool is_half = false;
  /// Name of the precision.
  static constexpr const char* name = sizeof(P) == 4 ? "single" : "double";
};
/// The 16-bit precision computes in float.
template <> struct PrecisionTraits<half> {
  /// @cond
  using compute_type = float;
  static constexpr bool is_half = true;
  static constexpr const char* name = "half";
/// @endcond
};
/// The type kernels compute in for storage precision P.
template <class P> using compute_t = typename PrecisionTraits<P>::compute_type;

// Conversions through float bit patterns, as QUDA does on the GPU: the float with bits 0x4B400000 + i
// is 1.5 * 2^23 + i exactly for |i| < 2^22, so an integer add and a float subtract (full-rate
// arithmetic) replace a conversion instruction (I2F/F2I run at a quarter of the FP32 rate on sm_80
// and sm_90), and the reverse add rounds to the nearest integer (ties to even). Exact on every backend.
/// 1.5 * 2^23: adding it rounds a float to an integer in the low mantissa bits.
inline constexpr float fixed16_magic = 12582912.0f; // 1.5 * 2^23
/// float(i) for |i| < 2^22 (sums of 16-bit reals are in range).
KOKKOS_FORCEINLINE_FUNCTION float exact_float(int i) { return Kokkos::bit_cast<float>(i + 0x4B400000) - fixed16_magic; }

/// Round a real in [-1, 1] to 16-bit fixed point (to nearest, ties to even).
KOKKOS_INLINE_FUNCTION short to_fixed16(float v) {
  return static_cast<short>(Kokkos::bit_cast<int>(v * half_scale + fixed16_magic)); // the low 16 bits
}
/// The real value of a 16-bit fixed-point number.
KOKKOS_INLINE_FUNCTION float from_fixed16(short v) { return float(v) * (1.0f / half_scale); }

} // namespace kqcd
