// The start-up check of the instruction set the SIMD kernels (arch/simd_complex.hpp) were compiled
// for: the compiler's target macros against the running CPU.
#pragma once

#include <kqcd/core/error.hpp>

namespace kqcd {

/// Throws if the running CPU lacks the instruction set the SIMD kernels were compiled for (a
/// binary built with -march=native copied to an older machine).
inline void check_simd_isa() {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if (!__builtin_cpu_supports("avx512f"))
    throw invalid_argument("this kqcd was compiled for AVX-512 (avx512f), which this CPU lacks: rebuild on this "
                           "machine (KQCD_NATIVE=ON) or without -march=native");
#elif defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    throw invalid_argument("this kqcd was compiled for AVX2 and FMA, which this CPU lacks: rebuild on this machine "
                           "(KQCD_NATIVE=ON) or without -march=native");
#endif
}

} // namespace kqcd
