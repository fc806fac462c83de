// Wilson-type operators D = A - H/2 as the one hopping kernel plus a site-local term A (conventions.md):
// Wilson mass, twisted mass, clover (stored or in-kernel inverse) and twisted clover. A term hands the
// kernel device policies for A and A^-1 (kernels/local_terms.hpp). FullOperator<Term> applies D to
// full spinors; EvenOddOperator<Term> the Schur complement A_ee - (1/4) H_eo A_oo^-1 H_oe, on the
// layout ArchTraits chooses (SIMD lanes on host backends, plain on CUDA) or a named one. Both model
// the solvers' operator concept (vector_type, create_vector(), apply(out, in, isign)). This header
// has the plain layout; the SIMD one, the default on host backends, is simd_local_operators.hpp,
// and operators.hpp has both and the layout chosen at run time.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/fields/clover_field.hpp>
#include <kqcd/kernels/clover_inverse_kokkos_kernels.hpp>
#include <kqcd/kernels/clover_term.hpp>
#include <kqcd/kernels/local_terms.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <array>
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kqcd {

namespace detail {
/// The packed blocks of one parity (and the inverse parts `inverse` asks for) built from u's links.
template <class BlockInverse, class Real, class ES>
void build_clover_parity(const CloverField<Real, ES>& f, const GaugeField<Kokkos::complex<Real>, ES>& u, int p, double diag,
                         double csw, typename CloverField<Real, ES>::Inverse inverse, double mu) {
  using Field = CloverField<Real, ES>;
  using GV = typename Field::gauge_type::cb_type::view_type;
  using Inverse = typename Field::Inverse;
  CloverBuildFunctor<GV, typename Field::view_type, BlockInverse> fn{LinkReader<GV>{{u[0].view(), u[1].view()}, f.lattice()},
                                                                     f.term(p),
                                                                     f.inverse(p),
                                                                     f.inverse_twist(p),
                                                                     p,
                                                                     diag,
                                                                     csw,
                                                                     mu,
                                                                     inverse == Inverse::none      ? 0
                                                                     : inverse == Inverse::inverse ? 1
                                                                                                   : 2};
  // Idempotent (reads only links), so tuning trials need no backup.
  tuned_site_launch<ES, Real>("kqcd::CloverField::build", std::string(Field::inverse_name(inverse)) + ", " + BlockInverse::name,
                              f.lattice().to_string(), f.lattice().cb_volume(), fn);
}

template <class Real, class ES>
CloverField<Real, ES> build_clover(const GaugeField<Kokkos::complex<Real>, ES>& u, double diag, double csw,
                                   typename CloverField<Real, ES>::Inverse inverse, double mu,
                                   typename CloverField<Real, ES>::BlockInverter inverter) {
  using Field = CloverField<Real, ES>;
  using Inverse = typename Field::Inverse;
  using View = typename Field::view_type;
  if (inverter == Field::BlockInverter::kokkos_kernels && !Field::kokkos_kernels_available)
    throw invalid_argument("clover block inverse: Kokkos Kernels requested, but kqcd was built without it "
                           "(KQCD_ENABLE_KOKKOS_KERNELS)");
  const Lattice& lat = u.lattice();
  std::array<View, 2> a, inv, twist;
  if (lat.distributed()) {
    // The field strength needs links of diagonal neighbours: build on the extended gauge field
    // (comm/extended_field.hpp) and keep this rank's sites.
    const LatticeExtension ext(lat, 1);
    const Field whole = build_clover(ext.extend(u), diag, csw, inverse, mu, inverter);
    for (int p = 0; p < 2; ++p) {
      const int q = ext.map().ext_parity(p);
      a[p] = ext.extract_sites<ES>(whole.term(q), p);
      if (inverse != Inverse::none) inv[p] = ext.extract_sites<ES>(whole.inverse(q), p);
      if (inverse == Inverse::twisted) twist[p] = ext.extract_sites<ES>(whole.inverse_twist(q), p);
    }
    return Field(lat, a, inv, twist);
  }
  const int n = lat.cb_volume();
  for (int p = 0; p < 2; ++p) {
    a[p] = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "clover"), n);
    if (inverse != Inverse::none) inv[p] = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "clover_inv"), n);
    if (inverse == Inverse::twisted) twist[p] = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "clover_inv_twist"), n);
  }
  const Field f(lat, a, inv, twist);
  for (int p = 0; p < 2; ++p) {
#if KQCD_HAVE_KOKKOS_KERNELS
    if (inverter == Field::BlockInverter::kokkos_kernels) {
      build_clover_parity<BatchedLUBlockInverse>(f, u, p, diag, csw, inverse, mu);
      continue;
    }
#endif
    build_clover_parity<LDLBlockInverse>(f, u, p, diag, csw, inverse, mu);
  }
  Kokkos::fence("kqcd::CloverField::build");
  return f;
}
} // namespace detail

// CloverField's construction from links (fields/clover_field.hpp): the build kernel is launched here.
template <class Real, class ExecSpace>
CloverField<Real, ExecSpace>::CloverField(const gauge_type& u, double diag, double csw, Inverse inverse, double mu,
                                          BlockInverter inverter)
    : CloverField(detail::build_clover(u, diag, csw, inverse, mu, inverter)) {}

