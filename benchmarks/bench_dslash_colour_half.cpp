// The colour-hop benchmark cases in half storage.
#include "bench_dslash_colour.hpp"

namespace kqcd::bench::colour {
template nlohmann::json time_colour_hops_in<half>(const DslashOptions&);
} // namespace kqcd::bench::colour
