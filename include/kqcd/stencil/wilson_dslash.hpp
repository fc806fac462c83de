// WilsonDslash: launches the Wilson hopping kernel. It maps the run-time sign and target parity to
// the functor's template arguments, owns the launch shape (sites per team) and reports the work
// done per call (flops(), bytes()) by the conventions' counting.
// Precision P is float, double or kqcd::half (16-bit spinors and links, float arithmetic); Recon
// (Recon18/12/8, fields/packed_gauge.hpp) selects how the links are stored. The links are packed
// once, on the device, from the GaugeField given to the constructor. On a distributed lattice it
// exchanges the gauge ghost zone once at construction and, per call, the source's halo: faces
// packed and sent, the interior sites computed while the messages fly, then the exterior sites
// (or, with set_overlap(false), the whole parity after the exchange). The source's faces travel
// spin-projected for the hop that reads them (half the bytes; set_spin_projection(false): whole).
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/source_halo.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/graph.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/core/tune.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/packed_gauge.hpp>
#include <kqcd/fields/spinor_access.hpp>
#include <kqcd/kernels/dslash_wilson.hpp>
#include <kqcd/stencil/stencil_launch.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kqcd {

namespace detail {
/// Vector lanes per site of a block: the next power of two >= n_rhs (one lane per right-hand side).
inline int vector_lanes(int n_rhs) {
  int v = 1;
  while (v < n_rhs) v *= 2;
  return v;
}

/// A block of right-hand sides as a Tunable (core/tune.hpp): the hopping kernel's block shapes
/// (kernels/dslash_wilson.hpp), team with lanes, team with the links cached in scratch, MDRange with
/// one or two right-hand sides per thread (PairLaunchBounds: the latter's) and flat range, at two
/// team sizes on the GPU; the autotuner keeps the fastest.
template <class ES, class LaunchBounds, class PairLaunchBounds, class Functor> class BlockDslashLaunch {
public:
  using execution_space = ES;
  BlockDslashLaunch(TuneKey key, const Functor& f, LaunchConfig default_config)
      : key_(std::move(key)), f_(f), default_(default_config) {}
  template <class... Views> void overwrites(const Views&... v) {
    out_ = [v...](OutputBackup& b) { (b.add(v), ...); };
  }
  TuneKey tune_key() const { return key_; }
  LaunchConfig default_config() const { return default_; }
  std::vector<LaunchConfig> candidates() const {
    const int lanes = vector_lanes(f_.arg.n_rhs);
    std::vector<LaunchConfig> out;
    if (ArchTraits<ES>::max_team_size > 1) {
      for (int threads : {128, 256}) {
        const int spt = std::max(1, threads / lanes);
        out.push_back({PolicyKind::team, spt, spt});
        if (scratch_fits(spt)) out.push_back({PolicyKind::team_scratch, spt, spt});
        out.push_back({PolicyKind::mdrange, 0, spt});
      }
      // Two right-hand sides per thread in blocks of 128 threads (the pair kernel's launch bounds).
      out.push_back({PolicyKind::mdrange, 0, std::max(1, 128 / pair_lanes(f_.arg.n_rhs)), 2});
    } else {
      for (int spt : {8, 32}) {
        out.push_back({PolicyKind::team, 1, spt});
        if (scratch_fits(spt)) out.push_back({PolicyKind::team_scratch, 1, spt});
      }
      out.push_back({PolicyKind::mdrange, 0, 8});
      out.push_back({PolicyKind::mdrange, 0, 8, 2});
    }
    out.push_back({PolicyKind::range, 0, 0});
    return out;
  }
  /// Whether the links of spt sites fit the backend's team scratch.
  static bool scratch_fits(int spt) {
    return Functor::team_scratch_bytes(spt) <= std::size_t(Kokkos::TeamPolicy<ES>::scratch_size_max(0));
  }
  void launch(const LaunchConfig& c) const {
    launch_unchecked(c);
    detail::check_launch<ES>("kqcd::WilsonDslash::multi_rhs " + c.to_string());
  }
  void save_outputs() {
    backup_.clear();
    if (out_) out_(backup_);
  }
  void restore_outputs() { backup_.restore(); }

private:
  void launch_unchecked(const LaunchConfig& c) const {
    Functor f = f_;
    const int n = f.arg.n_sites, r = f.arg.n_rhs;
    switch (c.kind) {
      case PolicyKind::team:
      case PolicyKind::team_scratch: {
        f.arg.sites_per_team = std::max(1, c.sites_per_team);
        const int league = (n + f.arg.sites_per_team - 1) / f.arg.sites_per_team;
        // A team of team_size x lanes threads: fitted down to what the backend can launch for
        // this kernel (a set_block_launch() shape sized for fewer right-hand sides).
        const int lanes = vector_lanes(r);
        const int team = std::clamp(c.team_size, 1, std::max(1, max_team_size(f, c.kind, lanes)));
        if (c.kind == PolicyKind::team) {
          Kokkos::parallel_for("kqcd::WilsonDslash::multi_rhs", Kokkos::TeamPolicy<ES, LaunchBounds>(league, team, lanes), f);
        } else {
          Kokkos::TeamPolicy<ES, LaunchBounds, CachedLinksTag> policy(league, team, lanes);
          policy.set_scratch_size(0, Kokkos::PerTeam(Functor::team_scratch_bytes(f.arg.sites_per_team)));
          Kokkos::parallel_for("kqcd::WilsonDslash::multi_rhs_cached_links", policy, f);
        }
        return;
      }
      case PolicyKind::mdrange: {
        const int spt = std::max(1, c.sites_per_team);
        if (c.rhs_per_thread == 1) {
          using MD = Kokkos::MDRangePolicy<ES, Kokkos::Rank<2>, LaunchBounds, SiteRhsTag<1>>;
          Kokkos::parallel_for("kqcd::WilsonDslash::multi_rhs_mdrange", MD({0, 0}, {r, n}, {r, spt}), f);
        } else if (c.rhs_per_thread == 2) {
          const int lanes = pair_lanes(r);
          using MD = Kokkos::MDRangePolicy<ES, Kokkos::Rank<2>, PairLaunchBounds, SiteRhsTag<2>>;
          Kokkos::parallel_for("kqcd::WilsonDslash::multi_rhs_mdrange_pairs", MD({0, 0}, {lanes, n}, {lanes, spt}), f);
        } else {
          throw invalid_argument("WilsonDslash: a block launch computes 1 or 2 right-hand sides per thread, found " +
                                 std::to_string(c.rhs_per_thread));
        }
        return;
      }
      case PolicyKind::range:
        Kokkos::parallel_for("kqcd::WilsonDslash::multi_rhs_flat", Kokkos::RangePolicy<ES, LaunchBounds, FlatSiteRhsTag>(0, n * r), f);
        return;
    }
  }


  /// Threads per site when each computes two right-hand sides.
  static int pair_lanes(int n_rhs) { return (n_rhs + 1) / 2; }
  static int max_team_size(const Functor& f, PolicyKind kind, int lanes) {
    if (kind == PolicyKind::team)
      return Kokkos::TeamPolicy<ES, LaunchBounds>(1, 1, lanes).team_size_max(f, Kokkos::ParallelForTag());
    Kokkos::TeamPolicy<ES, LaunchBounds, CachedLinksTag> policy(1, 1, lanes);
    policy.set_scratch_size(0, Kokkos::PerTeam(Functor::team_scratch_bytes(f.arg.sites_per_team)));
    return policy.team_size_max(f, Kokkos::ParallelForTag());
  }

  TuneKey key_;
  Functor f_;
  LaunchConfig default_;
  std::function<void(OutputBackup&)> out_;
  OutputBackup backup_;
};
} // namespace detail

