// The Galerkin coarse operator of aggregation-based multigrid, D_c = P^dag D P, as a nearest-neighbour
// stencil on the coarse lattice:
//   (D_c phi)(c) = X(c) phi(c) + sum_mu sum_{dir = +-1} Y(c, mu, dir) phi(c + dir mu),
// X and Y dense n x n blocks (n = 2 Nv). It is built from the fine operator's structure, as QUDA's
// coarse-operator construction: for a Wilson-type operator D = A - (1/2) sum_mu [(1 - g_mu) U_mu(x)
// psi(x + mu) + (1 + g_mu) U_mu(x - mu)^dag psi(x - mu)] (conventions.md, with boundary phases; A
// the site term of Wilson, clover, twisted mass or twisted clover: stencil/local_operators.hpp), the
// site term and the hops within an aggregate go to X, the hops between neighbouring aggregates to Y.
// gamma5-hermiticity carries over (D_c^dag = gamma5_c D_c gamma5_c), which apply(out, in, -1) uses.
// On a process grid each rank builds the blocks of its own coarse sites, reading its neighbours'
// links and test vectors from the fine ghost zones; apply() exchanges the coarse halo first.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/comm/halo.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/multigrid/coarse_halo.hpp>
#include <kqcd/multigrid/transfer.hpp>
#include <kqcd/stencil/local_operators.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace kqcd::mg {

