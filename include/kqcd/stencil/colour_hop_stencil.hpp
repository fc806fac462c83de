// ColourHopStencil: the launcher side of the colour-hop stencils (kernels/colour_hops.hpp): their
// links (stored as the layout's reconstructions: the links' and the long links'), site table, ghost
// zone and halo, and their cost model, on either layout (stencil/stencil_layout.hpp: plain sites, or SIMD lanes on host
// backends). Staggered fermions, the covariant Laplacian and the covariant derivative are thin
// operators over it (stencil/staggered.hpp, stencil/laplace.hpp); nothing here is specific to one.
// With long links (the Naik term) the stencil hops three sites and every field it reads has a
// ghost zone three layers deep: build them with create_spinor().
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/source_halo.hpp>
#include <kqcd/comm/spinor_halo.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/graph.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/colour_hops.hpp>
#include <kqcd/stencil/stencil_launch.hpp>
#include <kqcd/stencil/stencil_layout.hpp>

#include <bit>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>

namespace kqcd {

namespace detail {
/// u on a lattice whose ghost zone is `lat`'s (deeper than u's own): the local links copied, the
/// ghost zone exchanged. u itself where the two agree.
template <class GT, class ES> GaugeField<GT, ES> with_ghost_zone_of(const GaugeField<GT, ES>& u, const Lattice& lat) {
  if (!lat.distributed()) return u;
  if (u.lattice().ghost_depth() == lat.ghost_depth()) return with_gauge_halo(u);
  GaugeField<GT, ES> e(lat, "gauge_deep_ghosts");
  for (int p = 0; p < 2; ++p)
    Kokkos::deep_copy(Kokkos::subview(e[p].view(), std::pair(0, lat.cb_volume()), Kokkos::ALL, Kokkos::ALL, Kokkos::ALL),
                      Kokkos::subview(u[p].view(), std::pair(0, lat.cb_volume()), Kokkos::ALL, Kokkos::ALL, Kokkos::ALL));
  return with_gauge_halo(e);
}
} // namespace detail

/// Hops that multiply each of n_spin spin components by a link, with signs Signs (UnitSigns,
/// StaggeredSigns), computed in Real on ES, with fields in Layout (PlainStencilLayout,
/// SIMDStencilLayout, SIMDBlockStencilLayout: a right-hand side per lane) of storage precision Real or, for Real = float, 16 bits (kqcd::half: spinors
/// with a norm per site, links in fixed point).
template <class Signs, int n_spin, class Real, class ES = Kokkos::DefaultExecutionSpace, class Layout = PlainStencilLayout<Real, ES>>
class ColourHopStencil {
  static_assert(std::is_same_v<Real, typename Layout::real_type>, "the layout stores another precision than Real computes in");

public:
  using real_type = Real; ///< Arithmetic precision.
  using precision = typename Layout::precision; ///< Storage precision (Real, or kqcd::half).
  using execution_space = ES; ///< The execution space.
  using layout_type = Layout; ///< Where the fields live.
  using complex_type = Kokkos::complex<Real>; ///< Complex numbers in Real.
  using gauge_type = GaugeField<complex_type, ES>; ///< The links it is built from.
  using spinor_type = typename Layout::template spinor_type<n_spin>; ///< One parity of the field it acts on.
  using field_type = typename Layout::template field_type<n_spin>; ///< Both parities.
  using geometry_type = typename Layout::geometry_type; ///< What its fields are built on.
  using options = typename Layout::options; ///< The layout's choices (the SIMD lane split).
  using site_table_type = typename Layout::site_table_type; ///< Neighbours and phases.
  /// A block of right-hand sides as rows of the field's storage (plain layout), or none.
  using block_type = typename Layout::template block_type<n_spin>;
  /// Whether the layout has blocks of right-hand sides.
  static constexpr bool has_blocks = !std::is_same_v<block_type, detail::no_blocks>;
  static constexpr int spins = n_spin; ///< Spin components per site.
  static constexpr int rhs_per_spinor = Layout::rhs_per_spinor; ///< Right-hand sides one spinor holds (its lanes on SIMDBlockStencilLayout).
  /// Flops of one hop per spin component: a 3x3 complex matrix times a colour vector.
  static constexpr double flops_per_hop = 66.0;

