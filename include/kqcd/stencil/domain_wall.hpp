// Domain-wall fermions (Shamir and Moebius, conventions.md "Domain-wall fermions") on the stencil
// framework: a 5D field is a block of Ls rows per 4D site (row s the slice s), so the 4D Wilson
// hopping term acts on all slices in one pass over the links (WilsonDslash's blocks of right-hand
// sides), and the fifth dimension is a site-local term that couples a site's rows
// (kernels/fifth_dimension.hpp), fused into the hopping kernel's epilogue or run as a pass of its own.
//
// With D_W(-M5) = (4 - M5) - H/2 and the slice coupling K,
//   D5 = M5_5 - (1/2) H P,   M5_5 = (b5 (4 - M5) + 1) + (c5 (4 - M5) - 1) K,   P = b5 + c5 K,
// where M5_5 and P are polynomials in K (they commute) and act within a 4D site; H P is the only
// hop. DomainWallOperator is the 4D even-odd preconditioned operator (Grid's and QUDA's scheme for
// Moebius, Shamir as b5 = 1, c5 = 0): the Schur complement on the even 4D sites
//   D_hat = M5_5 - (1/4) H P M5_5^-1 H P,
// with M5_5^-1 in closed form (a polynomial in K of degree Ls - 1), and the whole D5 on both
// parities, the source preparation and the reconstruction.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/tune.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/kernels/fifth_dimension.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kqcd {

/// The parameters of the domain-wall operator: Ls slices, domain-wall height M5, the Moebius
/// coefficients b5 and c5 (Shamir: 1 and 0) and the quark mass m_f.
struct DomainWallParams {
  int Ls = 8; ///< Slices of the fifth dimension.
  double M5 = 1.8; ///< Domain-wall height (D_W's mass is -M5).
  double b5 = 1.0; ///< Moebius b5 (Shamir: 1).
  double c5 = 0.0; ///< Moebius c5 (Shamir: 0).
  double mf = 0.01; ///< Quark mass.
  /// Whether these are Shamir's coefficients (b5 = 1, c5 = 0).
  bool shamir() const { return b5 == 1.0 && c5 == 0.0; }
  /// Throws invalid_argument naming the first bad parameter.
  void check() const;
  /// "Ls 8, M5 1.8, b5 1, c5 0, m_f 0.01".
  std::string to_string() const;
};

namespace detail {
/// A polynomial sum_k d_k K^k in the slice coupling K of Ls slices, reduced by K^Ls = -m_f (host).
struct FifthPolynomial {
  std::vector<double> d; ///< Coefficients, d.size() == Ls.
  double mf = 0.0; ///< The quark mass (K^Ls = -m_f).
  /// a + b K.
  static FifthPolynomial linear(int Ls, double mf, double a, double b);
  /// (a + b K)^-1 = sum_k (-b)^k a^(-k-1) K^k / (1 + m_f (-b / a)^Ls); throws where it does not exist.
  static FifthPolynomial inverse_linear(int Ls, double mf, double a, double b);
  /// The product (polynomials in K commute).
  FifthPolynomial operator*(const FifthPolynomial& o) const;
  /// Terms up to the last non-zero coefficient (at least one).
  int terms() const {
    int n = int(d.size());
    while (n > 1 && d[std::size_t(n - 1)] == 0.0) --n;
    return n;
  }
  /// The device policy (K^dag where dagger), scaled by s, trailing zeros dropped.
  template <class Real> FifthDimensionLocal<Real> local(bool dagger, double s = 1.0) const {
    FifthDimensionLocal<Real> l;
    l.n = terms();
    for (int k = 0; k < l.n; ++k) l.d[k] = Real(s * d[std::size_t(k)]);
    l.wall = Real(-mf);
    l.dagger = dagger;
    return l;
  }
};
} // namespace detail