/// A = 4 + m.
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace> class WilsonMassTerm {
public:
  /// Storage precision, arithmetic precision (Real: its alias) and execution space.
  ///@{
  using precision = P;
  using real_type = compute_t<P>;
  using Real = real_type;
  using execution_space = ExecSpace;
  ///@}
  using local_type = ScalarLocal<Real>; ///< Site-local policy applying A.
  using inverse_type = ScalarLocal<Real>; ///< Site-local policy applying A^-1.
  /// Flops per site of the site-local part of "hopping + local" (QUDA's count: the xpay).
  static constexpr double local_flops = 48.0;
  static constexpr double local_reals = 0.0; ///< reals per site read for the local term
  static constexpr const char* name = "wilson"; ///< The term's name (benchmarks, messages).

  /// A = 4 + mass (the links are not used); throws if A vanishes.
  template <class Gauge> WilsonMassTerm(const Gauge&, double mass) : a_(4.0 + mass) {
    if (!(a_ != 0.0)) throw invalid_argument("Wilson mass m = -4 makes the diagonal term vanish");
  }
  /// The mass m.
  double mass() const { return a_ - 4.0; }
  /// A = a: a constant the operators fold into their hopping kernels' coefficients.
  double diagonal() const { return a_; }
  /// Site-local policy applying A.
  local_type local(int, int) const { return {Real(a_)}; }
  /// Site-local policy applying A^-1.
  inverse_type inverse(int, int) const { return {Real(1.0 / a_)}; }
  /// Device memory held, in bytes (none).
  double memory_bytes() const { return 0.0; }

private:
  double a_;
};

/// A = 4 + m + i mu g5.
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace> class TwistedMassTerm {
public:
  /// Storage precision, arithmetic precision (Real: its alias) and execution space.
  ///@{
  using precision = P;
  using real_type = compute_t<P>;
  using Real = real_type;
  using execution_space = ExecSpace;
  ///@}
  using local_type = TwistLocal<Real>; ///< Site-local policy applying A.
  using inverse_type = TwistLocal<Real>; ///< Site-local policy applying A^-1.
  static constexpr double local_flops = 48.0; ///< Flops per site of the site-local part of "hopping + local".
  static constexpr double local_reals = 0.0; ///< Reals per site read for the local term.
  static constexpr const char* name = "twisted"; ///< The term's name (benchmarks, messages).

  /// A = 4 + mass + i mu g5 (the links are not used); throws if A vanishes.
  template <class Gauge> TwistedMassTerm(const Gauge&, double mass, double mu) : a_(4.0 + mass), mu_(mu) {
    if (!(a_ * a_ + mu_ * mu_ != 0.0)) throw invalid_argument("twisted mass: 4 + m = 0 and mu = 0 make A vanish");
  }
  /// The twisted mass mu.
  double mu() const { return mu_; }
  /// Site-local policy applying A, with mu's sign isign.
  local_type local(int, int isign) const { return {Real(a_), Real(isign * mu_)}; }
  /// Site-local policy applying A^-1, with mu's sign isign.
  inverse_type inverse(int, int isign) const {
    const double n = a_ * a_ + mu_ * mu_;
    return {Real(a_ / n), Real(-isign * mu_ / n)};
  }
  /// Device memory held, in bytes (none).
  double memory_bytes() const { return 0.0; }

private:
  double a_, mu_;
};

/// How the clover inverse is applied: stored, or by a Cholesky solve in the kernel.
enum class CloverInverse { stored, dynamic };

/// Clover term A = 4 + m + c_sw (i/4) sum sigma F: packed chiral blocks of A, A^-1 stored or solved in-kernel.
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace, CloverInverse inv = CloverInverse::stored>
class CloverTerm {
public:
  /// Storage precision, arithmetic precision (Real: its alias) and execution space.
  ///@{
  using precision = P;
  using real_type = compute_t<P>;
  using Real = real_type;
  using execution_space = ExecSpace;
  ///@}
  using field_type = CloverField<Real, ExecSpace>; ///< The stored blocks.
  using view_type = typename field_type::const_view_type; ///< Read-only view of the blocks.
  using local_type = PackedHermitianLocal<Real, view_type>; ///< Site-local policy applying A.
  /// Site-local policy applying A^-1: the stored inverse, or an in-kernel Cholesky solve.
  using inverse_type =
      std::conditional_t<inv == CloverInverse::stored, PackedHermitianLocal<Real, view_type>, CholeskyInverseLocal<Real, view_type>>;
  /// QUDA's count: 504 for the two 6x6 block products + 48 for the combination.
  static constexpr double local_flops = 552.0;
  static constexpr double local_reals = 72.0; ///< Reals per site read for the local term.
  static constexpr const char* name = inv == CloverInverse::stored ? "clover" : "clover-dynamic"; ///< The term's name (benchmarks, messages).

