// The transfer operators of aggregation-based multigrid (Brannick et al.; QUDA's and DD-alphaAMG's
// scheme): aggregates are lattice blocks; each of Nv test vectors is split by chirality (P+ = spins
// 0, 1 and P- = spins 2, 3 in the DeGrand-Rossi basis) and the parts are orthonormalised within each
// aggregate, giving n = 2 Nv coarse components per coarse site, component k < Nv the P+ part of
// vector k and k >= Nv the P- part of vector k - Nv. The prolongator P maps a coarse field to a fine
// spinor field, the restrictor P^dag back; P^dag P = 1 and gamma5 P = P gamma5_c (gamma5_c = +1 on
// the P+ components, -1 on the P- ones), so that Galerkin coarse operators keep gamma5-hermiticity.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/multigrid/coarse_halo.hpp>
#include <kqcd/multigrid/coarse_spinor.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kqcd::mg {

/// The fine lattice, or a coarse lattice of it, cut into blocks of extents `block`, one aggregate
/// (coarse site) per block. On a process grid each rank cuts its own sub-lattice: aggregates never
/// straddle ranks, and the coarse lattice is split over the ranks as the fine one is.
template <class ExecSpace = Kokkos::DefaultExecutionSpace> class Aggregation {
public:
  using execution_space = ExecSpace; ///< The execution space of the tables.
  /// A fine site: on the lattice parity * cb_volume + checkerboard index, on a coarse lattice its
  /// lexicographic index.
  using table_type = Kokkos::View<int**, Kokkos::LayoutRight, ExecSpace>;

  Aggregation() = default;
  /// Blocks of extents `block` on the lattice fine: each local extent of fine a multiple of the
  /// block's, at least two blocks per direction of the global lattice.
  Aggregation(const Lattice& fine, const std::array<int, Nd>& block);
  /// Blocks of extents `block` on the coarse lattice g of the lattice fine (the next level down).
  Aggregation(const Lattice& fine, const CoarseGeometry& g, const std::array<int, Nd>& block);
  /// The fine lattice (of the finest level).
  const Lattice& fine() const { return fine_; }
  /// Sites of the aggregated lattice on this rank.
  int fine_sites() const { return int(aggregate_of_.extent(0)); }
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
  /// Blocks of this rank's sites `sites` (coordinates lexicographic, x fastest), site x numbered index(x).
  template <class Index> void build(const CoarseGeometry& sites, Index&& index) {
    for (int mu = 0; mu < Nd; ++mu) {
      const int extent = sites.dims[mu], global = sites.global[mu];
      if (block_[mu] < 1 || global % block_[mu] != 0 || global / block_[mu] < 2)
        throw invalid_argument("multigrid aggregation: block " + std::to_string(block_[mu]) + " does not split extent " +
                               std::to_string(global) + " of direction " + std::to_string(mu) + " into at least two blocks");
      if (extent % block_[mu] != 0)
        throw invalid_argument("multigrid aggregation: block " + std::to_string(block_[mu]) + " does not split a rank's extent " +
                               std::to_string(extent) + " of direction " + std::to_string(mu) +
                               " (aggregates do not straddle ranks: use blocks that divide it, or fewer ranks in that direction)");
      coarse_.dims[mu] = extent / block_[mu];
      coarse_.origin[mu] = sites.origin[mu] / block_[mu];
      coarse_.global[mu] = global / block_[mu];
    }
    const int n_agg = coarse_.volume(), per = block_sites(), n = sites.volume();
    auto members = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>("mg_members", n_agg, per);
    auto of = Kokkos::View<int*, Kokkos::HostSpace>("mg_aggregate_of", n);
    std::vector<int> filled(std::size_t(n_agg), 0);
    for (int i = 0; i < n; ++i) {
      const Coords x = sites.coords(i);
      Coords c;
      for (int mu = 0; mu < Nd; ++mu) c.x[mu] = x.x[mu] / block_[mu];
      const int a = coarse_.index(c), f = index(x);
      members(a, filled[std::size_t(a)]++) = f;
      of(f) = a;
    }
    members_ = Kokkos::create_mirror_view_and_copy(ExecSpace(), members);
    aggregate_of_ = Kokkos::create_mirror_view_and_copy(ExecSpace(), of);
  }

  Lattice fine_;
  std::array<int, Nd> block_{};
  CoarseGeometry coarse_;
  table_type members_;
  Kokkos::View<int*, ExecSpace> aggregate_of_;
};

