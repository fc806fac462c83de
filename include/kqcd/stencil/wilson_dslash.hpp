// WilsonDslash: launches the Wilson hopping kernel. It maps the run-time sign and target parity to
// the functor's template arguments, owns the launch shape (sites per team) and reports the work
// done per call (flops(), bytes()) by the conventions' counting.
// Precision P is float, double or kqcd::half (16-bit spinors and links, float arithmetic); Recon
// (Recon18/12/8, fields/packed_gauge.hpp) selects how the links are stored; the layout policy
// (stencil/stencil_layout.hpp: plain sites, SIMD lanes, or a right-hand side per lane) where the
// fields live. The links are packed once from the GaugeField given to the constructor. On a distributed lattice it
// exchanges the gauge ghost zone once at construction and, per call, the source's halo: faces
// packed and sent, the interior sites computed while the messages fly, then the exterior sites
// (or, with set_overlap(false), the whole parity after the exchange). The source's faces travel
// spin-projected for the hop that reads them (half the bytes; set_spin_projection(false): whole).
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/source_halo.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/graph.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/core/tune.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/packed_gauge.hpp>
#include <kqcd/fields/spinor_access.hpp>
#include <kqcd/kernels/dslash_wilson.hpp>
#include <kqcd/stencil/stencil_launch.hpp>
#include <kqcd/stencil/stencil_layout.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd {

namespace detail {
/// i^k z for a run-time k (exact: a swap and sign changes).
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> mul_i_pow_at(int k, const Kokkos::complex<T>& z) {
  switch (k & 3) {
  case 0: return z;
  case 1: return {-z.imag(), z.real()};
  case 2: return {-z.real(), -z.imag()};
  default: return {z.imag(), -z.real()};
  }
}
/// perm(mu, s) is 2 or 3 for s = 0, 1 in every direction: a ghost site holding h in spins 0, 1 and
/// zeros in spins 2, 3 projects to h again, bit for bit.
constexpr bool projection_reads_upper_spins() {
  for (int mu = 0; mu < Nd; ++mu)
    for (int s = 0; s < 2; ++s)
      if (gamma_dr::perm_at(mu, s) < 2) return false;
  return true;
}
static_assert(projection_reads_upper_spins(), "the spin-projected halo needs perm(mu, s) in {2, 3} for s = 0, 1");
} // namespace detail

