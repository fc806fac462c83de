// The Wilson-type operators of local_operators.hpp (Wilson, clover, twisted mass, twisted clover;
// full and even-odd) on the virtual-node SIMD layout (host execution spaces, where it is their
// default; operators.hpp adds the layout chosen at run time): FullOperator and EvenOddOperator with
// the SIMD layout policy, the same terms and site-local policies applied to registers of SIMD lanes
// by the one hopping functor through the SIMD accessors. The term (CloverTerm, ...) is built as for
// the plain layout; its packed blocks are copied once into the lane layout (SIMDHermitianBlocks),
// and each policy the term hands out is re-pointed at the copies (map_blocks).
// The dynamic clover inverse solves each lane's blocks in the kernel as on the plain layout.
#pragma once

#include <kqcd/stencil/local_operators.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kqcd {

/// out = Local(in) on every vector site of one SIMD-layout parity (Local's blocks in lanes).
/// (SIMDSpinor or SIMDHalfSpinor.)
template <class S, class Local>
  requires requires(const S& s) { s.geometry(); lane_reader(s); }
void apply_site_local(S& out, const S& in, const Local& local) {
  if (out.parity() != in.parity() || !(out.geometry() == in.geometry()))
    throw invalid_argument("apply_site_local: SIMD input and output differ in parity or lane layout");
  using In = decltype(lane_reader(in));
  using Out = decltype(lane_writer(out));
  Kokkos::parallel_for("kqcd::site_local_simd", Kokkos::RangePolicy<typename S::execution_space>(0, in.geometry().vsites()),
                       SiteLocalFunctor<In, Out, Local>{lane_reader(in), lane_writer(out), local});
}

/// The operators' SIMD layout: SIMDWilsonDslash on SIMDSpinor, full spinors SIMDSpinorField
/// (options: the lane split; default automatic), the term's packed blocks copied into lanes once
/// (adopt) and each policy re-pointed at the copies (site_local); plain spinors convert with
/// to_simd / from_simd. Blocks of right-hand sides are SIMDBlockSpinor, one right-hand side per
/// lane, on SIMDBlockWilsonDslash: its one-lane doubled links are built from the links given here
/// when a block is first applied (memory only for those who use blocks).
/// P: float, double or kqcd::half (SIMDHalfSpinor, 16-bit links and 16-bit clover blocks; blocks of
/// right-hand sides in 16-bit lanes with float links and the term's float blocks; no full spinors:
/// the sloppy operator of double-half solves).
template <class P, class ES, class Recon, NeighbourMode mode, class V> class SIMDLayout {
public:
  using Real = compute_t<P>; ///< Arithmetic precision.
  using dslash_type = SIMDWilsonDslash<P, ES, Recon, mode, V>; ///< The hopping term.
  using gauge_type = GaugeField<Kokkos::complex<Real>, ES>; ///< The gauge field it is built from.
  using spinor_type = typename dslash_type::spinor_type; ///< The layout's single-parity spinor.
  using plain_spinor_type = CBSpinor<Kokkos::complex<Real>, Ns, ES>; ///< The plain spinor converted to and from.
  using full_spinor_type = SIMDSpinorField<V, ES>; ///< The layout's full spinor.
  using block_dslash_type = SIMDBlockWilsonDslash<P, ES, Recon, V>; ///< The hopping term on blocks of right-hand sides.
  using multi_spinor_type = typename block_dslash_type::spinor_type; ///< A block of right-hand sides, one per lane.
  static constexpr bool has_blocks = true; ///< Blocks of right-hand sides are offered.
  static constexpr const char* name = "simd"; ///< as kqcd's --layout and its JSON name it
  using options = SIMDGeometry; ///< The layout's option: the lane split.

  /// The layout of links u with boundary phases bc on geometry g.
  SIMDLayout(const gauge_type& u, const BoundaryPhases& bc, const SIMDGeometry& g) : dslash_(u, bc, g), u_(u), bc_(bc) {}
  /// The lattice.
  const Lattice& lattice() const { return dslash_.lattice(); }
  /// The SIMD geometry.
  const SIMDGeometry& geometry() const { return dslash_.geometry(); }
  /// The hopping term.
  ///@{
  const dslash_type& dslash() const { return dslash_; }
  dslash_type& dslash() { return dslash_; }
  ///@}
  /// The hopping term on blocks of right-hand sides (built on first use).
  const block_dslash_type& block_dslash() const {
    if (!block_dslash_) block_dslash_.emplace(u_, bc_);
    return *block_dslash_;
  }
  /// A spinor of parity `parity` in the layout.
  spinor_type create_spinor(int parity, const std::string& label) const { return dslash_.create_spinor(parity, label); }
  /// A block of up to V::lanes right-hand sides, one per lane.
  multi_spinor_type create_multi(int parity, int n_rhs, const std::string& label) const {
    return multi_spinor_type(lattice(), parity, n_rhs, label);
  }
  /// A full spinor in the layout.
  full_spinor_type create_full(const std::string& label) const { return full_spinor_type(geometry(), label); }
  /// Copies the packed blocks a policy of `parity` reads into lanes (each view once).
  template <class Local> void adopt(const Local& local, int parity) {
    blocks_.adopt(local, [&](const auto& view) { return blocks_type(view, geometry(), parity); });
  }
  /// The policy with its blocks in the lane layout.
  template <class Local> auto site_local(const Local& local) const { return blocks_.site_local(local); }
  /// The policy for blocks of right-hand sides: each site's plain blocks broadcast to the lanes.
  template <class Local> auto block_site_local(const Local& local) const {
    return local.map_blocks([](const auto& view) { return detail::BroadcastBlocks<V, std::remove_cvref_t<decltype(view)>>{view}; });
  }
  /// dst = src into the lanes.
  void to_layout(spinor_type& dst, const plain_spinor_type& src) const { to_simd(dst, src); }
  /// dst = src out of the lanes.
  void from_layout(plain_spinor_type& dst, const spinor_type& src) const { from_simd(dst, src); }
  /// The lane copies of the site-local blocks (the term keeps its plain ones besides).
  double memory_bytes() const { return blocks_.memory_bytes(); }

private:
  using blocks_type = SIMDHermitianBlocks<V, ES, std::conditional_t<PrecisionTraits<P>::is_half, short, Real>>;
  dslash_type dslash_;
  gauge_type u_; ///< the links (a view handle) for the block hopping term
  BoundaryPhases bc_;
  mutable std::optional<block_dslash_type> block_dslash_;
  detail::AdoptedBlocks<blocks_type> blocks_;
};