  /// A = 4 + mass + c_sw (i/4) sum sigma F of links u; A^-1 stored unless dynamic.
  CloverTerm(const typename field_type::gauge_type& u, double mass, double csw,
             typename field_type::BlockInverter inverter = field_type::BlockInverter::ldl)
      : field_(u, 4.0 + mass, csw, inv == CloverInverse::stored ? field_type::Inverse::inverse : field_type::Inverse::none, 0.0,
               inverter) {}
  /// The blocks.
  const field_type& field() const { return field_; }
  /// Site-local policy applying A on parity.
  local_type local(int parity, int) const { return {field_.term(parity)}; }
  /// Site-local policy applying A^-1 on parity.
  inverse_type inverse(int parity, int) const {
    if constexpr (inv == CloverInverse::stored) return {field_.inverse(parity)};
    else return {field_.term(parity)};
  }
  /// Device memory held, in bytes.
  double memory_bytes() const { return field_.memory_bytes(); }

private:
  field_type field_;
};

/// Twisted clover term: A + i mu g5, inverse X - i mu g5 B with X = B A, B = (A^2 + mu^2)^-1.
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace> class TwistedCloverTerm {
public:
  /// Storage precision, arithmetic precision (Real: its alias) and execution space.
  ///@{
  using precision = P;
  using real_type = compute_t<P>;
  using Real = real_type;
  using execution_space = ExecSpace;
  ///@}
  using field_type = CloverField<Real, ExecSpace>; ///< The stored blocks.
  using view_type = typename field_type::const_view_type; ///< Read-only view of the blocks.
  using local_type = TwistedPackedLocal<Real, view_type>; ///< Site-local policy applying A + i mu g5.
  using inverse_type = TwistedPackedInverseLocal<Real, view_type>; ///< Site-local policy applying its inverse.
  static constexpr double local_flops = 552.0; ///< QUDA's count for twisted clover
  static constexpr double local_reals = 144.0; ///< X and W read by the inverse
  static constexpr const char* name = "twisted-clover"; ///< The term's name (benchmarks, messages).

  /// A + i mu g5 with A the clover term of links u (mass, c_sw); X and W stored for the inverse.
  TwistedCloverTerm(const typename field_type::gauge_type& u, double mass, double csw, double mu,
                    typename field_type::BlockInverter inverter = field_type::BlockInverter::ldl)
      : field_(u, 4.0 + mass, csw, field_type::Inverse::twisted, mu, inverter), mu_(mu) {}
  /// The blocks.
  const field_type& field() const { return field_; }
  /// The twisted mass mu.
  double mu() const { return mu_; }
  /// Site-local policy applying A + i isign mu g5 on parity.
  local_type local(int parity, int isign) const { return {field_.term(parity), Real(isign * mu_)}; }
  /// Site-local policy applying its inverse on parity.
  inverse_type inverse(int parity, int isign) const {
    return {field_.inverse(parity), field_.inverse_twist(parity), Real(isign)};
  }
  /// Device memory held, in bytes.
  double memory_bytes() const { return field_.memory_bytes(); }

private:
  field_type field_;
  double mu_;
};

/// out = Local(in) on every site of one parity.
template <class Spinor, class Local> void apply_site_local(Spinor& out, const Spinor& in, const Local& local) {
  using ES = typename Spinor::execution_space;
  if (out.parity() != in.parity() || !(out.lattice() == in.lattice()))
    throw invalid_argument("apply_site_local: input and output differ in parity or lattice");
  using V = typename Spinor::view_type;
  using Real = typename Spinor::real_type;
  using In = SpinorAccessor<ReadOnlyView<V>, Real>;
  using Out = SpinorAccessor<V, Real>;
  Kokkos::parallel_for("kqcd::site_local", Kokkos::RangePolicy<ES>(0, in.sites()),
                       SiteLocalFunctor<In, Out, Local>{In{in.view()}, Out{out.view()}, local});
}

/// A term whose A is one constant a on every site (WilsonMassTerm): the operators fold a and 1/a
/// into the coefficients of their hopping kernels' xpay instead of launching site-local policies.
template <class Term>
concept ConstantDiagonalTerm = requires(const Term& t) {
  { t.diagonal() } -> std::convertible_to<double>;
};

namespace detail {

/// A layout's copies of the packed block views that a term's site-local policies read, in the
/// layout's storage (Blocks: 16 bits, SIMD lanes): each view copied once (adopt, make(view)) and
/// keyed by its data; site_local re-points a policy at the copies (block_reader). Blocks = void: the
/// layout reads the term's own blocks.
template <class Blocks> class AdoptedBlocks {
public:
  template <class Local, class Make> void adopt(const Local& local, const Make& make) {
    (void)local.map_blocks([&](const auto& view) {
      const Blocks* blocks = find(view.data());
      if (!blocks) blocks = &copies_.emplace_back(view.data(), make(view)).second;
      return block_reader(*blocks);
    });
  }
  template <class Local> auto site_local(const Local& local) const {
    return local.map_blocks([&](const auto& view) {
      const Blocks* blocks = find(view.data());
      if (!blocks) throw invalid_argument("a site-local policy reads packed blocks that its operator's layout did not adopt");
      return block_reader(*blocks);
    });
  }
  double memory_bytes() const {
    double b = 0;
    for (const auto& [key, blocks] : copies_) b += blocks.memory_bytes();
    return b;
  }

private:
  const Blocks* find(const void* key) const {
    for (const auto& [k, blocks] : copies_)
      if (k == key) return &blocks;
    return nullptr;
  }
  std::vector<std::pair<const void*, Blocks>> copies_;
};
template <> class AdoptedBlocks<void> {
public:
  template <class Local, class Make> void adopt(const Local&, const Make&) {}
  template <class Local> const Local& site_local(const Local& local) const { return local; }
  double memory_bytes() const { return 0.0; }
};
} // namespace detail

