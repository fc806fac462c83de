// The colour-hop benchmark cases in double storage.
#include "bench_dslash_colour.hpp"

namespace kqcd::bench::colour {
template nlohmann::json time_colour_hops_in<double>(const DslashOptions&);
} // namespace kqcd::bench::colour