namespace detail {
/// Column kk of X(c) and of the eight Y(c, mu, dir) of a Wilson-type operator with site-term
/// policies `local` (one per parity: apply(site, in, out)): item c * n + kk. Off-rank neighbours
/// are the links' ghost rows and V's rows from 2 cb_volume on (transfer.hpp).
template <class VView, class GView, class XView, class YView, class Table, class Local> struct BuildCoarse {
  VView V;
  GView u_even, u_odd;
  XView X;
  YView Y;
  Table members;
  Kokkos::View<const int*, typename VView::execution_space> aggregate_of;
  Lattice fine;
  Kokkos::complex<double> phase[Nd];
  Local local[2];
  int nv;
  using cplx = typename VView::non_const_value_type;
  using real = typename cplx::value_type;
  KOKKOS_FUNCTION cplx link(int parity, int i, int mu, int a, int b) const {
    return parity == 0 ? cplx(u_even(i, mu, a, b)) : cplx(u_odd(i, mu, a, b));
  }
  KOKKOS_FUNCTION void operator()(int item) const {
    const int n = 2 * nv, c = item / n, kk = item - c * n, k = kk % nv, s0 = kk < nv ? 0 : 2;
    const int cb = fine.cb_volume();
    const FineRows rows{cb, fine.ghost_sites()};
    for (int q = 0; q < int(members.extent(1)); ++q) {
      const int f = members(c, q), px = f < cb ? 0 : 1, ix = f - px * cb;
      // The site term: V_j^dag A V_kk at x.
      {
        cplx v[Nc][Ns] = {}, a[Nc][Ns];
        for (int sp = s0; sp < s0 + 2; ++sp)
          for (int b = 0; b < Nc; ++b) v[b][sp] = V(f, sp * Nc + b, k);
        local[px].apply(ix, v, a);
        for (int j = 0; j < n; ++j) {
          const int jk = j % nv, t0 = j < nv ? 0 : 2;
          cplx d(0);
          for (int sp = t0; sp < t0 + 2; ++sp)
            for (int b = 0; b < Nc; ++b) d += Kokkos::conj(V(f, sp * Nc + b, jk)) * a[b][sp];
          X(c, j, kk) += d;
        }
      }
      for (int mu = 0; mu < Nd; ++mu)
        for (int dir = 1; dir >= -1; dir -= 2) {
          const Neighbour y = kqcd::detail::compute_neighbour(fine, ix, px, mu, dir);
          const cplx ph = !y.crossed ? cplx(1) : cplx(real(phase[mu].real()), real(dir) * real(phase[mu].imag()));
          const int py = 1 - px, iy = y.index, g = rows.row(iy, py);
          // U psi(y) with psi = column kk at y (its chirality's spins only): forward U_mu(x), backward U_mu(y)^dag.
          cplx up[Ns][Nc] = {};
          for (int s = s0; s < s0 + 2; ++s)
            for (int a = 0; a < Nc; ++a) {
              cplx acc(0);
              for (int b = 0; b < Nc; ++b) {
                const cplx uab = dir > 0 ? link(px, ix, mu, a, b) : Kokkos::conj(link(py, iy, mu, b, a));
                acc += uab * V(g, s * Nc + b, k);
              }
              up[s][a] = ph * acc;
            }
          // h = -(1/2) (1 - dir g_mu) U psi(y); g_mu row s has i^code in column perm.
          cplx h[Ns][Nc];
          for (int s = 0; s < Ns; ++s) {
            const int t = gamma_dr::perm_at(mu, s), e = gamma_dr::code_at(mu, s);
            const cplx ie = e == 0 ? cplx(1) : e == 1 ? cplx(0, 1) : e == 2 ? cplx(-1) : cplx(0, -1);
            for (int a = 0; a < Nc; ++a) h[s][a] = real(-0.5) * (up[s][a] - real(dir) * ie * up[t][a]);
          }
          // Into X where y lies in the same aggregate, into Y(c, mu, dir) otherwise.
          const bool inside = g < 2 * cb && aggregate_of(g) == c;
          const int slot = 2 * mu + (dir < 0);
          for (int j = 0; j < n; ++j) {
            const int jk = j % nv, t0 = j < nv ? 0 : 2;
            cplx d(0);
            for (int s = t0; s < t0 + 2; ++s)
              for (int a = 0; a < Nc; ++a) d += Kokkos::conj(V(f, s * Nc + a, jk)) * h[s][a];
            if (inside) X(c, j, kk) += d;
            else Y(c, slot, j, kk) += d;
          }
        }
    }
  }
};

/// Column kk of X(c) and of the eight Y(c, slot) of the Galerkin product of a coarse operator (blocks
/// Xf, Yf, neighbour table nb) on the transfer V from its lattice: item c * n + kk. An off-rank
/// neighbour's index (from the lattice's volume on) is its row of V.
template <class VView, class XFView, class YFView, class XView, class YView, class NView, class Table> struct BuildCoarseFromCoarse {
  VView V;
  XFView Xf;
  XView X;
  YFView Yf;
  YView Y;
  NView nb;
  Table members;
  Kokkos::View<const int*, typename VView::execution_space> aggregate_of;
  int nv;
  using cplx = typename VView::non_const_value_type;
  KOKKOS_FUNCTION void operator()(int item) const {
    const int n = 2 * nv, c = item / n, kk = item - c * n, k = kk % nv, nf = int(V.extent(1)), half = nf / 2, d0 = kk < nv ? 0 : half;
    // sum_j V_j(f)^dag B w, w the chirality part of column kk at site g: into X (or Y(c, slot)) row j.
    auto project = [&](int f, int g, bool site, int slot, bool into_x) {
      for (int j = 0; j < n; ++j) {
        const int jk = j % nv, t0 = j < nv ? 0 : half;
        cplx d(0);
        for (int r = t0; r < t0 + half; ++r) {
          cplx bw(0);
          for (int q = d0; q < d0 + half; ++q) bw += (site ? Xf(f, r, q) : Yf(f, slot, r, q)) * V(g, q, k);
          d += Kokkos::conj(V(f, r, jk)) * bw;
        }
        if (into_x) X(c, j, kk) += d;
        else Y(c, slot, j, kk) += d;
      }
    };
    for (int m = 0; m < int(members.extent(1)); ++m) {
      const int f = members(c, m);
      project(f, f, true, 0, true);
      for (int slot = 0; slot < 2 * Nd; ++slot) {
        const int g = nb(f, slot);
        project(f, g, false, slot, g < int(aggregate_of.extent(0)) && aggregate_of(g) == c);
      }
    }
  }
};

/// How a coarse row's sum over its blocks' columns k is shared: by its thread alone (CPUs, and GPUs
/// with rows enough to fill them), or by the vector lanes of its team thread, lane l taking the
/// columns k = l mod lanes (a half coarse lattice has too few rows to keep a GPU's memory busy).
struct RowInSequence {
  /// The sum of f(k0, dk, acc) (the terms of columns k0, k0 + dk, ...) over the lanes.
  template <class T, class F> KOKKOS_FORCEINLINE_FUNCTION T sum(const F& f) const {
    T acc(0);
    f(0, 1, acc);
    return acc;
  }
  /// f() once per row.
  template <class F> KOKKOS_FORCEINLINE_FUNCTION void once(const F& f) const { f(); }
};
template <class Member> struct RowInLanes {
  const Member& team;
  int lanes;
  template <class T, class F> KOKKOS_FORCEINLINE_FUNCTION T sum(const F& f) const {
    T acc(0);
    Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, lanes), [&](int l, T& a) { f(l, lanes, a); }, acc);
    return acc;
  }
  template <class F> KOKKOS_FORCEINLINE_FUNCTION void once(const F& f) const { Kokkos::single(Kokkos::PerThread(team), f); }
};
/// F::row(item, lanes) for every item: a thread per row, or a team thread per row.
template <class ES, class F> struct CoarseRows {
  using member_type = typename Kokkos::TeamPolicy<ES>::member_type;
  F f;
  int items, lanes;
  KOKKOS_FUNCTION void operator()(int item) const { f.row(item, RowInSequence{}); }
  KOKKOS_FUNCTION void operator()(const member_type& t) const {
    const int item = t.league_rank() * t.team_size() + t.team_rank();
    if (item < items) f.row(item, RowInLanes<member_type>{t, lanes});
  }
};
/// Runs f.row over items rows: a thread per row where the rows hold at least half the threads the
/// device keeps in flight (ES::concurrency()), else 2 or 4 vector lanes per row: enough loads in
/// flight to stream the blocks.
template <class ES, class F> void for_each_coarse_row(const char* label, int items, const F& f) {
  int lanes = 1;
  if constexpr (ArchTraits<ES>::warp_size > 1)
    while (lanes < 4 && 2.0 * items * lanes < double(ES().concurrency())) lanes *= 2;
  if (lanes == 1) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ES>(0, items), CoarseRows<ES, F>{f, items, 1});
  } else {
    const int rows = 256 / lanes;
    Kokkos::parallel_for(label, Kokkos::TeamPolicy<ES>((items + rows - 1) / rows, rows, lanes), CoarseRows<ES, F>{f, items, lanes});
  }
}

