// The start-up check of the instruction set the SIMD kernels (arch/simd_complex.hpp) were compiled
// for: the compiler's target macros against the running CPU, and against the kqcd library's own
// objects (a program compiled without the flags the kqcd package exports would instantiate the
// header-only kernels for another instruction set than the library's).
#pragma once

#include <kqcd/arch/simd_complex.hpp>
#include <kqcd/core/error.hpp>

#include <string>

namespace kqcd {

/// The instruction set of the SIMD kernels compiled into the kqcd library (src/provenance.cpp).
std::string library_simd_isa();

/// Throws if the running CPU lacks the instruction set the SIMD kernels were compiled for (a
/// binary built with -march=native copied to an older machine).
/// ISA: the instruction set this translation unit's kernels use (a template argument, so that
/// translation units compiled for different ones get different functions, not one ODR-merged copy).
template <class ISA = typename simd::Native<float>::type> void check_simd_isa() {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if (!__builtin_cpu_supports("avx512f"))
    throw invalid_argument("this kqcd was compiled for AVX-512 (avx512f), which this CPU lacks: rebuild on this "
                           "machine (KQCD_NATIVE=ON) or without -march=native");
#elif defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    throw invalid_argument("this kqcd was compiled for AVX2 and FMA, which this CPU lacks: rebuild on this machine "
                           "(KQCD_NATIVE=ON) or without -march=native");
#endif
  if (const std::string lib = library_simd_isa(); lib != ISA::name)
    throw invalid_argument(std::string("this program compiles kqcd's SIMD kernels for ") + ISA::name + ", the kqcd library was built for " +
                           lib + ": compile with the options the kqcd package exports (link kqcd::kqcd; " +
                           "build_info::target_options lists them)");
}

} // namespace kqcd
