// The transfer operators of aggregation-based multigrid (Brannick et al.; QUDA's and DD-alphaAMG's
// scheme): aggregates are lattice blocks; each of Nv test vectors is split by chirality (P+ = spins
// 0, 1 and P- = spins 2, 3 in the DeGrand-Rossi basis) and the parts are orthonormalised within each
// aggregate, giving n = 2 Nv coarse components per coarse site, component k < Nv the P+ part of
// vector k and k >= Nv the P- part of vector k - Nv. The prolongator P maps a coarse field to a fine
// spinor field, the restrictor P^dag back; P^dag P = 1 and gamma5 P = P gamma5_c (gamma5_c = +1 on
// the P+ components, -1 on the P- ones), so that Galerkin coarse operators keep gamma5-hermiticity.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/multigrid/coarse_spinor.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <limits>
#include <string>
#include <vector>

namespace kqcd::mg {

/// The fine lattice cut into blocks of extents `block`, one aggregate (coarse site) per block.
template <class ExecSpace = Kokkos::DefaultExecutionSpace> class Aggregation {
public:
  using execution_space = ExecSpace; ///< The execution space of the tables.
  /// A fine site as parity * cb_volume + checkerboard index.
  using table_type = Kokkos::View<int**, Kokkos::LayoutRight, ExecSpace>;

  Aggregation() = default;
  /// Blocks of extents `block` on the single-rank lattice fine: each extent of fine a multiple of
  /// the block's, at least two blocks per direction.
  Aggregation(const Lattice& fine, const std::array<int, Nd>& block);
  /// The fine lattice.
  const Lattice& fine() const { return fine_; }
  /// The coarse lattice.
  const CoarseGeometry& coarse() const { return coarse_; }
  /// The block extents.
  const std::array<int, Nd>& block() const { return block_; }
  /// Fine sites per aggregate.
  int block_sites() const { return block_[0] * block_[1] * block_[2] * block_[3]; }
  /// members()(a, j): the j-th fine site of aggregate a (parity * cb_volume + checkerboard index).
  const table_type& members() const { return members_; }
  /// aggregate_of()(f): the aggregate of fine site f (parity * cb_volume + checkerboard index).
  const Kokkos::View<int*, ExecSpace>& aggregate_of() const { return aggregate_of_; }

private:
  Lattice fine_;
  std::array<int, Nd> block_{};
  CoarseGeometry coarse_;
  table_type members_;
  Kokkos::View<int*, ExecSpace> aggregate_of_;
};

namespace detail {
/// V(f, s * Nc + c, k) = v(f)[c][s]: test vector k into the transfer's storage.
template <class VView, class SView> struct LoadTestVector {
  VView V;
  SView even, odd;
  int cb, k;
  KOKKOS_FUNCTION void operator()(int f) const {
    const SView& v = f < cb ? even : odd;
    const int i = f < cb ? f : f - cb;
    for (int s = 0; s < Ns; ++s)
      for (int c = 0; c < Nc; ++c) V(f, s * Nc + c, k) = v(i, c, s);
  }
};

/// Gram-Schmidt (twice) of the nv columns of one chirality on one aggregate: item a * 2 + chirality;
/// a column whose norm falls to rounding (1000 epsilon of its norm) counts a failure.
template <class VView, class Table> struct BlockOrthonormalise {
  VView V;
  Table members;
  Kokkos::View<int*, typename VView::execution_space> failures;
  int nv;
  using cplx = typename VView::non_const_value_type;
  using real = typename cplx::value_type;
  real rounding = real(1000) * std::numeric_limits<real>::epsilon(); ///< The relative norm of a dependent column.
  KOKKOS_FUNCTION void operator()(int item) const {
    const int a = item / 2, s0 = 2 * (item % 2);
    const int m = int(members.extent(1));
    auto dot = [&](int j, int k) {
      cplx d(0);
      for (int q = 0; q < m; ++q) {
        const int f = members(a, q);
        for (int sc = s0 * Nc; sc < (s0 + 2) * Nc; ++sc) d += Kokkos::conj(V(f, sc, j)) * V(f, sc, k);
      }
      return d;
    };
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < nv; ++k) {
        const real before = Kokkos::sqrt(dot(k, k).real());
        for (int j = 0; j < k; ++j) {
          const cplx p = dot(j, k);
          for (int q = 0; q < m; ++q) {
            const int f = members(a, q);
            for (int sc = s0 * Nc; sc < (s0 + 2) * Nc; ++sc) V(f, sc, k) -= p * V(f, sc, j);
          }
        }
        const real nrm = Kokkos::sqrt(dot(k, k).real());
        // What is left of a column in the span of the others is rounding: linearly dependent.
        if (!(nrm > rounding * before)) {
          Kokkos::atomic_add(&failures(0), 1);
          return;
        }
        for (int q = 0; q < m; ++q) {
          const int f = members(a, q);
          for (int sc = s0 * Nc; sc < (s0 + 2) * Nc; ++sc) V(f, sc, k) /= nrm;
        }
      }
  }
};

/// Fine site f of psi = P phi.
template <class VView, class SView, class CView> struct Prolong {
  VView V;
  SView even, odd;
  CView phi;
  Kokkos::View<const int*, typename VView::execution_space> aggregate_of;
  int cb, nv;
  KOKKOS_FUNCTION void operator()(int f) const {
    const SView& out = f < cb ? even : odd;
    const int i = f < cb ? f : f - cb, base = aggregate_of(f) * 2 * nv;
    for (int s = 0; s < Ns; ++s) {
      const int off = base + (s < 2 ? 0 : nv);
      for (int c = 0; c < Nc; ++c) {
        typename VView::non_const_value_type acc(0);
        for (int k = 0; k < nv; ++k) acc += V(f, s * Nc + c, k) * phi(off + k);
        out(i, c, s) = acc;
      }
    }
  }
};

/// Component kk of coarse site a of phi = P^dag psi: item a * 2 nv + kk.
template <class VView, class SView, class CView, class Table> struct Restrict {
  VView V;
  SView even, odd;
  CView phi;
  Table members;
  int cb, nv;
  KOKKOS_FUNCTION void operator()(int item) const {
    const int n = 2 * nv, a = item / n, kk = item - a * n, k = kk % nv, s0 = kk < nv ? 0 : 2;
    typename CView::non_const_value_type acc(0);
    for (int q = 0; q < int(members.extent(1)); ++q) {
      const int f = members(a, q);
      const SView& in = f < cb ? even : odd;
      const int i = f < cb ? f : f - cb;
      for (int s = s0; s < s0 + 2; ++s)
        for (int c = 0; c < Nc; ++c) acc += Kokkos::conj(V(f, s * Nc + c, k)) * in(i, c, s);
    }
    phi(item) = acc;
  }
};
} // namespace detail