  ColourHopStencil() = default;
  /// The stencil of links u (one-site hops) and, where given, long links w (three-site hops), with
  /// boundary phases bc; `name` names it in messages and tune keys; `opt` the layout's choices.
  ColourHopStencil(const std::string& name, const gauge_type& u, const BoundaryPhases& bc, const gauge_type* w = nullptr,
                   const options& opt = {})
      : name_(name), geometry_(make_geometry(name, u, w, opt)), sites_(Layout::site_table(geometry_, bc)),
        launcher_(Layout::sites(geometry_)), halo_(Layout::sites(geometry_)) {
    links_ = Layout::links(detail::with_ghost_zone_of(u, lattice()), geometry_, 1);
    if (w) far_ = Layout::long_links(detail::with_ghost_zone_of(*w, lattice()), geometry_);
  }

  /// The lattice, with the ghost zone the stencil's fields need.
  const Lattice& lattice() const { return Layout::lattice(geometry_); }
  /// What the stencil's fields are built on (the lattice, or its SIMD geometry).
  const geometry_type& geometry() const { return geometry_; }
  /// The framework's description of the stencil.
  StencilDescriptor descriptor() const {
    return {far_ ? 3 : 1, Nc * n_spin, false, flops(available_hops(), false) / lattice().cb_volume()};
  }
  /// Whether the stencil has long links (three-site hops).
  bool has_long_links() const { return far_.has_value(); }
  /// The hops the links allow: one-site, and three-site with long links.
  unsigned available_hops() const { return hops::one_site | (far_ ? hops::three_site : 0u); }
  /// One parity of a field on the stencil's geometry (on SIMDBlockStencilLayout a block of
  /// rhs_per_spinor right-hand sides, one per lane).
  spinor_type create_spinor(int parity, const std::string& label = "colour_vector") const {
    return Layout::template create<spinor_type>(geometry_, parity, label);
  }
  /// Both parities of a field on the stencil's geometry.
  field_type create_field(const std::string& label = "colour_field") const { return field_type(geometry_, label); }
  /// A block of n_rhs right-hand sides of one parity on the stencil's lattice.
  block_type create_block(int parity, int n_rhs, const std::string& label = "colour_block") const
    requires has_blocks
  {
    return block_type(lattice(), parity, n_rhs, label);
  }

  /// out = a x + b H in on parity target_cb, H the hops in `mask` (hop_bit) of the source in (the
  /// other parity); x is read only where a != 0 and may alias out.
  // Defined below the class, so that the library's explicit instantiations
  // (cmake/kqcd_instances.cmake) are the only place its kernels are compiled.
  void apply(spinor_type& out, const spinor_type& in, int target_cb, unsigned mask, Real a = Real(0), const spinor_type* x = nullptr,
             Real b = Real(1)) const;
  /// The same on each right-hand side of a block (one pass over the sites; x with in's right-hand sides).
  void apply(block_type& out, const block_type& in, int target_cb, unsigned mask, Real a = Real(0), const block_type* x = nullptr,
             Real b = Real(1)) const
    requires has_blocks;
  /// Graph capture: apply() as a node after `node` of a Kokkos graph, in the launch shape the tune
  /// cache holds for it (tune first with an ordinary call; else the default). One process.
  template <class Node = GraphNode<ES>>
  Node then_apply(const Node& node, spinor_type& out, const spinor_type& in, int target_cb, unsigned mask, Real a = Real(0),
                  const spinor_type* x = nullptr, Real b = Real(1)) const {
    Node next = node;
    launch(out, in, target_cb, mask, a, x, b, &next);
    return next;
  }

  /// Flops of one apply() on one parity: per site and spin, 66 per hop and 6 per sum of two hops
  /// (570 for the eight hops of a colour vector: QUDA's naive staggered count), plus 6 per
  /// component for a x + b H.
  /// With n_rhs right-hand sides, n_rhs times as many.
  double flops(unsigned mask, bool xpay, int n_rhs = 1) const {
    const int n = std::popcount(mask);
    return double(n_rhs) * lattice().cb_volume() * n_spin * (n * flops_per_hop + (n - 1) * 6.0 + (xpay ? Nc * 6.0 : 0.0));
  }
  /// Bytes of one apply() on one parity in the no-reuse model of stored sizes: per site a link (or
  /// long link) and a source site per hop, the result written and, with xpay, the addend read (with
  /// n_rhs right-hand sides the links once, the sites n_rhs times).
  double bytes(unsigned mask, bool xpay, int n_rhs = 1) const {
    return double(lattice().cb_volume()) * (link_bytes(mask) + std::popcount(mask) * n_rhs * site_bytes + n_rhs * (xpay ? 2 : 1) * site_bytes);
  }
  /// Bytes in the perfect-reuse model: every link and source site read once per output site.
  double bytes_reuse(unsigned mask, bool xpay, int n_rhs = 1) const {
    return double(lattice().cb_volume()) * (link_bytes(mask) + n_rhs * (xpay ? 3 : 2) * site_bytes);
  }
  /// Bytes of the links the hops of `mask` read at one site, as stored.
  static double link_bytes(unsigned mask) {
    return std::popcount(mask & hops::one_site) * Layout::bytes_per_link() + std::popcount(mask & hops::three_site) * Layout::bytes_per_long_link();
  }