namespace detail {
/// The 4D spinor a layout's walls kernel reads and writes in arithmetic precision Real: the plain
/// CBSpinor, or on the SIMD lanes a SIMDSpinor of the layout's register.
template <class Layout, class Real, class = void> struct wall_spinor {
  using type = CBSpinor<Kokkos::complex<Real>, Ns, typename Layout::execution_space>;
};
template <class Layout, class Real> struct wall_spinor<Layout, Real, std::void_t<typename Layout::simd_type>> {
  using type = SIMDSpinor<typename Layout::simd_type, typename Layout::execution_space, Ns>;
};

/// What the 4D- and 5D-preconditioned domain-wall operators share: the parameters, the 4D hopping
/// term on blocks of rows, and the walls between 4D fields and blocks of Ls rows per site.
template <class P, class ExecSpace, class Recon, class Layout> class DomainWallBase {
public:
  using precision = P; ///< Storage precision.
  using real_type = compute_t<P>; ///< Arithmetic precision.
  using Real = real_type; ///< Arithmetic precision.
  using execution_space = ExecSpace; ///< The execution space.
  /// The 4D hopping term, on blocks of right-hand sides (one row per slice).
  using dslash_type = WilsonDslash<P, ExecSpace, Layout::neighbour_mode, Recon, Layout>;
  using layout_type = Layout; ///< The stencil layout: plain sites, or the SIMD lanes.
  using geometry_type = typename dslash_type::geometry_type; ///< What the fields are built on.
  using options = typename Layout::options; ///< The layout's choices (the SIMD lane split).
  using gauge_type = typename dslash_type::gauge_type; ///< The gauge field it is built from.
  using block_type = typename dslash_type::multi_spinor_type; ///< A block of rows per site on one 4D parity.
  using field4_type = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>; ///< A plain 4D spinor (sources, quark fields).
  static_assert(dslash_type::has_blocks, "domain-wall operator: the hopping term has no blocks on this backend");
  /// Whether the fields live in the SIMD lanes (the walls then convert 4D fields in and out).
  static constexpr bool simd_lanes = !std::is_void_v<typename dslash_type::simd_type>;

  /// The parameters.
  const DomainWallParams& params() const { return p_; }
  /// Slices of the fifth dimension.
  int Ls() const { return p_.Ls; }
  /// The 4D lattice.
  const Lattice& lattice() const { return dslash_.lattice(); }
  /// What the fields are built on: the lattice, or its SIMD lane split.
  const geometry_type& geometry() const { return dslash_.geometry(); }
  /// The 4D hopping term (its launcher: tuning, timing, overlap).
  ///@{
  const dslash_type& dslash() const { return dslash_; }
  dslash_type& dslash() { return dslash_; }
  ///@}

protected:
  DomainWallBase(const gauge_type& u, const BoundaryPhases& bc, const DomainWallParams& p, const options& opt)
      : p_((p.check(), p)), dslash_(u, bc, opt) {
    if constexpr (simd_lanes)
      for (int q = 0; q < 2; ++q) four_[q] = wall_type(geometry(), q, "dwf_wall");
  }
  /// This rank's sites of one parity as the kernels sweep them (vector sites on the SIMD lanes).
  int row_sites() const { return Layout::sites(geometry()).cb_volume(); }
  /// rows[q] (Ls rows on 4D parity q) = P+ eta in slice 0, P- eta in slice Ls - 1, zero elsewhere.
  void walls_to_5d(block_type* const (&rows)[2], const field4_type& eta) const {
    if (!(eta.lattice() == lattice())) throw invalid_argument("domain-wall source: the 4D source is on another lattice");
    for (int q = 0; q < 2; ++q) {
      if constexpr (simd_lanes) {
        to_simd(four_[q], eta[q]);
        launch_walls<true>(lane_reader(four_[q]), layout_type::writer(*rows[q]), 0, p_.Ls - 1);
      } else {
        launch_walls<true>(layout_type::reader(eta[q]), layout_type::writer(*rows[q]), 0, p_.Ls - 1);
      }
    }
  }
  /// q = P- x(minus) + P+ x(plus) of the blocks rows[q] of Ls rows (plus < 0: Ls - 1).
  void walls_to_4d(field4_type& q, const block_type* const (&rows)[2], int minus, int plus) const {
    if (plus < 0) plus = p_.Ls - 1;
    if (minus < 0 || minus >= p_.Ls || plus >= p_.Ls)
      throw invalid_argument("domain-wall walls: slices " + std::to_string(minus) + " and " + std::to_string(plus) + " outside 0 to " +
                             std::to_string(p_.Ls - 1));
    if (!(q.lattice() == lattice())) throw invalid_argument("domain-wall walls: the 4D field is on another lattice");
    for (int p = 0; p < 2; ++p) {
      if constexpr (simd_lanes) {
        launch_walls<false>(lane_writer(four_[p]), layout_type::reader(*rows[p]), plus, minus);
        from_simd(q[p], four_[p]);
      } else {
        launch_walls<false>(layout_type::writer(q[p]), layout_type::reader(*rows[p]), plus, minus);
      }
    }
  }
  /// The tune key's lattice of the operator's kernels: the 4D lattice and Ls.
  std::string tune_lattice() const { return lattice().to_string() + " Ls " + std::to_string(p_.Ls); }
  /// A kernel variant's name, ", half" appended in 16 bits and the layout on the SIMD lanes.
  static std::string variant(const std::string& name) {
    std::string v = name + (PrecisionTraits<P>::is_half ? ", half" : "");
    if constexpr (simd_lanes) v += std::string(", ") + Layout::name + " " + std::to_string(dslash_type::simd_type::lanes);
    return v;
  }
  /// Throws unless isign is +1 or -1.
  static void check_isign(int isign) {
    if (isign != 1 && isign != -1) throw invalid_argument("domain-wall operator: isign must be +1 or -1, found " + std::to_string(isign));
  }

  DomainWallParams p_; ///< The parameters.
  dslash_type dslash_; ///< The 4D hopping term.

private:
  using wall_type = typename wall_spinor<Layout, Real>::type;
  /// The walls kernel on one parity's sites: four into five (to_5d) or back.
  template <bool to_5d, class Four, class Five> void launch_walls(const Four& four, const Five& five, int plus, int minus) const {
    tuned_site_launch<ExecSpace, Real>("kqcd::DomainWall::walls", variant(to_5d ? "to 5d" : "to 4d"), tune_lattice(), row_sites(),
                                       WallRowsFunctor<Four, Five, to_5d>{four, five, p_.Ls, plus, minus});
  }
  /// The 4D fields of the walls in the lanes (SIMD layout).
  [[no_unique_address]] mutable std::conditional_t<simd_lanes, wall_type[2], std::tuple<>> four_{};
};
} // namespace detail