/// The prolongator and restrictor of Nv test vectors on an aggregation, in precision Real.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class Transfer {
public:
  using execution_space = ExecSpace; ///< The execution space.
  using fine_type = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>; ///< A fine spinor field.
  using coarse_type = CoarseSpinor<Real, ExecSpace>; ///< A coarse field.
  /// V(f, s * Nc + c, k): test vector k at fine site f, both chiralities (each orthonormal per aggregate).
  using view_type = Kokkos::View<Kokkos::complex<Real>***, Kokkos::LayoutRight, ExecSpace>;

  /// The transfer of the test vectors (at least one, on the aggregation's fine lattice), split by
  /// chirality and block-orthonormalised; throws where they are linearly dependent on an aggregate.
  Transfer(const Aggregation<ExecSpace>& agg, const std::vector<fine_type>& test_vectors);
  /// The aggregation.
  const Aggregation<ExecSpace>& aggregation() const { return agg_; }
  /// Test vectors.
  int nv() const { return nv_; }
  /// Coarse components per coarse site (2 Nv).
  int n() const { return 2 * nv_; }
  /// The orthonormalised vectors.
  const view_type& vectors() const { return V_; }
  /// A zero coarse field.
  coarse_type create_coarse(const std::string& label = "coarse_spinor") const { return coarse_type(agg_.fine(), agg_.coarse(), n(), label); }
  /// fine = P coarse.
  void prolong(fine_type& fine, const coarse_type& coarse) const;
  /// coarse = P^dag fine.
  void restrict_to_coarse(coarse_type& coarse, const fine_type& fine) const;

private:
  void check(const fine_type& f, const coarse_type* c, const char* what) const;
  Aggregation<ExecSpace> agg_;
  int nv_ = 0;
  view_type V_;
};