template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace,
          NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode, class Recon = Recon18>
/// The Wilson hopping term H on plain-layout spinors: launches, tuning and halo exchange.
class WilsonDslash {
public:
  using precision = P; ///< Storage precision (float, double or kqcd::half).
  using recon_type = Recon; ///< Link reconstruction.
  using Real = compute_t<P>; ///< arithmetic precision
  using real_type = Real; ///< Arithmetic precision (Real).
  using complex_type = Kokkos::complex<Real>; ///< Complex numbers in Real.
  using execution_space = ExecSpace; ///< The execution space.
  using traits = ArchTraits<ExecSpace>; ///< The backend's traits.
  using gauge_type = GaugeField<complex_type, ExecSpace>; ///< The gauge field it is built from.
  using packed_gauge_type = PackedGauge<P, Recon, ExecSpace>; ///< The links as the kernel reads them.
  using spinor_type = cb_spinor_t<P, ExecSpace>; ///< The spinor it acts on.
  using site_table_type = SiteTable<mode, ExecSpace>; ///< The neighbour table.
  using access = SpinorAccess<spinor_type>; ///< Accessor factory of spinor_type.
  /// A block of right-hand sides in the storage of spinor_type.
  using multi_spinor_type = multi_spinor_t<P, ExecSpace>;
  /// Blocks of right-hand sides run with the backend's neighbour mode (as in the bench tool); other
  /// instances compile no block kernels.
  static constexpr bool has_blocks = mode == ArchTraits<ExecSpace>::neighbour_mode;
  /// What the hopping kernel runs on: a spinor, or a block where the instance has blocks.
  template <class S>
  static constexpr bool hopping_spinor = std::is_same_v<S, spinor_type> || (has_blocks && std::is_same_v<S, multi_spinor_type>);

