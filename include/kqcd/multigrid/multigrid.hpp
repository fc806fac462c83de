// Aggregation-based multigrid for the Wilson-type operators: test vectors by inverse iteration on
// D v = 0 from random starts (CG on the normal equations; what it cannot damp is the near-null
// space), the transfer and Galerkin
// coarse operator of multigrid/, and a cycle of pre-smoothing (MR on D, or on its even-odd Schur
// complement), a coarse correction and post-smoothing. The coarse correction is GCR on the coarse
// operator to a loose tolerance; with three or more levels that GCR is preconditioned by the same
// cycle one level down (the K-cycle), the coarsest level solved by GCR alone (on its even-odd
// preconditioned operator where every coarse extent is even: coarse_even_odd.hpp). As the right
// preconditioner of flexible GCR (solvers/gcr.hpp), on the full operator or on the even-odd one
// (multigrid()), it removes the critical slowing down of Krylov solvers at light quark masses.
#pragma once

#include <kqcd/fields/random_fields.hpp>
#include <kqcd/multigrid/coarse_even_odd.hpp>
#include <kqcd/multigrid/coarse_operator.hpp>
#include <kqcd/linalg/blas_many.hpp>
#include <kqcd/multigrid/params.hpp>
#include <kqcd/core/random.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/solvers/gcr.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd::mg {

namespace detail {
/// Complex Gaussian noise on component k of coarse site c: item c * n + k, keyed by the site's
/// global index (the same field on any process grid).
template <class CView> struct GaussianCoarse {
  CView v;
  Philox rng;
  CoarseGeometry g;
  int n;
  KOKKOS_FUNCTION void operator()(int i) const {
    const auto z = rng.gaussian_pair(std::uint32_t(g.global_index(g.coords(i / n))), std::uint32_t(i % n), 0u, 0x4347u);
    v(i) = typename CView::non_const_value_type(z.real(), z.imag());
  }
};
} // namespace detail

/// Random complex Gaussian components of a coarse field (each (global site, component) its own counter).
template <class Real, class ES> void random_coarse(CoarseSpinor<Real, ES>& v, std::uint64_t seed) {
  Kokkos::parallel_for("kqcd::mg::random_coarse", Kokkos::RangePolicy<ES>(0, v.sites() * v.n()),
                       detail::GaussianCoarse<typename CoarseSpinor<Real, ES>::view_type>{v.view(), Philox{seed}, v.coarse_geometry(), v.n()});
}