namespace detail {
/// Component d = s * Nc + c of site f of a spinor field (f = parity * cb + checkerboard index):
/// chirality + (spins 0, 1) in the first half of the components.
template <class SView> struct SpinorSites {
  SView even, odd;
  int cb;
  static constexpr int components = Ns * Nc;
  KOKKOS_FUNCTION auto& operator()(int f, int d) const { return f < cb ? even(f, d % Nc, d / Nc) : odd(f - cb, d % Nc, d / Nc); }
};
/// Where the transfer's storage keeps the sites of a spinor field: rows [0, cb) the even sites,
/// [cb, 2 cb) the odd ones, then the even parity's ghost zone and the odd's (`ghosts` each).
struct FineRows {
  int cb, ghosts;
  /// The row of site `index` of parity p: a checkerboard index below cb, else in the ghost zone.
  KOKKOS_INLINE_FUNCTION int row(int index, int p) const { return index < cb ? p * cb + index : 2 * cb + p * ghosts + (index - cb); }
  /// The parity of ghost row i (counted from the first ghost row, 2 cb).
  KOKKOS_INLINE_FUNCTION int ghost_parity(int i) const { return i < ghosts ? 0 : 1; }
  /// The site index (in its parity's ghost zone, from cb on) of ghost row i.
  KOKKOS_INLINE_FUNCTION int ghost_index(int i) const { return cb + i - ghost_parity(i) * ghosts; }
};
/// Component d of ghost row i of a spinor field (FineRows' order).
template <class SView> struct GhostRows {
  SView even, odd;
  FineRows rows;
  KOKKOS_FUNCTION auto& operator()(int i, int d) const {
    const int j = rows.ghost_index(i);
    return rows.ghost_parity(i) == 0 ? even(j, d % Nc, d / Nc) : odd(j, d % Nc, d / Nc);
  }
};
/// Component d of site f of a coarse field (its n components, chirality + the first n / 2).
template <class CView> struct CoarseSites {
  CView v;
  int components;
  KOKKOS_FUNCTION auto& operator()(int f, int d) const { return v(std::size_t(f) * std::size_t(components) + std::size_t(d)); }
};
/// The site access of a field of the level above: a spinor field or a coarse field.
template <class T> struct FineSpace;
template <class CB> struct FineSpace<FullSpinor<CB>> {
  static auto sites(const FullSpinor<CB>& f) { return SpinorSites<typename CB::view_type>{f[0].view(), f[1].view(), f.lattice().cb_volume()}; }
  /// A zero field of f's shape.
  static FullSpinor<CB> like(const FullSpinor<CB>& f) { return FullSpinor<CB>(f.lattice()); }
  /// Ghost rows of a field: each parity's ghost zone, the even one first.
  static int ghost_rows(const FullSpinor<CB>& f) { return 2 * f.lattice().ghost_sites(); }
  /// The halo of fields of f's shape: exchange(g) fills g's ghost zone from the neighbouring ranks
  /// and returns its access (ghost row i, component d).
  struct Halo {
    using View = typename CB::view_type;
    HaloExchange<View, typename CB::execution_space> halo;
    auto exchange(FullSpinor<CB>& g) {
      for (int p = 0; p < 2; ++p) halo.exchange(g[p].view(), p);
      return GhostRows<View>{g[0].view(), g[1].view(), {g.lattice().cb_volume(), g.lattice().ghost_sites()}};
    }
  };
  static Halo halo(const FullSpinor<CB>& f) { return Halo{HaloExchange<typename CB::view_type, typename CB::execution_space>(f.lattice())}; }
};
template <class Real, class ES> struct FineSpace<CoarseSpinor<Real, ES>> {
  static auto sites(const CoarseSpinor<Real, ES>& f) { return CoarseSites<typename CoarseSpinor<Real, ES>::view_type>{f.view(), f.n()}; }
  static CoarseSpinor<Real, ES> like(const CoarseSpinor<Real, ES>& f) { return f.like(); }
  static int ghost_rows(const CoarseSpinor<Real, ES>& f) { return CoarseHalo<Real, ES>::ghost_sites(f.lattice(), f.coarse_geometry()); }
  /// The same for coarse fields.
  struct Halo {
    CoarseHalo<Real, ES> halo;
    int n;
    auto exchange(const CoarseSpinor<Real, ES>& g) {
      halo.exchange(g.view());
      return CoarseSites<typename CoarseSpinor<Real, ES>::view_type>{halo.ghost(), n};
    }
  };
  static Halo halo(const CoarseSpinor<Real, ES>& f) { return Halo{CoarseHalo<Real, ES>(f.lattice(), f.coarse_geometry(), f.n()), f.n()}; }
};

/// V(first + f, d, k) = v(f, d) (load) or v(f, d) = V(f, d, k) (store): test vector k into the
/// transfer's storage, its ghost rows from `first` on, or back.
template <class VView, class Sites> struct LoadTestVector {
  VView V;
  Sites v;
  int k, first = 0;
  bool load = true;
  KOKKOS_FUNCTION void operator()(int f) const {
    for (int d = 0; d < int(V.extent(1)); ++d)
      if (load) V(first + f, d, k) = v(f, d);
      else v(f, d) = V(f, d, k);
  }
};

/// Two passes of classical Gram-Schmidt over the vectors of one chirality of aggregate a (item
/// 2 a + chirality): per column k its inner products with columns 0..k in one pass (a thread per
/// column, its vector lanes over the aggregate's entries), the update, the norm. Refuses a column
/// whose norm falls to rounding (linearly dependent vectors).
template <class VView, class Table> struct BlockOrthonormalise {
  using execution_space = typename VView::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  using cplx = typename VView::non_const_value_type;
  using real = typename cplx::value_type;
  using scratch = Kokkos::View<cplx*, typename execution_space::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  VView V;
  Table members;
  Kokkos::View<int*, execution_space> failures;
  int nv;
  real rounding = real(1000) * std::numeric_limits<real>::epsilon(); ///< The relative norm of a dependent column.
  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int item = team.league_rank();
    const int a = item / 2, half = int(V.extent(1)) / 2, d0 = half * (item % 2);
    const int n = int(members.extent(1)) * half; // entries: member e / half, component d0 + e % half
    auto at = [&](int e, int k) -> cplx& { return V(members(a, e / half), d0 + e % half, k); };
    scratch p(team.team_scratch(0), nv);
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < nv; ++k) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k + 1), [&](int j) {
          cplx d(0);
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, n), [&](int e, cplx& acc) { acc += Kokkos::conj(at(e, j)) * at(e, k); }, d);
          Kokkos::single(Kokkos::PerThread(team), [&] { p(j) = d; });
        });
        team.team_barrier();
        const real before = Kokkos::sqrt(p(k).real());
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](int e) {
          cplx s = at(e, k);
          for (int j = 0; j < k; ++j) s -= p(j) * at(e, j);
          at(e, k) = s;
        });
        team.team_barrier();
        real nrm2 = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(team, n),
            [&](int e, real& acc) {
              const cplx z = at(e, k);
              acc += z.real() * z.real() + z.imag() * z.imag();
            },
            nrm2);
        const real nrm = Kokkos::sqrt(nrm2);
        // What is left of a column in the span of the others is rounding: linearly dependent.
        if (!(nrm > rounding * before)) {
          Kokkos::single(Kokkos::PerTeam(team), [&] { Kokkos::atomic_add(&failures(0), 1); });
          return;
        }
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](int e) { at(e, k) /= nrm; });
        team.team_barrier();
      }
  }
};