/// Where an EvenOddOperator keeps its fields and how its kernels read them: the plain layout is
/// WilsonDslash on CBSpinor (storage precision P: float, double or kqcd::half; neighbour mode and
/// link reconstruction as given), the term's site-local policies as the term hands them out (in
/// half re-pointed at 16-bit copies of their blocks); simd_local_operators.hpp has the SIMD one.
template <class P, class ES, NeighbourMode mode = ArchTraits<ES>::neighbour_mode, class Recon = Recon18> class PlainLayout {
public:
  using dslash_type = WilsonDslash<P, ES, mode, Recon>; ///< The hopping term.
  using gauge_type = typename dslash_type::gauge_type; ///< The gauge field it is built from.
  using spinor_type = typename dslash_type::spinor_type; ///< The layout's single-parity spinor.
  using plain_spinor_type = spinor_type; ///< The plain spinor converted to and from (the same).
  using full_spinor_type = SpinorField<Kokkos::complex<compute_t<P>>, Ns, ES>; ///< The layout's full spinor.
  /// Blocks of right-hand sides: the hopping term's own (SpinorBlock of spinor_type).
  using multi_spinor_type = typename dslash_type::multi_spinor_type;
  static constexpr bool has_blocks = dslash_type::has_blocks; ///< Whether the hopping term has blocks of right-hand sides.
  static constexpr const char* name = "scalar"; ///< as kqcd's --layout and its JSON name it
  struct options {}; ///< nothing to choose

  /// The layout of links u with boundary phases bc.
  PlainLayout(const gauge_type& u, const BoundaryPhases& bc, options = {}) : dslash_(u, bc) {}
  /// The lattice.
  const Lattice& lattice() const { return dslash_.lattice(); }
  /// The hopping term.
  ///@{
  const dslash_type& dslash() const { return dslash_; }
  dslash_type& dslash() { return dslash_; }
  ///@}
  /// The hopping term on blocks: the same one.
  const dslash_type& block_dslash() const { return dslash_; }
  /// A spinor of parity `parity` in the layout.
  spinor_type create_spinor(int parity, const std::string& label) const { return spinor_type(lattice(), parity, label); }
  /// A block of n_rhs right-hand sides of parity `parity`.
  multi_spinor_type create_multi(int parity, int n_rhs, const std::string& label) const
    requires has_blocks
  {
    return multi_spinor_type(lattice(), parity, n_rhs, label);
  }
  /// A full spinor in the layout.
  full_spinor_type create_full(const std::string& label) const { return full_spinor_type(lattice(), label); }
  /// The kernels read the term's own fields, but in 16 bits: then each packed block view is copied
  /// once into 16-bit blocks (HalfHermitianBlocks) and the policies are re-pointed at the copies.
  template <class Local> void adopt(const Local& local, int) {
    blocks_.adopt(local, [](const auto& view) { return HalfHermitianBlocks<ES>(view); });
  }
  /// The site-local policy local, re-pointed at the adopted blocks (16 bits).
  template <class Local> auto site_local(const Local& local) const { return blocks_.site_local(local); }
  /// Blocks of right-hand sides read the same blocks as single spinors.
  template <class Local> auto block_site_local(const Local& local) const { return site_local(local); }
  /// dst = src into the layout (a copy).
  void to_layout(spinor_type& dst, const plain_spinor_type& src) const { Kokkos::deep_copy(dst.view(), src.view()); }
  /// dst = src out of the layout (a copy).
  void from_layout(plain_spinor_type& dst, const spinor_type& src) const { Kokkos::deep_copy(dst.view(), src.view()); }
  /// The 16-bit copies of the site-local blocks (the term keeps its own besides).
  double memory_bytes() const { return blocks_.memory_bytes(); }

private:
  dslash_type dslash_;
  detail::AdoptedBlocks<std::conditional_t<PrecisionTraits<P>::is_half, HalfHermitianBlocks<ES>, void>> blocks_;
};

/// The virtual-node SIMD layout of host backends (simd_local_operators.hpp).
template <class P, class ES, class Recon = Recon18, NeighbourMode mode = ArchTraits<ES>::neighbour_mode,
          class V = typename ArchTraits<ES>::template simd_complex<compute_t<P>>>
class SIMDLayout;