/// Columns k0, k0 + dk, ... of row j of Y(c, d) in(c + d), hop d of coarse site c, components k >=
/// flip of in negated (flip = n: none); a neighbour index from the volume on is a site of the ghost zone.
template <class YView, class CView, class NView>
KOKKOS_INLINE_FUNCTION void add_coarse_hop(typename CView::non_const_value_type& acc, const YView& Y, const NView& neighbour, const CView& in,
                                           const CView& ghost, int volume, int n, int flip, int c, int j, int d, int k0, int dk) {
  const int s = neighbour(c, d);
  const CView& from = s < volume ? in : ghost;
  const int o = (s < volume ? s : s - volume) * n;
  for (int k = k0; k < n; k += dk) acc += Y(c, d, j, k) * (k >= flip ? -from(o + k) : from(o + k));
}

/// Row j of coarse site c of out = D_c in (dagger: gamma5_c D_c gamma5_c): item c * n + j.
template <class XView, class YView, class CView, class NView> struct ApplyCoarse {
  XView X;
  YView Y;
  CView in, out, ghost;
  NView neighbour;
  int n, nv, volume;
  bool dagger;
  template <class Lanes> KOKKOS_FUNCTION void row(int item, const Lanes& lanes) const {
    const int c = item / n, j = item - c * n, flip = dagger ? nv : n;
    using cplx = typename CView::non_const_value_type;
    const cplx acc = lanes.template sum<cplx>([&](int k0, int dk, cplx& a) {
      for (int k = k0; k < n; k += dk) a += X(c, j, k) * (k >= flip ? -in(c * n + k) : in(c * n + k));
      for (int d = 0; d < 2 * Nd; ++d) add_coarse_hop(a, Y, neighbour, in, ghost, volume, n, flip, c, j, d, k0, dk);
    });
    lanes.once([&] { out(c * n + j) = j >= flip ? -acc : acc; });
  }
};
} // namespace detail