  static constexpr double flops_per_site = 1320.0; ///< Flops per site and right-hand side of H (QUDA's count).
  static constexpr double xpay_flops_per_site = 48.0; ///< Extra flops per site of an xpay.

  // The members that launch kernels are defined below the class, not inline, so that the library's
  // explicit instantiations (cmake/kqcd_instances.cmake) are the only place their kernels are compiled.
  /// The hopping term of links u with boundary phases bc.
  WilsonDslash(const gauge_type& u, const BoundaryPhases& bc);

  /// The lattice.
  const Lattice& lattice() const { return u_.lattice(); }
  /// The links as given.
  const gauge_type& gauge() const { return u_; }
  /// The links as stored for the kernel.
  const packed_gauge_type& packed_gauge() const { return packed_; }

  /// out = H in, out on parity target_cb, in on the other parity; isign = +1 (D) or -1 (D^dag).
  void apply(spinor_type& out, const spinor_type& in, int isign, int target_cb) const;
  /// out = a x + b H in (x on parity target_cb; out may alias x).
  void apply_xpay(spinor_type& out, const spinor_type& in, int isign, int target_cb, Real a, const spinor_type& x,
                  Real b) const;

  /// out = Local(x) + b H in, Local a site-local policy of parity target_cb (kernels/local_terms.hpp);
  /// S a spinor or a block of right-hand sides (each with the same site-local term).
  template <class Local, class S>
    requires hopping_spinor<S>
  void apply_local_xpay(S& out, const S& in, int isign, int target_cb, const Local& local, const S& x, Real b) const {
    check_addend(x, in, target_cb, "local xpay addend");
    launch<LocalXpay<Local>>(out, in, isign, target_cb, x, {local, b});
  }
  /// out = Local(b H in) (x == nullptr), or Local(a x + b H in).
  template <class Local, class S>
    requires hopping_spinor<S>
  void apply_local_after(S& out, const S& in, int isign, int target_cb, const Local& local, Real b, const S* x = nullptr,
                         Real a = Real(0)) const {
    if (x) check_addend(*x, in, target_cb, "local addend");
    launch<LocalAfter<Local>>(out, in, isign, target_cb, x ? *x : S(), {local, x ? a : Real(0), b});
  }

  /// Graph capture: out = H in (then_apply) or out = a x + b H in (then_apply_xpay) as a node after
  /// `node` of a Kokkos graph, with the launch shape the tune cache holds for it (tune first with an
  /// ordinary call; else the default). The graph keeps the views. One process, one right-hand side.
  ///@{
  template <class Node = GraphNode<ExecSpace>>
  Node then_apply(const Node& node, spinor_type& out, const spinor_type& in, int isign, int target_cb) const {
    Node next = node;
    launch<StoreHopping>(out, in, isign, target_cb, spinor_type(), {}, &next);
    return next;
  }
  template <class Node = GraphNode<ExecSpace>>
  Node then_apply_xpay(const Node& node, spinor_type& out, const spinor_type& in, int isign, int target_cb, Real a,
                       const spinor_type& x, Real b) const {
    check_parity(x, target_cb, "xpay addend");
    Node next = node;
    launch<XpayHopping>(out, in, isign, target_cb, x, {a, b}, &next);
    return next;
  }
  ///@}

  /// Multi-RHS: out_r = H in_r for every right-hand side r of the block, one pass over the links.
  void apply(multi_spinor_type& out, const multi_spinor_type& in, int isign, int target_cb) const
    requires has_blocks;
  /// Multi-RHS: out_r = a x_r + b H in_r.
  void apply_xpay(multi_spinor_type& out, const multi_spinor_type& in, int isign, int target_cb, Real a,
                  const multi_spinor_type& x, Real b) const
    requires has_blocks;