/// The Wilson hopping term's face pack (comm/halo.hpp): for a call of sign isign (+1 or -1) the
/// source's faces travel spin-projected for the hop that reads them, h_s = psi_s + sigma i^code
/// psi_perm(s), s = 0, 1 (sigma = -isign on the x_mu = 0 face, which feeds the receiver's forward
/// hops, +isign on the other): half the bytes. A ghost row gets (h_0, h_1, 0, 0), so the ghost zone
/// then serves that hopping term only. Views that are not four-spinors (site, colour, spin[, lane]),
/// the 16-bit rows among them, travel whole. (Whole faces for every sign: WholeRows, see
/// with_wilson_faces; a run-time choice inside the pack kernel would slow both down.)
struct SpinProjectedFaces {
  int isign = 1; ///< the call's sign
  /// Whether rows of View are four-spinors, and the SIMD lanes per row (1 without a lane index).
  ///@{
  template <class View> KOKKOS_INLINE_FUNCTION static constexpr bool projectable() {
    if constexpr ((View::rank() == 3 || View::rank() == 4) && !std::is_arithmetic_v<typename View::non_const_value_type>)
      return View::static_extent(1) == Nc && View::static_extent(2) == Ns;
    else return false;
  }
  template <class View> KOKKOS_INLINE_FUNCTION static constexpr int lanes() {
    if constexpr (View::rank() == 4) return int(View::static_extent(3));
    else return 1;
  }
  ///@}
  /// One face: projected with 1 + sigma g_mu; code and perm: the power of i (sigma's sign included)
  /// and the spin partner of h_0 and h_1, looked up once on the host.
  template <class View> struct Face {
    int sigma;             ///< +1 or -1: the sign of the projector
    int code[2];           ///< i's power in h_0 and h_1
    int perm[2];           ///< the spin partner of h_0 and h_1
    /// Row `row` of v into the buffer from entry `at`: h (a four-spinor), or the whole row.
    template <class Buffer> KOKKOS_INLINE_FUNCTION void pack(const View& v, std::size_t row, const Buffer& b, std::size_t at) const {
      if constexpr (projectable<View>()) pack_projected(v, row, b, at);
      else WholeRows::Face<View>{}.pack(v, row, b, at);
    }
    /// The buffer from entry `at` into ghost row `row` of v: (h_0, h_1, 0, 0), or the whole row.
    template <class Buffer> KOKKOS_INLINE_FUNCTION void unpack(const View& v, std::size_t row, const Buffer& b, std::size_t at) const {
      if constexpr (projectable<View>()) unpack_projected(v, row, b, at);
      else WholeRows::Face<View>{}.unpack(v, row, b, at);
    }
    /// h_s = psi_s + i^code[s] psi_perm[s] of each colour and lane into the buffer.
    template <class Buffer>
    KOKKOS_INLINE_FUNCTION void pack_projected(const View& v, std::size_t row, const Buffer& b, std::size_t at) const {
      using T = typename View::non_const_value_type;
      constexpr int L = lanes<View>();
      for (int c = 0; c < Nc; ++c)
        for (int l = 0; l < L; ++l)
          for (int sp = 0; sp < 2; ++sp)
            b(at + (2 * c + sp) * L + l) = spin(v, row, c, sp, l) + detail::mul_i_pow_at(code[sp], T(spin(v, row, c, perm[sp], l)));
    }
    /// (h_0, h_1, 0, 0) of each colour and lane into the ghost row.
    template <class Buffer>
    KOKKOS_INLINE_FUNCTION void unpack_projected(const View& v, std::size_t row, const Buffer& b, std::size_t at) const {
      using T = typename View::non_const_value_type;
      constexpr int L = lanes<View>();
      for (int c = 0; c < Nc; ++c)
        for (int l = 0; l < L; ++l) {
          spin(v, row, c, 0, l) = b(at + (2 * c) * L + l);
          spin(v, row, c, 1, l) = b(at + (2 * c + 1) * L + l);
          spin(v, row, c, 2, l) = T(0);
          spin(v, row, c, 3, l) = T(0);
        }
    }
    /// Spin component sp of colour c, lane l of a row.
    KOKKOS_FORCEINLINE_FUNCTION static typename View::reference_type spin(const View& v, std::size_t row, int c, int sp, int l) {
      if constexpr (View::rank() == 4) return v(row, c, sp, l);
      else {
        (void)l;
        return v(row, c, sp);
      }
    }
  };
  /// Buffer entries per row: h_0 and h_1 of each colour and lane, or the whole row.
  template <class View> int components() const {
    if constexpr (projectable<View>()) return Nc * 2 * lanes<View>();
    else return WholeRows{}.components<View>();
  }
  /// The pack of the face of direction mu on `side` (0: x_mu = 0, sent backward).
  template <class View> Face<View> face(int mu, int side) const {
    const int sigma = side == 0 ? -isign : isign, shift = sigma > 0 ? 0 : 2; // -1 is i^2
    return {sigma, {gamma_dr::code[mu][0] + shift, gamma_dr::code[mu][1] + shift}, {gamma_dr::perm[mu][0], gamma_dr::perm[mu][1]}};
  }
};

/// f(faces) with the face pack of a Wilson hopping call of sign isign: spin-projected, or whole
/// rows where spin_projection is off.
template <class F> decltype(auto) with_wilson_faces(bool spin_projection, int isign, F&& f) {
  if (spin_projection) return f(SpinProjectedFaces{isign});
  return f(WholeRows{});
}

namespace detail {
/// The register of a layout's lanes (void for the plain layout).
template <class Layout> struct layout_simd_type {
  using type = void;
};
template <class Layout>
  requires requires { typename Layout::simd_type; }
struct layout_simd_type<Layout> {
  using type = typename Layout::simd_type;
};
} // namespace detail

/// The Wilson hopping term H on any layout of the stencil framework (stencil/stencil_layout.hpp):
/// launches, tuning, graphs, timing and the halo exchange, written once. P: the storage precision
/// (float, double, or kqcd::half: 16-bit spinors and links with float arithmetic); Recon: how the
/// links are stored (Recon18/12/8, fields/packed_gauge.hpp); mode: neighbours from a table or
/// computed. Layout: plain sites (the default; with blocks of right-hand sides as rows,
/// multi_spinor_type), SIMD lanes (SIMDWilsonDslash) or a right-hand side per lane
/// (SIMDBlockWilsonDslash).
template <class P, class ExecSpace = Kokkos::DefaultExecutionSpace, NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode,
          class Recon = Recon18, class Layout = PlainStencilLayout<P, ExecSpace, Recon, mode>>
