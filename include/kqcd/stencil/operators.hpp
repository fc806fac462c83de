// The Wilson-type operators on every layout, and the layout chosen at run time: the terms, the
// operators and the plain layout (local_operators.hpp), the SIMD layout, which is NativeLayout and
// so the operators' default on host backends (simd_local_operators.hpp), and with_even_odd_operator
// and with_full_operator, which build an operator on the layout a LayoutChoice gives
// (layout_choice.hpp). The header for code that builds operators.
#pragma once

#include <kqcd/stencil/layout_choice.hpp>
#include <kqcd/stencil/local_operators.hpp>
#include <kqcd/stencil/simd_local_operators.hpp>

#include <utility>

namespace kqcd {

/// The two layouts for code that picks one at run time: layout<P, ES, Recon> of each.
struct PlainLayoutTag {
  template <class P, class ES, class Recon = Recon18> using layout = PlainLayout<P, ES, ArchTraits<ES>::neighbour_mode, Recon>; ///< The plain layout of P, ES and Recon.
};
/// Tag of the SIMD layout.
struct SIMDLayoutTag {
  template <class P, class ES, class Recon = Recon18> using layout = SIMDLayout<P, ES, Recon>; ///< The SIMD layout of P, ES and Recon.
};
/// f(SIMDLayoutTag{}) where `simd`, else f(PlainLayoutTag{}); a backend without lanes instantiates
/// only the plain branch.
template <class ES, class F> decltype(auto) visit_layout(bool simd, F&& f) {
  if constexpr (ArchTraits<ES>::simd_layout)
    if (simd) return f(SIMDLayoutTag{});
  return f(PlainLayoutTag{});
}

/// f(op) with op = Operator<Term, Layout>(u, bc, args...) (EvenOddOperator or FullOperator) on the
/// layout `choice` gives u's lattice: by default the lanes where they split it, the plain layout
/// where they cannot (the run-time fallback of Operator<Term>, which throws there).
template <template <class, class> class Operator, class Term, class F, class... Args>
decltype(auto) with_operator(LayoutChoice choice, F&& f,
                             const GaugeField<Kokkos::complex<typename Term::real_type>, typename Term::execution_space>& u,
                             const BoundaryPhases& bc, const Args&... args) {
  using ES = typename Term::execution_space;
  const bool simd = use_simd_layout<ES>(choice, [&] { return simd_split_misfit<ES, typename Term::precision>(u.lattice()); });
  return visit_layout<ES>(simd, [&]<class Tag>(Tag) -> decltype(auto) {
    const Operator<Term, typename Tag::template layout<typename Term::precision, ES>> op(u, bc, args...);
    return f(op);
  });
}
/// Calls f with the even-odd operator of the chosen layout.
template <class Term, class F, class... Args>
decltype(auto) with_even_odd_operator(LayoutChoice choice, F&& f,
                                      const GaugeField<Kokkos::complex<typename Term::real_type>, typename Term::execution_space>& u,
                                      const BoundaryPhases& bc, const Args&... args) {
  return with_operator<EvenOddOperator, Term>(choice, std::forward<F>(f), u, bc, args...);
}
/// Calls f with the full operator of the chosen layout.
template <class Term, class F, class... Args>
decltype(auto) with_full_operator(LayoutChoice choice, F&& f,
                                  const GaugeField<Kokkos::complex<typename Term::real_type>, typename Term::execution_space>& u,
                                  const BoundaryPhases& bc, const Args&... args) {
  return with_operator<FullOperator, Term>(choice, std::forward<F>(f), u, bc, args...);
}

} // namespace kqcd
