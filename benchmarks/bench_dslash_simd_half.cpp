// The Wilson cases on the SIMD layout in half storage.
#include "bench_dslash_simd.hpp"

namespace kqcd::bench::simd_cases {
template nlohmann::json time_wilson_simd_in<half>(const DslashOptions&);
} // namespace kqcd::bench::simd_cases