/// The layout ArchTraits<ES> chooses for the operators' fields, and the operators' default: SIMD
/// lanes where the backend has them (ArchTraits<ES>::simd_layout, the host backends), the plain
/// layout elsewhere (CUDA: a site per thread). The lanes need a lattice whose automatic split exists
/// (SIMDGeometry::splits); an operator built on another throws, naming its extents: there the plain
/// layout is the caller's choice (with_even_odd_operator makes it at run time). On host backends an
/// operator of this layout needs SIMDLayout's definition: include operators.hpp.
template <class P, class ES = Kokkos::DefaultExecutionSpace, class Recon = Recon18>
using NativeLayout = std::conditional_t<ArchTraits<ES>::simd_layout, SIMDLayout<P, ES, Recon>,
                                        PlainLayout<P, ES, ArchTraits<ES>::neighbour_mode, Recon>>;

namespace detail {
/// What FullOperator and EvenOddOperator share: the term built from (u, args...), the layout policy
/// that holds the fields and the hopping term, the term's packed blocks of A (and with
/// adopt_inverse of A^-1) adopted into the layout, and the accessors. The layout's options (the
/// SIMD lane split) may come before u.
template <class Term, class Layout, bool adopt_inverse> class LayoutOperator {
public:
  using Real = typename Term::real_type;
  using ES = typename Term::execution_space;
  using term_type = Term;
  using layout_type = Layout;
  using dslash_type = typename Layout::dslash_type;
  using gauge_type = typename Layout::gauge_type;
  using real_type = Real;

  template <class... Args>
  LayoutOperator(const gauge_type& u, const BoundaryPhases& bc, Args&&... args)
      : LayoutOperator(typename Layout::options{}, u, bc, std::forward<Args>(args)...) {}
  template <class... Args>
  LayoutOperator(const typename Layout::options& options, const gauge_type& u, const BoundaryPhases& bc, Args&&... args)
      : layout_(u, bc, options), term_(u, std::forward<Args>(args)...) {
    for (int p = 0; p < 2; ++p) {
      layout_.adopt(term_.local(p, 1), p);
      if constexpr (adopt_inverse) layout_.adopt(term_.inverse(p, 1), p);
    }
  }
  const Lattice& lattice() const { return layout_.lattice(); }
  const Layout& layout() const { return layout_; }
  const dslash_type& dslash() const { return layout_.dslash(); }
  const Term& term() const { return term_; }
  /// Wilson's m, and A = 4 + m.
  double mass() const requires ConstantDiagonalTerm<Term> { return term_.mass(); }
  double diagonal() const requires ConstantDiagonalTerm<Term> { return term_.diagonal(); }
  /// The hopping term's halo on a distributed lattice: the interior computed while it flies
  /// (default) or not; faces spin-projected (default) or whole.
  void set_overlap(bool on) { layout_.dslash().set_overlap(on); }
  void set_spin_projection(bool on) { layout_.dslash().set_spin_projection(on); }
  /// Memory of the site-local term: the term's fields and the layout's copies of them.
  double memory_bytes() const { return term_.memory_bytes() + layout_.memory_bytes(); }

protected:
  Layout layout_;
  Term term_;
};
} // namespace detail

/// D = A - H/2 on full spinors of Layout (float or double; by default ArchTraits' NativeLayout, or
/// PlainLayout, or SIMDLayout of simd_local_operators.hpp); constructed from (u, bc, term
/// arguments...), e.g. FullOperator<CloverTerm<double>>(u, bc, mass, csw).
template <class Term, class Layout = NativeLayout<typename Term::precision, typename Term::execution_space>>
class FullOperator : public detail::LayoutOperator<Term, Layout, false> {
  using Base = detail::LayoutOperator<Term, Layout, false>;
  using Base::layout_;
  using Base::term_;

public:
  using typename Base::Real;
  using Base::lattice;
  using spinor_type = typename Layout::spinor_type; ///< The layout's single-parity spinor.
  using vector_type = typename Layout::full_spinor_type; ///< The layout's full spinor.
  static_assert(std::is_same_v<typename Term::precision, Real>, "full operators act on float or double spinors");
  using Base::Base;

  /// A full spinor in the layout.
  vector_type create_vector(const std::string& label = "full_vector") const { return layout_.create_full(label); }
  /// out = D in (isign = +1) or D^dag in (isign = -1). out must not alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const;
  /// Flops of one apply() (QUDA's count).
  double flops() const { return 2.0 * lattice().cb_volume() * (WilsonDslash<Real>::flops_per_site + Term::local_flops); }
};