  /// The launcher (overlap, timing, launch shape).
  const StencilLauncher<ES>& launcher() const { return launcher_; }
  /// The launcher, to set its switches.
  StencilLauncher<ES>& launcher() { return launcher_; }
  /// Halo bytes this rank sends per apply().
  double halo_bytes(int n_rhs = 1) const { return halo_.bytes(WholeRows{}, n_rhs); }

private:
  // Sink: std::nullptr_t launches now; GraphNode<ES>* appends to a graph instead.
  template <class S, class Sink = std::nullptr_t>
  void launch(S& out, const S& in, int target_cb, unsigned mask, Real a, const S* x, Real b, Sink sink = nullptr) const;
  static int n_rhs_of(const spinor_type&) { return 1; }
  static int n_rhs_of(const block_type& s)
    requires has_blocks
  {
    return s.n_rhs();
  }
  static constexpr bool half_storage = PrecisionTraits<precision>::is_half;
  /// Launch bounds of the kernels (the backend's choice).
  using launch_bounds = typename ArchTraits<ES>::template colour_hop_launch_bounds_for<precision, n_spin>;
  /// Bytes of one right-hand side's site as stored (16 bits: the reals and the site's norm).
  static constexpr double site_bytes = 2.0 * Nc * n_spin * (half_storage ? sizeof(short) : sizeof(Real)) + (half_storage ? sizeof(float) : 0);
  static geometry_type make_geometry(const std::string& name, const gauge_type& u, const gauge_type* w, const options& opt) {
    if (w && !(w->lattice() == u.lattice()))
      throw invalid_argument(name + ": the long links live on a " + w->lattice().to_string() + " lattice, the links on " +
                             u.lattice().to_string());
    const Lattice& lat = u.lattice();
    const geometry_type g = Layout::geometry(lat.distributed() ? lat.with_ghost_depth(w ? 3 : 1) : lat, opt);
    // A three-site hop crosses the boundary of the swept sites at most once (one boundary phase,
    // one lane exchange) where their extents are >= 3.
    const Lattice& swept = Layout::sites(g);
    for (int mu = 0; w && mu < Nd; ++mu)
      if (swept.dim(mu) < 3)
        throw invalid_argument(name + ": three-site hops need local extents of at least 3" +
                               std::string(swept.dim(mu) == lat.dim(mu) ? "" : " per SIMD sub-lattice") + "; direction " +
                               std::to_string(mu) + " has " + std::to_string(swept.dim(mu)));
    return g;
  }
  template <class S> void check(const S& s, int parity, const char* what) const {
    if (s.parity() != parity || !Layout::holds(s, geometry_))
      throw invalid_argument(name_ + ": " + what + " is on parity " + std::to_string(s.parity()) + " of a " + s.lattice().to_string() +
                             " lattice" + (s.lattice() == lattice() ? " in another lane split" : "") + ", expected parity " +
                             std::to_string(parity) + " of " + lattice().to_string());
    if (lattice().distributed() && s.lattice().ghost_depth() != lattice().ghost_depth())
      throw invalid_argument(name_ + ": " + what + " has a ghost zone " + std::to_string(s.lattice().ghost_depth()) +
                             " layers deep, the stencil needs " + std::to_string(lattice().ghost_depth()) +
                             " (build fields with create_spinor())");
  }