/// Component d of fine site f of psi = P phi: item f * components + d (neighbouring threads read
/// neighbouring rows of V).
template <class VView, class Sites, class CView> struct Prolong {
  VView V;
  Sites out;
  CView phi;
  Kokkos::View<const int*, typename VView::execution_space> aggregate_of;
  int nv;
  KOKKOS_FUNCTION void operator()(int item) const {
    const int comps = int(V.extent(1)), f = item / comps, d = item - f * comps;
    const int off = aggregate_of(f) * 2 * nv + (d < comps / 2 ? 0 : nv);
    typename VView::non_const_value_type acc(0);
    for (int k = 0; k < nv; ++k) acc += V(f, d, k) * phi(off + k);
    out(f, d) = acc;
  }
};

/// Components k0 .. k0 + Chunk - 1 of one chirality of coarse site a of phi = P^dag psi: item
/// (a * 2 + chirality) * blocks + block; each fine component is read once for the chunk of vectors,
/// whose V entries lie side by side. Chunk 1 where threads run in lockstep: neighbouring threads
/// then read neighbouring entries of V, and there are Nv times more of them.
template <class VView, class Sites, class CView, class Table, int Chunk> struct Restrict {
  static constexpr int chunk = Chunk;
  VView V;
  Sites in;
  CView phi;
  Table members;
  int nv;
  KOKKOS_FUNCTION void operator()(int item) const {
    const int blocks = (nv + chunk - 1) / chunk, block = item % blocks, ac = item / blocks, a = ac / 2, chirality = ac % 2;
    const int half = int(V.extent(1)) / 2, d0 = chirality * half, k0 = block * chunk, kn = nv - k0 < chunk ? nv - k0 : chunk;
    using cplx = typename CView::non_const_value_type;
    cplx acc[chunk] = {};
    for (int q = 0; q < int(members.extent(1)); ++q) {
      const int f = members(a, q);
      for (int d = d0; d < d0 + half; ++d) {
        const cplx x = in(f, d);
        for (int k = 0; k < kn; ++k) acc[k] += Kokkos::conj(V(f, d, k0 + k)) * x;
      }
    }
    for (int k = 0; k < kn; ++k) phi(a * 2 * nv + chirality * nv + k0 + k) = acc[k];
  }
};
} // namespace detail