  /// Interior computed while the halo is in flight (default), or everything after it.
  void set_overlap(bool on) { overlap_.set_overlap(on); }
  /// Whether the interior overlaps the halo exchange.
  bool overlap() const { return overlap_.overlap(); }
  /// Record DslashTimes per call (fences between the phases); a diagnostic switch, hence const.
  void set_timing(bool on) const { timing_ = on; }
  /// The recorded times.
  const DslashTimes& times() const { return times_; }
  /// Clears the recorded times.
  void reset_times() const { times_ = {}; }
  /// Source faces sent spin-projected (default) or as whole spinors (float and double; half
  /// precision sends whole 16-bit sites).
  void set_spin_projection(bool on) { spin_projection_ = on; }
  /// Whether source faces are sent spin-projected.
  bool spin_projection() const { return spin_projection_; }
  /// Halo bytes sent per call on n_rhs right-hand sides by this rank (0 on one rank).
  double halo_bytes(int n_rhs = 1) const { return halo_.bytes(spin_projection_, n_rhs); }
  /// How the halo reaches MPI (HaloExchange::path()).
  std::string halo_path() const { return halo_.path(); }
  /// Sites of parity p with an off-rank neighbour.
  int exterior_sites(int p) const { return overlap_.exterior_sites(p); }

  /// Sites per team of the untuned launch (a value set here also switches tuning off).
  int sites_per_team() const { return sites_per_team_ > 0 ? sites_per_team_ : traits::sites_per_team; }
  /// Fixes the sites per team (and switches tuning off).
  void set_sites_per_team(int n) {
    if (n < 1) throw invalid_argument("sites_per_team must be positive, found " + std::to_string(n));
    sites_per_team_ = n;
  }
  /// The launch shape of the latest call (tuned, cached, or fixed by set_sites_per_team()).
  LaunchConfig last_launch_config() const { return last_config_; }
  /// Blocks of right-hand sides run with shape c (any PolicyKind) instead of the tuned one.
  void set_block_launch(const LaunchConfig& c) { block_launch_ = c; }

  /// Work per call on one parity: 1320 flops per site and right-hand side (+48 with xpay).
  double flops(bool xpay = false, int n_rhs = 1) const {
    return n_rhs * lattice().cb_volume() * (flops_per_site + (xpay ? xpay_flops_per_site : 0.0));
  }
  /// Bytes per call on one parity in the no-reuse model of stored sizes (conventions.md): 8 links
  /// as stored (Recon::reals reals each) + 8 neighbour spinors + 1 written (+1 read with xpay),
  /// each spinor 24 reals, plus its float norm in half precision.
  /// With n_rhs right-hand sides the links are counted once per site, the spinors n_rhs times.
  double bytes(bool xpay = false, int n_rhs = 1) const {
    return lattice().cb_volume() *
           (8 * packed_gauge_type::bytes_per_link() + n_rhs * (9 + (xpay ? 1 : 0)) * access::site_bytes);
  }
  static constexpr const char* byte_model = "no-reuse (stored sizes)"; ///< The byte model of bytes().

private:
  template <class S> void check_parity(const S& s, int parity, const char* what) const {
    if (s.parity() != parity || !(s.lattice() == lattice()))
      throw invalid_argument(std::string("WilsonDslash: ") + what + " is on parity " + std::to_string(s.parity()) +
                             " of a " + s.lattice().to_string() + " lattice, expected parity " + std::to_string(parity) +
                             " of " + lattice().to_string());
  }

  /// An addend x: on parity target_cb, with the right-hand sides of in.
  template <class S> void check_addend(const S& x, const S& in, int parity, const char* what) const {
    check_parity(x, parity, what);
    if (n_rhs_of(x) != n_rhs_of(in))
      throw invalid_argument(std::string("WilsonDslash: ") + what + " has " + std::to_string(n_rhs_of(x)) +
                             " right-hand sides, expected " + std::to_string(n_rhs_of(in)));
  }

  static int n_rhs_of(const spinor_type&) { return 1; }
  static int n_rhs_of(const multi_spinor_type& s) { return s.n_rhs(); }

