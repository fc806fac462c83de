// The covariant Laplacian and the covariant derivative (QUDA's Laplace and covDev), on colour
// vectors (n_spin = 1) or four-spinors (n_spin = 4), every spin component alike:
//   Lap psi(x) = sum_{mu < d} [U_mu(x) psi(x+mu) + U_mu^dag(x-mu) psi(x-mu)] - 2 d psi(x),
// d = 3 (spatial, as Gaussian smearing uses it) or 4;
//   (D_mu psi)(x) = U_mu(x) psi(x+mu) forward, U_mu^dag(x-mu) psi(x-mu) backward.
// A hop across the boundary picks up b_mu forward and conj(b_mu) backward. Both are colour-hop
// stencils (stencil/colour_hop_stencil.hpp) on either layout (stencil/stencil_layout.hpp).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/stencil/colour_hop_stencil.hpp>

#include <string>

namespace kqcd {

namespace detail {
template <class Field> void require_distinct(const Field& out, const Field& in, const char* what) {
  if (out[0].view().data() == in[0].view().data()) throw invalid_argument(std::string(what) + ": out and in must be different fields");
}
} // namespace detail

/// The covariant Laplacian in d = 3 or 4 dimensions.
template <int n_spin, class Real, class ES = Kokkos::DefaultExecutionSpace, class Layout = PlainStencilLayout<Real, ES>>
class Laplacian {
public:
  using stencil_type = ColourHopStencil<UnitSigns, n_spin, Real, ES, Layout>; ///< The hops.
  using gauge_type = typename stencil_type::gauge_type; ///< Links.
  using field_type = typename stencil_type::field_type; ///< Both parities of the field it acts on.
  using options = typename stencil_type::options; ///< The layout's choices (the SIMD lane split).

  /// The Laplacian of links u with boundary phases bc in `dims` (3 or 4) dimensions.
  Laplacian(const gauge_type& u, const BoundaryPhases& bc = BoundaryPhases::periodic(), int dims = 4, const options& opt = {})
      : hops_("Laplacian", u, bc, nullptr, opt), dims_(dims) {
    if (dims != 3 && dims != 4) throw invalid_argument("Laplacian: dimensions must be 3 or 4, found " + std::to_string(dims));
  }
  /// The dimensions it sums over.
  int dims() const { return dims_; }
  /// Both parities of a field for it.
  field_type create_field(const std::string& label = "laplace_field") const { return hops_.create_field(label); }
  /// The hops (its launcher's switches, flops and bytes).
  const stencil_type& stencil() const { return hops_; }
  /// The hops, to set the launcher's switches.
  stencil_type& stencil() { return hops_; }
  /// The hops of the Laplacian.
  unsigned hop_mask() const { return dims_ == 3 ? hops::spatial : hops::one_site; }
  /// out = Lap in (out must not be in).
  void apply(field_type& out, const field_type& in) const { apply_shifted(out, in, 0.0, 1.0); }
  /// out = (1 + alpha Lap) in: one step of Gaussian (Wuppertal) smearing (out must not be in).
  void apply_shifted(field_type& out, const field_type& in, double shift, double alpha) const {
    detail::require_distinct(out, in, "Laplacian");
    // (shift + alpha Lap) in = (shift - 2 d alpha) in + alpha H in
    const double a = shift - 2.0 * dims_ * alpha;
    for (int p = 0; p < 2; ++p) hops_.apply(out[p], in[1 - p], p, hop_mask(), Real(a), &in[p], Real(alpha));
  }
  /// out = (1 + alpha Lap) in.
  void apply_identity_plus(field_type& out, const field_type& in, double alpha) const { apply_shifted(out, in, 1.0, alpha); }
  /// Flops of one apply() on both parities.
  double flops() const { return 2 * hops_.flops(hop_mask(), true); }

private:
  stencil_type hops_;
  int dims_;
};

/// The covariant derivative in one direction, forward or backward.
template <int n_spin, class Real, class ES = Kokkos::DefaultExecutionSpace, class Layout = PlainStencilLayout<Real, ES>>
class CovariantDerivative {
public:
  using stencil_type = ColourHopStencil<UnitSigns, n_spin, Real, ES, Layout>; ///< The hops.
  using gauge_type = typename stencil_type::gauge_type; ///< Links.
  using field_type = typename stencil_type::field_type; ///< Both parities of the field it acts on.
  using options = typename stencil_type::options; ///< The layout's choices (the SIMD lane split).

  /// The covariant derivative of links u with boundary phases bc.
  explicit CovariantDerivative(const gauge_type& u, const BoundaryPhases& bc = BoundaryPhases::periodic(), const options& opt = {})
      : hops_("CovariantDerivative", u, bc, nullptr, opt) {}
  /// Both parities of a field for it.
  field_type create_field(const std::string& label = "covdev_field") const { return hops_.create_field(label); }
  /// The hops (its launcher's switches, flops and bytes).
  const stencil_type& stencil() const { return hops_; }
  /// The hops, to set the launcher's switches.
  stencil_type& stencil() { return hops_; }
  /// out = D_mu in, forward (dir = +1: U_mu(x) in(x+mu)) or backward (-1: U_mu^dag(x-mu) in(x-mu)).
  void apply(field_type& out, const field_type& in, int mu, int dir) const {
    detail::require_distinct(out, in, "CovariantDerivative");
    if (mu < 0 || mu >= Nd) throw invalid_argument("CovariantDerivative: direction must be 0..3, found " + std::to_string(mu));
    if (dir != 1 && dir != -1) throw invalid_argument("CovariantDerivative: dir must be +1 or -1, found " + std::to_string(dir));
    for (int p = 0; p < 2; ++p) hops_.apply(out[p], in[1 - p], p, hop_bit(mu, dir));
  }
  /// Flops of one apply() on both parities.
  double flops() const { return 2 * hops_.flops(hop_bit(0, 1), false); }

private:
  stencil_type hops_;
};

} // namespace kqcd