/// The multigrid cycle z = M r of FineOp and its setup, callable as the preconditioner of gcr().
/// FineOp is a full Wilson-type operator on plain spinor fields (PlainFullOperator<Term>), or on a
/// coarser level the coarse operator of the level above (CoarseOperator). The smoother is MR on
/// FineOp itself (SmootherOp = FineOp), or with SmootherOp the even-odd operator of the same term
/// (PlainEvenOddOperator<Term>) MR on its Schur complement D_hat, the odd sites then solved exactly:
/// the smoother of QUDA's fine level, whose residual lives on the even sites alone. With
/// MultigridParams::levels above 2 the level holds the next one's setup (on its coarse operator,
/// aggregates of coarse_block), whose cycle preconditions this level's coarse GCR: the K-cycle.
template <class FineOp, class SmootherOp = FineOp> class Multigrid {
  static constexpr bool schur = !std::is_same_v<FineOp, SmootherOp>;

public:
  using vector_type = typename FineOp::vector_type; ///< A field of this level.
  using Real = typename FineOp::real_type; ///< The precision of every level.
  using execution_space = typename vector_type::execution_space; ///< The execution space.
  using coarse_type = CoarseOperator<Real, execution_space>; ///< The coarse operator.
  using coarse_vector_type = CoarseSpinor<Real, execution_space>; ///< A coarse field.
  using transfer_type = Transfer<Real, execution_space, vector_type>; ///< The transfer to the coarse level.
  using next_type = Multigrid<coarse_type>; ///< The level below the coarse one's setup.
  using coarse_eo_type = CoarseEvenOddOperator<Real, execution_space>; ///< The coarsest level's even-odd operator.

  /// The setup on the fine operator op of links u and boundary phases bc (those op was built from),
  /// smoothing with MR on op.
  template <class GT>
  Multigrid(const FineOp& op, const GaugeField<GT, execution_space>& u, const BoundaryPhases& bc, const MultigridParams& p)
    requires std::is_same_v<FineOp, SmootherOp>
      : Multigrid(op, op, u, bc, p) {}
  /// The same, smoothing with MR on the Schur complement of eo, the even-odd operator of op's term.
  template <class GT>
  Multigrid(const FineOp& op, const SmootherOp& eo, const GaugeField<GT, execution_space>& u, const BoundaryPhases& bc,
            const MultigridParams& p)
      : Multigrid(op, eo, p, 0, Aggregation<execution_space>(op.lattice(), p.block),
                  [&](const transfer_type& t) { return coarse_type::galerkin(t, u, bc, op.term()); }) {}
  /// The setup of level `level` (1 or more) on the coarse operator op of the level above.
  Multigrid(const FineOp& op, const MultigridParams& p, int level)
    requires std::is_same_v<FineOp, coarse_type>
      : Multigrid(op, op, p, level, Aggregation<execution_space>(op.lattice(), op.coarse_geometry(), p.coarse_block),
                  [&](const transfer_type& t) { return coarse_type::galerkin(t, op); }) {}

  /// The transfer.
  const transfer_type& transfer() const { return transfer_; }
  /// The coarse operator.
  const coarse_type& coarse() const { return coarse_; }
  /// The next level's setup (three or more levels), or null.
  const next_type* next() const { return next_.get(); }
  /// The even-odd coarse operator whose system the coarse solve takes (coarsest level,
  /// MultigridParams::coarse_even_odd, even coarse extents), or null.
  const coarse_eo_type* coarse_even_odd() const { return coarse_eo_ ? &*coarse_eo_ : nullptr; }
  /// Whether the coarsest level below this one is solved on its even-odd operator.
  bool coarsest_even_odd() const { return next_ ? next_->coarsest_even_odd() : coarse_eo_.has_value(); }
  /// GCR iterations on the coarse level so far.
  long coarse_iterations() const { return coarse_iterations_; }
  /// GCR iterations so far on each level below this one (the coarse level first).
  std::vector<long> iterations_per_level() const {
    std::vector<long> its{coarse_iterations_};
    if (next_)
      for (long i : next_->iterations_per_level()) its.push_back(i);
    return its;
  }
  /// A zero field of this level.
  vector_type create_vector(const std::string& label = "mg_vector") const { return op_.create_vector(label); }

  /// z = M r for vectors of another precision (a single-precision cycle under a double outer
  /// solve): r copied in, the cycle, z copied out (the copies made on first use).
  template <class W>
    requires(!std::is_same_v<W, vector_type>)
  void operator()(W& z, const W& r) const {
    if (!r_in_) {
      r_in_.emplace(op_.create_vector("mg_r_in"));
      z_out_.emplace(op_.create_vector("mg_z_out"));
    }
    blas::copy(*r_in_, r);
    (*this)(*z_out_, *r_in_);
    blas::copy(z, *z_out_);
  }
  /// z = M r: pre-smoothing, the coarse correction, post-smoothing.
  void operator()(vector_type& z, const vector_type& r) const {
    constexpr int n_krylov = gcr_default_directions;
    smooth(z, r, w1_); // w1_ = r - D z
    transfer_.restrict_to_coarse(rc_, w1_);
    blas::zero(ec_);
    SolverParams cp;
    cp.tol = p_.coarse_tol;
    cp.max_iter = next_ ? p_.kcycle_max_iter : p_.coarse_max_iter;
    cp.label = "mg level " + std::to_string(level_ + 1);
    if (next_) coarse_iterations_ += gcr(coarse_, ec_, rc_, cp, *next_, n_krylov, &coarse_work_).iterations;
    else if (coarse_eo_) {
      coarse_eo_->prepare_source(rc_hat_, rc_);
      coarse_iterations_ += gcr(*coarse_eo_, ec_, rc_hat_, cp, NoPreconditioner{}, n_krylov, &coarse_work_).iterations;
      coarse_eo_->reconstruct(ec_, rc_);
    } else coarse_iterations_ += gcr(coarse_, ec_, rc_, cp, NoPreconditioner{}, n_krylov, &coarse_work_).iterations;
    transfer_.prolong(e_, ec_);
    blas::axpy(1.0, e_, z);
    residual(z, r);
    smooth(e_, res_, w1_);
    blas::axpy(1.0, e_, z);
  }

private:
  /// The setup of level `level` on op: the near-null vectors, their transfer on agg, the coarse
  /// operator build(transfer) and the levels below.
  template <class Build>
  Multigrid(const FineOp& op, const SmootherOp& eo, const MultigridParams& p, int level, Aggregation<execution_space> agg, Build&& build)
      : op_(op), eo_(eo), p_(checked(p)), level_(level), bh_(work(eo, "mg_bh")), t_(work(eo, "mg_t")), res_(op.create_vector("mg_res")),
        e_(op.create_vector("mg_e")), w1_(op.create_vector("mg_w1")), w2_(schur ? vector_type() : op.create_vector("mg_w2")),
        agg_(std::move(agg)), transfer_(agg_, near_null_vectors()), coarse_(build(transfer_)), rc_(transfer_.create_coarse("mg_rc")),
        ec_(transfer_.create_coarse("mg_ec")), next_(level + 2 < p.levels ? std::make_unique<next_type>(coarse_, p, level + 1) : nullptr) {
    if (!next_ && p.coarse_even_odd && coarse_eo_type::applies(coarse_.coarse_geometry())) {
      coarse_eo_.emplace(coarse_);
      rc_hat_ = coarse_eo_->create_vector("mg_rc_hat");
    }
  }

  static const MultigridParams& checked(const MultigridParams& p) {
    if (p.n_vec < 1 || p.setup_sweeps < 0 || p.setup_iterations < 0 || !(p.setup_tol > 0 && p.setup_tol < 1) || p.smoother_steps < 1 || p.levels < 2 ||
        p.kcycle_max_iter < 1)
      throw invalid_argument("multigrid setup: " + std::to_string(p.levels) + " levels, " + std::to_string(p.n_vec) + " test vectors, " +
                             std::to_string(p.setup_sweeps) + " sweeps, " + std::to_string(p.setup_iterations) + " setup iterations to " +
                             std::to_string(p.setup_tol) + ", " + std::to_string(p.smoother_steps) + " smoother steps, " +
                             std::to_string(p.kcycle_max_iter) + " K-cycle iterations; expected at least 2, 1, 0, 0, (0, 1), 1, 1");
    return p;
  }
  /// The Schur smoother's work vectors (none for MR on FineOp, which works in w2_ instead).
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
  /// Random vectors, smoothed on D v = 0 (v -= S D v, S the smoother, setup_sweeps times), then
  /// inverse iteration, orthonormalised.
  std::vector<vector_type> near_null_vectors() const {
    std::vector<vector_type> v;
    auto t = op_.create_vector("mg_setup_t"), e = op_.create_vector("mg_setup_e");
    for (int k = 0; k < p_.n_vec; ++k) {
      v.push_back(op_.create_vector("mg_test_vector"));
      const std::uint64_t seed = p_.seed + std::uint64_t(level_) * 1000003u + std::uint64_t(k);
      if constexpr (std::is_same_v<vector_type, coarse_vector_type>) random_coarse(v.back(), seed);
      else random_spinor(v.back(), seed);
      for (int s = 0; s < p_.setup_sweeps; ++s) {
        op_.apply(t, v.back(), 1);
        smooth(e, t, w1_);
        blas::axpy(-1.0, e, v.back());
      }
      if (p_.verbosity > 0 && p_.setup_sweeps > 0)
        std::fprintf(stderr, "[kqcd] multigrid setup: level %d, test vector %d of %d smoothed\n", level_ + 1, k + 1, p_.n_vec);
    }
    if (p_.setup_iterations > 0) {
      inverse_iteration(v);
      orthonormalise(v);
      if (p_.verbosity > 0) std::fprintf(stderr, "[kqcd] multigrid setup: level %d, inverse iteration done\n", level_ + 1);
    } else {
      for (auto& vk : v) blas::scale(1.0 / std::sqrt(blas::norm2(vk)), vk);
    }
    return v;
  }
  /// Inverse iteration on D v = 0 from each v: CG on the normal equations of D e = -D v until
  /// |D (v + e)| has fallen by setup_tol or setup_iterations are done, then v += e (what is left of
  /// v lies along D's small singular values; the tolerance keeps a heavy quark's vectors from
  /// falling to rounding). With the smoother on the Schur complement, the vectors' even parts as
  /// blocks of right-hand sides through the multi-RHS operator, their odd parts then solved exactly
  /// (D v = 0 on the odd sites); otherwise one vector at a time.
  void inverse_iteration(std::vector<vector_type>& v) const {
    SolverParams sp;
    sp.tol = p_.setup_tol;
    sp.max_iter = p_.setup_iterations;
    sp.label = "mg setup";
    if constexpr (schur) {
      using block_type = typename SmootherOp::multi_vector_type;
      for (int k0 = 0; k0 < p_.n_vec; k0 += block_type::max_rhs) {
        const int n = std::min(block_type::max_rhs, p_.n_vec - k0);
        if (p_.verbosity > 0)
          std::fprintf(stderr, "[kqcd] multigrid setup: level %d, inverse iteration on test vectors %d to %d of %d\n", level_ + 1, k0 + 1,
                       k0 + n, p_.n_vec);
        const std::vector<double> minus_one(std::size_t(n), -1.0), zero(std::size_t(n), 0.0), one(std::size_t(n), 1.0);
        block_type x = eo_.create_multi(n, "mg_setup_x"), b = x.like("mg_setup_b"), e = x.like("mg_setup_e");
        for (int r = 0; r < n; ++r) x.insert(r, v[std::size_t(k0 + r)][0]);
        eo_.apply(b, x, 1);
        blas::axpby_each(zero, x, minus_one, b); // b = -D_hat x
        cg_normal_multi(eo_, e, b, sp);
        blas::axpby_each(one, e, one, x);
        blas::zero(res_[1]);
        for (int r = 0; r < n; ++r) {
          auto& vk = v[std::size_t(k0 + r)];
          x.extract(r, vk[0]);
          eo_.reconstruct(vk[1], vk[0], res_[1]);
        }
      }
    } else {
      for (std::size_t k = 0; k < v.size(); ++k) {
        auto& vk = v[k];
        if (p_.verbosity > 0)
          std::fprintf(stderr, "[kqcd] multigrid setup: level %d, inverse iteration on test vector %zu of %d\n", level_ + 1, k + 1, p_.n_vec);
        op_.apply(res_, vk, 1);
        blas::scale(-1.0, res_);
        blas::zero(e_);
        cg_normal(op_, e_, res_, sp);
        blas::axpy(1.0, e_, vk);
      }
    }
  }
  /// Gram-Schmidt over the whole lattice (classical, twice): inverse iteration draws every vector
  /// towards the same few lowest modes, and the transfer needs them apart.
  static void orthonormalise(std::vector<vector_type>& v) {
    for (std::size_t k = 0; k < v.size(); ++k) {
      const std::span<const vector_type> earlier(v.data(), k);
      for (int pass = 0; pass < 2; ++pass) {
        auto beta = blas::cdot_many(earlier, v[k]);
        for (auto& b : beta) b = -b;
        blas::caxpy_many<vector_type>(beta, earlier, v[k]);
      }
      blas::scale(1.0 / std::sqrt(blas::norm2(v[k])), v[k]);
    }
  }

  const FineOp& op_;
  const SmootherOp& eo_;
  MultigridParams p_;
  int level_ = 0;
  mutable typename SmootherOp::vector_type bh_, t_;
  mutable vector_type res_, e_, w1_, w2_;
  Aggregation<execution_space> agg_;
  transfer_type transfer_;
  coarse_type coarse_;
  mutable coarse_vector_type rc_, ec_;
  mutable std::optional<vector_type> r_in_, z_out_;
  std::unique_ptr<next_type> next_;
  std::optional<coarse_eo_type> coarse_eo_; ///< On the coarsest level where its extents allow (coarse_even_odd).
  mutable coarse_vector_type rc_hat_;
  mutable GcrWorkspace<coarse_vector_type> coarse_work_; ///< The coarse GCR's work vectors (one coarse operator per level).
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
                       const SolverParams& params, int n_krylov = gcr_default_directions) {
  return gcr(op, x, b, params, EvenOddCycle<Cycle>(mg), n_krylov);
}

} // namespace kqcd::mg