class WilsonDslash {
  static_assert(std::is_same_v<typename Layout::precision, P> && std::is_same_v<typename Layout::execution_space, ExecSpace> &&
                    std::is_same_v<typename Layout::recon_type, Recon> && Layout::neighbour_mode == mode,
                "WilsonDslash: a layout of another precision, backend, compression or neighbour mode");
  static constexpr bool half_storage = PrecisionTraits<P>::is_half;

public:
  using precision = P; ///< Storage precision (float, double or kqcd::half).
  using recon_type = Recon; ///< Link reconstruction.
  using Real = compute_t<P>; ///< arithmetic precision
  using real_type = Real; ///< Arithmetic precision (Real).
  using complex_type = Kokkos::complex<Real>; ///< Complex numbers in Real.
  using execution_space = ExecSpace; ///< The execution space.
  using traits = ArchTraits<ExecSpace>; ///< The backend's traits.
  using layout_type = Layout; ///< Where the fields live.
  using simd_type = typename detail::layout_simd_type<Layout>::type; ///< The register of the lanes (void: plain).
  using gauge_type = GaugeField<complex_type, ExecSpace>; ///< The gauge field it is built from.
  using links_type = typename Layout::links_type; ///< The links as the kernel reads them.
  using spinor_type = typename Layout::template spinor_type<Ns>; ///< The spinor it acts on.
  using geometry_type = typename Layout::geometry_type; ///< What its spinors are built on.
  using options = typename Layout::options; ///< The layout's choices (the SIMD lane split).
  using site_table_type = typename Layout::site_table_type; ///< The neighbours.
  /// A block of right-hand sides as rows of the layout's storage (plain layout; none elsewhere).
  using multi_spinor_type = typename Layout::multi_spinor_type;
  /// Blocks of right-hand sides run with the backend's neighbour mode (as in the bench tool); other
  /// instances compile no block kernels.
  static constexpr bool has_blocks = mode == traits::neighbour_mode && !std::is_same_v<multi_spinor_type, detail::no_blocks>;
  /// What the hopping kernel runs on: a spinor, or a block where the instance has blocks.
  template <class S>
  static constexpr bool hopping_spinor = std::is_same_v<S, spinor_type> || (has_blocks && std::is_same_v<S, multi_spinor_type>);
  /// Right-hand sides one spinor holds (the lanes where each lane is one).
  static constexpr int rhs_per_spinor = Layout::rhs_per_spinor;

  static constexpr double flops_per_site = 1320.0; ///< Flops per site and right-hand side of H (QUDA's count).
  static constexpr double xpay_flops_per_site = 48.0; ///< Extra flops per site of an xpay.
  /// Bytes of one right-hand side's spinor at one site as stored (24 reals, and a float norm in half).
  static constexpr double site_bytes = 2.0 * Nc * Ns * (half_storage ? sizeof(short) : sizeof(Real)) + (half_storage ? sizeof(float) : 0);

  // The members that launch kernels are defined below the class, not inline, so that the library's
  // explicit instantiations (cmake/kqcd_instances.cmake) are the only place their kernels are compiled.
  /// The hopping term of links u with boundary phases bc, fields in the layout's choices `opt`.
  WilsonDslash(const gauge_type& u, const BoundaryPhases& bc, const options& opt = {});
  /// The same on geometry g (a SIMD lane split); a default-constructed g: the automatic one.
  WilsonDslash(const gauge_type& u, const BoundaryPhases& bc, const geometry_type& g)
    requires(!std::is_same_v<geometry_type, Lattice>)
      : WilsonDslash(u, bc, options_for(u.lattice(), g)) {}

  /// The lattice.
  const Lattice& lattice() const { return Layout::lattice(geom_); }
  /// What its spinors are built on (the lattice, or its SIMD geometry).
  const geometry_type& geometry() const { return geom_; }
  /// The links as stored for the kernel.
  const links_type& links() const { return links_; }
  /// A spinor of parity `parity` on the geometry (a block of rhs_per_spinor right-hand sides where
  /// the lanes are right-hand sides).
  spinor_type create_spinor(int parity, const std::string& label = "spinor") const {
    return Layout::template create<spinor_type>(geom_, parity, label);
  }