/// The 4D even-odd preconditioned Shamir / Moebius operator (see the top of this file) in storage
/// precision P (float, double, kqcd::half: 16-bit spinors and links, float arithmetic), links stored
/// as Recon packs them, on a stencil layout: plain sites (the default), or the virtual-node SIMD
/// lanes of host backends (SIMDStencilLayout: a row of vector sites per slice, as Grid's 4D-vectorised
/// operator). vector_type is a block of Ls rows on the even sites (a SpinorBlock, the solvers' and
/// BLAS's vector), apply(out, in, isign) the Schur complement or its adjoint (the solvers' operator
/// concept); 4D fields (sources, quark fields) are plain on either layout. Distributed lattices
/// exchange the hopping term's halo (the fifth dimension stays on the rank).
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace, class Recon = Recon18,
          class Layout = PlainStencilLayout<P, ExecSpace, Recon, ArchTraits<ExecSpace>::neighbour_mode>>
class DomainWallOperator : public detail::DomainWallBase<P, ExecSpace, Recon, Layout> {
  using Base = detail::DomainWallBase<P, ExecSpace, Recon, Layout>;
  using Base::dslash_;
  using Base::p_;

public:
  using typename Base::dslash_type;
  using typename Base::field4_type;
  using typename Base::gauge_type;
  using typename Base::layout_type;
  using typename Base::options;
  using typename Base::Real;
  using vector_type = typename Base::block_type; ///< A 5D field on one parity: Ls rows per site.
  using Base::geometry;
  using Base::lattice;

  /// The operator of links u with boundary phases bc and parameters p (p.check()); opt: the
  /// layout's choices (the SIMD lane split).
  DomainWallOperator(const gauge_type& u, const BoundaryPhases& bc, const DomainWallParams& p, const options& opt = {});