template <class ES> Aggregation<ES>::Aggregation(const Lattice& fine, const std::array<int, Nd>& block) : fine_(fine), block_(block) {
  if (fine.distributed())
    throw invalid_argument("multigrid aggregation: the lattice is distributed; aggregates on several ranks are not supported yet");
  for (int mu = 0; mu < Nd; ++mu) {
    if (block[mu] < 1 || fine.dim(mu) % block[mu] != 0 || fine.dim(mu) / block[mu] < 2)
      throw invalid_argument("multigrid aggregation: block " + std::to_string(block[mu]) + " does not split extent " +
                             std::to_string(fine.dim(mu)) + " of direction " + std::to_string(mu) + " into at least two blocks");
    coarse_.dims[mu] = fine.dim(mu) / block[mu];
  }
  const int n_agg = coarse_.volume(), per = block_sites(), cb = fine.cb_volume();
  auto members = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>("mg_members", n_agg, per);
  auto of = Kokkos::View<int*, Kokkos::HostSpace>("mg_aggregate_of", 2 * cb);
  std::vector<int> filled(std::size_t(n_agg), 0);
  for (std::int64_t i = 0; i < fine.volume(); ++i) {
    const Coords x = fine.lex_coords(i);
    Coords c;
    for (int mu = 0; mu < Nd; ++mu) c.x[mu] = x.x[mu] / block[mu];
    const int a = coarse_.index(c), f = Lattice::parity(x) * cb + fine.cb_index(x);
    members(a, filled[std::size_t(a)]++) = f;
    of(f) = a;
  }
  members_ = Kokkos::create_mirror_view_and_copy(ES(), members);
  aggregate_of_ = Kokkos::create_mirror_view_and_copy(ES(), of);
}

template <class Real, class ES>
Transfer<Real, ES>::Transfer(const Aggregation<ES>& agg, const std::vector<fine_type>& test_vectors)
    : agg_(agg), nv_(int(test_vectors.size())) {
  if (nv_ < 1) throw invalid_argument("multigrid transfer: no test vectors");
  const int cb = agg_.fine().cb_volume();
  V_ = view_type("mg_vectors", 2 * cb, Ns * Nc, nv_);
  for (int k = 0; k < nv_; ++k) {
    check(test_vectors[std::size_t(k)], nullptr, "test vector");
    using SView = typename fine_type::cb_type::view_type;
    Kokkos::parallel_for("kqcd::mg::Transfer::load", Kokkos::RangePolicy<ES>(0, 2 * cb),
                         detail::LoadTestVector<view_type, SView>{V_, test_vectors[std::size_t(k)][0].view(),
                                                                  test_vectors[std::size_t(k)][1].view(), cb, k});
  }
  Kokkos::View<int*, ES> failures("mg_failures", 1);
  Kokkos::parallel_for("kqcd::mg::Transfer::orthonormalise", Kokkos::RangePolicy<ES>(0, 2 * agg_.coarse().volume()),
                       detail::BlockOrthonormalise<view_type, typename Aggregation<ES>::table_type>{V_, agg_.members(), failures, nv_});
  int failed = 0;
  Kokkos::deep_copy(failed, Kokkos::subview(failures, 0));
  if (failed > 0)
    throw invalid_argument("multigrid transfer: the test vectors are linearly dependent on " + std::to_string(failed) +
                           " aggregate chiralities");
}

template <class Real, class ES> void Transfer<Real, ES>::check(const fine_type& f, const coarse_type* c, const char* what) const {
  if (!(f.lattice() == agg_.fine()))
    throw invalid_argument(std::string("multigrid transfer: the ") + what + " is on " + f.lattice().to_string() + ", the aggregation on " +
                           agg_.fine().to_string());
  if (c && (!(c->coarse_geometry() == agg_.coarse()) || c->n() != n()))
    throw invalid_argument("multigrid transfer: a coarse field of " + std::to_string(c->n()) + " components on another coarse lattice, expected " +
                           std::to_string(n()));
}

template <class Real, class ES> void Transfer<Real, ES>::prolong(fine_type& fine, const coarse_type& coarse) const {
  check(fine, &coarse, "fine field");
  using SView = typename fine_type::cb_type::view_type;
  const int cb = agg_.fine().cb_volume();
  Kokkos::parallel_for("kqcd::mg::Transfer::prolong", Kokkos::RangePolicy<ES>(0, 2 * cb),
                       detail::Prolong<view_type, SView, typename coarse_type::view_type>{V_, fine[0].view(), fine[1].view(), coarse.view(),
                                                                                           agg_.aggregate_of(), cb, nv_});
}

template <class Real, class ES> void Transfer<Real, ES>::restrict_to_coarse(coarse_type& coarse, const fine_type& fine) const {
  check(fine, &coarse, "fine field");
  using SView = typename fine_type::cb_type::view_type;
  Kokkos::parallel_for("kqcd::mg::Transfer::restrict", Kokkos::RangePolicy<ES>(0, agg_.coarse().volume() * n()),
                       detail::Restrict<view_type, SView, typename coarse_type::view_type, typename Aggregation<ES>::table_type>{
                           V_, fine[0].view(), fine[1].view(), coarse.view(), agg_.members(), agg_.fine().cb_volume(), nv_});
}

} // namespace kqcd::mg