  std::string name_;
  geometry_type geometry_;
  typename Layout::links_type links_;
  std::optional<typename Layout::long_links_type> far_;
  site_table_type sites_;
  StencilLauncher<ES> launcher_;
  mutable detail::SourceHalo<spinor_type, block_type, ES> halo_;
};

template <class Signs, int n_spin, class Real, class ES, class Layout>
void ColourHopStencil<Signs, n_spin, Real, ES, Layout>::apply(spinor_type& out, const spinor_type& in, int target_cb, unsigned mask,
                                                              Real a, const spinor_type* x, Real b) const {
  launch(out, in, target_cb, mask, a, x, b);
}

template <class Signs, int n_spin, class Real, class ES, class Layout>
void ColourHopStencil<Signs, n_spin, Real, ES, Layout>::apply(block_type& out, const block_type& in, int target_cb, unsigned mask,
                                                              Real a, const block_type* x, Real b) const
  requires has_blocks
{
  launch(out, in, target_cb, mask, a, x, b);
}

template <class Signs, int n_spin, class Real, class ES, class Layout>
template <class S, class Sink>
void ColourHopStencil<Signs, n_spin, Real, ES, Layout>::launch(S& out, const S& in, int target_cb, unsigned mask, Real a, const S* x,
                                                               Real b, Sink sink) const {
  if (target_cb != 0 && target_cb != 1) throw invalid_argument(name_ + ": target parity must be 0 or 1, found " + std::to_string(target_cb));
  if (mask & ~available_hops())
    throw invalid_argument(name_ + ": three-site hops need long links (construct the stencil with them)");
  check(out, target_cb, "output");
  check(in, 1 - target_cb, "input");
  if (a != Real(0)) {
    if (!x) throw invalid_argument(name_ + ": an addend coefficient without an addend");
    check(*x, target_cb, "addend");
  }
  const int n_rhs = n_rhs_of(in);
  if (n_rhs_of(out) != n_rhs || (a != Real(0) && n_rhs_of(*x) != n_rhs))
    throw invalid_argument(name_ + ": the output and addend need the input's " + std::to_string(n_rhs) + " right-hand sides");
  using FarAcc = typename Layout::long_link_accessor;
  using Arg = ColourHopArg<Real, typename Layout::link_accessor, FarAcc, decltype(Layout::reader(in)), decltype(Layout::writer(out)),
                           site_table_type>;
  const Lattice& swept = Layout::sites(geometry_);
  // Links in the order of the hop: the target parity's, then the source parity's.
  const FarAcc far_target = far_ ? Layout::long_accessor(*far_, target_cb) : FarAcc{};
  const FarAcc far_source = far_ ? Layout::long_accessor(*far_, 1 - target_cb) : FarAcc{};
  Arg arg{{Layout::accessor(links_, target_cb), Layout::accessor(links_, 1 - target_cb)},
          {far_target, far_source},
          Layout::reader(in),
          Layout::writer(out),
          Layout::reader(x ? *x : in),
          sites_,
          swept,
          a,
          b,
          mask,
          {},
          n_rhs,
          target_cb};
  char hex[16];
  std::snprintf(hex, sizeof hex, "%04x", mask);
  const std::string variant = name_ + ", " + Layout::name + ", spins " + std::to_string(n_spin) + ", hops " + hex +
                              ", recon " + Layout::recon_type::name + (far_ ? std::string("/") + Layout::long_recon_type::name : "") +
                              (a != Real(0) ? ", xpay" : "") + (n_rhs > 1 ? ", rhs " + std::to_string(n_rhs) : "") +
                              // shapes tuned without the bounds (larger teams) must not be reused under them
                              (launch_bounds::maxTperB > 0 ? ", bounds " + std::to_string(launch_bounds::maxTperB) + "x" +
                                                                 std::to_string(launch_bounds::minBperSM)
                                                           : "");
  auto start = [&] { halo_.start(in, WholeRows{}); };
  auto finish = [&] { return halo_.land(in, WholeRows{}); };
  using F = ColourHopFunctor<Arg, Signs>;
  if constexpr (!std::is_same_v<Sink, std::nullptr_t>)
    *sink = launcher_.template then_launch<launch_bounds>(*sink, "kqcd::ColourHops", variant, PrecisionTraits<precision>::name, F{arg});
  else
    launcher_.template launch<launch_bounds>("kqcd::ColourHops", variant, PrecisionTraits<precision>::name, F{arg}, target_cb, start, finish,
                                             out.view());
}

} // namespace kqcd

// The combinations compiled into the library: extern here.
#include <kqcd/instances/colour_hop_instances.hpp>
