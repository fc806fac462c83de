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

/// (ES, compute_t<P>, Layout of storage precision P) for each (ES, P) of a configuration list and
/// each layout ES has.
template <class Tuple> struct with_layouts;
template <class... C> struct with_layouts<std::tuple<C...>> {
  template <class ES, class P>
  using both = std::conditional_t<ArchTraits<ES>::simd_layout,
                                  std::tuple<std::tuple<ES, compute_t<P>, PlainStencilLayout<P, ES>>,
                                             std::tuple<ES, compute_t<P>, SIMDStencilLayout<P, ES>>>,
                                  std::tuple<std::tuple<ES, compute_t<P>, PlainStencilLayout<P, ES>>>>;
  using type = decltype(std::tuple_cat(std::declval<both<space_of<C>, real_of<C>>>()...));
};
using StencilConfigs = typename with_layouts<Configs>::type;
/// StencilConfigs and the same layouts in 16-bit storage (computed in float).
using StencilConfigsWithHalf =
    decltype(std::tuple_cat(std::declval<StencilConfigs>(),
                            std::declval<typename with_layouts<typename CartesianProduct<EnabledExecutionSpaces, CompiledOf<half>>::type>::type>()));
template <class Config> using layout_of = std::tuple_element_t<2, Config>;
template <class Layout> constexpr bool is_simd_layout = !std::is_same_v<typename Layout::geometry_type, Lattice>;
/// The tolerance of a stencil test relative to the host reference: the arithmetic precision's, or
/// 16-bit storage's (a site to 1 part in 2^15 of its largest component, the links to 2^-15).
template <class Config> constexpr double stencil_tol() {
  return PrecisionTraits<typename layout_of<Config>::precision>::is_half ? 1e-4 : tol<std::tuple_element_t<1, Config>>();
}

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
