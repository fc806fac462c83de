// A two-level multigrid preconditioner for the Wilson-type operators (a first step of adaptive
// multigrid): test vectors from the smoother applied to D v = 0 (the components it cannot damp are the
// near-null space), the transfer and Galerkin coarse operator of multigrid/, and a V-cycle of
// pre-smoothing (MR on D, or on its even-odd Schur complement), a coarse correction solved by GCR to
// a loose tolerance, and post-smoothing. As the right preconditioner of flexible GCR (solvers/gcr.hpp),
// on the full operator or on the even-odd one (multigrid()), it removes the critical slowing down of
// Krylov solvers at light quark masses.
#pragma once

#include <kqcd/fields/random_fields.hpp>
#include <kqcd/multigrid/coarse_operator.hpp>
#include <kqcd/solvers/gcr.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd::mg {

/// The choices of a multigrid solve.
struct MultigridParams {
  std::array<int, Nd> block{4, 4, 4, 4}; ///< Aggregate extents.
  int n_vec = 24; ///< Test vectors (2 n_vec coarse components per coarse site).
  int setup_sweeps = 12; ///< Smoother sweeps on D v = 0 per test vector.
  int smoother_steps = 4; ///< MR steps per smoothing (before and after the coarse correction).
  double coarse_tol = 0.1; ///< Relative residual of the coarse solve.
  int coarse_max_iter = 200; ///< GCR iterations of the coarse solve at most.
  std::uint64_t seed = 2024; ///< Seed of the random starting vectors.
  int verbosity = 0; ///< 1: a line on stderr per test vector of the setup.
};

/// The two-level V-cycle z = M r of FineOp (a full Wilson-type operator on plain spinor fields:
/// PlainFullOperator<Term>), callable as the preconditioner of gcr(). The smoother is MR on FineOp
/// itself (SmootherOp = FineOp), or with SmootherOp the even-odd operator of the same term
/// (PlainEvenOddOperator<Term>) MR on its Schur complement D_hat, the odd sites then solved exactly:
/// the smoother of QUDA's fine level, whose residual lives on the even sites alone.
template <class FineOp, class SmootherOp = FineOp> class TwoLevel {
  static constexpr bool schur = !std::is_same_v<FineOp, SmootherOp>;

public:
  using vector_type = typename FineOp::vector_type; ///< A fine spinor field.
  using Real = typename FineOp::real_type; ///< The precision of both levels.
  using execution_space = typename vector_type::execution_space; ///< The execution space.
  using coarse_type = CoarseOperator<Real, execution_space>; ///< The coarse operator.

  /// The setup on the operator op of links u and boundary phases bc (those op was built from),
  /// smoothing with MR on op.
  template <class GT>
  TwoLevel(const FineOp& op, const GaugeField<GT, execution_space>& u, const BoundaryPhases& bc, const MultigridParams& p)
    requires std::is_same_v<FineOp, SmootherOp>
      : TwoLevel(op, op, u, bc, p) {}
  /// The same, smoothing with MR on the Schur complement of eo, the even-odd operator of op's term.
  template <class GT>
  TwoLevel(const FineOp& op, const SmootherOp& eo, const GaugeField<GT, execution_space>& u, const BoundaryPhases& bc,
           const MultigridParams& p)
      : op_(op), eo_(eo), p_(checked(p)), bh_(work(eo, "mg_bh")), t_(work(eo, "mg_t")), res_(op.create_vector("mg_res")),
        e_(op.create_vector("mg_e")), w1_(op.create_vector("mg_w1")), w2_(op.create_vector("mg_w2")), agg_(op.lattice(), p.block),
        transfer_(agg_, near_null_vectors()), coarse_(coarse_type::galerkin(transfer_, u, bc, op.term())),
        rc_(transfer_.create_coarse("mg_rc")), ec_(transfer_.create_coarse("mg_ec")), r_in_(op.create_vector("mg_r_in")),
        z_out_(op.create_vector("mg_z_out")) {}

  /// The transfer.
  const Transfer<Real, execution_space>& transfer() const { return transfer_; }
  /// The coarse operator.
  const coarse_type& coarse() const { return coarse_; }
  /// Iterations of every coarse solve so far.
  long coarse_iterations() const { return coarse_iterations_; }
  /// A zero fine field.
  vector_type create_vector(const std::string& label = "mg_vector") const { return op_.create_vector(label); }

  /// z = M r for vectors of another precision (a single-precision cycle under a double outer
  /// solve): r copied in, the cycle, z copied out.
  template <class W>
    requires(!std::is_same_v<W, vector_type>)
  void operator()(W& z, const W& r) const {
    blas::copy(r_in_, r);
    (*this)(z_out_, r_in_);
    blas::copy(z, z_out_);
  }
  /// z = M r: pre-smoothing, the coarse correction, post-smoothing.
  void operator()(vector_type& z, const vector_type& r) const {
    smooth(z, r, w1_); // w1_ = r - D z
    transfer_.restrict_to_coarse(rc_, w1_);
    blas::zero(ec_);
    SolverParams cp;
    cp.tol = p_.coarse_tol;
    cp.max_iter = p_.coarse_max_iter;
    cp.label = "mg coarse";
    coarse_iterations_ += gcr(coarse_, ec_, rc_, cp).iterations;
    transfer_.prolong(e_, ec_);
    blas::axpy(1.0, e_, z);
    residual(z, r);
    smooth(e_, res_, w1_);
    blas::axpy(1.0, e_, z);
  }

private:
  static const MultigridParams& checked(const MultigridParams& p) {
    if (p.n_vec < 1 || p.setup_sweeps < 0 || p.smoother_steps < 1)
      throw invalid_argument("multigrid setup: " + std::to_string(p.n_vec) + " test vectors, " + std::to_string(p.setup_sweeps) +
                             " sweeps, " + std::to_string(p.smoother_steps) + " smoother steps; expected at least 1, 0, 1");
    return p;
  }
  /// The Schur smoother's work vectors (none for MR on the full operator).
  static typename SmootherOp::vector_type work(const SmootherOp& eo, const std::string& label) {
    if constexpr (schur) return eo.create_vector(label);
    else return {};
  }
  /// x ~ D^-1 b from x = 0, and r = b - D x.
  void smooth(vector_type& x, const vector_type& b, vector_type& r) const {
    if constexpr (schur) {
      // b_hat = b_e + (1/2) H_eo A_oo^-1 b_o, x_e ~ D_hat^-1 b_hat, x_o = A_oo^-1 (b_o + (1/2) H_oe x_e):
      // the odd rows of D x = b hold exactly, the even residual is D_hat's.
      eo_.prepare_source(bh_, b[0], b[1]);
      mr_steps(eo_, x[0], bh_, p_.smoother_steps, r[0], t_);
      eo_.reconstruct(x[1], x[0], b[1]);
      blas::zero(r[1]);
    } else mr_steps(op_, x, b, p_.smoother_steps, r, w2_);
  }
  /// res = r - D z.
  void residual(const vector_type& z, const vector_type& r) const {
    op_.apply(w1_, z, 1);
    blas::copy(res_, r);
    blas::axpy(-1.0, w1_, res_);
  }
  /// Random vectors smoothed on D v = 0 (v -= S D v, S the smoother), normalised.
  std::vector<vector_type> near_null_vectors() const {
    std::vector<vector_type> v;
    auto t = op_.create_vector("mg_setup_t"), e = op_.create_vector("mg_setup_e");
    for (int k = 0; k < p_.n_vec; ++k) {
      v.push_back(op_.create_vector("mg_test_vector"));
      random_spinor(v.back(), p_.seed + std::uint64_t(k));
      for (int s = 0; s < p_.setup_sweeps; ++s) {
        op_.apply(t, v.back(), 1);
        smooth(e, t, w1_);
        blas::axpy(-1.0, e, v.back());
      }
      blas::scale(1.0 / std::sqrt(blas::norm2(v.back())), v.back());
      if (p_.verbosity > 0) std::fprintf(stderr, "[kqcd] multigrid setup: test vector %d of %d\n", k + 1, p_.n_vec);
    }
    return v;
  }

  const FineOp& op_;
  const SmootherOp& eo_;
  MultigridParams p_;
  mutable typename SmootherOp::vector_type bh_, t_;
  mutable vector_type res_, e_, w1_, w2_;
  Aggregation<execution_space> agg_;
  Transfer<Real, execution_space> transfer_;
  coarse_type coarse_;
  mutable CoarseSpinor<Real, execution_space> rc_, ec_;
  mutable vector_type r_in_, z_out_;
  mutable long coarse_iterations_ = 0;
};