  /// A 5D field on the even sites (the solvers' vector), and on parity `parity`.
  ///@{
  vector_type create_vector(const std::string& label = "dwf_vector") const { return create_spinor(0, label); }
  vector_type create_spinor(int parity, const std::string& label = "dwf_spinor") const {
    return vector_type(geometry(), parity, p_.Ls, label);
  }
  ///@}

  /// out = D_hat in (isign = +1) or D_hat^dag in (isign = -1), on the even sites; out may alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const;
  /// out = D_hat^dag D_hat in.
  void apply_normal(vector_type& out, const vector_type& in) const {
    apply(tmp_e_, in, 1);
    apply(out, tmp_e_, -1);
  }
  /// out = D5 in (isign = +1) or D5^dag in on both parities (out_e, out_o; neither aliases an input).
  void apply_full(vector_type& out_e, vector_type& out_o, const vector_type& in_e, const vector_type& in_o, int isign = 1) const;
  /// out = D_- in = (1 - c5 D_W(-M5)) in on both parities (the Moebius source's factor; a copy for Shamir).
  void apply_dminus(vector_type& out_e, vector_type& out_o, const vector_type& in_e, const vector_type& in_o) const;
  /// b_hat = b_e - D_eo M5_5^-1 b_o = b_e + (1/2) H P M5_5^-1 b_o.
  void prepare_source(vector_type& b_hat, const vector_type& b_e, const vector_type& b_o) const;
  /// x_o = M5_5^-1 (b_o + (1/2) H P x_e): with x_e solving D_hat x_e = b_hat, the solution of D5 x = b.
  void reconstruct(vector_type& x_o, const vector_type& x_e, const vector_type& b_o) const;

  /// The 5D source of a 4D source eta (conventions.md): B = D_- [delta_{s,0} P+ eta + delta_{s,Ls-1} P- eta].
  void source(vector_type& b_e, vector_type& b_o, const field4_type& eta) const;
  /// The 4D field P- x(minus) + P+ x(plus) of a 5D field: the quark field q (minus = 0, plus =
  /// Ls - 1, the defaults) or the midpoint field of the residual mass (Ls/2, Ls/2 - 1).
  void walls(field4_type& q, const vector_type& x_e, const vector_type& x_o, int minus = 0, int plus = -1) const;

  /// Flops of one apply() (isign = +1): two hops of 1320 per 5D site, 48 per 5D site for each term
  /// of the fifth-dimension polynomials and for each sum (conventions.md's Wilson count).
  double flops() const;
  /// Bytes of one apply() in the no-reuse model of stored sizes: each hop 8 links per 4D site and
  /// 8 neighbour rows + 1 written per 5D site, each fifth-dimension polynomial of n terms n rows read
  /// and 1 written per 5D site.
  double bytes() const;
  static constexpr const char* byte_model = "no-reuse (stored sizes)"; ///< The byte model of bytes().
  /// Flops and bytes of the hopping term over all slices alone (QUDA's "Dslash4" row).
  ///@{
  double hop_flops() const { return dslash_.flops(false, p_.Ls); }
  double hop_bytes() const { return dslash_.bytes(false, p_.Ls); }
  ///@}

private:
  using Local = FifthDimensionLocal<Real>;
  /// out = a(x) + b(y) on every row (with_y false: a(x) alone); out aliases neither.
  void fifth(vector_type& out, const vector_type& x, const Local& a, const vector_type* y = nullptr, const Local& b = {}) const;
  /// in, or where out aliases it (D_hat's final sum reads in's other rows) a copy of it.
  const vector_type& unaliased(const vector_type& out, const vector_type& in) const;
  template <class V> void check(const V& v, int parity, const char* what) const;

  // The fifth-dimension polynomials: M5_5, P, P M5_5^-1, M5_5^-1.
  detail::FifthPolynomial m5_, pre_, pre_m5inv_, m5inv_;
  mutable vector_type tmp_e_, tmp_o_, a_e_, a_o_, copy_e_;
};

/// The 4D-preconditioned domain-wall operator on the virtual-node SIMD lanes of host backends.
template <class P, class ExecSpace = Kokkos::DefaultHostExecutionSpace>
using SIMDDomainWallOperator = DomainWallOperator<P, ExecSpace, Recon18, SIMDStencilLayout<P, ExecSpace>>;