/// The coarse operator of a transfer in precision Real: its stencil blocks X and Y, and D_c applied
/// to coarse fields (the solvers' operator concept: vector_type, create_vector, apply).
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class CoarseOperator {
public:
  using execution_space = ExecSpace; ///< The execution space.
  using vector_type = CoarseSpinor<Real, ExecSpace>; ///< A coarse field.
  using real_type = Real; ///< The precision.
  /// X(c, j, k): the site term of coarse site c.
  using x_view_type = Kokkos::View<Kokkos::complex<Real>***, Kokkos::LayoutStride, ExecSpace>;
  /// Y(c, 2 mu + (dir < 0), j, k): the coupling of c + dir mu into c.
  using y_view_type = Kokkos::View<Kokkos::complex<Real>****, Kokkos::LayoutStride, ExecSpace>;
  // Where threads run in lockstep (ArchTraits::warp_size > 1) each block is stored column by column
  // (row j fastest), so that apply()'s threads, one per row, read consecutive addresses at each k;
  // elsewhere row by row, each thread reading its own row in order. The builds, a thread per column,
  // write the blocks row by row; store() copies them into the column order or keeps them.

  /// The Galerkin coarse operator P^dag D P on the transfer t of the Wilson-type operator D = A - H/2
  /// of links u (on t's fine lattice), boundary phases bc and site term `term` (WilsonMassTerm,
  /// TwistedMassTerm, CloverTerm, TwistedCloverTerm in precision Real).
  template <class Term, class GT>
  static CoarseOperator galerkin(const Transfer<Real, ExecSpace>& t, const GaugeField<GT, ExecSpace>& u, const BoundaryPhases& bc,
                                 const Term& term) {
    static_assert(std::is_same_v<typename Term::precision, Real>, "multigrid coarse operator: the site term's precision is the transfer's");
    if (!(u.lattice() == t.aggregation().fine()))
      throw invalid_argument("multigrid coarse operator: the gauge field is on " + u.lattice().to_string() + ", the transfer on " +
                             t.aggregation().fine().to_string());
    CoarseOperator op(t);
    with_gauge_halo(u); // the backward hops' links U_mu(x - mu) of off-rank sites
    using V = typename Transfer<Real, ExecSpace>::view_type;
    using G = typename GaugeField<GT, ExecSpace>::cb_type::view_type;
    using Table = typename Aggregation<ExecSpace>::table_type;
    using Local = typename Term::local_type;
    auto [X, Y] = op.row_blocks();
    detail::BuildCoarse<V, G, row_x_type, row_y_type, Table, Local> f{t.vectors(), u[0].view(), u[1].view(), X, Y,
                                                                     t.aggregation().members(), t.aggregation().aggregate_of(),
                                                                     t.aggregation().fine(), {}, {term.local(0, 1), term.local(1, 1)}, t.nv()};
    for (int mu = 0; mu < Nd; ++mu) f.phase[mu] = bc.b[mu];
    Kokkos::parallel_for("kqcd::mg::CoarseOperator::build", Kokkos::RangePolicy<ExecSpace>(0, op.geometry_.volume() * t.n()), f);
    op.store(X, Y);
    return op;
  }
  /// The Galerkin coarse operator P^dag D P of the coarse operator D of the level above, on the
  /// transfer t from its lattice (the next level down).
  static CoarseOperator galerkin(const Transfer<Real, ExecSpace, vector_type>& t, const CoarseOperator& fine) {
    if (fine.geometry_.volume() != t.aggregation().fine_sites() || fine.n() != t.fine_components())
      throw invalid_argument("multigrid coarse operator: the transfer is not from the coarse lattice of this operator");
    CoarseOperator op(t);
    using V = typename Transfer<Real, ExecSpace, vector_type>::view_type;
    auto [X, Y] = op.row_blocks();
    detail::BuildCoarseFromCoarse<V, x_view_type, y_view_type, row_x_type, row_y_type, decltype(fine.neighbour_),
                                  typename Aggregation<ExecSpace>::table_type>
        f{t.vectors(), fine.X_, X, fine.Y_, Y, fine.neighbour_, t.aggregation().members(), t.aggregation().aggregate_of(), t.nv()};
    Kokkos::parallel_for("kqcd::mg::CoarseOperator::build_from_coarse", Kokkos::RangePolicy<ExecSpace>(0, op.geometry_.volume() * t.n()), f);
    op.store(X, Y);
    return op;
  }
  /// The same for the Wilson operator of mass m.
  template <class GT>
  static CoarseOperator wilson(const Transfer<Real, ExecSpace>& t, const GaugeField<GT, ExecSpace>& u, double mass, const BoundaryPhases& bc) {
    return galerkin(t, u, bc, WilsonMassTerm<Real, ExecSpace>(u, mass));
  }

  /// The coarse geometry.
  const CoarseGeometry& coarse_geometry() const { return geometry_; }
  /// Components per coarse site.
  int n() const { return 2 * nv_; }
  /// The stencil blocks.
  ///@{
  const x_view_type& X() const { return X_; }
  const y_view_type& Y() const { return Y_; }
  ///@}
  /// A zero coarse field.
  vector_type create_vector(const std::string& label = "coarse_vector") const { return vector_type(fine_, geometry_, n(), label); }
  /// out = D_c in (isign = +1) or D_c^dag in (isign = -1); out must not alias in.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const;
  /// Flops of one apply(): 9 n x n complex matrix-vector products per coarse site (8 n^2 - 2 n each, with the sums).
  double flops() const { return double(geometry_.volume()) * (9.0 * (8.0 * n() * n()) - 2.0 * n()); }

  /// The lattice of the finest level.
  const Lattice& lattice() const { return fine_; }
  /// The neighbour table: neighbours()(c, 2 mu + (dir < 0)) is a local site, or volume() + i for
  /// ghost site i.
  const Kokkos::View<int**, Kokkos::LayoutRight, ExecSpace>& neighbours() const { return neighbour_; }
  /// The coarse halo whose ghost zone the neighbour table's ghost sites index. A copy shares its
  /// buffers (the even-odd operator exchanges through D_c's).
  const CoarseHalo<Real, ExecSpace>& halo() const { return halo_; }

  /// Uninitialised n x n blocks of `sites` coarse sites in the storage order of X() (one per site)
  /// and Y() (2 Nd per site).
  ///@{
  static x_view_type site_blocks(const std::string& label, int sites, int n) {
    const std::size_t vol = std::size_t(sites), nn = std::size_t(n) * std::size_t(n);
    return x_view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), Kokkos::LayoutStride(vol, nn, n, row_stride(n), n, column_stride(n)));
  }
  static y_view_type hop_blocks(const std::string& label, int sites, int n) {
    const std::size_t vol = std::size_t(sites), nn = std::size_t(n) * std::size_t(n);
    return y_view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                       Kokkos::LayoutStride(vol, 2 * Nd * nn, 2 * Nd, nn, n, row_stride(n), n, column_stride(n)));
  }
  ///@}