/// The preconditioner of an even-odd system D_hat x_e = b_hat from the cycle M of the full operator:
/// z_e = [M (r_e, 0)]_e (D_hat is the Schur complement, and the even-even block of D^-1 is D_hat^-1).
template <class Cycle> class EvenOddCycle {
public:
  /// The preconditioner of cycle m (which must outlive it).
  explicit EvenOddCycle(const Cycle& m) : m_(m), r_(m.create_vector("mg_eo_r")), z_(m.create_vector("mg_eo_z")) {}
  /// z = [M (r, 0)]_e, r and z even-site spinors of any precision.
  template <class V> void operator()(V& z, const V& r) const {
    blas::copy(r_[0], r);
    blas::zero(r_[1]);
    m_(z_, r_);
    blas::copy(z, z_[0]);
  }

private:
  const Cycle& m_;
  mutable typename Cycle::vector_type r_, z_;
};

/// Solves the even-odd system of op (D_hat x = b, an EvenOddOperator on the plain layout, x holding
/// the initial guess) by flexible GCR in op's precision, right-preconditioned by the multigrid cycle
/// mg of the full operator (in any precision: a single-precision cycle under a double solve). The
/// true residual is op's, in op's precision.
template <class EOOp, class Cycle>
SolverResult multigrid(const EOOp& op, typename EOOp::vector_type& x, const typename EOOp::vector_type& b, const Cycle& mg,
                       const SolverParams& params, int n_krylov = 16) {
  return gcr(op, x, b, params, EvenOddCycle<Cycle>(mg), n_krylov);
}

} // namespace kqcd::mg