/// D_hat = A_ee - (1/4) H_eo A_oo^-1 H_oe (EvenOddOperator<Term>) on the SIMD layout: the solvers'
/// operator concept on SIMDSpinor vectors; constructed from (u, bc, term arguments...), optionally
/// after a SIMDGeometry.
template <class Term, class Recon = Recon18,
          class V = typename ArchTraits<typename Term::execution_space>::template simd_complex<typename Term::real_type>>
using SIMDEvenOddOperator = EvenOddOperator<Term, SIMDLayout<typename Term::precision, typename Term::execution_space, Recon,
                                                              ArchTraits<typename Term::execution_space>::neighbour_mode, V>>;
/// D = A - H/2 (FullOperator<Term>) on full SIMD-layout spinors (SIMDSpinorField).
template <class Term, class Recon = Recon18,
          class V = typename ArchTraits<typename Term::execution_space>::template simd_complex<typename Term::real_type>>
using SIMDFullOperator = FullOperator<Term, SIMDLayout<typename Term::precision, typename Term::execution_space, Recon,
                                                        ArchTraits<typename Term::execution_space>::neighbour_mode, V>>;

/// What keeps lat off the lanes of ES's SIMD layout in each precision P ("" where nothing does):
/// the lane split's own error.
template <class ES, class... P> std::string simd_split_misfit(const Lattice& lat) {
  try {
    (SIMDGeometry(lat, ArchTraits<ES>::template simd_complex<compute_t<P>>::lanes), ...);
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "";
}

} // namespace kqcd

// The operators compiled into the library (KQCD_PRECISIONS, KQCD_OPERATORS, host backends): extern here.
#include <kqcd/instances/simd_local_operator_instances.hpp>
