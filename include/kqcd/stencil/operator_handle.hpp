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
// StaggeredEvenOddHandle is the same for the staggered even-site system (stencil/staggered.hpp):
//
//   auto A = make_staggered_operator<double>(fat, bc, mass, &naik);
//   staggered_solve(A, x, b, params);         // x, b plain colour-vector fields
#pragma once

#include <kqcd/stencil/operators.hpp>
#include <kqcd/stencil/staggered.hpp>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kqcd {

namespace detail {
/// What every run-time handle shares: one operator of Ops (one type per layout) chosen when the
/// handle is built, vectors holding that layout's spinor, apply(), and visit(), which hands the
/// chosen operator and the vectors' own spinors to a function (one dispatch).
template <class... Ops> class LayoutHandle {
  using operators = std::variant<std::shared_ptr<const Ops>...>;
  using vectors = std::variant<typename Ops::vector_type...>;

public:
  /// Marks a handle: the solvers visit the chosen layout's operator.
  static constexpr bool operator_handle = true;

  /// A vector in the handle's layout.
  class vector_type {
  public:
    vector_type() = default;
    /// The layout's spinor (variant over the layouts).
    const vectors& get() const { return v_; }
    /// The layout's spinor.
    vectors& get() { return v_; }
    /// The lattice.
    const Lattice& lattice() const {
      return std::visit([](const auto& s) -> const Lattice& { return s.lattice(); }, v_);
    }

  private:
    friend class LayoutHandle;
    explicit vector_type(vectors v) : v_(std::move(v)) {}
    vectors v_;
  };

  /// "scalar" or "simd" (as kqcd's --layout names them).
  std::string layout_name() const {
    return std::visit([](const auto& op) -> std::string { return std::decay_t<decltype(*op)>::layout_type::name; }, ops_);
  }
  /// The lattice.
  const Lattice& lattice() const {
    return std::visit([](const auto& op) -> const Lattice& { return op->lattice(); }, ops_);
  }
  /// A vector in the layout.
  vector_type create_vector(const std::string& label = "eo_vector") const {
    return std::visit([&](const auto& op) { return vector_type(vectors(op->create_vector(label))); }, ops_);
  }
  /// out = A in (isign = +1) or A^dag in (-1).
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    visit([&](const auto& op, auto& o, const auto& i) { op.apply(o, i, isign); }, out, in);
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

protected:
  /// Builds the operator Op (one of Ops) from args.
  template <class Op, class... Args> void emplace(const Args&... args) { ops_ = std::shared_ptr<const Op>(std::make_shared<Op>(args...)); }

private:
  template <class Op> static auto& unwrap(vector_type& v) { return get_checked<typename Op::vector_type>(v.v_); }
  template <class Op> static const auto& unwrap(const vector_type& v) { return get_checked<typename Op::vector_type>(v.v_); }
  template <class S, class Variant> static auto& get_checked(Variant& v) {
    if (auto* s = std::get_if<S>(&v)) return *s;
    throw invalid_argument("operator handle: a vector of another layout or operator (create vectors with create_vector())");
  }
  operators ops_;
};

/// The operators Op<PlainTag's layout> and, where the backend has lanes, Op<SIMDTag's layout>, as a
/// LayoutHandle base; Make<Tag> names the operator of a layout tag.
template <class ES, template <class> class Make, bool lanes = ArchTraits<ES>::simd_layout> struct LayoutHandleOf {
  using type = LayoutHandle<Make<PlainLayoutTag>>;
};
template <class ES, template <class> class Make> struct LayoutHandleOf<ES, Make, true> {
  using type = LayoutHandle<Make<PlainLayoutTag>, Make<SIMDLayoutTag>>;
};
template <class Term> struct EvenOddOf {
  template <class Tag> using type = EvenOddOperator<Term, typename Tag::template layout<typename Term::precision, typename Term::execution_space>>;
};
} // namespace detail

/// The even-odd operator of Term (EvenOddOperator) on a layout chosen at run time.
template <class Term>
class EvenOddHandle : public detail::LayoutHandleOf<typename Term::execution_space, detail::EvenOddOf<Term>::template type>::type {
public:
  using term_type = Term; ///< The site-local term.
  using real_type = typename Term::real_type; ///< Arithmetic precision.
  using execution_space = typename Term::execution_space; ///< The execution space.
  using gauge_type = GaugeField<Kokkos::complex<real_type>, execution_space>; ///< The links it is built from.
  using field_type = SpinorField<Kokkos::complex<real_type>, Ns, execution_space>; ///< A plain full spinor (sources, solutions).
  using typename EvenOddHandle::LayoutHandle::vector_type;

  /// The operator of links u, boundary phases bc and the term's arguments (mass, c_sw, mu, ...) on
  /// the layout `choice` gives u's lattice.
  template <class... Args> EvenOddHandle(LayoutChoice choice, const gauge_type& u, const BoundaryPhases& bc, const Args&... args) {
    using ES = execution_space;
    const bool simd = use_simd_layout<ES>(choice, [&] { return simd_split_misfit<ES, typename Term::precision>(u.lattice()); });
    visit_layout<ES>(simd, [&]<class Tag>(Tag) { this->template emplace<typename detail::EvenOddOf<Term>::template type<Tag>>(u, bc, args...); });
  }