  /// out = H in, out on parity target_cb, in on the other parity; isign = +1 (D) or -1 (D^dag).
  void apply(spinor_type& out, const spinor_type& in, int isign, int target_cb) const;
  /// out = a x + b H in (x on parity target_cb; out may alias x).
  void apply_xpay(spinor_type& out, const spinor_type& in, int isign, int target_cb, Real a, const spinor_type& x,
                  Real b) const;

  /// out = Local(x) + b H in, Local a site-local policy of parity target_cb (kernels/local_terms.hpp)
  /// whose blocks are read in the layout (SIMDLayout::site_local); S a spinor or a block of
  /// right-hand sides (each with the same site-local term).
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
    launch<LocalAfter<Local>>(out, in, isign, target_cb, x ? *x : out, {local, x ? a : Real(0), b});
  }

  /// Graph capture: out = H in (then_apply) or out = a x + b H in (then_apply_xpay) as a node after
  /// `node` of a Kokkos graph, with the launch shape the tune cache holds for it (tune first with an
  /// ordinary call; else the default). The graph keeps the views. One process.
  ///@{
  template <class Node = GraphNode<ExecSpace>>
  Node then_apply(const Node& node, spinor_type& out, const spinor_type& in, int isign, int target_cb) const {
    Node next = node;
    launch<StoreHopping>(out, in, isign, target_cb, out, {}, &next);
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
  void set_overlap(bool on) { launcher_.set_overlap(on); }
  /// Whether the interior overlaps the halo exchange.
  bool overlap() const { return launcher_.overlap(); }
  /// Record DslashTimes per call (fences between the phases); a diagnostic switch, hence const.
  void set_timing(bool on) const { launcher_.set_timing(on); }
  /// The recorded times.
  const DslashTimes& times() const { return launcher_.times(); }
  /// Clears the recorded times.
  void reset_times() const { launcher_.reset_times(); }
  /// Source faces sent spin-projected (default) or as whole spinors (float and double; half
  /// precision sends whole 16-bit sites).
  void set_spin_projection(bool on) { spin_projection_ = on; }
  /// Whether source faces are sent spin-projected.
  bool spin_projection() const { return spin_projection_; }
  /// Halo bytes sent per call on n_rhs right-hand sides by this rank (0 on one rank; lanes that are
  /// right-hand sides travel together).
  double halo_bytes(int n_rhs = 1) const {
    const int spinors = (n_rhs + rhs_per_spinor - 1) / rhs_per_spinor;
    return with_wilson_faces(spin_projection_, 1, [&](const auto& faces) { return halo_.bytes(faces, spinors); });
  }
  /// How the halo reaches MPI (HaloExchange::path()).
  std::string halo_path() const { return halo_.path(); }
  /// Sites of parity p with an off-rank neighbour (vector sites on the SIMD layout).
  int exterior_sites(int p) const { return launcher_.exterior_sites(p); }

  /// Sites per team of the untuned launch (a value set here also switches tuning off).
  int sites_per_team() const { return launcher_.sites_per_team(); }
  /// Fixes the sites per team (and switches tuning off).
  void set_sites_per_team(int n) { launcher_.set_sites_per_team(n); }
  /// The launch shape of the latest call (tuned, cached, or fixed by set_sites_per_team()).
  LaunchConfig last_launch_config() const { return launcher_.last_launch_config(); }
  /// Blocks of right-hand sides run with shape c (any PolicyKind) instead of the tuned one.
  void set_block_launch(const LaunchConfig& c) { launcher_.set_block_launch(c); }
  /// The launcher (its switches, timing and launch shape).
  ///@{
  const StencilLauncher<ExecSpace>& launcher() const { return launcher_; }
  StencilLauncher<ExecSpace>& launcher() { return launcher_; }
  ///@}

  /// Work per call on one parity: 1320 flops per site and right-hand side (+48 with xpay).
  double flops(bool xpay = false, int n_rhs = rhs_per_spinor) const {
    return n_rhs * lattice().cb_volume() * (flops_per_site + (xpay ? xpay_flops_per_site : 0.0));
  }
  /// Bytes per call on one parity in the no-reuse model of stored sizes (conventions.md): 8 links
  /// as stored + 8 neighbour spinors + 1 written (+1 read with xpay), each spinor 24 reals, plus
  /// its float norm in half precision. With n_rhs right-hand sides the links are counted once per
  /// site, the spinors n_rhs times.
  double bytes(bool xpay = false, int n_rhs = rhs_per_spinor) const {
    return lattice().cb_volume() * (8 * Layout::bytes_per_link() + n_rhs * (9 + (xpay ? 1 : 0)) * site_bytes);
  }
  static constexpr const char* byte_model = "no-reuse (stored sizes)"; ///< The byte model of bytes().

private:
  static options options_for(const Lattice& lat, const geometry_type& g)
    requires(!std::is_same_v<geometry_type, Lattice>)
  {
    if (g.global().volume() == 0) return {};
    if (g.lanes() != simd_type::lanes || !(g.global() == lat))
      throw invalid_argument("WilsonDslash: geometry of " + std::to_string(g.lanes()) + " lanes on " + g.global().to_string() +
                             " does not fit " + std::to_string(simd_type::lanes) + " lanes on " + lat.to_string());
    return Layout::options_of(g);
  }

  template <class S> void check_parity(const S& s, int parity, const char* what) const {
    if (s.parity() != parity || !Layout::holds(s, geom_))
      throw invalid_argument(std::string("WilsonDslash: ") + what + " is on parity " + std::to_string(s.parity()) + " of a " +
                             s.lattice().to_string() + " lattice" + (s.lattice() == lattice() ? " in another lane split" : "") +
                             ", expected parity " + std::to_string(parity) + " of " + lattice().to_string());
  }

  /// An addend x: on parity target_cb, with the right-hand sides of in.
  template <class S> void check_addend(const S& x, const S& in, int parity, const char* what) const {
    check_parity(x, parity, what);
    if (n_rhs_of(x) != n_rhs_of(in))
      throw invalid_argument(std::string("WilsonDslash: ") + what + " has " + std::to_string(n_rhs_of(x)) +
                             " right-hand sides, expected " + std::to_string(n_rhs_of(in)));
  }

  /// Rows of right-hand sides (a block's; the lanes of a spinor are one row).
  static int n_rhs_of(const spinor_type&) { return 1; }
  static int n_rhs_of(const multi_spinor_type& s)
    requires has_blocks
  {
    return s.n_rhs();
  }

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
    using Arg = WilsonDslashArg<Real, typename Layout::link_accessor, decltype(Layout::reader(in)), decltype(Layout::writer(out)),
                                site_table_type, Epilogue>;
    const Arg arg{{Layout::accessor(links_, target_cb), Layout::accessor(links_, 1 - target_cb)},
                  Layout::reader(in),
                  Layout::writer(out),
                  Layout::reader(x),
                  sites_,
                  ep,
                  // GPU: keep the threads per block (sites x lanes) as tuned for one right-hand side.
                  traits::max_team_size > 1 ? std::max(1, sites_per_team() / detail::vector_lanes(n_rhs)) : sites_per_team(),
                  n_rhs,
                  target_cb,
                  {}};
    std::string variant = type_name<Epilogue>() + (mode == NeighbourMode::table ? ", table" : ", on the fly") + ", recon " +
                          Recon::name + (n_rhs > 1 ? ", rhs " + std::to_string(n_rhs) : "");
    if constexpr (!std::is_void_v<simd_type>) variant += std::string(", ") + Layout::name + " " + std::to_string(simd_type::lanes);
    const char* precision = half_storage ? "half" : precision_name<Real>();
    auto start = [&] { with_wilson_faces(spin_projection_, isign, [&](const auto& faces) { halo_.start(in, faces); }); };
    auto finish = [&] { return with_wilson_faces(spin_projection_, isign, [&](const auto& faces) { return halo_.land(in, faces); }); };
    constexpr bool has_norm = requires { out.norm(); };
    auto go = [&](auto sign) {
      using F = DslashFunctor<Arg, decltype(sign)::value, Epilogue>;
      using LB = typename traits::template launch_bounds_for<P, Recon>;
      if constexpr (!std::is_same_v<Sink, std::nullptr_t>) {
        *sink = launcher_.template then_launch<LB>(*sink, "kqcd::WilsonDslash", variant, precision, F{arg});
      } else {
        // Trial launches of the tuner restore out (which may alias x) and its norms.
        auto run = [&](const auto&... outs) {
          // Block shapes only for blocks: a single spinor's launch never compiles them.
          if constexpr (std::is_same_v<S, multi_spinor_type>) {
            if (n_rhs > 1) {
              using PairLB = typename traits::template launch_bounds_for<P, Recon, 2>;
              return launcher_.template launch_block<LB, PairLB>("kqcd::WilsonDslash", variant, precision, F{arg}, target_cb, start,
                                                                 finish, outs...);
            }
          }
          launcher_.template launch<LB>("kqcd::WilsonDslash", variant, precision, F{arg}, target_cb, start, finish, outs...);
        };
        if constexpr (has_norm) run(out.view(), out.norm());
        else run(out.view());
      }
    };
    with_sign(isign, go);
  }

  geometry_type geom_;
  links_type links_;
  site_table_type sites_;
  StencilLauncher<ExecSpace> launcher_;
  mutable detail::SourceHalo<spinor_type, multi_spinor_type, ExecSpace> halo_;
  bool spin_projection_ = true;
};

