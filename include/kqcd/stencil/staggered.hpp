// Staggered fermions in MILC's conventions (conventions.md, "Staggered fermions"), one colour vector
// per site: M = 2m + D with
//   D psi(x) = sum_mu eta_mu(x) [V_mu(x) psi(x+mu) - V_mu^dag(x-mu) psi(x-mu)]
//            + eta_mu(x) [W_mu(x) psi(x+3mu) - W_mu^dag(x-3mu) psi(x-3mu)],
// V the fat (one-hop) links, W the long (Naik) links; naive staggered: V = U and no W. The hopping
// term is a colour-hop stencil (stencil/colour_hop_stencil.hpp). StaggeredOperator applies M to
// both parities; StaggeredEvenOddOperator is the Hermitian positive even-site system
// 4m^2 - D_eo D_oe that solvers/staggered_solve.hpp solves with CG. Layout: where the fields live
// (PlainStencilLayout, or SIMDStencilLayout on host backends; stencil/stencil_layout.hpp).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/stencil/colour_hop_stencil.hpp>

#include <string>

namespace kqcd {

/// The staggered hopping term D (fat links and, optionally, long links).
template <class Real, class ES = Kokkos::DefaultExecutionSpace, class Layout = PlainStencilLayout<Real, ES>>
using StaggeredDslash = ColourHopStencil<StaggeredSigns, 1, Real, ES, Layout>;

namespace detail {
/// What the staggered operators share: the hopping term, the mass and the hops it applies.
template <class Real, class ES, class Layout> class StaggeredBase {
public:
  using dslash_type = StaggeredDslash<Real, ES, Layout>; ///< The hopping term.
  using layout_type = Layout; ///< Where its fields live.
  using gauge_type = typename dslash_type::gauge_type; ///< Links.
  using spinor_type = typename dslash_type::spinor_type; ///< One parity of a colour-vector field.
  using field_type = typename dslash_type::field_type; ///< Both parities.
  using real_type = Real; ///< Precision.
  using execution_space = ES; ///< The execution space.
  using options = typename dslash_type::options; ///< The layout's choices (the SIMD lane split).

  /// The operator of fat links `fat` (the thin links for naive staggered), boundary phases bc and
  /// mass m; long links `naik` add the three-site hops; `opt` the layout's choices.
  StaggeredBase(const gauge_type& fat, const BoundaryPhases& bc, double mass, const gauge_type* naik = nullptr, const options& opt = {})
      : D_("StaggeredDslash", fat, bc, naik, opt), mass_(mass) {
    if (!(mass > 0.0)) throw invalid_argument("staggered operator: the mass must be positive, found " + std::to_string(mass));
  }
  /// The hopping term.
  const dslash_type& dslash() const { return D_; }
  /// The hopping term, to set its launcher's switches.
  dslash_type& dslash() { return D_; }
  /// The lattice (with the ghost zone the operator's fields need).
  const Lattice& lattice() const { return D_.lattice(); }
  /// The mass m.
  double mass() const { return mass_; }
  /// Both parities of a colour-vector field for this operator.
  field_type create_field(const std::string& label = "staggered_field") const { return D_.create_field(label); }
  /// The hops of D: one-site, and three-site with long links.
  unsigned hop_mask() const { return D_.available_hops(); }

protected:
  dslash_type D_;
  double mass_;
};
} // namespace detail

/// M = 2m + D on both parities (M^dag = 2m - D).
template <class Real, class ES = Kokkos::DefaultExecutionSpace, class Layout = PlainStencilLayout<Real, ES>>
class StaggeredOperator : public detail::StaggeredBase<Real, ES, Layout> {
  using Base = detail::StaggeredBase<Real, ES, Layout>;

public:
  using typename Base::field_type;
  using vector_type = field_type; ///< Both parities.
  using Base::Base;
  /// A field on the operator's lattice.
  vector_type create_vector(const std::string& label = "staggered_vector") const { return this->create_field(label); }
  /// out = M in (isign = +1) or M^dag in (-1); out must not be in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    if (isign != 1 && isign != -1) throw invalid_argument("StaggeredOperator: isign must be +1 or -1, found " + std::to_string(isign));
    if (out[0].view().data() == in[0].view().data()) throw invalid_argument("StaggeredOperator: out and in must be different fields");
    for (int p = 0; p < 2; ++p) this->D_.apply(out[p], in[1 - p], p, this->hop_mask(), Real(2 * this->mass_), &in[p], Real(isign));
  }
  /// Flops of one apply().
  double flops() const { return 2 * this->D_.flops(this->hop_mask(), true); }
};

/// The even-site system of M^dag M: A = 4m^2 - D_eo D_oe, Hermitian and positive (D is
/// anti-Hermitian). Solve A x_e = 2m b_e - D_eo b_o (prepare()), then x_o = (b_o - D_oe x_e) / 2m
/// (reconstruct()).
template <class Real, class ES = Kokkos::DefaultExecutionSpace, class Layout = PlainStencilLayout<Real, ES>>
class StaggeredEvenOddOperator : public detail::StaggeredBase<Real, ES, Layout> {
  using Base = detail::StaggeredBase<Real, ES, Layout>;

public:
  using typename Base::field_type;
  using typename Base::gauge_type;
  using typename Base::options;
  using vector_type = typename Base::spinor_type; ///< Even sites.

  /// The operator of fat links `fat`, boundary phases bc, mass m, optional long links `naik` and
  /// the layout's choices `opt`.
  StaggeredEvenOddOperator(const gauge_type& fat, const BoundaryPhases& bc, double mass, const gauge_type* naik = nullptr,
                           const options& opt = {})
      : Base(fat, bc, mass, naik, opt), tmp_(this->D_.create_spinor(1, "staggered_eo_tmp")) {}
  /// An even-site vector on the operator's lattice.
  vector_type create_vector(const std::string& label = "staggered_even") const { return this->D_.create_spinor(0, label); }
  /// out = A in (A is Hermitian: isign is accepted for the solvers' interface and ignored).
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    (void)isign;
    const Real m = Real(this->mass_);
    this->D_.apply(tmp_, in, 1, this->hop_mask());
    this->D_.apply(out, tmp_, 0, this->hop_mask(), 4 * m * m, &in, Real(-1));
  }
  /// be = 2m b_e - D_eo b_o: the even-site source of M x = b.
  void prepare(vector_type& be, const field_type& b) const { prepare(be, b, this->mass_); }
  /// The same for mass m of the same links (a multi-mass solve's; m = 0 leaves -D_eo b_o).
  void prepare(vector_type& be, const field_type& b, double m) const {
    this->D_.apply(be, b[1], 0, this->hop_mask(), Real(2 * m), &b[0], Real(-1));
  }
  /// x_o = (b_o - D_oe x_e) / 2m from the solved even sites x_e = x[0].
  void reconstruct(field_type& x, const field_type& b) const { reconstruct(x, b, this->mass_); }
  /// The same for mass m of the same links.
  void reconstruct(field_type& x, const field_type& b, double m) const {
    if (!(m > 0.0)) throw invalid_argument("staggered reconstruct: the mass must be positive, found " + std::to_string(m));
    const Real inv = Real(1.0 / (2 * m));
    this->D_.apply(x[1], x[0], 1, this->hop_mask(), inv, &b[1], -inv);
  }
  /// Flops of one apply().
  double flops() const { return this->D_.flops(this->hop_mask(), false) + this->D_.flops(this->hop_mask(), true); }

private:
  mutable vector_type tmp_;
};

} // namespace kqcd
