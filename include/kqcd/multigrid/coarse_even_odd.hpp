// The even-odd (red-black) preconditioned coarse operator of multigrid, as QUDA's coarse levels
// solve it. With the coarse sites split by parity, D_c = [[X_ee, Y_eo], [Y_oe, X_oo]] (X the site
// blocks, Y the hops, which join sites of opposite parity where every global coarse extent is even), and
// with Yhat = X^-1 Y (each site's hops multiplied by its own X^-1) the system D_c x = b becomes
//   S x_e = b_hat,  S = 1 - Yhat_eo Yhat_oe,  b_hat = X_ee^-1 b_e - Yhat_eo X_oo^-1 b_o,
//   x_o = X_oo^-1 b_o - Yhat_oe x_e,
// on half the sites and better conditioned (a Krylov solver needs about half the iterations), at the
// cost of one application of D_c per application of S (eight hop blocks per site, no site block).
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/multigrid/coarse_halo.hpp>
#include <kqcd/multigrid/coarse_operator.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kqcd::mg {

namespace detail {
/// Row j of site c = sites(i) of one parity: item i * n + j. out(c) = [self(c), or M(c) self(c), or
/// nothing] + hop * sum_d Y(c, d) from(c + d); the other parity of out is left as it is.
template <class XView, class YView, class CView, class NView, class SView> struct ApplyCoarseParity {
  XView M;
  YView Y;
  CView self, from, ghost, out;
  NView neighbour;
  SView sites;
  int n, volume;
  int site_term; ///< 0: none, 1: self, 2: M self.
  int hop;       ///< 0: no hops, or the sign of the hop sum.
  template <class Lanes> KOKKOS_FUNCTION void row(int item, const Lanes& lanes) const {
    const int i = item / n, j = item - i * n, c = sites(i);
    using cplx = typename CView::non_const_value_type;
    cplx h(0), m(0);
    if (hop != 0)
      h = lanes.template sum<cplx>([&](int k0, int dk, cplx& a) {
        for (int d = 0; d < 2 * Nd; ++d) add_coarse_hop(a, Y, neighbour, from, ghost, volume, n, n, c, j, d, k0, dk);
      });
    if (site_term == 2)
      m = lanes.template sum<cplx>([&](int k0, int dk, cplx& a) {
        for (int k = k0; k < n; k += dk) a += M(c, j, k) * self(c * n + k);
      });
    const cplx acc = (site_term == 1 ? self(c * n + j) : m) + (hop > 0 ? h : -h);
    lanes.once([&] { out(c * n + j) = acc; });
  }
};

/// Xinv(c) = X(c)^-1 by Gauss-Jordan elimination with partial pivoting on [X(c) | 1] in w(c): a
/// team per coarse site, its threads over the rows and columns; a singular block (a zero pivot
/// column) counts in singular(0).
template <class XView, class WView, class ES> struct InvertSiteBlocks {
  XView X;
  WView w;
  XView Xinv;
  Kokkos::View<int*, ES> singular;
  int n;
  using cplx = typename WView::non_const_value_type;
  using real = typename cplx::value_type;
  using member = typename Kokkos::TeamPolicy<ES>::member_type;
  using scratch = Kokkos::View<cplx*, typename ES::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  KOKKOS_FUNCTION void operator()(const member& t) const {
    const int c = t.league_rank();
    scratch factor(t.team_scratch(0), n);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n * 2 * n), [&](int e) {
      const int r = e / (2 * n), q = e - r * 2 * n;
      w(c, r, q) = q < n ? cplx(X(c, r, q)) : cplx(real(q - n == r ? 1 : 0));
    });
    t.team_barrier();
    for (int p = 0; p < n; ++p) {
      using reducer = Kokkos::MaxLoc<real, int>;
      typename reducer::value_type best;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(t, p, n),
          [&](int r, typename reducer::value_type& b) {
            const real a = Kokkos::abs(w(c, r, p));
            if (a > b.val) {
              b.val = a;
              b.loc = r;
            }
          },
          reducer(best));
      if (!(best.val > real(0))) {
        Kokkos::single(Kokkos::PerTeam(t), [&] { Kokkos::atomic_add(&singular(0), 1); });
        return;
      }
      const int r0 = best.loc;
      t.team_barrier();
      if (r0 != p)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, 2 * n), [&](int q) {
          const cplx a = w(c, p, q);
          w(c, p, q) = w(c, r0, q);
          w(c, r0, q) = a;
        });
      t.team_barrier();
      const cplx inv = real(1) / w(c, p, p);
      t.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, 2 * n), [&](int q) { w(c, p, q) *= inv; });
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n), [&](int r) { factor(r) = w(c, r, p); });
      t.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n * 2 * n), [&](int e) {
        const int r = e / (2 * n), q = e - r * 2 * n;
        if (r != p) w(c, r, q) -= factor(r) * w(c, p, q);
      });
      t.team_barrier();
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n * n), [&](int e) { Xinv(c, e / n, e % n) = w(c, e / n, n + e % n); });
  }
};

