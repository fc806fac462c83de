// The even-odd Wilson-type operators of ops/local_operators.hpp (Wilson, clover, twisted mass,
// twisted clover) on the virtual-node SIMD layout (host execution spaces): the same terms and
// site-local policies, applied to registers of SIMD lanes by the one hopping functor through the
// SIMD accessors. The term (CloverTerm, ...) is built as for the plain layout; its packed blocks are
// copied once into the lane layout (SIMDHermitianBlocks), and each policy the term hands out is
// re-pointed at the copies (map_blocks). Same conventions, flops and byte model as EvenOddOperator.
// The dynamic clover inverse solves each lane's blocks in the kernel as on the plain layout.
#pragma once

#include <kqcd/ops/local_operators.hpp>
#include <kqcd/ops/simd_wilson.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kqcd {

/// out = Local(in) on every vector site of one SIMD-layout parity (Local's blocks in lanes).
template <class V, class ES, class Local>
void apply_site_local(SIMDSpinor<V, ES>& out, const SIMDSpinor<V, ES>& in, const Local& local) {
  if (out.parity() != in.parity() || !(out.geometry() == in.geometry()))
    throw invalid_argument("apply_site_local: SIMD input and output differ in parity or lane layout");
  using Real = typename V::real_type;
  using In = SIMDSpinorAccessor<V, const Real>;
  using Out = SIMDSpinorAccessor<V, Real>;
  Kokkos::parallel_for("kqcd::site_local_simd", Kokkos::RangePolicy<ES>(0, in.geometry().vsites()),
                       SiteLocalFunctor<In, Out, Local>{In{in.lane_view().data()}, Out{out.lane_view().data()}, local});
}

/// D_hat = A_ee - (1/4) H_eo A_oo^-1 H_oe (EvenOddOperator<Term>) on the SIMD layout: the solvers'
/// operator concept on SIMDSpinor vectors.
template <class Term, class Recon = Recon18,
          class V = typename ArchTraits<typename Term::execution_space>::template simd_complex<typename Term::real_type>>
class SIMDEvenOddOperator {
public:
  using Real = typename Term::real_type;
  using ES = typename Term::execution_space;
  using real_type = Real;
  using term_type = Term;
  using dslash_type = SIMDWilsonDslash<Real, ES, Recon, V>;
  using vector_type = typename dslash_type::spinor_type; ///< even-site spinor
  using gauge_type = GaugeField<Kokkos::complex<Real>, ES>;
  using field_type = SpinorField<Kokkos::complex<Real>, Ns, ES>; ///< a plain full spinor (sources, solutions)

  /// Term is built from (u, args...) as for EvenOddOperator; the lanes split the lattice
  /// automatically, or as g says.
  template <class... Args>
  SIMDEvenOddOperator(const gauge_type& u, const BoundaryPhases& bc, Args&&... args)
      : SIMDEvenOddOperator(SIMDGeometry{}, u, bc, std::forward<Args>(args)...) {}
  template <class... Args>
  SIMDEvenOddOperator(const SIMDGeometry& g, const gauge_type& u, const BoundaryPhases& bc, Args&&... args)
      : dslash_(u, bc, g), term_(u, std::forward<Args>(args)...), tmp_odd_(dslash_.create_spinor(1, "simd_eo_tmp_odd")),
        tmp_even_(dslash_.create_spinor(0, "simd_eo_tmp_even")) {
    for (int p = 0; p < 2; ++p) {
      copy_blocks(term_.local(p, 1), p);
      copy_blocks(term_.inverse(p, 1), p);
    }
  }
  const Lattice& lattice() const { return dslash_.lattice(); }
  const SIMDGeometry& geometry() const { return dslash_.geometry(); }
  const dslash_type& dslash() const { return dslash_; }
  const Term& term() const { return term_; }
  vector_type create_vector(const std::string& label = "simd_eo_vector") const { return dslash_.create_spinor(0, label); }
  vector_type create_spinor(int parity, const std::string& label = "simd_spinor") const {
    return dslash_.create_spinor(parity, label);
  }