inline void DomainWallParams::check() const {
  const auto bad = [](const std::string& what) { throw invalid_argument("domain-wall operator: " + what); };
  if (Ls < 2 || Ls > max_fifth_dim) bad("Ls = " + std::to_string(Ls) + ", expected 2 to " + std::to_string(max_fifth_dim));
  if (!std::isfinite(M5) || !(M5 > 0.0)) bad("M5 = " + std::to_string(M5) + ", expected a positive domain-wall height");
  if (!std::isfinite(b5) || !std::isfinite(c5) || !std::isfinite(mf)) bad("b5, c5 and m_f must be finite");
  if (!(b5 * (4.0 - M5) + 1.0 != 0.0)) bad("b5 (4 - M5) + 1 = 0 makes the fifth-dimension term singular");
}
inline std::string DomainWallParams::to_string() const {
  const auto num = [](double v) {
    std::string t = std::to_string(v);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
  };
  return "Ls " + std::to_string(Ls) + ", M5 " + num(M5) + ", b5 " + num(b5) + ", c5 " + num(c5) + ", m_f " + num(mf);
}

namespace detail {
inline FifthPolynomial FifthPolynomial::linear(int Ls, double mf, double a, double b) {
  FifthPolynomial f{std::vector<double>(std::size_t(Ls), 0.0), mf};
  f.d[0] = a;
  f.d[1] = b;
  return f;
}
inline FifthPolynomial FifthPolynomial::inverse_linear(int Ls, double mf, double a, double b) {
  // (a + b K) sum_k (-b)^k a^(-k-1) K^k = 1 - (-b / a)^Ls K^Ls = 1 + m_f (-b / a)^Ls.
  const double r = -b / a, det = 1.0 + mf * std::pow(r, Ls);
  if (!(a != 0.0) || !(std::abs(det) > 1e-300))
    throw invalid_argument("domain-wall operator: the fifth-dimension term a + b K (a = " + std::to_string(a) + ", b = " +
                           std::to_string(b) + ") has no inverse at this m_f");
  FifthPolynomial f{std::vector<double>(std::size_t(Ls)), mf};
  for (int k = 0; k < Ls; ++k) f.d[std::size_t(k)] = std::pow(r, k) / (a * det);
  return f;
}
inline FifthPolynomial FifthPolynomial::operator*(const FifthPolynomial& o) const {
  const std::size_t Ls = d.size();
  FifthPolynomial f{std::vector<double>(Ls, 0.0), mf};
  for (std::size_t i = 0; i < Ls; ++i)
    for (std::size_t j = 0; j < Ls; ++j) {
      const std::size_t k = i + j;
      if (k < Ls) f.d[k] += d[i] * o.d[j];
      else f.d[k - Ls] -= mf * d[i] * o.d[j]; // K^Ls = -m_f
    }
  return f;
}
} // namespace detail

template <class P, class ES, class Recon, class Layout>
DomainWallOperator<P, ES, Recon, Layout>::DomainWallOperator(const gauge_type& u, const BoundaryPhases& bc, const DomainWallParams& p,
                                                      const options& opt)
    : Base(u, bc, p, opt) {
  const double w = 4.0 - p_.M5;
  m5_ = detail::FifthPolynomial::linear(p_.Ls, p_.mf, p_.b5 * w + 1.0, p_.c5 * w - 1.0);
  pre_ = detail::FifthPolynomial::linear(p_.Ls, p_.mf, p_.b5, p_.c5);
  m5inv_ = detail::FifthPolynomial::inverse_linear(p_.Ls, p_.mf, p_.b5 * w + 1.0, p_.c5 * w - 1.0);
  pre_m5inv_ = pre_ * m5inv_;
  for (auto* v : {&tmp_e_, &a_e_, &copy_e_}) *v = create_spinor(0, "dwf_tmp_even");
  for (auto* v : {&tmp_o_, &a_o_}) *v = create_spinor(1, "dwf_tmp_odd");
}