/// Yhat(c, d) = Xinv(c) Y(c, d): item ((c * 2 Nd + d) * n + j) * n + k.
template <class XView, class YView> struct PrecondHops {
  XView Xinv;
  YView Y, Yhat;
  int n;
  KOKKOS_FUNCTION void operator()(std::int64_t item) const {
    const int k = int(item % n), j = int((item / n) % n), d = int((item / (n * n)) % (2 * Nd)), c = int(item / (std::int64_t(n) * n * 2 * Nd));
    typename YView::non_const_value_type acc(0);
    for (int l = 0; l < n; ++l) acc += Xinv(c, j, l) * Y(c, d, l, k);
    Yhat(c, d, j, k) = acc;
  }
};
} // namespace detail

/// The even-odd preconditioned form S = 1 - Yhat_eo Yhat_oe of a coarse operator (the header's
/// comment), with the solvers' operator members (vector_type, create_vector, apply) on coarse fields
/// whose odd sites are zero, and the source and solution maps of D_c x = b. Every global coarse
/// extent must be even (the parity of a site is that of its global coordinates, so any process grid
/// splits the lattice into the same two parities, a rank's shares of them not always equal).
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class CoarseEvenOddOperator {
public:
  using coarse_type = CoarseOperator<Real, ExecSpace>; ///< The operator it preconditions.
  using execution_space = ExecSpace;                   ///< The execution space.
  using vector_type = typename coarse_type::vector_type; ///< A coarse field (here: its odd sites zero).
  using real_type = Real;                              ///< The precision.

  /// Whether the coarse lattice of geometry g can be split by parity: every global extent even.
  static bool applies(const CoarseGeometry& g) {
    for (int mu = 0; mu < Nd; ++mu)
      if (g.global[mu] % 2 != 0) return false;
    return true;
  }

  /// X^-1 and Yhat of dc (a kernel per coarse site each).
  explicit CoarseEvenOddOperator(const coarse_type& dc)
      : lat_(dc.lattice()), geometry_(checked(dc.coarse_geometry())), n_(dc.n()), halo_(dc.halo()),
        neighbour_(dc.neighbours()), Xinv_(coarse_type::site_blocks("mg_coarse_Xinv", geometry_.volume(), n_)),
        Yhat_(coarse_type::hop_blocks("mg_coarse_Yhat", geometry_.volume(), n_)), t_(dc.create_vector("mg_eo_t")) {
    const int vol = geometry_.volume(), n = n_;
    std::vector<int> of[2];
    for (int c = 0; c < vol; ++c) {
      const Coords x = geometry_.coords(c);
      int s = 0;
      for (int mu = 0; mu < Nd; ++mu) s += x.x[mu] + geometry_.origin[mu];
      of[s % 2].push_back(c);
    }
    for (int p = 0; p < 2; ++p) {
      Kokkos::View<int*, Kokkos::HostSpace> h("mg_parity_sites", of[p].size());
      for (std::size_t i = 0; i < of[p].size(); ++i) h(i) = of[p][i];
      sites_[p] = Kokkos::create_mirror_view_and_copy(ExecSpace(), h);
    }
    if (const double singular = comm::sum(lat_, double(invert(dc.X(), Xinv_))); singular > 0)
      throw invalid_argument("multigrid even-odd coarse operator: the site blocks X of " + std::to_string(std::lround(singular)) +
                             " coarse sites are singular (MultigridParams::coarse_even_odd = false solves on D_c itself)");
    Kokkos::parallel_for("kqcd::mg::CoarseEvenOddOperator::hops",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, std::int64_t(vol) * 2 * Nd * n * n),
                         detail::PrecondHops<typename coarse_type::x_view_type, typename coarse_type::y_view_type>{Xinv_, dc.Y(), Yhat_, n});
  }

  /// Xinv(c) = X(c)^-1 for the n x n blocks of every coarse site (CoarseOperator::site_blocks);
  /// returns the number of singular blocks, whose Xinv is left unset.
  static int invert(const typename coarse_type::x_view_type& X, const typename coarse_type::x_view_type& Xinv) {
    const int vol = int(X.extent(0)), n = int(X.extent(1));
    using W = Kokkos::View<Kokkos::complex<Real>***, Kokkos::LayoutRight, ExecSpace>;
    W w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg_coarse_X_inverse_work"), vol, n, 2 * n);
    Kokkos::View<int*, ExecSpace> singular("mg_singular_blocks", 1);
    using Inv = detail::InvertSiteBlocks<typename coarse_type::x_view_type, W, ExecSpace>;
    Kokkos::TeamPolicy<ExecSpace> team(vol, Kokkos::AUTO);
    team.set_scratch_size(0, Kokkos::PerTeam(Inv::scratch::shmem_size(n)));
    Kokkos::parallel_for("kqcd::mg::CoarseEvenOddOperator::invert", team, Inv{X, w, Xinv, singular, n});
    int count = 0;
    Kokkos::deep_copy(count, Kokkos::subview(singular, 0));
    return count;
  }

  /// A zero coarse field.
  vector_type create_vector(const std::string& label = "coarse_eo_vector") const { return t_.like(label); }
  /// out = S in on the even sites (in's odd sites are not read; out's are left as they are: zero
  /// for fields from create_vector() and the BLAS on them). Only isign = +1: S is not gamma5-Hermitian.
  void apply(vector_type& out, const vector_type& in, int isign = 1) const {
    if (isign != 1) throw invalid_argument("multigrid even-odd coarse operator: only isign = +1, found " + std::to_string(isign));
    check(out, "output");
    check(in, "input");
    if (out.view().data() == in.view().data()) throw invalid_argument("multigrid even-odd coarse operator: the output aliases the input");
    run(1, t_, in, 0, in, 1);  // t_o = Yhat_oe in_e
    run(0, out, in, 1, t_, -1); // out_e = in_e - Yhat_eo t_o
  }
  /// b_hat = X_ee^-1 b_e - Yhat_eo X_oo^-1 b_o on the even sites, zero on the odd ones.
  void prepare_source(vector_type& b_hat, const vector_type& b) const {
    check(b_hat, "source");
    check(b, "source");
    run(1, t_, b, 2, b, 0);       // t_o = X_oo^-1 b_o
    run(1, b_hat, b, 0, b, 0);    // zero odd sites
    run(0, b_hat, b, 2, t_, -1);  // b_hat_e = X_ee^-1 b_e - Yhat_eo t_o
  }
  /// x_o = X_oo^-1 b_o - Yhat_oe x_e: x, holding x_e on its even sites, becomes the solution of D_c x = b.
  void reconstruct(vector_type& x, const vector_type& b) const {
    check(x, "solution");
    check(b, "source");
    run(1, x, b, 2, x, -1);
  }
  /// Flops of one apply(): 8 n x n complex matrix-vector products per coarse site, and the sum.
  double flops() const { return double(geometry_.volume()) * (8.0 * (8.0 * n_ * n_) + n_); }
  /// The coarse geometry.
  const CoarseGeometry& coarse_geometry() const { return geometry_; }
  /// Components per coarse site.
  int n() const { return n_; }
  /// The lattice of the finest level.
  const Lattice& lattice() const { return lat_; }