  // Sink: std::nullptr_t launches now; GraphNode<ExecSpace>* appends to a graph instead.
  template <class Epilogue, class S, class Sink = std::nullptr_t>
  void launch(S& out, const S& in, int isign, int target_cb, const S& x, typename Epilogue::template Arg<Real> ep,
              Sink sink = nullptr) const {
    if (isign != 1 && isign != -1) throw invalid_argument("WilsonDslash: isign must be +1 or -1, found " + std::to_string(isign));
    if (target_cb != 0 && target_cb != 1)
      throw invalid_argument("WilsonDslash: target parity must be 0 or 1, found " + std::to_string(target_cb));
    check_parity(out, target_cb, "output");
    check_parity(in, 1 - target_cb, "input");
    const int n_rhs = n_rhs_of(in);
    if (n_rhs_of(out) != n_rhs)
      throw invalid_argument("WilsonDslash: output block has " + std::to_string(n_rhs_of(out)) + " right-hand sides, input " +
                             std::to_string(n_rhs));
    using SA = SpinorAccess<S>;
    using Arg = WilsonDslashArg<Real, typename packed_gauge_type::template accessor_type<Real>,
                                typename SA::template read_type<Real>, typename SA::template write_type<Real>,
                                site_table_type, Epilogue>;
    Arg arg{{packed_.template accessor<Real>(0), packed_.template accessor<Real>(1)},
            SA::template read<Real>(in),
            SA::template write<Real>(out),
            SA::template read<Real>(x),
            sites_,
            ep,
            lattice().cb_volume(),
            // GPU: keep the threads per block (sites x lanes) as tuned for one right-hand side.
            traits::max_team_size > 1 ? std::max(1, sites_per_team() / detail::vector_lanes(n_rhs)) : sites_per_team(),
            n_rhs,
            {},
            false};
    // Runs the kernel on all sites of the target parity, or on a site list.
    auto sweep = [&](const site_list_type* list) {
      overlap_.point(arg, list);
      if (arg.n_sites == 0) return;
      if (isign > 0) target_cb == 0 ? run<Arg, 1, 0, Epilogue>(arg, out, sink) : run<Arg, 1, 1, Epilogue>(arg, out, sink);
      else target_cb == 0 ? run<Arg, -1, 0, Epilogue>(arg, out, sink) : run<Arg, -1, 1, Epilogue>(arg, out, sink);
    };
    // One rank: a block of right-hand sides sweeps its sites tile by tile (detail::tiled_site_order).
    if (!lattice().distributed()) return sweep(n_rhs > 1 ? block_order() : nullptr);
    if constexpr (!std::is_same_v<Sink, std::nullptr_t>)
      throw invalid_argument("WilsonDslash: graph capture runs on one process; lattice " + lattice().to_string() + " is distributed");
    overlap_.run_timed(
      target_cb, [&] { halo_.start(in, spin_projection_ ? isign : 0); }, sweep, [&] { halo_.finish(in); }, timing_, times_);
  }

  // Launch shape from the autotuner (core/tune.hpp); trial runs restore out, which may alias x.
  // One right-hand side: Range or Team per site; a block: the shapes of detail::BlockDslashLaunch.
  template <class Arg, int isign, int target_cb, class Epilogue, class S, class Sink>
  void run(const Arg& arg, const S& out, Sink sink) const {
    using Functor = DslashFunctor<Arg, isign, target_cb, Epilogue>;
    using LB = typename traits::template launch_bounds_for<P, Recon>;
    const LaunchConfig fixed{PolicyKind::team, std::min(traits::max_team_size, arg.sites_per_team), arg.sites_per_team};
    const std::string variant = type_name<Epilogue>() + (mode == NeighbourMode::table ? ", table" : ", on the fly") +
                                ", recon " + Recon::name + (arg.n_rhs > 1 ? ", rhs " + std::to_string(arg.n_rhs) : "");
    auto key = [&](const char* kernel) {
      return make_tune_key(kernel, variant, lattice().to_string(), std::is_same_v<P, half> ? "half" : precision_name<Real>(),
                           ExecSpace::name());
    };
    if constexpr (!std::is_same_v<Sink, std::nullptr_t>) {
      if (arg.n_rhs > 1) throw invalid_argument("WilsonDslash: graph capture takes one right-hand side");
    }
    // Block shapes only for blocks: a single spinor's launch never compiles them.
    if constexpr (std::is_same_v<S, multi_spinor_type>) {
      if (arg.n_rhs > 1) {
        using PairLB = typename traits::template launch_bounds_for<P, Recon, 2>;
        detail::BlockDslashLaunch<ExecSpace, LB, PairLB, Functor> l(key("kqcd::WilsonDslash::multi_rhs"), Functor{arg}, fixed);
        if constexpr (requires { out.norm(); }) l.overwrites(out.view(), out.norm());
        else l.overwrites(out.view());
        if (block_launch_ || sites_per_team_ > 0) {
          last_config_ = block_launch_ ? *block_launch_ : fixed;
          l.launch(last_config_);
        } else {
          last_config_ = tuned_launch(l);
        }
        return;
      }
    }
    using F = SiteKernelOf<Functor>;
    SiteKernelLaunch<ExecSpace, LB, F> l("kqcd::WilsonDslash", key("kqcd::WilsonDslash"), arg.n_sites, F{{arg}}, fixed);
    if constexpr (!std::is_same_v<Sink, std::nullptr_t>) {
      last_config_ = sites_per_team_ > 0 ? fixed : cached_or_default_config(l);
      // No launch bounds: Kokkos 4.6 launches graph kernels from global memory, and under nvcc 13
      // its bounded global-memory launcher is ambiguous (does not compile).
      *sink = then_launch_sites<ExecSpace, Kokkos::LaunchBounds<>>(*sink, "kqcd::WilsonDslash", arg.n_sites, last_config_, F{{arg}});
      return;
    }
    if constexpr (requires { out.norm(); }) l.overwrites(out.view(), out.norm());
    else l.overwrites(out.view());
    if (sites_per_team_ > 0) {
      // A team no larger than the kernel's launch bounds allow.
      LaunchConfig c = fixed;
      c.team_size = std::min(c.team_size, team_size_max_for<ExecSpace, LB>(F{{arg}}, arg.n_sites));
      l.launch(c);
      last_config_ = c;
    } else {
      last_config_ = tuned_launch(l);
    }
  }

