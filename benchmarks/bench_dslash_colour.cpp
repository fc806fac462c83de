// The colour-hop benchmark cases, dispatched on --precision to their translation units.
#include "bench_dslash_colour.hpp"

namespace kqcd::bench {

nlohmann::json time_colour_hop_dslash(const DslashOptions& opts) {
  return with_precision(opts, [&]<class P>() { return colour::time_colour_hops_in<P>(opts); });
}

} // namespace kqcd::bench
