// The layout choice of the solver benchmarks whose operators run on the stencil layouts (domain
// wall, staggered): the lanes where every precision the solve uses splits the lattice into them.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/stencil/stencil_layout.hpp>

#include <string>

namespace kqcd::bench {

/// What keeps `lattice` off ES's SIMD lanes for a solve in `precision` (double, single, or a mixed
/// one: both precisions' lanes) with hops up to `depth` sites long; "" where nothing does, and on
/// backends without lanes.
template <class ES> std::string solver_simd_misfit(const std::string& precision, const Lattice& lattice, int depth = 1) {
  if constexpr (ArchTraits<ES>::simd_layout) {
    const std::string dbl = precision == "single" ? "" : SIMDStencilLayout<double, ES>::misfit(lattice, depth);
    return !dbl.empty() || precision == "double" ? dbl : SIMDStencilLayout<float, ES>::misfit(lattice, depth);
  } else {
    return "";
  }
}

} // namespace kqcd::bench
