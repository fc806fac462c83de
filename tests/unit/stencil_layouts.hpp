// The configurations the stencil tests run over: every enabled backend and precision on the plain
// layout, and on the SIMD layout where the backend has lanes (stencil/stencil_layout.hpp); and the
// lattices each layout's lanes split.
#pragma once

#include "test_harness.hpp"

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/stencil/stencil_layout.hpp>

#include <tuple>
#include <utility>

namespace kqcd::test {

/// (ES, Real, Layout) for each (ES, Real) of Configs and each layout ES has.
template <class Tuple> struct with_layouts;
template <class... C> struct with_layouts<std::tuple<C...>> {
  template <class ES, class Real>
  using both = std::conditional_t<ArchTraits<ES>::simd_layout,
                                  std::tuple<std::tuple<ES, Real, PlainStencilLayout<Real, ES>>, std::tuple<ES, Real, SIMDStencilLayout<Real, ES>>>,
                                  std::tuple<std::tuple<ES, Real, PlainStencilLayout<Real, ES>>>>;
  using type = decltype(std::tuple_cat(std::declval<both<space_of<C>, real_of<C>>>()...));
};
using StencilConfigs = typename with_layouts<Configs>::type;
template <class Config> using layout_of = std::tuple_element_t<2, Config>;
template <class Layout> constexpr bool is_simd_layout = !std::is_same_v<typename Layout::geometry_type, Lattice>;

/// Lattices for the stencil tests: a small one, and one whose swept extents are at least 3 (a
/// three-site hop wraps at most once); on the SIMD layout both split into 8 lanes (t, z, x halved).
template <class Layout> const Lattice& small_lattice() {
  static const Lattice plain({4, 6, 2, 8}), simd({4, 6, 4, 8});
  return is_simd_layout<Layout> ? simd : plain;
}
template <class Layout> const Lattice& naik_lattice() {
  static const Lattice plain({4, 6, 4, 8}), simd({8, 6, 8, 8});
  return is_simd_layout<Layout> ? simd : plain;
}

} // namespace kqcd::test
