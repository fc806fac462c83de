// The Shamir domain-wall operator preconditioned in five dimensions (QUDA's 5D even-odd scheme):
// with a5 = 5 - M5, D5 = a5 - D_hop, D_hop = (1/2) H + K (H the 4D hop, K the slice coupling of
// kernels/fifth_dimension.hpp). Both terms of D_hop join sites of opposite 5D parity (x + s) % 2, so
// on the 5D-even sites the Schur complement is
//   D_hat = a5 - (1/a5) D_eo D_oe,
// with source b_hat = b_e + (1/a5) D_eo b_o and reconstruction x_o = (1/a5) (b_o + D_oe x_e). A field
// of one 5D parity is a ParityPair: on each 4D parity q the slices s with (q + s) of that parity, Ls/2
// rows per site, so that H is WilsonDslash's block hop from one 4D parity to the other (rows j to
// rows j) and K a row-coupling term of the same kernel's epilogue (FifthParityHop). Moebius (c5 != 0)
// couples sites of the same 5D parity through H K and is preconditioned in four dimensions
// (stencil/domain_wall.hpp) only.
#pragma once

#include <kqcd/fields/multi_spinor.hpp>
#include <kqcd/stencil/domain_wall.hpp>

#include <string>
#include <type_traits>

namespace kqcd {

/// The 5D even-odd preconditioned Shamir operator (see the top of this file) in storage precision P
/// (float, double, kqcd::half), links stored as Recon packs them, on a stencil layout (plain sites, or
/// the SIMD lanes' rows of vector sites: DomainWallOperator's): vector_type is a field on the 5D-even sites (a ParityPair of blocks of Ls/2 rows), apply(out, in,
/// isign) the Schur complement or its adjoint (the solvers' operator concept). Its source(), walls(),
/// prepare_source() and reconstruct() are DomainWallOperator's, so the propagator solve takes either.
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace, class Recon = Recon18,
          class Layout = PlainStencilLayout<P, ExecSpace, Recon, ArchTraits<ExecSpace>::neighbour_mode>>
class DomainWall5DOperator : public detail::DomainWallBase<P, ExecSpace, Recon, Layout> {
  using Base = detail::DomainWallBase<P, ExecSpace, Recon, Layout>;
  using Base::dslash_;
  using Base::p_;

public:
  using typename Base::block_type;
  using typename Base::dslash_type;
  using typename Base::field4_type;
  using typename Base::gauge_type;
  using typename Base::layout_type;
  using typename Base::options;
  using typename Base::Real;
  using vector_type = ParityPair<block_type>; ///< A 5D field on one 5D parity.
  using Base::geometry;
  using Base::lattice;

  /// The operator of links u with boundary phases bc and Shamir parameters p (b5 = 1, c5 = 0, Ls even).
  DomainWall5DOperator(const gauge_type& u, const BoundaryPhases& bc, const DomainWallParams& p, const options& opt = {});

  /// A 5D field on the 5D-even sites (the solvers' vector), and on 5D parity `parity`.
  ///@{
  vector_type create_vector(const std::string& label = "dwf5_vector") const { return create_spinor(0, label); }
  vector_type create_spinor(int parity, const std::string& label = "dwf5_spinor") const {
    return vector_type(geometry(), parity, p_.Ls / 2, label);
  }
  ///@}

  /// out = D_hat in (isign = +1) or D_hat^dag in (isign = -1) on the 5D-even sites; out may alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const;
  /// out = D_hat^dag D_hat in.
  void apply_normal(vector_type& out, const vector_type& in) const {
    apply(tmp_e_, in, 1);
    apply(out, tmp_e_, -1);
  }
  /// out = D5 in (isign = +1) or D5^dag in on both 5D parities (neither output aliases an input).
  void apply_full(vector_type& out_e, vector_type& out_o, const vector_type& in_e, const vector_type& in_o, int isign = 1) const;
  /// b_hat = b_e + (1/a5) D_eo b_o.
  void prepare_source(vector_type& b_hat, const vector_type& b_e, const vector_type& b_o) const;
  /// x_o = (1/a5) (b_o + D_oe x_e): with x_e solving D_hat x_e = b_hat, the solution of D5 x = b.
  void reconstruct(vector_type& x_o, const vector_type& x_e, const vector_type& b_o) const;