private:
  static const CoarseGeometry& checked(const CoarseGeometry& g) {
    if (!applies(g))
      throw invalid_argument("multigrid even-odd coarse operator: coarse extents " + std::to_string(g.global[0]) + "x" +
                             std::to_string(g.global[1]) + "x" + std::to_string(g.global[2]) + "x" + std::to_string(g.global[3]) +
                             ", expected every one even");
    return g;
  }
  void check(const vector_type& v, const char* what) const {
    if (!(v.coarse_geometry() == geometry_) || v.n() != n_)
      throw invalid_argument(std::string("multigrid even-odd coarse operator: the ") + what + " is a coarse field of another shape (" +
                             std::to_string(v.n()) + " components, expected " + std::to_string(n_) + ")");
  }
  /// out = [site term of self] + hop * Yhat from on the sites of parity p (site_term: 0 none, 1 self,
  /// 2 X^-1 self; hop 0 for none).
  void run(int p, const vector_type& out, const vector_type& self, int site_term, const vector_type& from, int hop) const {
    using CV = typename vector_type::view_type;
    if (hop != 0) halo_.exchange(from.view());
    detail::for_each_coarse_row<ExecSpace>("kqcd::mg::CoarseEvenOddOperator::apply", int(sites_[p].extent(0)) * n_,
                                           detail::ApplyCoarseParity<typename coarse_type::x_view_type, typename coarse_type::y_view_type,
                                                                     CV, decltype(neighbour_), Kokkos::View<int*, ExecSpace>>{
                                               Xinv_, Yhat_, self.view(), from.view(), halo_.ghost(), out.view(), neighbour_,
                                               sites_[p], n_, geometry_.volume(), site_term, hop});
  }

  Lattice lat_;
  CoarseGeometry geometry_;
  int n_ = 0;
  CoarseHalo<Real, ExecSpace> halo_; ///< D_c's (a copy sharing its buffers).
  Kokkos::View<int**, Kokkos::LayoutRight, ExecSpace> neighbour_;
  Kokkos::View<int*, ExecSpace> sites_[2];
  typename coarse_type::x_view_type Xinv_;
  typename coarse_type::y_view_type Yhat_;
  mutable vector_type t_;
};

} // namespace kqcd::mg