/// The prolongator and restrictor of Nv test vectors on an aggregation, in precision Real, between
/// fields of type Fine (spinor fields on the fine lattice, or the coarse fields of a coarser level)
/// and coarse fields.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace, class Fine = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>>
class Transfer {
public:
  using execution_space = ExecSpace; ///< The execution space.
  using fine_type = Fine; ///< A field of the level above.
  using coarse_type = CoarseSpinor<Real, ExecSpace>; ///< A coarse field.
  /// V(f, d, k): test vector k at fine site f, component d (the first half of the components of
  /// one chirality, the second of the other; each half orthonormal per aggregate). On a process
  /// grid the rows from aggregation().fine_sites() on are the ghost zone of the fine lattice
  /// (spinor fields: the even parity's ghost sites, then the odd's; coarse fields: the coarse halo),
  /// which the coarse operator's construction reads.
  using view_type = Kokkos::View<Kokkos::complex<Real>***, Kokkos::LayoutRight, ExecSpace>;

  /// The transfer of the test vectors (at least one, on the aggregation's fine sites), split by
  /// chirality and block-orthonormalised; throws where they are linearly dependent on an aggregate.
  Transfer(const Aggregation<ExecSpace>& agg, const std::vector<fine_type>& test_vectors);
  /// The aggregation.
  const Aggregation<ExecSpace>& aggregation() const { return agg_; }
  /// Test vectors.
  int nv() const { return nv_; }
  /// Coarse components per coarse site (2 Nv).
  int n() const { return 2 * nv_; }
  /// Components per fine site.
  int fine_components() const { return int(V_.extent(1)); }
  /// The orthonormalised vectors.
  const view_type& vectors() const { return V_; }
  /// A zero coarse field.
  coarse_type create_coarse(const std::string& label = "coarse_spinor") const { return coarse_type(agg_.fine(), agg_.coarse(), n(), label); }
  /// fine = P coarse.
  void prolong(fine_type& fine, const coarse_type& coarse) const;
  /// coarse = P^dag fine.
  void restrict_to_coarse(coarse_type& coarse, const fine_type& fine) const;

private:
  using space = detail::FineSpace<Fine>;
  void check(const fine_type& f, const coarse_type* c, const char* what) const;
  Aggregation<ExecSpace> agg_;
  int nv_ = 0;
  view_type V_;
};

template <class ES> Aggregation<ES>::Aggregation(const Lattice& fine, const std::array<int, Nd>& block) : fine_(fine), block_(block) {
  const int cb = fine.cb_volume();
  CoarseGeometry sites;
  for (int mu = 0; mu < Nd; ++mu) {
    sites.dims[mu] = fine.dim(mu);
    sites.origin[mu] = fine.origin(mu);
    sites.global[mu] = fine.global_dim(mu);
  }
  build(sites, [&](const Coords& x) { return Lattice::parity(x) * cb + fine.cb_index(x); });
}

template <class ES>
Aggregation<ES>::Aggregation(const Lattice& fine, const CoarseGeometry& g, const std::array<int, Nd>& block) : fine_(fine), block_(block) {
  build(g, [&](const Coords& x) { return g.index(x); });
}

