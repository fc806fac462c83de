// The Wilson cases on the SIMD layout, dispatched on --precision to their translation units.
#include "bench_dslash_simd.hpp"

namespace kqcd::bench {

nlohmann::json time_wilson_simd(const DslashOptions& opts) {
  return with_precision(opts, [&]<class Real>() { return simd_cases::time_wilson_simd_in<Real>(opts); });
}

} // namespace kqcd::bench