  /// The rows of the blocks of Ls rows on the 4D parities (DomainWallOperator's vectors: full[q] on
  /// 4D parity q) split into the two 5D parities, or merged back.
  ///@{
  void split(vector_type& out_e, vector_type& out_o, const block_type& full_e, const block_type& full_o) const {
    parities<true>(full_e, full_o, out_e, out_o);
  }
  void merge(block_type& full_e, block_type& full_o, const vector_type& in_e, const vector_type& in_o) const {
    parities<false>(full_e, full_o, in_e, in_o);
  }
  ///@}
  /// The 5D source of a 4D source eta (conventions.md): B = P+ eta in slice 0, P- eta in slice Ls - 1.
  void source(vector_type& b_e, vector_type& b_o, const field4_type& eta) const;
  /// The 4D field P- x(minus) + P+ x(plus) of a 5D field: the quark field q (minus = 0, plus =
  /// Ls - 1, the defaults) or the midpoint field of the residual mass (Ls/2, Ls/2 - 1).
  void walls(field4_type& q, const vector_type& x_e, const vector_type& x_o, int minus = 0, int plus = -1) const;

  /// Flops of one apply() (isign = +1) per 5D-even site: two applications of D_hop, each the hop
  /// (1320) and the slice term and the sum (48 each), and 72 for a5 x - u / a5.
  double flops() const;
  /// Bytes of one apply() in the no-reuse model of stored sizes: each D_hop the hop's (8 links per 4D
  /// site and half-block, 8 neighbour rows and 1 written per 5D site) and one row of the slice term
  /// per 5D site; the final sum 3 rows per site.
  double bytes() const;
  static constexpr const char* byte_model = "no-reuse (stored sizes)"; ///< The byte model of bytes().

private:
  /// out = D_hop in (isign = -1: D_hop^dag) on the 5D parity opposite in's; out aliases nothing.
  void hop(vector_type& out, const vector_type& in, int isign) const;
  /// split (to_parities) or merge: Full and Half the blocks and the 5D-parity fields, const where read.
  template <bool to_parities, class Full, class Half> void parities(Full& full_e, Full& full_o, Half& even, Half& odd) const;
  /// out = a x + b y row by row (out may alias x or y).
  void combine(vector_type& out, double a, const vector_type& x, double b, const vector_type& y) const;
  template <class V> void check(const V& v, int parity, const char* what) const;
  bool same(const vector_type& a, const vector_type& b) const { return a[0].view().data() == b[0].view().data(); }