template <class Real, class ES, class Fine>
Transfer<Real, ES, Fine>::Transfer(const Aggregation<ES>& agg, const std::vector<fine_type>& test_vectors)
    : agg_(agg), nv_(int(test_vectors.size())) {
  if (nv_ < 1) throw invalid_argument("multigrid transfer: no test vectors");
  const int comps = space::sites(test_vectors[0]).components;
  const int ghosts = space::ghost_rows(test_vectors[0]);
  V_ = view_type("mg_vectors", agg_.fine_sites() + ghosts, comps, nv_);
  for (int k = 0; k < nv_; ++k) {
    check(test_vectors[std::size_t(k)], nullptr, "test vector");
    const auto v = space::sites(test_vectors[std::size_t(k)]);
    Kokkos::parallel_for("kqcd::mg::Transfer::load", Kokkos::RangePolicy<ES>(0, agg_.fine_sites()),
                         detail::LoadTestVector<view_type, decltype(v)>{V_, v, k});
  }
  Kokkos::View<int*, ES> failures("mg_failures", 1);
  using Orthonormalise = detail::BlockOrthonormalise<view_type, typename Aggregation<ES>::table_type>;
  Kokkos::TeamPolicy<ES> teams(2 * agg_.coarse().volume(), Kokkos::AUTO, ArchTraits<ES>::warp_size);
  teams.set_scratch_size(0, Kokkos::PerTeam(Orthonormalise::scratch::shmem_size(nv_)));
  Kokkos::parallel_for("kqcd::mg::Transfer::orthonormalise", teams, Orthonormalise{V_, agg_.members(), failures, nv_});
  int local_failures = 0;
  Kokkos::deep_copy(local_failures, Kokkos::subview(failures, 0));
  const long failed = std::lround(comm::sum(agg_.fine(), double(local_failures))); // every rank throws, or none
  if (failed > 0)
    throw invalid_argument("multigrid transfer: the test vectors are linearly dependent on " + std::to_string(failed) +
                           " aggregate chiralities");
  // The neighbouring ranks' rows of the orthonormalised vectors, through a field of the level above.
  if (ghosts > 0) {
    fine_type w = space::like(test_vectors[0]);
    const auto ws = space::sites(w);
    auto halo = space::halo(w);
    for (int k = 0; k < nv_; ++k) {
      Kokkos::parallel_for("kqcd::mg::Transfer::store", Kokkos::RangePolicy<ES>(0, agg_.fine_sites()),
                           detail::LoadTestVector<view_type, decltype(ws)>{V_, ws, k, 0, false});
      const auto g = halo.exchange(w);
      Kokkos::parallel_for("kqcd::mg::Transfer::load_ghosts", Kokkos::RangePolicy<ES>(0, ghosts),
                           detail::LoadTestVector<view_type, decltype(g)>{V_, g, k, agg_.fine_sites()});
    }
  }
}

template <class Real, class ES, class Fine>
void Transfer<Real, ES, Fine>::check(const fine_type& f, const coarse_type* c, const char* what) const {
  if (!(f.lattice() == agg_.fine()))
    throw invalid_argument(std::string("multigrid transfer: the ") + what + " is on " + f.lattice().to_string() + ", the aggregation on " +
                           agg_.fine().to_string());
  if constexpr (requires { f.coarse_geometry(); })
    if (f.coarse_geometry().volume() != agg_.fine_sites())
      throw invalid_argument(std::string("multigrid transfer: the ") + what + " has " + std::to_string(f.coarse_geometry().volume()) +
                             " sites, the aggregation " + std::to_string(agg_.fine_sites()));
  if (const int comps = space::sites(f).components; V_.extent(1) != 0 && comps != fine_components())
    throw invalid_argument(std::string("multigrid transfer: the ") + what + " has " + std::to_string(comps) +
                           " components per site, expected " + std::to_string(fine_components()));
  if (c && (!(c->coarse_geometry() == agg_.coarse()) || c->n() != n()))
    throw invalid_argument("multigrid transfer: a coarse field of " + std::to_string(c->n()) + " components on another coarse lattice, expected " +
                           std::to_string(n()));
}

template <class Real, class ES, class Fine> void Transfer<Real, ES, Fine>::prolong(fine_type& fine, const coarse_type& coarse) const {
  check(fine, &coarse, "fine field");
  const auto out = space::sites(fine);
  Kokkos::parallel_for("kqcd::mg::Transfer::prolong", Kokkos::RangePolicy<ES>(0, agg_.fine_sites() * int(V_.extent(1))),
                       detail::Prolong<view_type, decltype(out), typename coarse_type::view_type>{V_, out, coarse.view(), agg_.aggregate_of(), nv_});
}

template <class Real, class ES, class Fine> void Transfer<Real, ES, Fine>::restrict_to_coarse(coarse_type& coarse, const fine_type& fine) const {
  check(fine, &coarse, "fine field");
  const auto in = space::sites(fine);
  using R = detail::Restrict<view_type, decltype(in), typename coarse_type::view_type, typename Aggregation<ES>::table_type,
                             (ArchTraits<ES>::warp_size > 1 ? 1 : 8)>;
  Kokkos::parallel_for("kqcd::mg::Transfer::restrict",
                       Kokkos::RangePolicy<ES>(0, agg_.coarse().volume() * 2 * ((nv_ + R::chunk - 1) / R::chunk)),
                       R{V_, in, coarse.view(), agg_.members(), nv_});
}

} // namespace kqcd::mg