  /// out = D_hat in (isign = +1) or D_hat^dag in (isign = -1); out may alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    dslash_.apply_local_after(tmp_odd_, in, isign, 1, lanes(term_.inverse(1, isign)), Real(1));
    dslash_.apply_local_xpay(out, tmp_odd_, isign, 0, lanes(term_.local(0, isign)), in, Real(-0.25));
  }
  void apply_normal(vector_type& out, const vector_type& in) const {
    apply(tmp_even_, in, 1);
    apply(out, tmp_even_, -1);
  }
  /// out = A_tt^-1 H in on parity target_cb (EvenOddOperator::apply_hopping_inverse).
  void apply_hopping_inverse(vector_type& out, const vector_type& in, int isign, int target_cb) const {
    dslash_.apply_local_after(out, in, isign, target_cb, lanes(term_.inverse(target_cb, isign)), Real(1));
  }
  /// b_hat = b_e + (1/2) H_eo A_oo^-1 b_o.
  void prepare_source(vector_type& b_hat, const vector_type& b_even, const vector_type& b_odd, int isign = 1) const {
    apply_site_local(tmp_odd_, b_odd, lanes(term_.inverse(1, isign)));
    dslash_.apply_xpay(b_hat, tmp_odd_, isign, 0, Real(1), b_even, Real(0.5));
  }
  /// x_o = A_oo^-1 (b_o + (1/2) H_oe x_e): with x_e, the solution of D x = b.
  void reconstruct(vector_type& x_odd, const vector_type& x_even, const vector_type& b_odd, int isign = 1) const {
    dslash_.apply_local_after(x_odd, x_even, isign, 1, lanes(term_.inverse(1, isign)), Real(0.5), &b_odd, Real(1));
  }

  /// The same from and into plain full spinors (EvenOddOperator's interface: solve_propagator).
  void prepare_source(vector_type& b_hat, const field_type& b, int isign = 1) const {
    to_simd(tmp_odd_, b[1]);
    apply_site_local(tmp_odd_, tmp_odd_, lanes(term_.inverse(1, isign)));
    to_simd(b_hat, b[0]);
    dslash_.apply_xpay(b_hat, tmp_odd_, isign, 0, Real(1), b_hat, Real(0.5));
  }
  void reconstruct(field_type& x, const vector_type& x_even, const field_type& b, int isign = 1) const {
    from_simd(x[0], x_even);
    to_simd(tmp_odd_, b[1]);
    reconstruct(tmp_odd_, x_even, tmp_odd_, isign); // each site reads its addend before its store
    from_simd(x[1], tmp_odd_);
  }

  /// EvenOddOperator's counts: two hopping terms with their site-local terms (QUDA's count).
  double flops() const { return 2.0 * lattice().cb_volume() * (WilsonDslash<Real>::flops_per_site + Term::local_flops); }
  double hopping_flops() const { return lattice().cb_volume() * (WilsonDslash<Real>::flops_per_site + Term::local_flops); }
  double hopping_bytes() const { return dslash_.bytes(false) + lattice().cb_volume() * double(sizeof(Real)) * Term::local_reals; }
  /// Memory of the site-local term in the lane layout (the term keeps its plain copy besides).
  double memory_bytes() const {
    double b = 0;
    for (const auto& [key, blocks] : blocks_) b += blocks.memory_bytes();
    return b;
  }

private:
  using blocks_type = SIMDHermitianBlocks<V, ES>;
  template <class Local> void copy_blocks(const Local& local, int parity) {
    (void)local.map_blocks([&](const auto& view) {
      if (!find(view.data())) blocks_.emplace_back(view.data(), blocks_type(view, geometry(), parity));
      return LaneHermitianBlocks<V>{nullptr};
    });
  }
  const blocks_type* find(const void* key) const {
    for (const auto& [k, blocks] : blocks_)
      if (k == key) return &blocks;
    return nullptr;
  }
  /// The policy with its blocks in the lane layout.
  template <class Local> auto lanes(const Local& local) const {
    return local.map_blocks([&](const auto& view) { return LaneHermitianBlocks<V>{find(view.data())->view().data()}; });
  }

  dslash_type dslash_;
  Term term_;
  std::vector<std::pair<const void*, blocks_type>> blocks_; ///< lane copies keyed by the plain view's data
  mutable vector_type tmp_odd_;
  mutable vector_type tmp_even_;
};

} // namespace kqcd

// The operators compiled into the library (KQCD_PRECISIONS, KQCD_OPERATORS, host backends): extern here.
#include <kqcd/instances/simd_local_operator_instances.hpp>