  using site_list_type = typename detail::OverlapSweep<ExecSpace>::site_list_type;
  /// The sites of a block's sweep in tiled order (nullptr: in index order).
  const site_list_type* block_order() const {
    if (!tiled_order_) tiled_order_ = detail::to_device<site_list_type>(detail::tiled_site_order(lattice()), "kqcd::tiled_site_order");
    return tiled_order_->size() > 0 ? &*tiled_order_ : nullptr;
  }

  gauge_type u_;
  packed_gauge_type packed_;
  site_table_type sites_;
  int sites_per_team_ = 0; ///< 0: tuned
  mutable LaunchConfig last_config_{};
  std::optional<LaunchConfig> block_launch_;
  detail::OverlapSweep<ExecSpace> overlap_;
  mutable std::optional<site_list_type> tiled_order_; ///< built by the first block of right-hand sides
  mutable detail::SourceHalo<P, ExecSpace> halo_;
  bool spin_projection_ = true;
  mutable bool timing_ = false;
  mutable DslashTimes times_;
};

template <class P, class ExecSpace, NeighbourMode mode, class Recon>
WilsonDslash<P, ExecSpace, mode, Recon>::WilsonDslash(const gauge_type& u, const BoundaryPhases& bc)
    : u_(with_gauge_halo(u)), packed_(u_), sites_(u.lattice(), bc), overlap_(u.lattice()) {
  const Lattice& lat = u.lattice();
  if (!lat.distributed()) return;
  halo_ = detail::SourceHalo<P, ExecSpace>(lat);
  Kokkos::fence("kqcd::WilsonDslash::halo_setup");
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon>
void WilsonDslash<P, ExecSpace, mode, Recon>::apply(spinor_type& out, const spinor_type& in, int isign, int target_cb) const {
  launch<StoreHopping>(out, in, isign, target_cb, spinor_type(), {});
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon>
void WilsonDslash<P, ExecSpace, mode, Recon>::apply_xpay(spinor_type& out, const spinor_type& in, int isign, int target_cb,
                                                         Real a, const spinor_type& x, Real b) const {
  check_parity(x, target_cb, "xpay addend");
  launch<XpayHopping>(out, in, isign, target_cb, x, {a, b});
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon>
void WilsonDslash<P, ExecSpace, mode, Recon>::apply(multi_spinor_type& out, const multi_spinor_type& in, int isign,
                                                    int target_cb) const
  requires has_blocks
{
  launch<StoreHopping>(out, in, isign, target_cb, multi_spinor_type(), {});
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon>
void WilsonDslash<P, ExecSpace, mode, Recon>::apply_xpay(multi_spinor_type& out, const multi_spinor_type& in, int isign,
                                                         int target_cb, Real a, const multi_spinor_type& x, Real b) const
  requires has_blocks
{
  check_addend(x, in, target_cb, "xpay addend");
  launch<XpayHopping>(out, in, isign, target_cb, x, {a, b});
}

} // namespace kqcd

// The combinations compiled into the library (KQCD_PRECISIONS, KQCD_RECONSTRUCT): extern here.
#include <kqcd/instances/wilson_dslash_instances.hpp>