/// D_hat = A_ee - (1/4) H_eo A_oo^-1 H_oe on the even sites of Layout's spinors (by default
/// ArchTraits' NativeLayout; PlainLayout, or SIMDLayout of simd_local_operators.hpp): the Schur
/// complement written once for every layout and every term, Wilson's (WilsonEOOperator) included.
/// With a term in kqcd::half (the sloppy operator of a double-half solver) the spinors and links are
/// 16-bit and the clover blocks float; prepare_source and reconstruct from plain spinors are then
/// not offered.
template <class Term, class Layout = NativeLayout<typename Term::precision, typename Term::execution_space>>
class EvenOddOperator : public detail::LayoutOperator<Term, Layout, true> {
  using Base = detail::LayoutOperator<Term, Layout, true>;
  using Base::layout_;
  using Base::term_;

public:
  using typename Base::dslash_type;
  using typename Base::ES;
  using typename Base::Real;
  using Base::diagonal;
  using Base::dslash;
  using Base::lattice;
  using vector_type = typename Layout::spinor_type; ///< even-site spinor
  using field_type = SpinorField<Kokkos::complex<Real>, Ns, ES>; ///< a plain full spinor (sources, solutions)
  /// Blocks of right-hand sides (the layout's: MultiCBSpinor, or SIMDBlockSpinor with one right-hand
  /// side per lane).
  using multi_vector_type = typename Layout::multi_spinor_type;
  static constexpr bool constant_diagonal = ConstantDiagonalTerm<Term>; ///< Whether A is one constant (ConstantDiagonalTerm).
  static constexpr bool has_blocks = Layout::has_blocks; ///< Whether the layout has blocks of right-hand sides.
  static constexpr bool half_storage = PrecisionTraits<typename Term::precision>::is_half; ///< Whether spinors and links are 16-bit (a term in kqcd::half).

  /// Built from (u, bc, term arguments...): e.g. EvenOddOperator<CloverTerm<double>>(u, bc, mass, csw);
  /// the layout's options (the SIMD lane split) may come first.
  using Base::Base;
  /// An even-site spinor in the layout.
  vector_type create_vector(const std::string& label = "eo_vector") const { return layout_.create_spinor(0, label); }
  /// A spinor of parity `parity` in the layout.
  vector_type create_spinor(int parity, const std::string& label = "eo_spinor") const { return layout_.create_spinor(parity, label); }

  /// out = D_hat in (isign = +1) or D_hat^dag in (isign = -1), both on even sites; out may alias in.
  // The members that launch kernels are defined below the class (compiled once in the library).
  void apply(vector_type& out, const vector_type& in, int isign = 1) const;
  /// out = D_hat^dag D_hat in, on even sites.
  void apply_normal(vector_type& out, const vector_type& in) const {
    apply(tmp_even_, in, 1);
    apply(out, tmp_even_, -1);
  }
  /// out = D_hat in as a Kokkos graph of its two hopping kernels, bound to these vectors: submit() it
  /// as often as needed, one launch of the graph for the two kernels (out must not alias in).
  /// Launch shapes are those tuned by an earlier apply(). Either layout, constant diagonal, one process.
  template <class Graph = Kokkos::Experimental::Graph<ES>>
  Graph make_graph(vector_type& out, const vector_type& in, int isign = 1) const
    requires constant_diagonal
  {
    const double a = diagonal();
    const auto& d = layout_.dslash();
    return Kokkos::Experimental::create_graph<ES>([&](const auto& root) {
      const auto odd = d.then_apply(GraphNode<ES>(root), tmp_odd_, in, isign, 1);
      d.then_apply_xpay(odd, out, tmp_odd_, isign, 0, Real(a), in, Real(-0.25 / a));
    });
  }
  /// Multi-RHS: out_r = D_hat in_r for each right-hand side of a block (on the SIMD layout at most
  /// the lane count, in float and double). out may alias in.
  multi_vector_type create_multi(int n_rhs, const std::string& label = "eo_block") const
    requires has_blocks
  {
    return layout_.create_multi(0, n_rhs, label);
  }
  /// out_r = D_hat in_r (isign = +1) or D_hat^dag in_r for each right-hand side of a block.
  void apply(multi_vector_type& out, const multi_vector_type& in, int isign = 1) const
    requires has_blocks;
  /// out = A_tt^-1 H in on parity target_cb: the hopping term with the site-local term of the
  /// preconditioned operator (the benchmarked "Dslash" of QUDA's count).
  void apply_hopping_inverse(vector_type& out, const vector_type& in, int isign, int target_cb) const;
  /// b_hat = b_e + (1/2) H_eo A_oo^-1 b_o.
  void prepare_source(vector_type& b_hat, const vector_type& b_even, const vector_type& b_odd, int isign = 1) const
    requires(!half_storage);
  /// x_o = A_oo^-1 (b_o + (1/2) H_oe x_e): with x_e, the solution of D x = b (x_odd may alias b_odd).
  void reconstruct(vector_type& x_odd, const vector_type& x_even, const vector_type& b_odd, int isign = 1) const;
  /// The same from and into plain full spinors (x = (x_e, x_o)).
  ///@{
  void prepare_source(vector_type& b_hat, const field_type& b, int isign = 1) const
    requires(!half_storage);
  void reconstruct(field_type& x, const vector_type& x_even, const field_type& b, int isign = 1) const
    requires(!half_storage);
  ///@}
  /// The hopping kernel's sites per team (the plain layout's launcher).
  void set_sites_per_team(int n) requires requires(Layout& l) { l.dslash().set_sites_per_team(n); } {
    layout_.dslash().set_sites_per_team(n);
  }
  /// The hopping kernel's sites per team.
  int dslash_sites_per_team() const requires requires(const Layout& l) { l.dslash().sites_per_team(); } {
    return layout_.dslash().sites_per_team();
  }
  /// Flops of one apply(): two hopping terms, each with its site-local term (QUDA's count); with a
  /// constant diagonal, two hopping terms and one xpay.
  double flops() const {
    if constexpr (constant_diagonal) return lattice().cb_volume() * (2.0 * WilsonDslash<Real>::flops_per_site + Term::local_flops);
    else return 2.0 * lattice().cb_volume() * (WilsonDslash<Real>::flops_per_site + Term::local_flops);
  }
  /// Flops and bytes (no-reuse model plus the site-local data read) of apply_hopping_inverse.
  ///@{
  double hopping_flops() const { return lattice().cb_volume() * (WilsonDslash<Real>::flops_per_site + Term::local_flops); }
  double hopping_bytes() const {
    // Packed block reals as stored: 16 bits each plus a float unit per block in half.
    constexpr double real_bytes =
        PrecisionTraits<typename Term::precision>::is_half ? 2.0 + double(sizeof(float)) / clover_pack::reals_per_block : sizeof(Real);
    return dslash().bytes(false) + lattice().cb_volume() * real_bytes * Term::local_reals;
  }
  ///@}
  /// Bytes of one apply() in the no-reuse model of the hopping term (constant diagonal: the
  /// second kernel reads the xpay addend).
  double bytes() const
    requires constant_diagonal
  {
    return dslash().bytes(false) + dslash().bytes(true);
  }

private:
  /// D_hat in through the hopping term d into tmp (odd sites) and out, single spinors and blocks
  /// alike: for a constant diagonal a, H in into tmp, then a in - H tmp / (4a); else A_oo^-1 H in
  /// into tmp, then A_ee in - H tmp / 4, the site-local policies as site_local (the layout's
  /// site_local or block_site_local) hands them to d.
  template <class D, class V, class SiteLocal>
  void apply_schur(const D& d, const SiteLocal& site_local, V& out, const V& in, V& tmp, int isign) const {
    if constexpr (constant_diagonal) {
      const double a = diagonal();
      d.apply(tmp, in, isign, 1);
      d.apply_xpay(out, tmp, isign, 0, Real(a), in, Real(-0.25 / a));
    } else {
      d.apply_local_after(tmp, in, isign, 1, site_local(term_.inverse(1, isign)), Real(1));
      d.apply_local_xpay(out, tmp, isign, 0, site_local(term_.local(0, isign)), in, Real(-0.25));
    }
  }
  /// The plain layout's full spinors hold its even-odd vectors: sources and solutions are read and
  /// written in place, not copied through the layout's temporaries.
  static constexpr bool plain_parities = std::is_same_v<typename Layout::plain_spinor_type, vector_type>;

