// Compile-time loops: f(std::integral_constant<int, i>) for i = Begin .. End - 1. Small register
// arrays indexed only by such constants stay in registers on GPUs, where a run-time loop that the
// compiler does not unroll (nested, triangular bounds) moves them to local memory.
#pragma once

#include <Kokkos_Macros.hpp>

#include <type_traits>
#include <utility>

namespace kqcd {

/// Calls f(std::integral_constant<int, i>) for i in [Begin, End), unrolled at compile time.
template <int Begin, int End, class F> KOKKOS_FORCEINLINE_FUNCTION constexpr void static_for(F&& f) {
  if constexpr (Begin < End) {
    f(std::integral_constant<int, Begin>{});
    static_for<Begin + 1, End>(std::forward<F>(f));
  }
}

} // namespace kqcd
