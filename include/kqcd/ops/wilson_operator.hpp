// Wilson operators built on the one hopping kernel (conventions.md, mass normalisation):
//   WilsonOperator:    D = (4 + m) - H/2 on full spinors, and D^dag = g5 D g5.
//   WilsonEOOperator:  the even-odd Schur complement D_hat = A - H_eo H_oe / (4A), A = 4 + m, on
//                      even sites, with the source preparation and odd-site reconstruction that
//                      turn its solution into the solution of D x = b.
#pragma once

#include <kqcd/core/profile.hpp>
#include <kqcd/ops/wilson_dslash.hpp>

namespace kqcd {

inline double wilson_mass_from_kappa(double kappa) {
  if (!(kappa > 0.0)) throw invalid_argument("kappa must be positive, found " + std::to_string(kappa));
  return 1.0 / (2.0 * kappa) - 4.0;
}

template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace,
          NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode, class Recon = Recon18>
class WilsonOperator {
public:
  using dslash_type = WilsonDslash<Real, ExecSpace, mode, Recon>;
  using gauge_type = typename dslash_type::gauge_type;
  using spinor_type = typename dslash_type::spinor_type;
  using vector_type = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>;
  using real_type = Real;

  WilsonOperator(const gauge_type& u, double mass, const BoundaryPhases& bc) : dslash_(u, bc), mass_(mass) {
    if (!(4.0 + mass != 0.0)) throw invalid_argument("Wilson mass m = -4 makes the diagonal term vanish");
  }
  double mass() const { return mass_; }
  const Lattice& lattice() const { return dslash_.lattice(); }
  const dslash_type& dslash() const { return dslash_; }
  vector_type create_vector(const std::string& label = "wilson_vector") const { return vector_type(lattice(), label); }

  /// out = D in (isign = +1) or D^dag in (isign = -1). out must not alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    ProfileScope prof("kqcd::WilsonOperator::apply");
    auto compute = prof.phase(ProfilePhase::compute);
    for (int p = 0; p < 2; ++p) dslash_.apply_xpay(out[p], in[1 - p], isign, p, Real(4.0 + mass_), in[p], Real(-0.5));
  }
  double flops() const { return 2.0 * dslash_.flops(true); }

private:
  dslash_type dslash_;
  double mass_;
};

/// P = float, double or kqcd::half (then vector_type is a HalfCBSpinor: the sloppy operator of a
/// mixed-precision solver; prepare_source and reconstruct are for float and double only).
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace,
          NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode, class Recon = Recon18>
class WilsonEOOperator {
public:
  using dslash_type = WilsonDslash<P, ExecSpace, mode, Recon>;
  using Real = typename dslash_type::real_type;
  using gauge_type = typename dslash_type::gauge_type;
  using vector_type = typename dslash_type::spinor_type; ///< even-site spinor
  using field_type = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>;
  using real_type = Real;

  WilsonEOOperator(const gauge_type& u, double mass, const BoundaryPhases& bc)
      : dslash_(u, bc), mass_(mass), tmp_odd_(u.lattice(), 1, "eo_tmp_odd"), tmp_even_(u.lattice(), 0, "eo_tmp_even") {
    if (!(4.0 + mass != 0.0)) throw invalid_argument("Wilson mass m = -4 makes the diagonal term vanish");
  }
  double mass() const { return mass_; }
  double diagonal() const { return 4.0 + mass_; }
  const Lattice& lattice() const { return dslash_.lattice(); }
  const dslash_type& dslash() const { return dslash_; }
  vector_type create_vector(const std::string& label = "eo_vector") const { return vector_type(lattice(), 0, label); }

  /// out = D_hat in (isign = +1) or D_hat^dag in (isign = -1), both on even sites; out may alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    ProfileScope prof("kqcd::WilsonEOOperator::apply");
    auto compute = prof.phase(ProfilePhase::compute);
    const double a = diagonal();
    dslash_.apply(tmp_odd_, in, isign, 1);
    dslash_.apply_xpay(out, tmp_odd_, isign, 0, Real(a), in, Real(-0.25 / a));
  }
  /// out = D_hat in as a Kokkos graph of its two hopping kernels, bound to these vectors: submit() it
  /// as often as needed, one launch of the graph for the two kernels (out must not alias in).
  /// Launch shapes are those tuned by an earlier apply(). One process.
  template <class Graph = Kokkos::Experimental::Graph<ExecSpace>>
  Graph make_graph(vector_type& out, const vector_type& in, int isign = 1) const {
    const double a = diagonal();
    return Kokkos::Experimental::create_graph<ExecSpace>([&](const auto& root) {
      const auto odd = dslash_.then_apply(GraphNode<ExecSpace>(root), tmp_odd_, in, isign, 1);
      dslash_.then_apply_xpay(odd, out, tmp_odd_, isign, 0, Real(a), in, Real(-0.25 / a));
    });
  }
  /// Multi-RHS: out_r = D_hat in_r for each right-hand side of a block (float and double).
  using multi_vector_type = typename dslash_type::multi_spinor_type;
  multi_vector_type create_multi(int n_rhs, const std::string& label = "eo_block") const {
    return multi_vector_type(lattice(), 0, n_rhs, label);
  }
  void apply(multi_vector_type& out, const multi_vector_type& in, int isign = 1) const
    requires dslash_type::has_blocks
  {
    if (multi_tmp_.n_rhs() != in.n_rhs() || multi_tmp_.view().size() == 0)
      multi_tmp_ = multi_vector_type(lattice(), 1, in.n_rhs(), "eo_block_tmp_odd");
    const double a = diagonal();
    dslash_.apply(multi_tmp_, in, isign, 1);
    dslash_.apply_xpay(out, multi_tmp_, isign, 0, Real(a), in, Real(-0.25 / a));
  }
  /// out = D_hat^dag D_hat in
  void apply_normal(vector_type& out, const vector_type& in) const {
    apply(tmp_even_, in, 1);
    apply(out, tmp_even_, -1);
  }
  /// The even-site source of the Schur system: b_e + H_eo b_o / (2A) (for isign = -1, the same
  /// with D^dag).
  void prepare_source(vector_type& b_hat, const field_type& b, int isign = 1) const {
    dslash_.apply_xpay(b_hat, b[1], isign, 0, Real(1.0), b[0], Real(0.5 / diagonal()));
  }
  /// x = (x_e, x_o) with x_o = (b_o + H_oe x_e / 2) / A: the full solution of D x = b.
  void reconstruct(field_type& x, const vector_type& x_even, const field_type& b, int isign = 1) const {
    Kokkos::deep_copy(x[0].view(), x_even.view());
    dslash_.apply_xpay(x[1], x_even, isign, 1, Real(1.0 / diagonal()), b[1], Real(0.5 / diagonal()));
  }
  void set_sites_per_team(int n) { dslash_.set_sites_per_team(n); }
  /// On a distributed lattice: overlap the halo exchange with the interior sites (default).
  void set_overlap(bool on) { dslash_.set_overlap(on); }
  /// Distributed: the halo spin-projected (default) or as whole spinors (WilsonDslash).
  void set_spin_projection(bool on) { dslash_.set_spin_projection(on); }
  int dslash_sites_per_team() const { return dslash_.sites_per_team(); }
  /// Flops of one apply(): two hopping terms, one with xpay.
  double flops() const { return dslash_.flops(false) + dslash_.flops(true); }

private:
  dslash_type dslash_;
  double mass_;
  mutable vector_type tmp_odd_;
  mutable vector_type tmp_even_;
  mutable multi_vector_type multi_tmp_;
};

} // namespace kqcd