private:
  static constexpr bool by_column = ArchTraits<ExecSpace>::warp_size > 1;
  static std::size_t row_stride(int n) { return by_column ? 1 : std::size_t(n); }
  static std::size_t column_stride(int n) { return by_column ? std::size_t(n) : 1; }
  /// The blocks stored row by row, as the builds write them.
  ///@{
  using row_x_type = Kokkos::View<Kokkos::complex<Real>***, Kokkos::LayoutRight, ExecSpace>;
  using row_y_type = Kokkos::View<Kokkos::complex<Real>****, Kokkos::LayoutRight, ExecSpace>;
  ///@}
  /// Zero blocks row by row for a build.
  std::pair<row_x_type, row_y_type> row_blocks() const {
    const int n = this->n();
    return {row_x_type("mg_coarse_X_build", geometry_.volume(), n, n), row_y_type("mg_coarse_Y_build", geometry_.volume(), 2 * Nd, n, n)};
  }
  /// The built blocks into the operator's storage order (row by row: the blocks themselves).
  void store(const row_x_type& X, const row_y_type& Y) {
    if constexpr (by_column) {
      X_ = site_blocks("mg_coarse_X", geometry_.volume(), n());
      Y_ = hop_blocks("mg_coarse_Y", geometry_.volume(), n());
      Kokkos::deep_copy(X_, X);
      Kokkos::deep_copy(Y_, Y);
    } else {
      X_ = X;
      Y_ = Y;
    }
  }
  /// The coarse lattice of t (blocks still empty), its halo and the neighbour table.
  template <class Fine>
  explicit CoarseOperator(const Transfer<Real, ExecSpace, Fine>& t)
      : fine_(t.aggregation().fine()), geometry_(t.aggregation().coarse()), nv_(t.nv()), halo_(fine_, geometry_, t.n()) {
    auto nb = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>("mg_coarse_neighbours", geometry_.volume(), 2 * Nd);
    for (int c = 0; c < geometry_.volume(); ++c)
      for (int mu = 0; mu < Nd; ++mu)
        for (int dir : {1, -1}) nb(c, 2 * mu + (dir < 0)) = halo_.neighbour(geometry_.coords(c), mu, dir);
    neighbour_ = Kokkos::create_mirror_view_and_copy(ExecSpace(), nb);
  }

  Lattice fine_;
  CoarseGeometry geometry_;
  int nv_ = 0;
  CoarseHalo<Real, ExecSpace> halo_;
  x_view_type X_;
  y_view_type Y_;
  Kokkos::View<int**, Kokkos::LayoutRight, ExecSpace> neighbour_;
};

template <class Real, class ES> void CoarseOperator<Real, ES>::apply(vector_type& out, const vector_type& in, int isign) const {
  if (!(in.coarse_geometry() == geometry_) || !(out.coarse_geometry() == geometry_) || in.n() != n() || out.n() != n())
    throw invalid_argument("multigrid coarse operator: a coarse field of another shape (" + std::to_string(in.n()) + " components, expected " +
                           std::to_string(n()) + ")");
  if (isign != 1 && isign != -1) throw invalid_argument("multigrid coarse operator: isign must be +1 or -1, found " + std::to_string(isign));
  if (out.view().data() == in.view().data()) throw invalid_argument("multigrid coarse operator: the output aliases the input");
  using CV = typename vector_type::view_type;
  halo_.exchange(in.view());
  detail::for_each_coarse_row<ES>("kqcd::mg::CoarseOperator::apply", geometry_.volume() * n(),
                                  detail::ApplyCoarse<x_view_type, y_view_type, CV, decltype(neighbour_)>{
                                      X_, Y_, in.view(), out.view(), halo_.ghost(), neighbour_, n(), nv_, geometry_.volume(), isign < 0});
}

} // namespace kqcd::mg