  Real a5_;
  mutable vector_type tmp_e_, tmp_o_, u_e_;
  mutable block_type full_[2];
};

/// The 5D-preconditioned Shamir operator on the virtual-node SIMD lanes of host backends.
template <class P, class ExecSpace = Kokkos::DefaultHostExecutionSpace>
using SIMDDomainWall5DOperator = DomainWall5DOperator<P, ExecSpace, Recon18, SIMDStencilLayout<P, ExecSpace>>;

template <class P, class ES, class Recon, class Layout>
DomainWall5DOperator<P, ES, Recon, Layout>::DomainWall5DOperator(const gauge_type& u, const BoundaryPhases& bc, const DomainWallParams& p,
                                                          const options& opt)
    : Base(u, bc, p, opt), a5_(Real(5.0 - p.M5)) {
  if (!p_.shamir())
    throw invalid_argument("5D-preconditioned domain-wall operator: Shamir only (b5 = 1, c5 = 0), found " + p_.to_string() +
                           "; Moebius is preconditioned in four dimensions");
  if (p_.Ls % 2 != 0)
    throw invalid_argument("5D-preconditioned domain-wall operator: Ls must be even (half the slices on each 5D parity), found " +
                           std::to_string(p_.Ls));
  if (!(5.0 - p_.M5 != 0.0)) throw invalid_argument("5D-preconditioned domain-wall operator: 5 - M5 = 0 has no inverse");
  tmp_e_ = create_spinor(0, "dwf5_tmp_even");
  u_e_ = create_spinor(0, "dwf5_u_even");
  tmp_o_ = create_spinor(1, "dwf5_tmp_odd");
  for (int q = 0; q < 2; ++q) full_[q] = block_type(geometry(), q, p_.Ls, "dwf5_full");
}

template <class P, class ES, class Recon, class Layout>
template <class V>
void DomainWall5DOperator<P, ES, Recon, Layout>::check(const V& v, int parity, const char* what) const {
  if (v.parity() != parity || !(v.lattice() == lattice()) || v.n_rhs() != p_.Ls / 2)
    throw invalid_argument(std::string("5D-preconditioned domain-wall operator: ") + what + " has " + std::to_string(v.n_rhs()) +
                           " rows per site on parity " + std::to_string(v.parity()) + " of " + v.lattice().to_string() + ", expected " +
                           std::to_string(p_.Ls / 2) + " on parity " + std::to_string(parity) + " of " + lattice().to_string());
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::hop(vector_type& out, const vector_type& in, int isign) const {
  // Output rows of 4D parity q: (1/2) H from the other 4D parity's rows (the same slices), K from
  // this site's rows of the other 5D parity.
  for (int q = 0; q < 2; ++q) {
    FifthParityHop<Real> k;
    k.wall = Real(-p_.mf);
    k.out_offset = (out.parity() + q) % 2;
    k.dagger = isign < 0;
    dslash_.apply_local_xpay(out[q], in[1 - q], isign, q, k, in[q], Real(0.5));
  }
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::combine(vector_type& out, double a, const vector_type& x, double b, const vector_type& y) const {
  // Single-row terms (one coefficient of K^0) read only the row they write: out may alias x or y.
  FifthDimensionLocal<Real> ta, tb;
  ta.n = tb.n = 1;
  ta.d[0] = Real(a);
  tb.d[0] = Real(b);
  const int rows = p_.Ls / 2;
  for (int q = 0; q < 2; ++q) {
    const auto rx = Layout::reader(x[q]), ry = Layout::reader(y[q]);
    const auto w = Layout::writer(out[q]);
    const FifthDimensionFunctor<decltype(rx), decltype(w), FifthDimensionLocal<Real>> f{rx, ry, w, ta, tb, rows, true};
    const std::string kernel = "kqcd::DomainWall5D::combine", aux = Base::variant("sum");
    if constexpr (PrecisionTraits<P>::is_half)
      tuned_site_launch_in_place<ES, Real>(kernel, aux, this->tune_lattice(), this->row_sites() * rows, f, {}, out[q].view(),
                                           out[q].norm());
    else
      tuned_site_launch_in_place<ES, Real>(kernel, aux, this->tune_lattice(), this->row_sites() * rows, f, {}, out[q].view());
  }
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::apply(vector_type& out, const vector_type& in, int isign) const {
  check(out, 0, "output");
  check(in, 0, "input");
  Base::check_isign(isign);
  // D_hat^dag = a5 - (1/a5) (D_hop^dag)_eo (D_hop^dag)_oe: the same steps with the adjoint hop.
  hop(tmp_o_, in, isign);
  hop(u_e_, tmp_o_, isign);
  combine(out, a5_, in, -1.0 / a5_, u_e_);
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::apply_full(vector_type& out_e, vector_type& out_o, const vector_type& in_e,
                                                    const vector_type& in_o, int isign) const {
  check(out_e, 0, "even output");
  check(out_o, 1, "odd output");
  check(in_e, 0, "even input");
  check(in_o, 1, "odd input");
  Base::check_isign(isign);
  if (same(out_e, in_e) || same(out_o, in_o))
    throw invalid_argument("5D-preconditioned domain-wall operator: apply_full's output aliases its input");
  hop(out_e, in_o, isign);
  combine(out_e, a5_, in_e, -1.0, out_e);
  hop(out_o, in_e, isign);
  combine(out_o, a5_, in_o, -1.0, out_o);
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::prepare_source(vector_type& b_hat, const vector_type& b_e, const vector_type& b_o) const {
  check(b_e, 0, "even source");
  check(b_o, 1, "odd source");
  check(b_hat, 0, "prepared source");
  if (same(b_hat, b_e)) throw invalid_argument("5D-preconditioned domain-wall operator: the prepared source aliases the even source");
  hop(b_hat, b_o, 1);
  combine(b_hat, 1.0, b_e, 1.0 / a5_, b_hat);
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::reconstruct(vector_type& x_o, const vector_type& x_e, const vector_type& b_o) const {
  check(x_e, 0, "even solution");
  check(b_o, 1, "odd source");
  check(x_o, 1, "odd solution");
  if (same(x_o, b_o)) throw invalid_argument("5D-preconditioned domain-wall operator: the odd solution aliases the odd source");
  hop(x_o, x_e, 1);
  combine(x_o, 1.0 / a5_, b_o, 1.0 / a5_, x_o);
}

template <class P, class ES, class Recon, class Layout>
template <bool to_parities, class Full, class Half>
void DomainWall5DOperator<P, ES, Recon, Layout>::parities(Full& full_e, Full& full_o, Half& even, Half& odd) const {
  check(even, 0, "even 5D-parity field");
  check(odd, 1, "odd 5D-parity field");
  Full* full[2] = {&full_e, &full_o};
  for (int q = 0; q < 2; ++q) {
    if (full[q]->parity() != q || full[q]->n_rhs() != p_.Ls || !(full[q]->lattice() == lattice()))
      throw invalid_argument("5D-preconditioned domain-wall operator: split and merge take blocks of Ls rows on 4D parity 0 and 1");
    // Split reads the blocks and writes the 5D parities; merge the other way.
    const auto access = [](auto& v) {
      if constexpr (std::is_const_v<std::remove_reference_t<decltype(v)>>) return Layout::reader(v);
      else return Layout::writer(v);
    };
    const auto f = access(*full[q]);
    const auto e = access(even[q]), o = access(odd[q]);
    tuned_site_launch<ES, Real>("kqcd::DomainWall5D::parities", Base::variant(to_parities ? "split" : "merge"), this->tune_lattice(),
                                this->row_sites() * p_.Ls, FifthParityRowsFunctor<decltype(f), decltype(e), to_parities>{f, e, o, p_.Ls, q});
  }
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::source(vector_type& b_e, vector_type& b_o, const field4_type& eta) const {
  this->walls_to_5d({&full_[0], &full_[1]}, eta);
  split(b_e, b_o, full_[0], full_[1]);
}

template <class P, class ES, class Recon, class Layout>
void DomainWall5DOperator<P, ES, Recon, Layout>::walls(field4_type& q, const vector_type& x_e, const vector_type& x_o, int minus, int plus) const {
  merge(full_[0], full_[1], x_e, x_o);
  this->walls_to_4d(q, {&full_[0], &full_[1]}, minus, plus);
}

template <class P, class ES, class Recon, class Layout> double DomainWall5DOperator<P, ES, Recon, Layout>::flops() const {
  const double v5 = double(lattice().cb_volume()) * p_.Ls;
  return v5 * (2.0 * (dslash_type::flops_per_site + 2.0 * 48.0) + 72.0);
}

template <class P, class ES, class Recon, class Layout> double DomainWall5DOperator<P, ES, Recon, Layout>::bytes() const {
  const double v5 = double(lattice().cb_volume()) * p_.Ls, row = dslash_type::site_bytes;
  return 2.0 * (2.0 * dslash_.bytes(false, p_.Ls / 2) + v5 * row) + 3.0 * v5 * row;
}

} // namespace kqcd

// The combinations compiled into the library (KQCD_PRECISIONS): extern here.
#include <kqcd/instances/domain_wall_5d_instances.hpp>