  mutable vector_type tmp_odd_ = layout_.create_spinor(1, "eo_tmp_odd");
  mutable vector_type tmp_even_ = layout_.create_spinor(0, "eo_tmp_even");
  mutable multi_vector_type multi_tmp_;
};

template <class Term, class Layout>
void FullOperator<Term, Layout>::apply(vector_type& out, const vector_type& in, int isign) const {
  ProfileScope prof("kqcd::FullOperator::apply");
  auto compute = prof.phase(ProfilePhase::compute);
  const auto& d = layout_.dslash();
  for (int p = 0; p < 2; ++p) {
    if constexpr (ConstantDiagonalTerm<Term>) d.apply_xpay(out[p], in[1 - p], isign, p, Real(term_.diagonal()), in[p], Real(-0.5));
    else d.apply_local_xpay(out[p], in[1 - p], isign, p, layout_.site_local(term_.local(p, isign)), in[p], Real(-0.5));
  }
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::apply(vector_type& out, const vector_type& in, int isign) const {
  ProfileScope prof("kqcd::EvenOddOperator::apply");
  auto compute = prof.phase(ProfilePhase::compute);
  apply_schur(layout_.dslash(), [&](const auto& local) { return layout_.site_local(local); }, out, in, tmp_odd_, isign);
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::apply(multi_vector_type& out, const multi_vector_type& in, int isign) const
  requires has_blocks
{
  if (multi_tmp_.n_rhs() != in.n_rhs() || multi_tmp_.view().size() == 0)
    multi_tmp_ = layout_.create_multi(1, in.n_rhs(), "eo_block_tmp_odd");
  apply_schur(layout_.block_dslash(), [&](const auto& local) { return layout_.block_site_local(local); }, out, in, multi_tmp_,
              isign);
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::apply_hopping_inverse(vector_type& out, const vector_type& in, int isign, int target_cb) const {
  layout_.dslash().apply_local_after(out, in, isign, target_cb, layout_.site_local(term_.inverse(target_cb, isign)), Real(1));
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::prepare_source(vector_type& b_hat, const vector_type& b_even, const vector_type& b_odd,
                                                  int isign) const
  requires(!half_storage)
{
  if constexpr (constant_diagonal) {
    layout_.dslash().apply_xpay(b_hat, b_odd, isign, 0, Real(1), b_even, Real(0.5 / diagonal()));
  } else {
    apply_site_local(tmp_odd_, b_odd, layout_.site_local(term_.inverse(1, isign)));
    layout_.dslash().apply_xpay(b_hat, tmp_odd_, isign, 0, Real(1), b_even, Real(0.5));
  }
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::reconstruct(vector_type& x_odd, const vector_type& x_even, const vector_type& b_odd,
                                               int isign) const {
  if constexpr (constant_diagonal) {
    const double a = diagonal();
    layout_.dslash().apply_xpay(x_odd, x_even, isign, 1, Real(1.0 / a), b_odd, Real(0.5 / a));
  } else {
    layout_.dslash().apply_local_after(x_odd, x_even, isign, 1, layout_.site_local(term_.inverse(1, isign)), Real(0.5),
                                       &b_odd, Real(1));
  }
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::prepare_source(vector_type& b_hat, const field_type& b, int isign) const
  requires(!half_storage)
{
  if constexpr (plain_parities) {
    prepare_source(b_hat, b[0], b[1], isign);
  } else {
    // tmp_even_ holds b_e (apply_normal's scratch: not in use here); A^-1 overwrites b_o in place.
    layout_.to_layout(tmp_even_, b[0]);
    layout_.to_layout(tmp_odd_, b[1]);
    prepare_source(b_hat, tmp_even_, tmp_odd_, isign);
  }
}

template <class Term, class Layout>
void EvenOddOperator<Term, Layout>::reconstruct(field_type& x, const vector_type& x_even, const field_type& b, int isign) const
  requires(!half_storage)
{
  layout_.from_layout(x[0], x_even);
  if constexpr (plain_parities) {
    reconstruct(x[1], x_even, b[1], isign);
  } else {
    layout_.to_layout(tmp_odd_, b[1]);
    reconstruct(tmp_odd_, x_even, tmp_odd_, isign);
    layout_.from_layout(x[1], tmp_odd_);
  }
}

/// The operators on the plain layout (a site per thread on every backend; CBSpinor vectors).
template <class Term, class Recon = Recon18>
using PlainEvenOddOperator = EvenOddOperator<Term, PlainLayout<typename Term::precision, typename Term::execution_space,
                                                               ArchTraits<typename Term::execution_space>::neighbour_mode, Recon>>;
/// FullOperator of Term on the plain layout.
template <class Term, class Recon = Recon18>
using PlainFullOperator = FullOperator<Term, PlainLayout<typename Term::precision, typename Term::execution_space,
                                                         ArchTraits<typename Term::execution_space>::neighbour_mode, Recon>>;

// The operators by name, on the plain layout (Wilson's with its neighbour mode and reconstruction).
/// D = (4 + m) - H/2 and its even-odd Schur complement A - H_eo H_oe / (4A), A = 4 + m (P: float,
/// double, or kqcd::half for the even-odd sloppy operator).
template <class Real, class ES = Kokkos::DefaultExecutionSpace, NeighbourMode mode = ArchTraits<ES>::neighbour_mode,
          class Recon = Recon18>
using WilsonOperator = FullOperator<WilsonMassTerm<Real, ES>, PlainLayout<Real, ES, mode, Recon>>;
template <class P, class ES = Kokkos::DefaultExecutionSpace, NeighbourMode mode = ArchTraits<ES>::neighbour_mode,
          class Recon = Recon18>
/// Even-odd Wilson operator on the plain layout.
using WilsonEOOperator = EvenOddOperator<WilsonMassTerm<P, ES>, PlainLayout<P, ES, mode, Recon>>;
/// Even-odd clover operator (stored inverse) on the plain layout.
template <class P, class ES = Kokkos::DefaultExecutionSpace> using CloverEOOperator = PlainEvenOddOperator<CloverTerm<P, ES>>;
/// Even-odd clover operator (in-kernel inverse) on the plain layout.
template <class P, class ES = Kokkos::DefaultExecutionSpace>
using DynamicCloverEOOperator = PlainEvenOddOperator<CloverTerm<P, ES, CloverInverse::dynamic>>;
/// Even-odd twisted-mass operator on the plain layout.
template <class P, class ES = Kokkos::DefaultExecutionSpace> using TwistedMassEOOperator = PlainEvenOddOperator<TwistedMassTerm<P, ES>>;
/// Even-odd twisted-clover operator on the plain layout.
template <class P, class ES = Kokkos::DefaultExecutionSpace>
using TwistedCloverEOOperator = PlainEvenOddOperator<TwistedCloverTerm<P, ES>>;

/// m = 1/(2 kappa) - 4.
inline double wilson_mass_from_kappa(double kappa) {
  if (!(kappa > 0.0)) throw invalid_argument("kappa must be positive, found " + std::to_string(kappa));
  return 1.0 / (2.0 * kappa) - 4.0;
}

} // namespace kqcd

// The operators compiled into the library (KQCD_PRECISIONS, KQCD_OPERATORS): extern here.
#include <kqcd/instances/local_operator_instances.hpp>
