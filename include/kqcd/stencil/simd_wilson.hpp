// The Wilson hopping term on the virtual-node SIMD layout (host execution spaces,
// ArchTraits<ES>::simd_layout): the hopping functor of kernels/dslash_wilson.hpp over SIMD
// registers, through the SIMD layout's accessors and its site table (SiteTable with the lanes'
// crossing, LaneCrossing: fields/simd_fields.hpp).
// The even-odd operators on it are EvenOddOperator's SIMD layout (simd_local_operators.hpp).
// Same conventions, flops and bytes as WilsonDslash; fields convert with
// to_simd / from_simd. On a distributed lattice the source's faces of vector sites travel as
// WilsonDslash's do (spin-projected, the interior computed while they fly; comm/halo.hpp).
#pragma once

#include <kqcd/comm/spinor_halo.hpp>
#include <kqcd/core/simd_check.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/kernels/dslash_wilson.hpp>
#include <kqcd/stencil/stencil_launch.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>
#include <string>
#include <type_traits>

namespace kqcd {

namespace detail {
inline void check_sign_parity(const char* who, int isign, int target_cb) {
  if (isign != 1 && isign != -1) throw invalid_argument(std::string(who) + ": isign must be +1 or -1, found " + std::to_string(isign));
  if (target_cb != 0 && target_cb != 1)
    throw invalid_argument(std::string(who) + ": target parity must be 0 or 1, found " + std::to_string(target_cb));
}

/// The source halo and launch of a hopping term on vector sites (a lattice of them,
/// SIMDGeometry::local(), or the sites of a block whose lanes are right-hand sides) for spinors S,
/// through the stencil framework's launcher (stencil/stencil_launch.hpp: the launch shape tuned, the
/// phases timed): on a distributed lattice the faces are packed and sent, the interior sites
/// computed while they fly, then the exterior sites (set_overlap(false): all sites after the
/// exchange). Faces travel spin-projected for the call's sign (set_spin_projection(false): whole
/// sites); 16-bit spinors (S with norms) travel whole, with their norms.
template <class S, class ES> class LaneHopping {
public:
  LaneHopping() = default;
  explicit LaneHopping(const Lattice& sites) : launcher_(sites) {
    if (sites.distributed()) halo_ = SpinorHalo<S, ES>(sites);
  }
  /// Runs the hopping functor of `arg` (output `out`, source `in` of parity 1 - target_cb) on the
  /// target parity; `variant` names the links in the tune key. Sink: std::nullptr_t launches now;
  /// GraphNode<ES>* appends to a graph instead.
  template <class Epilogue, class Arg, class Sink = std::nullptr_t>
  void run(const char* who, const std::string& variant, const char* precision, Arg arg, const S& out, const S& in, int isign,
           int target_cb, Sink sink = nullptr) {
    auto start = [&] { with_wilson_faces(spin_projection_, isign, [&](const auto& faces) { halo_.start(in, 1 - target_cb, faces); }); };
    auto finish = [&] { with_wilson_faces(spin_projection_, isign, [&](const auto& faces) { halo_.finish(in, faces); }); };
    const std::string v = type_name<Epilogue>() + ", " + variant;
    auto go = [&](auto sign, auto cb) {
      using F = DslashFunctor<Arg, decltype(sign)::value, decltype(cb)::value, Epilogue>;
      if constexpr (!std::is_same_v<Sink, std::nullptr_t>) *sink = launcher_.then_launch(*sink, who, v, precision, F{arg});
      else if constexpr (S::has_norm) launcher_.launch(who, v, precision, F{arg}, cb, start, finish, out.view(), out.norm());
      else launcher_.launch(who, v, precision, F{arg}, cb, start, finish, out.view());
    };
    with_sign_and_parity(isign, target_cb, go);
  }
  void set_overlap(bool on) { launcher_.set_overlap(on); }
  void set_spin_projection(bool on) { spin_projection_ = on; }
  bool spin_projection() const { return spin_projection_; }
  /// Bytes this rank sends per call (0 on one rank).
  double bytes() const {
    return with_wilson_faces(spin_projection_, 1, [&](const auto& faces) { return halo_.bytes(faces); });
  }
  /// How the faces travel (comm/halo.hpp).
  std::string path() const { return halo_.path(); }
  /// The launcher (its switches, timing and launch shape).
  ///@{
  const StencilLauncher<ES>& launcher() const { return launcher_; }
  StencilLauncher<ES>& launcher() { return launcher_; }
  ///@}

private:
  StencilLauncher<ES> launcher_;
  SpinorHalo<S, ES> halo_;
  bool spin_projection_ = true;
};

/// The hopping functor's arguments on SIMD-layout spinors (lane views) with gauge accessors G.
template <class Epilogue, class Real, class G, class Sites, class S>
auto lane_hopping_arg(const G (&gauge)[2], const S& out, const S& in, const S& x, const Sites& sites,
                      typename Epilogue::template Arg<Real> ep, int n_sites) {
  using In = decltype(lane_reader(in));
  using Out = decltype(lane_writer(out));
  using Arg = WilsonDslashArg<Real, G, In, Out, Sites, Epilogue>;
  return Arg{{gauge[0], gauge[1]}, lane_reader(in), lane_writer(out), lane_reader(x), sites, ep, n_sites, 1, 1, {}, false};
}

/// The calls of a hopping term on SIMD-layout spinors S (for a block of right-hand sides, each
/// right-hand side alike), one per epilogue, and its halo switches: for D (SIMDWilsonDslash,
/// SIMDBlockWilsonDslash) with check(s, parity, what), launch<Epilogue>(out, in, isign, target_cb,
/// x, epilogue argument) and a LaneHopping hopping_. isign = +1 (D) or -1 (D^dag); out may alias x.
template <class D, class S, class Real> class LaneHoppingCalls {
public:
  /// out = H in on parity target_cb.
  void apply(S& out, const S& in, int isign, int target_cb) const {
    self().template launch<StoreHopping>(out, in, isign, target_cb, out, {});
  }
  /// out = a x + b H in.
  void apply_xpay(S& out, const S& in, int isign, int target_cb, Real a, const S& x, Real b) const {
    self().check(x, target_cb, "xpay addend");
    self().template launch<XpayHopping>(out, in, isign, target_cb, x, {a, b});
  }
  /// out = Local(x) + b H in, Local a site-local policy of parity target_cb whose blocks are read
  /// in the layout of S (SIMDLayout::site_local, block_site_local; WilsonDslash::apply_local_xpay).
  template <class Local>
  void apply_local_xpay(S& out, const S& in, int isign, int target_cb, const Local& local, const S& x, Real b) const {
    self().check(x, target_cb, "local xpay addend");
    self().template launch<LocalXpay<Local>>(out, in, isign, target_cb, x, {local, b});
  }
  /// out = Local(b H in) (x == nullptr), or Local(a x + b H in).
  template <class Local>
  void apply_local_after(S& out, const S& in, int isign, int target_cb, const Local& local, Real b, const S* x = nullptr,
                         Real a = Real(0)) const {
    if (x) self().check(*x, target_cb, "local addend");
    self().template launch<LocalAfter<Local>>(out, in, isign, target_cb, x ? *x : out, {local, x ? a : Real(0), b});
  }
  /// Graph capture: out = H in (then_apply) or out = a x + b H in (then_apply_xpay) as a node after
  /// `node` of a Kokkos graph, with the launch shape the tune cache holds for it (tune first with an
  /// ordinary call; else the default). The graph keeps the views. One process.
  ///@{
  template <class Node> Node then_apply(const Node& node, S& out, const S& in, int isign, int target_cb) const {
    Node next = node;
    self().template launch<StoreHopping>(out, in, isign, target_cb, out, {}, &next);
    return next;
  }
  template <class Node>
  Node then_apply_xpay(const Node& node, S& out, const S& in, int isign, int target_cb, Real a, const S& x, Real b) const {
    self().check(x, target_cb, "xpay addend");
    Node next = node;
    self().template launch<XpayHopping>(out, in, isign, target_cb, x, {a, b}, &next);
    return next;
  }
  ///@}

  /// Interior computed while the halo is in flight (default), or everything after it.
  void set_overlap(bool on) { self().hopping_.set_overlap(on); }
  /// Source faces sent spin-projected (default) or as whole vector sites.
  void set_spin_projection(bool on) { self().hopping_.set_spin_projection(on); }
  /// Whether source faces travel spin-projected.
  bool spin_projection() const { return self().hopping_.spin_projection(); }
  /// Halo bytes sent per call by this rank (0 on one rank; a block's lanes travel together).
  double halo_bytes(int = 1) const { return self().hopping_.bytes(); }
  /// How the faces travel (comm/halo.hpp).
  std::string halo_path() const { return self().hopping_.path(); }
  /// Sites per team of the untuned launch, and fixing it (which switches tuning off).
  ///@{
  int sites_per_team() const { return self().hopping_.launcher().sites_per_team(); }
  void set_sites_per_team(int n) { self().hopping_.launcher().set_sites_per_team(n); }
  ///@}
  /// The launch shape of the latest call.
  LaunchConfig last_launch_config() const { return self().hopping_.launcher().last_launch_config(); }
  /// Phase times of distributed calls (StencilLauncher's switch and record).
  ///@{
  void set_timing(bool on) const { self().hopping_.launcher().set_timing(on); }
  const DslashTimes& times() const { return self().hopping_.launcher().times(); }
  void reset_times() const { self().hopping_.launcher().reset_times(); }
  int exterior_sites(int p) const { return self().hopping_.launcher().exterior_sites(p); }
  ///@}

private:
  const D& self() const { return static_cast<const D&>(*this); }
};
} // namespace detail

/// The Wilson hopping term on SIMD-layout spinors (apply, apply_xpay, apply_local_xpay,
/// apply_local_after: detail::LaneHoppingCalls). P: the storage precision, float or double
/// (SIMDSpinor), or kqcd::half (SIMDHalfSpinor and 16-bit links, computed in float registers).
/// Recon: the links' storage, Recon18, Recon12 or Recon8 (SU(3) links, rebuilt in the kernel).
/// mode: the vector sites' neighbours, from a table or computed (NeighbourMode).
template <class P, class ExecSpace = Kokkos::DefaultHostExecutionSpace, class Recon = Recon18,
          NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode,
          class V = typename ArchTraits<ExecSpace>::template simd_complex<compute_t<P>>>
class SIMDWilsonDslash
    : public detail::LaneHoppingCalls<SIMDWilsonDslash<P, ExecSpace, Recon, mode, V>,
                                      std::conditional_t<PrecisionTraits<P>::is_half, SIMDHalfSpinor<V, ExecSpace>, SIMDSpinor<V, ExecSpace>>,
                                      compute_t<P>> {
  static constexpr bool half_storage = PrecisionTraits<P>::is_half;

public:
  /// Storage precision, arithmetic precision (Real: its alias), SIMD register, execution space, link reconstruction.
  ///@{
  using precision = P;
  using real_type = compute_t<P>;
  using Real = real_type;
  using simd_type = V;
  using execution_space = ExecSpace;
  using recon_type = Recon;
  ///@}
  /// The spinor it acts on: SIMDSpinor, or SIMDHalfSpinor for half.
  using spinor_type = std::conditional_t<half_storage, SIMDHalfSpinor<V, ExecSpace>, SIMDSpinor<V, ExecSpace>>;
  /// The stored link reals: 16-bit fixed point for half.
  using link_store_type = std::conditional_t<half_storage, short, Real>;
  using gauge_type = SIMDGaugeField<V, ExecSpace, Recon, link_store_type>; ///< The doubled links.
  static_assert(std::is_same_v<typename V::real_type, Real>, "SIMD type of another precision");

  /// The links of u with boundary phases bc, laid out for geometry g (default: the automatic split).
  SIMDWilsonDslash(const GaugeField<Kokkos::complex<Real>, ExecSpace>& u, const BoundaryPhases& bc,
                   const SIMDGeometry& g = {})
      : geom_(geometry_for(u.lattice(), g)), u_((check_simd_isa(), with_gauge_halo(u)), geom_),
        sites_(geom_, bc), hopping_(geom_.local()) {
    if (g.global().volume() > 0 && !(g == geom_))
      throw invalid_argument("SIMDWilsonDslash: geometry of " + std::to_string(g.lanes()) + " lanes on " +
                             g.global().to_string() + " does not fit " + std::to_string(V::lanes) + " lanes on " +
                             u.lattice().to_string());
  }

  /// g where it fits lat and the lanes, else the automatic split.
  static SIMDGeometry geometry_for(const Lattice& lat, const SIMDGeometry& g) {
    return g.lanes() == V::lanes && g.global() == lat ? g : SIMDGeometry(lat, V::lanes);
  }
  /// The SIMD geometry.
  const SIMDGeometry& geometry() const { return geom_; }
  /// The lattice.
  const Lattice& lattice() const { return geom_.global(); }
  /// A spinor of parity `parity` on the geometry.
  spinor_type create_spinor(int parity, const std::string& label = "simd_spinor") const {
    return spinor_type(geom_, parity, label);
  }

  /// Flops per call on one parity (WilsonDslash's count; xpay adds its own).
  double flops(bool xpay = false) const {
    return lattice().cb_volume() * (WilsonDslash<Real>::flops_per_site + (xpay ? WilsonDslash<Real>::xpay_flops_per_site : 0.0));
  }
  /// The no-reuse byte model of WilsonDslash (conventions.md): the links at their stored size.
  double bytes(bool xpay = false) const {
    return lattice().cb_volume() * (8 * sizeof(link_store_type) * Recon::reals + (9 + (xpay ? 1 : 0)) * SpinorAccess<spinor_type>::site_bytes);
  }
  static constexpr const char* byte_model = "no-reuse (stored sizes)"; ///< The byte model of bytes().

private:
  friend class detail::LaneHoppingCalls<SIMDWilsonDslash, spinor_type, Real>;
  void check(const spinor_type& s, int parity, const char* what) const {
    if (s.parity() != parity || !(s.geometry() == geom_))
      throw invalid_argument(std::string("SIMDWilsonDslash: ") + what + " is on parity " + std::to_string(s.parity()) +
                             " of a " + s.lattice().to_string() + " lattice (or another lane split), expected parity " +
                             std::to_string(parity) + " of " + lattice().to_string());
  }

  template <class Epilogue, class Sink = std::nullptr_t>
  void launch(spinor_type& out, const spinor_type& in, int isign, int target_cb, const spinor_type& x,
              typename Epilogue::template Arg<Real> ep, Sink sink = nullptr) const {
    detail::check_sign_parity("SIMDWilsonDslash", isign, target_cb);
    check(out, target_cb, "output");
    check(in, 1 - target_cb, "input");
    const link_accessor gauge[2] = {{u_.view(0).data()}, {u_.view(1).data()}};
    const auto arg = detail::lane_hopping_arg<Epilogue, Real>(gauge, out, in, x, sites_, ep, geom_.vsites());
    hopping_.template run<Epilogue>("kqcd::SIMDWilsonDslash",
                                    std::string("recon ") + Recon::name + ", lanes " + std::to_string(V::lanes) +
                                        (mode == NeighbourMode::table ? "" : ", on the fly"),
                                    half_storage ? "half" : precision_name<Real>(), arg, out, in, isign, target_cb, sink);
  }

  using link_accessor = DoubledLinkAccessor<V, V::lanes, Recon, link_store_type>;
  SIMDGeometry geom_;
  gauge_type u_;
  SiteTable<mode, ExecSpace, LaneCrossing<V>> sites_;
  mutable detail::LaneHopping<spinor_type, ExecSpace> hopping_;
};

/// The Wilson hopping term on a block of V::lanes right-hand sides, one per SIMD lane (host
/// execution spaces), in storage precision P (float, double, or kqcd::half: 16-bit lanes with a
/// norm per site and right-hand side, float arithmetic): the hopping functor with each link element
/// read once per site and broadcast to the lanes (a one-lane doubled gauge field in compute_t<P>,
/// each hop matrix stored as Recon packs it: Recon18, Recon12 or Recon8, SU(3) links only for the
/// last two); site-local policies read each site's blocks broadcast to the lanes too
/// (SIMDLayout::block_site_local). Blocks convert with SIMDBlockSpinor::insert / extract.
template <class P, class ExecSpace = Kokkos::DefaultHostExecutionSpace, class Recon = Recon18,
          class V = typename ArchTraits<ExecSpace>::template simd_complex<compute_t<P>>>
class SIMDBlockWilsonDslash
    : public detail::LaneHoppingCalls<SIMDBlockWilsonDslash<P, ExecSpace, Recon, V>,
                                      SIMDBlockSpinor<V, ExecSpace, std::conditional_t<PrecisionTraits<P>::is_half, short, compute_t<P>>>,
                                      compute_t<P>> {
  using Real = compute_t<P>;
  using Store = std::conditional_t<PrecisionTraits<P>::is_half, short, Real>;
  friend class detail::LaneHoppingCalls<SIMDBlockWilsonDslash, SIMDBlockSpinor<V, ExecSpace, Store>, Real>;

public:
  /// Arithmetic precision, SIMD register, execution space, link reconstruction, and the block it acts on.
  ///@{
  using real_type = Real;
  using simd_type = V;
  using execution_space = ExecSpace;
  using recon_type = Recon;
  using spinor_type = SIMDBlockSpinor<V, ExecSpace, Store>;
  ///@}
  static constexpr int n_rhs = V::lanes; ///< Right-hand sides per block: one per lane.

  /// The links of u with boundary phases bc, each element broadcast to the lanes (SU(3) links for
  /// Recon12 and Recon8: others are refused, as the packed fields refuse them).
  SIMDBlockWilsonDslash(const GaugeField<Kokkos::complex<Real>, ExecSpace>& u, const BoundaryPhases& bc)
      : u_((check_simd_isa(), with_gauge_halo(u)), SIMDGeometry(u.lattice(), 1)), sites_(u.lattice(), bc),
        hopping_(u.lattice()) {}

  /// The lattice.
  const Lattice& lattice() const { return u_.geometry().global(); }
  /// A block of parity `parity`, one right-hand side per lane.
  spinor_type create_spinor(int parity, const std::string& label = "simd_block_spinor") const {
    return spinor_type(lattice(), parity, n_rhs, label);
  }

  /// Work per call on `rhs` filled lanes (WilsonDslash::flops / bytes with n_rhs): flops per site and
  /// right-hand side; bytes in the no-reuse model with the links counted once per site, as stored.
  ///@{
  double flops(bool xpay = false, int rhs = n_rhs) const {
    return rhs * lattice().cb_volume() *
           (WilsonDslash<Real>::flops_per_site + (xpay ? WilsonDslash<Real>::xpay_flops_per_site : 0.0));
  }
  double bytes(bool xpay = false, int rhs = n_rhs) const {
    const double site = 24.0 * sizeof(Store) + (std::is_same_v<Store, short> ? sizeof(float) : 0.0); // a right-hand side's site
    return lattice().cb_volume() * (8 * Recon::reals * double(sizeof(Real)) + rhs * site * (8 + 1 + (xpay ? 1 : 0)));
  }
  ///@}

private:
  /// Links: one complex number per element in a one-lane doubled field.
  using link_simd_type = SIMDComplex<Real, 1, simd::Portable<Real, 1>>;

  void check(const spinor_type& s, int parity, const char* what) const {
    if (s.parity() != parity || !(s.lattice() == lattice()))
      throw invalid_argument(std::string("SIMDBlockWilsonDslash: ") + what + " is on parity " + std::to_string(s.parity()) +
                             " of a " + s.lattice().to_string() + " lattice, expected parity " + std::to_string(parity) +
                             " of " + lattice().to_string());
  }
  template <class Epilogue, class Sink = std::nullptr_t>
  void launch(spinor_type& out, const spinor_type& in, int isign, int target_cb, const spinor_type& x,
              typename Epilogue::template Arg<Real> ep, Sink sink = nullptr) const {
    detail::check_sign_parity("SIMDBlockWilsonDslash", isign, target_cb);
    check(out, target_cb, "output");
    check(in, 1 - target_cb, "input");
    const DoubledLinkAccessor<V, 1, Recon> gauge[2] = {{u_.view(0).data()}, {u_.view(1).data()}};
    const auto arg = detail::lane_hopping_arg<Epilogue, Real>(gauge, out, in, x, sites_, ep, lattice().cb_volume());
    hopping_.template run<Epilogue>("kqcd::SIMDBlockWilsonDslash",
                                    (std::is_same_v<Recon, Recon18> ? std::string() : std::string("recon ") + Recon::name + ", ") +
                                        "lanes " + std::to_string(V::lanes),
                                    std::is_same_v<Store, short> ? "half" : precision_name<Real>(), arg, out, in, isign, target_cb,
                                    sink);
  }

  SIMDGaugeField<link_simd_type, ExecSpace, Recon> u_;
  SiteTable<NeighbourMode::table, ExecSpace> sites_;
  mutable detail::LaneHopping<spinor_type, ExecSpace> hopping_;
};

} // namespace kqcd
