// Run-time handles over the layouts: the even-odd operator of a term on the layout the machine
// prefers for the lattice (SIMD lanes on host backends where they split it, else the plain layout;
// or the layout a LayoutChoice names), as one type. Its vectors are handles too, holding the
// layout's spinor. The choice is made once, when the operator is built; each apply() then makes one
// dispatch to the chosen layout's operator, and the solvers (solvers/cg.hpp, bicgstab.hpp) make one
// per solve: they run on the chosen layout's own types (visit()).
//
//   auto D = make_even_odd_operator<CloverTerm<double>>(u, bc, mass, csw);
//   auto x = D.create_vector(), b = D.create_vector();
//   D.prepare_source(b, source);              // from a plain full spinor
//   cg_normal(D, x, b, params);
//   D.reconstruct(solution, x, source);       // into a plain full spinor
//
// The compile-time operators (EvenOddOperator<Term, Layout>) stay for code that wants them.
#pragma once

#include <kqcd/stencil/operators.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kqcd {

namespace detail {
/// The even-odd operators of Term on the layouts ES has: the plain one, and the SIMD one where the
/// backend has lanes.
template <class Term, bool lanes = ArchTraits<typename Term::execution_space>::simd_layout> struct EvenOddLayouts {
  using plain = EvenOddOperator<Term, PlainLayoutTag::layout<typename Term::precision, typename Term::execution_space>>;
  using operators = std::variant<std::shared_ptr<const plain>>;
  using vectors = std::variant<typename plain::vector_type>;
};
template <class Term> struct EvenOddLayouts<Term, true> {
  using plain = EvenOddOperator<Term, PlainLayoutTag::layout<typename Term::precision, typename Term::execution_space>>;
  using simd = EvenOddOperator<Term, SIMDLayoutTag::layout<typename Term::precision, typename Term::execution_space>>;
  using operators = std::variant<std::shared_ptr<const plain>, std::shared_ptr<const simd>>;
  using vectors = std::variant<typename plain::vector_type, typename simd::vector_type>;
};
} // namespace detail

/// The even-odd operator of Term (EvenOddOperator) on a layout chosen at run time.
template <class Term> class EvenOddHandle {
  using layouts = detail::EvenOddLayouts<Term>;

public:
  using term_type = Term; ///< The site-local term.
  using real_type = typename Term::real_type; ///< Arithmetic precision.
  using execution_space = typename Term::execution_space; ///< The execution space.
  using gauge_type = GaugeField<Kokkos::complex<real_type>, execution_space>; ///< The links it is built from.
  using field_type = SpinorField<Kokkos::complex<real_type>, Ns, execution_space>; ///< A plain full spinor (sources, solutions).
  /// Marks a handle: the solvers visit the chosen layout's operator.
  static constexpr bool operator_handle = true;

  /// An even-site spinor in the handle's layout.
  class vector_type {
  public:
    vector_type() = default;
    /// The layout's spinor (variant over the layouts).
    const typename layouts::vectors& get() const { return v_; }
    /// The layout's spinor.
    typename layouts::vectors& get() { return v_; }
    /// The lattice.
    const Lattice& lattice() const {
      return std::visit([](const auto& s) -> const Lattice& { return s.lattice(); }, v_);
    }

  private:
    friend class EvenOddHandle;
    explicit vector_type(typename layouts::vectors v) : v_(std::move(v)) {}
    typename layouts::vectors v_;
  };

  /// The operator of links u, boundary phases bc and the term's arguments (mass, c_sw, mu, ...) on
  /// the layout `choice` gives u's lattice.
  template <class... Args> EvenOddHandle(LayoutChoice choice, const gauge_type& u, const BoundaryPhases& bc, const Args&... args) {
    using ES = execution_space;
    const bool simd = use_simd_layout<ES>(choice, [&] { return simd_split_misfit<ES, typename Term::precision>(u.lattice()); });
    visit_layout<ES>(simd, [&]<class Tag>(Tag) {
      using Op = EvenOddOperator<Term, typename Tag::template layout<typename Term::precision, ES>>;
      ops_ = std::shared_ptr<const Op>(std::make_shared<Op>(u, bc, args...));
    });
  }

  /// "scalar" or "simd" (as kqcd's --layout names them).
  std::string layout_name() const {
    return std::visit([](const auto& op) -> std::string { return std::decay_t<decltype(*op)>::layout_type::name; }, ops_);
  }
  /// The lattice.
  const Lattice& lattice() const {
    return std::visit([](const auto& op) -> const Lattice& { return op->lattice(); }, ops_);
  }
  /// An even-site vector in the layout.
  vector_type create_vector(const std::string& label = "eo_vector") const {
    return std::visit([&](const auto& op) { return vector_type(typename layouts::vectors(op->create_vector(label))); }, ops_);
  }
  /// out = D_hat in (isign = +1) or D_hat^dag in (-1).
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    visit([&](const auto& op, auto& o, const auto& i) { op.apply(o, i, isign); }, out, in);
  }
  /// b_hat = b_e + (1/2) H_eo A_oo^-1 b_o from a plain full spinor b.
  void prepare_source(vector_type& b_hat, const field_type& b, int isign = 1) const {
    visit([&](const auto& op, auto& bh) { op.prepare_source(bh, b, isign); }, b_hat);
  }
  /// x = (x_e, A_oo^-1 (b_o + (1/2) H_oe x_e)) into a plain full spinor.
  void reconstruct(field_type& x, const vector_type& x_even, const field_type& b, int isign = 1) const {
    visit([&](const auto& op, const auto& xe) { op.reconstruct(x, xe, b, isign); }, x_even);
  }
  /// Flops of one apply().
  double flops() const {
    return std::visit([](const auto& op) { return op->flops(); }, ops_);
  }
  /// f(op, v...) with the chosen layout's operator and the layout's spinors of the vectors v (one
  /// dispatch): how the solvers run on the layout's own types.
  template <class F, class... V> decltype(auto) visit(F&& f, V&... v) const {
    return std::visit(
        [&](const auto& op) -> decltype(auto) {
          using Op = std::decay_t<decltype(*op)>;
          return f(*op, unwrap<Op>(v)...);
        },
        ops_);
  }

private:
  template <class Op> static auto& unwrap(vector_type& v) { return get_checked<typename Op::vector_type>(v.v_); }
  template <class Op> static const auto& unwrap(const vector_type& v) { return get_checked<typename Op::vector_type>(v.v_); }
  template <class S, class Variant> static auto& get_checked(Variant& v) {
    if (auto* s = std::get_if<S>(&v)) return *s;
    throw invalid_argument("EvenOddHandle: a vector of another layout or operator (create vectors with create_vector())");
  }
  typename layouts::operators ops_;
};

/// The even-odd operator of Term on the layout the machine prefers for u's lattice.
template <class Term, class... Args>
EvenOddHandle<Term> make_even_odd_operator(const typename EvenOddHandle<Term>::gauge_type& u, const BoundaryPhases& bc,
                                           const Args&... args) {
  return EvenOddHandle<Term>(LayoutChoice::automatic, u, bc, args...);
}
/// The even-odd operator of Term on the layout `choice` gives u's lattice.
template <class Term, class... Args>
EvenOddHandle<Term> make_even_odd_operator(LayoutChoice choice, const typename EvenOddHandle<Term>::gauge_type& u, const BoundaryPhases& bc,
                                           const Args&... args) {
  return EvenOddHandle<Term>(choice, u, bc, args...);
}

} // namespace kqcd
