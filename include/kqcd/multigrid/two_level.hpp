// A two-level multigrid preconditioner for the full Wilson-type operators (a first step of adaptive
// multigrid): test vectors from the smoother applied to D v = 0 (the components it cannot damp are the
// near-null space), the transfer and Galerkin coarse operator of multigrid/, and a V-cycle of MR
// pre-smoothing, a coarse correction solved by GCR to a loose tolerance, and MR post-smoothing. As
// the right preconditioner of flexible GCR (solvers/gcr.hpp) it removes the critical slowing down
// of Krylov solvers at light quark masses.
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

/// The choices of a two-level multigrid preconditioner.
struct TwoLevelParams {
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
/// PlainFullOperator<Term>), callable as the preconditioner of gcr().
template <class FineOp> class TwoLevel {
public:
  using vector_type = typename FineOp::vector_type; ///< A fine spinor field.
  using Real = typename FineOp::real_type; ///< The precision of both levels.
  using execution_space = typename vector_type::execution_space; ///< The execution space.
  using coarse_type = CoarseOperator<Real, execution_space>; ///< The coarse operator.

  /// The setup on the operator op of links u and boundary phases bc (those op was built from).
  template <class GT>
  TwoLevel(const FineOp& op, const GaugeField<GT, execution_space>& u, const BoundaryPhases& bc, const TwoLevelParams& p)
      : op_(op), p_(p), agg_(op.lattice(), p.block), transfer_(agg_, near_null_vectors()),
        coarse_(coarse_type::galerkin(transfer_, u, bc, op.term())), rc_(transfer_.create_coarse("mg_rc")),
        ec_(transfer_.create_coarse("mg_ec")), res_(op.create_vector("mg_res")), e_(op.create_vector("mg_e")),
        w1_(op.create_vector("mg_w1")), w2_(op.create_vector("mg_w2")), r_in_(op.create_vector("mg_r_in")),
        z_out_(op.create_vector("mg_z_out")) {}

  /// The transfer.
  const Transfer<Real, execution_space>& transfer() const { return transfer_; }
  /// The coarse operator.
  const coarse_type& coarse() const { return coarse_; }
  /// Iterations of every coarse solve so far.
  long coarse_iterations() const { return coarse_iterations_; }

  /// z = M r for vectors of another precision (a single-precision cycle under a double outer
  /// solve): r copied in, the cycle, z copied out.
  template <class W>
    requires(!std::is_same_v<W, vector_type>)
  void operator()(W& z, const W& r) const {
    blas::copy(r_in_, r);
    (*this)(z_out_, r_in_);
    blas::copy(z, z_out_);
  }
  /// z = M r: MR pre-smoothing, the coarse correction, MR post-smoothing.
  void operator()(vector_type& z, const vector_type& r) const {
    mr_steps(op_, z, r, p_.smoother_steps, w1_, w2_); // w1_ = r - D z
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
    mr_steps(op_, e_, res_, p_.smoother_steps, w1_, w2_);
    blas::axpy(1.0, e_, z);
  }

private:
  /// res = r - D z.
  void residual(const vector_type& z, const vector_type& r) const {
    op_.apply(w1_, z, 1);
    blas::copy(res_, r);
    blas::axpy(-1.0, w1_, res_);
  }
  /// Random vectors smoothed on D v = 0 (v -= M_MR D v), normalised.
  std::vector<vector_type> near_null_vectors() const {
    if (p_.n_vec < 1 || p_.setup_sweeps < 0 || p_.smoother_steps < 1)
      throw invalid_argument("multigrid setup: " + std::to_string(p_.n_vec) + " test vectors, " + std::to_string(p_.setup_sweeps) +
                             " sweeps, " + std::to_string(p_.smoother_steps) + " smoother steps; expected at least 1, 0, 1");
    std::vector<vector_type> v;
    auto t = op_.create_vector("mg_setup_t"), e = op_.create_vector("mg_setup_e"), a = op_.create_vector("mg_setup_a"),
         b = op_.create_vector("mg_setup_b");
    for (int k = 0; k < p_.n_vec; ++k) {
      v.push_back(op_.create_vector("mg_test_vector"));
      random_spinor(v.back(), p_.seed + std::uint64_t(k));
      for (int s = 0; s < p_.setup_sweeps; ++s) {
        op_.apply(t, v.back(), 1);
        mr_steps(op_, e, t, p_.smoother_steps, a, b);
        blas::axpy(-1.0, e, v.back());
      }
      blas::scale(1.0 / std::sqrt(blas::norm2(v.back())), v.back());
      if (p_.verbosity > 0) std::fprintf(stderr, "[kqcd] multigrid setup: test vector %d of %d\n", k + 1, p_.n_vec);
    }
    return v;
  }

  const FineOp& op_;
  TwoLevelParams p_;
  Aggregation<execution_space> agg_;
  Transfer<Real, execution_space> transfer_;
  coarse_type coarse_;
  mutable CoarseSpinor<Real, execution_space> rc_, ec_;
  mutable vector_type res_, e_, w1_, w2_, r_in_, z_out_;
  mutable long coarse_iterations_ = 0;
};

} // namespace kqcd::mg