template <class P, class ExecSpace, NeighbourMode mode, class Recon, class Layout>
WilsonDslash<P, ExecSpace, mode, Recon, Layout>::WilsonDslash(const gauge_type& u, const BoundaryPhases& bc, const options& opt)
    : geom_(Layout::geometry(u.lattice(), opt)), links_(Layout::links(with_gauge_halo(u), geom_, 1)),
      sites_(Layout::site_table(geom_, bc)), launcher_(Layout::sites(geom_)) {
  if (!lattice().distributed()) return;
  halo_ = detail::SourceHalo<spinor_type, multi_spinor_type, ExecSpace>(Layout::sites(geom_));
  Kokkos::fence("kqcd::WilsonDslash::halo_setup");
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon, class Layout>
void WilsonDslash<P, ExecSpace, mode, Recon, Layout>::apply(spinor_type& out, const spinor_type& in, int isign, int target_cb) const {
  launch<StoreHopping>(out, in, isign, target_cb, out, {});
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon, class Layout>
void WilsonDslash<P, ExecSpace, mode, Recon, Layout>::apply_xpay(spinor_type& out, const spinor_type& in, int isign, int target_cb,
                                                                 Real a, const spinor_type& x, Real b) const {
  check_parity(x, target_cb, "xpay addend");
  launch<XpayHopping>(out, in, isign, target_cb, x, {a, b});
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon, class Layout>
void WilsonDslash<P, ExecSpace, mode, Recon, Layout>::apply(multi_spinor_type& out, const multi_spinor_type& in, int isign,
                                                            int target_cb) const
  requires has_blocks
{
  launch<StoreHopping>(out, in, isign, target_cb, out, {});
}

template <class P, class ExecSpace, NeighbourMode mode, class Recon, class Layout>
void WilsonDslash<P, ExecSpace, mode, Recon, Layout>::apply_xpay(multi_spinor_type& out, const multi_spinor_type& in, int isign,
                                                                 int target_cb, Real a, const multi_spinor_type& x, Real b) const
  requires has_blocks
{
  check_addend(x, in, target_cb, "xpay addend");
  launch<XpayHopping>(out, in, isign, target_cb, x, {a, b});
}

/// The Wilson hopping term on the virtual-node SIMD layout of host backends (SIMDSpinor, or
/// SIMDHalfSpinor in half; fields convert with to_simd / from_simd).
template <class P, class ExecSpace = Kokkos::DefaultHostExecutionSpace, class Recon = Recon18,
          NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode,
          class V = typename ArchTraits<ExecSpace>::template simd_complex<compute_t<P>>>
using SIMDWilsonDslash = WilsonDslash<P, ExecSpace, mode, Recon, SIMDStencilLayout<P, ExecSpace, Recon, mode, V>>;

/// The Wilson hopping term on blocks of V::lanes right-hand sides, one per SIMD lane (host
/// execution spaces; SIMDBlockSpinor, 16-bit lanes with a norm each in half): each link element
/// read once per site and broadcast to the lanes. Blocks convert with SIMDBlockSpinor::insert /
/// extract.
template <class P, class ExecSpace = Kokkos::DefaultHostExecutionSpace, class Recon = Recon18,
          class V = typename ArchTraits<ExecSpace>::template simd_complex<compute_t<P>>>
using SIMDBlockWilsonDslash = WilsonDslash<P, ExecSpace, NeighbourMode::table, Recon, SIMDBlockStencilLayout<P, ExecSpace, Recon, V>>;

} // namespace kqcd

// The combinations compiled into the library (KQCD_PRECISIONS, KQCD_RECONSTRUCT): extern here.
#include <kqcd/instances/wilson_dslash_instances.hpp>
