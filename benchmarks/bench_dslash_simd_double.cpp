// The Wilson cases on the SIMD layout in double storage.
#include "bench_dslash_simd.hpp"

namespace kqcd::bench::simd_cases {
template nlohmann::json time_wilson_simd_in<double>(const DslashOptions&);
} // namespace kqcd::bench::simd_cases