  /// b_hat = b_e + (1/2) H_eo A_oo^-1 b_o from a plain full spinor b.
  void prepare_source(vector_type& b_hat, const field_type& b, int isign = 1) const {
    this->visit([&](const auto& op, auto& bh) { op.prepare_source(bh, b, isign); }, b_hat);
  }
  /// x = (x_e, A_oo^-1 (b_o + (1/2) H_oe x_e)) into a plain full spinor.
  void reconstruct(field_type& x, const vector_type& x_even, const field_type& b, int isign = 1) const {
    this->visit([&](const auto& op, const auto& xe) { op.reconstruct(x, xe, b, isign); }, x_even);
  }
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

namespace detail {
template <class Real, class ES> struct StaggeredEvenOddOf {
  template <class Tag>
  using type = StaggeredEvenOddOperator<Real, ES,
                                        std::conditional_t<std::is_same_v<Tag, SIMDLayoutTag>, SIMDStencilLayout<Real, ES>, PlainStencilLayout<Real, ES>>>;
};
} // namespace detail

/// The staggered even-site system A = 4m^2 - D_eo D_oe (StaggeredEvenOddOperator) on a layout chosen
/// at run time; sources and solutions are plain colour-vector fields.
template <class Real, class ES = Kokkos::DefaultExecutionSpace>
class StaggeredEvenOddHandle : public detail::LayoutHandleOf<ES, detail::StaggeredEvenOddOf<Real, ES>::template type>::type {
public:
  using real_type = Real; ///< Precision.
  using execution_space = ES; ///< The execution space.
  using gauge_type = GaugeField<Kokkos::complex<Real>, ES>; ///< Links.
  using field_type = SpinorField<Kokkos::complex<Real>, 1, ES>; ///< A plain colour-vector field (sources, solutions).
  using typename StaggeredEvenOddHandle::LayoutHandle::vector_type;

  /// The operator of fat links `fat`, boundary phases bc, mass m and optional long links `naik` on
  /// the layout `choice` gives: the lanes where they split the lattice (with long links into
  /// sub-lattices at least 3 sites long), else the plain layout.
  StaggeredEvenOddHandle(LayoutChoice choice, const gauge_type& fat, const BoundaryPhases& bc, double mass, const gauge_type* naik = nullptr) {
    const bool simd = use_simd_layout<ES>(choice, [&]() -> std::string {
      if constexpr (ArchTraits<ES>::simd_layout) return SIMDStencilLayout<Real, ES>::misfit(fat.lattice(), naik ? 3 : 1);
      else return "";
    });
    visit_layout<ES>(simd, [&]<class Tag>(Tag) {
      this->template emplace<typename detail::StaggeredEvenOddOf<Real, ES>::template type<Tag>>(fat, bc, mass, naik);
    });
  }

  /// be = 2m b_e - D_eo b_o from a plain field b.
  void prepare(vector_type& be, const field_type& b) const {
    this->visit([&](const auto& op, auto& bl) { op.prepare(bl, in_layout(op, b)); }, be);
  }
  /// x = (x_e, (b_o - D_oe x_e) / 2m) into a plain field.
  void reconstruct(field_type& x, const vector_type& x_even, const field_type& b) const {
    this->visit(
        [&](const auto& op, const auto& xe) {
          if constexpr (plain<decltype(op)>) {
            Kokkos::deep_copy(x[0].view(), xe.view());
            op.reconstruct(x, b);
          } else {
            auto xl = op.create_field("staggered_handle_x");
            Kokkos::deep_copy(xl[0].view(), xe.view());
            op.reconstruct(xl, in_layout(op, b));
            from_simd(x, xl);
          }
        },
        x_even);
  }
  /// x_e of a plain field x into the layout (an initial guess).
  void even_part(vector_type& x_even, const field_type& x) const {
    this->visit(
        [&](const auto& op, auto& xe) {
          if constexpr (plain<decltype(op)>) Kokkos::deep_copy(xe.view(), x[0].view());
          else to_simd(xe, x[0]);
        },
        x_even);
  }

private:
  /// Whether operator Op works on plain fields.
  template <class Op> static constexpr bool plain = std::is_same_v<typename std::remove_cvref_t<Op>::field_type, field_type>;
  /// f in op's layout: f itself on the plain layout, a converted copy on the lanes.
  template <class Op> static auto in_layout(const Op& op, const field_type& f) {
    if constexpr (plain<Op>) {
      return f;
    } else {
      auto l = op.create_field("staggered_handle_field");
      to_simd(l, f);
      return l;
    }
  }
};

/// The staggered even-site system on the layout the machine prefers for the lattice of `fat`.
template <class Real, class ES = Kokkos::DefaultExecutionSpace>
StaggeredEvenOddHandle<Real, ES> make_staggered_operator(const GaugeField<Kokkos::complex<Real>, ES>& fat, const BoundaryPhases& bc,
                                                         double mass, const GaugeField<Kokkos::complex<Real>, ES>* naik = nullptr,
                                                         LayoutChoice choice = LayoutChoice::automatic) {
  return StaggeredEvenOddHandle<Real, ES>(choice, fat, bc, mass, naik);
}

} // namespace kqcd
