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
  short x, y;
};

/// W values stored together and aligned to their size, so that one W * sizeof(T)-byte load or store
/// moves them all (QUDA's short4/float4 packing): on CUDA a read-only view of them is fetched as one
/// 8- or 16-byte transaction instead of W separate ones.
template <class T, int W> struct alignas(W * sizeof(T)) Packed {
  static_assert(W == 1 || W == 2 || W == 4, "Packed holds 1, 2 or 4 values");
  T v[W];
};

/// Fixed-point scale of a 16-bit real: value = stored / half_scale (times a norm or range).
inline constexpr float half_scale = 32767.0f;

template <class P> struct PrecisionTraits {
  static_assert(std::is_floating_point_v<P>, "precision must be float, double or kqcd::half");
  using compute_type = P;
  static constexpr bool is_half = false;
  static constexpr const char* name = sizeof(P) == 4 ? "single" : "double";
};
template <> struct PrecisionTraits<half> {
  using compute_type = float;
  static constexpr bool is_half = true;
  static constexpr const char* name = "half";
};
template <class P> using compute_t = typename PrecisionTraits<P>::compute_type;

/// Round a real in [-1, 1] to 16-bit fixed point.
KOKKOS_INLINE_FUNCTION short to_fixed16(float v) {
  const float s = v * half_scale;
  return static_cast<short>(s >= 0.0f ? s + 0.5f : s - 0.5f);
}
KOKKOS_INLINE_FUNCTION float from_fixed16(short v) { return float(v) * (1.0f / half_scale); }

} // namespace kqcd
