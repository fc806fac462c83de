// The operators' layout chosen at run time (kqcd's --layout auto|scalar|simd): the choice and
// whether a backend takes the SIMD lanes under it. operators.hpp builds operators on the choice
// (with_even_odd_operator).
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/error.hpp>

#include <string>

namespace kqcd {

/// The layout an operator runs on, chosen at run time (kqcd's --layout auto|scalar|simd).
enum class LayoutChoice {
  automatic, ///< ArchTraits' choice (NativeLayout) where the lattice splits into its lanes, else the plain layout
  plain,     ///< the plain layout
  simd       ///< the SIMD layout, refused where the backend has none or the lanes do not split the lattice
};
/// "auto", "scalar" or "simd".
inline LayoutChoice parse_layout_choice(const std::string& text) {
  if (text == "auto") return LayoutChoice::automatic;
  if (text == "scalar") return LayoutChoice::plain;
  if (text == "simd") return LayoutChoice::simd;
  throw invalid_argument("layout '" + text + "': expected auto, scalar or simd");
}

/// Whether work on ES runs on the SIMD layout under `choice`. misfit() names what keeps it off the
/// lanes ("" where nothing does; asked only where ES has the layout): automatic takes the lanes
/// where they fit, simd where they fit or else throws invalid_argument("layout simd: " + misfit()).
template <class ES, class Misfit> bool use_simd_layout(LayoutChoice choice, const Misfit& misfit) {
  if (choice == LayoutChoice::plain) return false;
  if constexpr (ArchTraits<ES>::simd_layout) {
    const std::string why = misfit();
    if (choice == LayoutChoice::simd && !why.empty()) throw invalid_argument("layout simd: " + why);
    return why.empty();
  } else {
    if (choice == LayoutChoice::simd)
      throw invalid_argument(std::string("layout simd: backend ") + ES::name() + " has no SIMD layout (host backends only)");
    return false;
  }
}
} // namespace kqcd