template <class P, class ES, class Recon, class Layout>
template <class V>
void DomainWallOperator<P, ES, Recon, Layout>::check(const V& v, int parity, const char* what) const {
  if (v.parity() != parity || !(v.lattice() == lattice()) || v.n_rhs() != p_.Ls)
    throw invalid_argument(std::string("domain-wall operator: ") + what + " has " + std::to_string(v.n_rhs()) + " slices on parity " +
                           std::to_string(v.parity()) + " of " + v.lattice().to_string() + ", expected " + std::to_string(p_.Ls) +
                           " on parity " + std::to_string(parity) + " of " + lattice().to_string());
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::fifth(vector_type& out, const vector_type& x, const Local& a, const vector_type* y,
                                             const Local& b) const {
  if (out.view().data() == x.view().data() || (y && out.view().data() == y->view().data()))
    throw invalid_argument("domain-wall operator: a fifth-dimension pass's output aliases its input");
  const auto rx = Layout::reader(x);
  const auto w = Layout::writer(out);
  const FifthDimensionFunctor<decltype(rx), decltype(w), Local> f{rx, y ? Layout::reader(*y) : rx, w, a, b, p_.Ls, y != nullptr};
  const std::string terms = std::to_string(a.n) + (a.dagger ? " dagger" : "") + (y ? " + " + std::to_string(b.n) : "");
  tuned_site_launch<ES, Real>("kqcd::DomainWall::fifth", Base::variant(terms), this->tune_lattice(), this->row_sites() * p_.Ls, f);
}

template <class P, class ES, class Recon, class Layout>
auto DomainWallOperator<P, ES, Recon, Layout>::unaliased(const vector_type& out, const vector_type& in) const -> const vector_type& {
  if (out.view().data() != in.view().data()) return in;
  Kokkos::deep_copy(copy_e_.view(), in.view());
  if constexpr (PrecisionTraits<P>::is_half) Kokkos::deep_copy(copy_e_.norm(), in.norm());
  return copy_e_;
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::apply(vector_type& out, const vector_type& in, int isign) const {
  check(out, 0, "output");
  check(in, 0, "input");
  Base::check_isign(isign);
  const bool mobius = !p_.shamir();
  if (isign == 1) {
    // D_hat = M5_5 - (1/4) H [P M5_5^-1] H P.
    if (mobius) fifth(a_e_, in, pre_.local<Real>(false));
    dslash_.apply(tmp_o_, mobius ? a_e_ : in, 1, 1);
    fifth(a_o_, tmp_o_, pre_m5inv_.local<Real>(false));
    const vector_type& x = unaliased(out, in);
    dslash_.apply_local_xpay(out, a_o_, 1, 0, m5_.local<Real>(false), x, Real(-0.25));
  } else {
    // D_hat^dag = M5_5^dag - (1/4) P^dag H^dag [P M5_5^-1]^dag H^dag.
    dslash_.apply(tmp_o_, in, -1, 1);
    fifth(a_o_, tmp_o_, pre_m5inv_.local<Real>(true));
    dslash_.apply(a_e_, a_o_, -1, 0);
    const vector_type& x = unaliased(out, in);
    fifth(out, x, m5_.local<Real>(true), &a_e_, pre_.local<Real>(true, -0.25));
  }
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::apply_full(vector_type& out_e, vector_type& out_o, const vector_type& in_e,
                                                  const vector_type& in_o, int isign) const {
  check(out_e, 0, "even output");
  check(out_o, 1, "odd output");
  check(in_e, 0, "even input");
  check(in_o, 1, "odd input");
  Base::check_isign(isign);
  if (out_e.view().data() == in_e.view().data() || out_o.view().data() == in_o.view().data())
    throw invalid_argument("domain-wall operator: apply_full's output aliases its input");
  const vector_type* in[2] = {&in_e, &in_o};
  vector_type* out[2] = {&out_e, &out_o};
  vector_type* tmp[2] = {&a_e_, &a_o_};
  for (int p = 0; p < 2; ++p) {
    if (isign == 1) { // out_p = M5_5 in_p - (1/2) H P in_{1-p}
      const vector_type* src = in[1 - p];
      if (!p_.shamir()) {
        fifth(*tmp[1 - p], *src, pre_.local<Real>(false));
        src = tmp[1 - p];
      }
      dslash_.apply_local_xpay(*out[p], *src, 1, p, m5_.local<Real>(false), *in[p], Real(-0.5));
    } else { // out_p = M5_5^dag in_p - (1/2) P^dag H^dag in_{1-p}
      dslash_.apply(*tmp[p], *in[1 - p], -1, p);
      fifth(*out[p], *in[p], m5_.local<Real>(true), tmp[p], pre_.local<Real>(true, -0.5));
    }
  }
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::apply_dminus(vector_type& out_e, vector_type& out_o, const vector_type& in_e,
                                                    const vector_type& in_o) const {
  check(in_e, 0, "even input");
  check(in_o, 1, "odd input");
  if (out_e.view().data() == in_e.view().data() || out_o.view().data() == in_o.view().data())
    throw invalid_argument("domain-wall operator: apply_dminus's output aliases its input");
  // D_- = (1 - c5 (4 - M5)) + (c5 / 2) H.
  const Real a = Real(1.0 - p_.c5 * (4.0 - p_.M5)), b = Real(0.5 * p_.c5);
  dslash_.apply_xpay(out_e, in_o, 1, 0, a, in_e, b);
  dslash_.apply_xpay(out_o, in_e, 1, 1, a, in_o, b);
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::prepare_source(vector_type& b_hat, const vector_type& b_e, const vector_type& b_o) const {
  check(b_e, 0, "even source");
  check(b_o, 1, "odd source");
  fifth(a_o_, b_o, pre_m5inv_.local<Real>(false));
  dslash_.apply_xpay(b_hat, a_o_, 1, 0, Real(1), b_e, Real(0.5));
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::reconstruct(vector_type& x_o, const vector_type& x_e, const vector_type& b_o) const {
  check(x_e, 0, "even solution");
  check(b_o, 1, "odd source");
  check(x_o, 1, "odd solution");
  if (!p_.shamir()) fifth(a_e_, x_e, pre_.local<Real>(false));
  dslash_.apply_xpay(tmp_o_, p_.shamir() ? x_e : a_e_, 1, 1, Real(1), b_o, Real(0.5));
  fifth(x_o, tmp_o_, m5inv_.local<Real>(false));
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::source(vector_type& b_e, vector_type& b_o, const field4_type& eta) const {
  check(b_e, 0, "even source");
  check(b_o, 1, "odd source");
  // D_- = 1 for c5 = 0: the walls are the source.
  const bool dminus = p_.c5 != 0.0;
  this->walls_to_5d({dminus ? &tmp_e_ : &b_e, dminus ? &tmp_o_ : &b_o}, eta);
  if (dminus) apply_dminus(b_e, b_o, tmp_e_, tmp_o_);
}

template <class P, class ES, class Recon, class Layout>
void DomainWallOperator<P, ES, Recon, Layout>::walls(field4_type& q, const vector_type& x_e, const vector_type& x_o, int minus, int plus) const {
  check(x_e, 0, "even solution");
  check(x_o, 1, "odd solution");
  this->walls_to_4d(q, {&x_e, &x_o}, minus, plus);
}

template <class P, class ES, class Recon, class Layout> double DomainWallOperator<P, ES, Recon, Layout>::flops() const {
  const double v5 = double(lattice().cb_volume()) * p_.Ls;
  const double fifth_terms = (p_.shamir() ? 0 : pre_.terms()) + pre_m5inv_.terms() + m5_.terms();
  return v5 * (2.0 * dslash_type::flops_per_site + 48.0 * (fifth_terms + 1.0));
}

template <class P, class ES, class Recon, class Layout> double DomainWallOperator<P, ES, Recon, Layout>::bytes() const {
  const double v5 = double(lattice().cb_volume()) * p_.Ls, row = dslash_type::site_bytes;
  const double fifth_rows = (p_.shamir() ? 0 : pre_.terms() + 1) + pre_m5inv_.terms() + 1 + m5_.terms();
  return 2.0 * dslash_.bytes(false, p_.Ls) + v5 * row * fifth_rows;
}

} // namespace kqcd

// The combinations compiled into the library (KQCD_PRECISIONS): extern here.
#include <kqcd/instances/domain_wall_instances.hpp>
