// Where a stencil's fields live and how its site functor reads them: the layout policies of the
// stencil framework, each for a storage precision, a link compression and a neighbour mode.
// PlainStencilLayout: a site per thread, complex numbers, links packed per site (a backward hop
// reads U_mu(x - h) at the neighbour). SIMDStencilLayout: the virtual-node lanes of host backends
// (fields/simd_fields.hpp), a SIMD register per site vector, links doubled and lane-aligned (the
// backward hop's matrix stored at x), the lane exchange in the site table's neighbour access, blocks
// of right-hand sides as rows of vector sites.
// SIMDBlockStencilLayout: a right-hand side per lane, links broadcast. A stencil written over these
// (WilsonDslash, ColourHopStencil) has one functor, one launcher and one halo for all; the layout
// decides the containers, the accessors and the geometry.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/core/simd_check.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/multi_spinor.hpp>
#include <kqcd/fields/packed_gauge.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <array>
#include <string>
#include <type_traits>
#include <utility>

namespace kqcd {

/// The neighbour mode a plain layout of storage precision P takes by default: the backend's, except
/// that 16-bit storage reads its neighbours from the table on every backend (computed on the fly,
/// their integer arithmetic bounds the 16-bit multi-hop stencils on GPUs).
template <class P, class ES>
inline constexpr NeighbourMode default_neighbour_mode = PrecisionTraits<P>::is_half ? NeighbourMode::table : ArchTraits<ES>::neighbour_mode;

/// The plain layout: a site per thread, CBSpinor sites (16-bit HalfCBSpinor in half), PackedGauge
/// links stored as Recon packs them (16-bit in half; the long links of three-site hops as
/// LongRecon packs them), the site table of neighbour mode `mode`, and blocks of right-hand sides as
/// rows of their own (SpinorBlock). P: the storage precision (float, double, kqcd::half), computed
/// in compute_t<P>.
template <class P, class ES, class Recon = Recon18, NeighbourMode mode = default_neighbour_mode<P, ES>, class LongRecon = Recon18>
struct PlainStencilLayout {
  using precision = P; ///< Storage precision.
  using real_type = compute_t<P>; ///< Arithmetic precision.
  using recon_type = Recon; ///< How the links are stored.
  using long_recon_type = LongRecon; ///< How the long links are stored.
  using execution_space = ES; ///< The execution space.
  using geometry_type = Lattice; ///< What fields are built on.
  struct options {}; ///< Nothing to choose.
  static constexpr NeighbourMode neighbour_mode = mode; ///< Neighbours from a table or computed.
  static constexpr const char* name = "scalar"; ///< As kqcd's --layout and its JSON name it.
  static constexpr int rhs_per_spinor = 1; ///< Right-hand sides one spinor holds.
  /// One parity, and both, of a field with n_spin spin components per site.
  ///@{
  template <int n_spin> using spinor_type = cb_spinor_t<P, ES, n_spin>;
  template <int n_spin> using field_type = FullSpinor<spinor_type<n_spin>>;
  ///@}
  using multi_spinor_type = multi_spinor_t<P, ES>; ///< A block of right-hand sides, a row each.
  /// A block of right-hand sides of fields with n_spin spin components, a row each.
  template <int n_spin> using block_type = SpinorBlock<RowBlocks<spinor_type<n_spin>>>;
  using links_type = PackedGauge<P, Recon, ES>; ///< The links as the functor reads them.
  using long_links_type = PackedGauge<P, LongRecon, ES>; ///< The long links as the functor reads them.
  using link_accessor = decltype(std::declval<links_type>().template reader<real_type>(0)); ///< Their reader.
  using long_link_accessor = decltype(std::declval<long_links_type>().template reader<real_type>(0)); ///< The long links' reader.
  using site_table_type = SiteTable<mode, ES>; ///< Neighbours and boundary phases.
  /// The same layout with links stored as R and neighbour mode m.
  template <class R, NeighbourMode m> using with_storage = PlainStencilLayout<P, ES, R, m, LongRecon>;
  /// The same layout with long links stored as R.
  template <class R> using with_long_links = PlainStencilLayout<P, ES, Recon, mode, R>;

  /// The geometry of the lattice lat (its ghost zone as deep as the stencil hops).
  static geometry_type geometry(const Lattice& lat, const options&) { return lat; }
  /// The lattice of the geometry, and the lattice of the sites a functor sweeps (the same).
  ///@{
  static const Lattice& lattice(const geometry_type& g) { return g; }
  static const Lattice& sites(const geometry_type& g) { return g; }
  ///@}
  /// The links of u (ghost zone filled) for hops of `hop` sites.
  template <class GT> static links_type links(const GaugeField<GT, ES>& u, const geometry_type&, int) { return links_type(u); }
  /// The long links of w (ghost zone filled) for three-site hops.
  template <class GT> static long_links_type long_links(const GaugeField<GT, ES>& w, const geometry_type&) { return long_links_type(w); }
  /// The readers of the links, and of the long links, used by the sites of parity p.
  ///@{
  static link_accessor accessor(const links_type& l, int p) { return l.template reader<real_type>(p); }
  static long_link_accessor long_accessor(const long_links_type& l, int p) { return l.template reader<real_type>(p); }
  ///@}
  /// Bytes of one link, and of one long link, as stored.
  ///@{
  static constexpr double bytes_per_link() { return links_type::bytes_per_link(); }
  static constexpr double bytes_per_long_link() { return long_links_type::bytes_per_link(); }
  ///@}
  /// The site table of boundary phases bc.
  static site_table_type site_table(const geometry_type& g, const BoundaryPhases& bc) { return site_table_type(g, bc); }
  /// A spinor S of parity `parity` on geometry g.
  template <class S> static S create(const geometry_type& g, int parity, const std::string& label) { return S(g, parity, label); }
  /// Whether spinor s lives on geometry g.
  template <class S> static bool holds(const S& s, const geometry_type& g) { return s.lattice() == g; }
  /// The functor's readers and writers of spinor s.
  ///@{
  template <class S> static auto reader(const S& s) { return SpinorAccess<S>::template read<real_type>(s); }
  template <class S> static auto writer(const S& s) { return SpinorAccess<S>::template write<real_type>(s); }
  ///@}
};

/// The virtual-node SIMD layout of host backends (ArchTraits<ES>::simd_layout): SIMDSpinor sites
/// (V's lanes; SIMDHalfSpinor in half), doubled links stored as Recon packs them (16-bit in half;
/// long links as LongRecon packs them), the site table of the vector sites with the lanes'
/// crossing. options: the lane split (zeros: the automatic one, SIMDGeometry's).
template <class P, class ES, class Recon = Recon18, NeighbourMode mode = ArchTraits<ES>::neighbour_mode,
          class V = typename ArchTraits<ES>::template simd_complex<compute_t<P>>, class LongRecon = Recon18>
struct SIMDStencilLayout {
  using precision = P; ///< Storage precision.
  using real_type = compute_t<P>; ///< Arithmetic precision.
  using recon_type = Recon; ///< How the links are stored.
  using long_recon_type = LongRecon; ///< How the long links are stored.
  using execution_space = ES; ///< The execution space.
  using simd_type = V; ///< The register of lanes.
  using geometry_type = SIMDGeometry; ///< What fields are built on.
  /// The lane split: 1 or 2 per dimension, all zeros for SIMDGeometry's automatic choice.
  struct options {
    std::array<int, Nd> split{0, 0, 0, 0}; ///< Halvings per dimension.
  };
  static constexpr NeighbourMode neighbour_mode = mode; ///< Neighbours from a table or computed.
  static constexpr const char* name = "simd"; ///< As kqcd's --layout and its JSON name it.
  static constexpr int rhs_per_spinor = 1; ///< Right-hand sides one spinor holds.
  static_assert(std::is_same_v<typename V::real_type, real_type>, "SIMD type of another precision");
  /// The stored link reals: 16-bit fixed point in half.
  using link_store_type = std::conditional_t<PrecisionTraits<P>::is_half, short, real_type>;
  /// One parity, and both, of a field with n_spin spin components per site.
  ///@{
  template <int n_spin>
  using spinor_type = std::conditional_t<PrecisionTraits<P>::is_half, SIMDHalfSpinor<V, ES, n_spin>, SIMDSpinor<V, ES, n_spin>>;
  template <int n_spin> using field_type = FullSpinor<spinor_type<n_spin>>;
  ///@}
  /// A block of four-spinor right-hand sides, a row of vector sites each (the slices of a
  /// domain-wall field; right-hand sides in the lanes: SIMDBlockStencilLayout).
  using multi_spinor_type = SpinorBlock<RowBlocks<spinor_type<Ns>>>;
  /// The colour-hop stencils take blocks as rows on the plain layout only.
  template <int n_spin> using block_type = detail::no_blocks;
  using links_type = LinkField<LaneLinks<V, ES, Recon, link_store_type>>; ///< The links as the functor reads them.
  using long_links_type = LinkField<LaneLinks<V, ES, LongRecon, link_store_type>>; ///< The long links as the functor reads them.
  using link_accessor = decltype(std::declval<links_type>().template reader<V>(0)); ///< Their reader.
  using long_link_accessor = decltype(std::declval<long_links_type>().template reader<V>(0)); ///< The long links' reader.
  using site_table_type = SiteTable<mode, ES, LaneCrossing<V>>; ///< Neighbours, lane exchanges and boundary phases.
  /// The same layout with links stored as R and neighbour mode m.
  template <class R, NeighbourMode m> using with_storage = SIMDStencilLayout<P, ES, R, m, V, LongRecon>;
  /// The same layout with long links stored as R.
  template <class R> using with_long_links = SIMDStencilLayout<P, ES, Recon, mode, V, R>;

  /// The geometry of the lattice lat (its ghost zone as deep as the stencil hops) in V's lanes.
  static geometry_type geometry(const Lattice& lat, const options& o) { return SIMDGeometry(lat, V::lanes, o.split); }
  /// The lane split of geometry g, as options.
  static options options_of(const geometry_type& g) { return {g.split()}; }
  /// What keeps lat off the lanes for a stencil whose hops are up to `depth` sites long ("" where
  /// nothing does): no automatic lane split (SIMDGeometry's reason), or sub-lattices shorter than
  /// depth (a hop would wrap twice). How a run-time choice of layout decides (use_simd_layout).
  static std::string misfit(const Lattice& lat, int depth = 1) {
    try {
      const Lattice sub = SIMDGeometry(lat, V::lanes).local();
      for (int mu = 0; depth > 1 && mu < Nd; ++mu)
        if (sub.dim(mu) < depth)
          return "hops of " + std::to_string(depth) + " sites need SIMD sub-lattices at least " + std::to_string(depth) +
                 " sites long, found " + sub.to_string();
    } catch (const invalid_argument& e) {
      return e.what();
    }
    return "";
  }
  /// The lattice of the geometry.
  static const Lattice& lattice(const geometry_type& g) { return g.global(); }
  /// The lattice of the vector sites a functor sweeps.
  static const Lattice& sites(const geometry_type& g) { return g.local(); }
  /// The doubled links of u (ghost zone filled) for hops of `hop` sites.
  template <class GT> static links_type links(const GaugeField<GT, ES>& u, const geometry_type& g, int hop) {
    check_simd_isa();
    return links_type(u, g, hop);
  }
  /// The doubled long links of w (ghost zone filled) for three-site hops.
  template <class GT> static long_links_type long_links(const GaugeField<GT, ES>& w, const geometry_type& g) {
    check_simd_isa();
    return long_links_type(w, g, 3);
  }
  /// The readers of the links, and of the long links, used by the sites of parity p.
  ///@{
  static link_accessor accessor(const links_type& l, int p) { return l.template reader<V>(p); }
  static long_link_accessor long_accessor(const long_links_type& l, int p) { return l.template reader<V>(p); }
  ///@}
  /// Bytes of one link, and of one long link, as stored (each hop's matrix).
  ///@{
  static constexpr double bytes_per_link() { return links_type::bytes_per_link(); }
  static constexpr double bytes_per_long_link() { return long_links_type::bytes_per_link(); }
  ///@}
  /// The site table of boundary phases bc.
  static site_table_type site_table(const geometry_type& g, const BoundaryPhases& bc) { return site_table_type(g, bc); }
  /// A spinor S of parity `parity` on geometry g.
  template <class S> static S create(const geometry_type& g, int parity, const std::string& label) { return S(g, parity, label); }
  /// Whether spinor s lives on geometry g.
  template <class S> static bool holds(const S& s, const geometry_type& g) { return s.geometry() == g; }
  /// The functor's readers and writers of spinor s.
  ///@{
  template <class S> static auto reader(const S& s) { return lane_reader(s); }
  template <class S> static auto writer(const S& s) { return lane_writer(s); }
  ///@}
};

/// Blocks of right-hand sides in SIMD lanes on host backends: a site per vector, right-hand side r
/// of every site in lane r (SIMDBlockSpinor; 16-bit lanes with a norm each in half), each link
/// element read once per site and broadcast to the lanes (one-lane doubled links in compute_t<P>,
/// stored as Recon packs them, long links as LongRecon), the plain site table.
template <class P, class ES, class Recon = Recon18, class V = typename ArchTraits<ES>::template simd_complex<compute_t<P>>,
          class LongRecon = Recon18>
struct SIMDBlockStencilLayout {
  using precision = P; ///< Storage precision.
  using real_type = compute_t<P>; ///< Arithmetic precision.
  using recon_type = Recon; ///< How the links are stored.
  using long_recon_type = LongRecon; ///< How the long links are stored.
  using execution_space = ES; ///< The execution space.
  using simd_type = V; ///< The register of lanes.
  using geometry_type = Lattice; ///< What fields are built on.
  struct options {}; ///< Nothing to choose.
  static constexpr NeighbourMode neighbour_mode = NeighbourMode::table; ///< Neighbours from a table.
  static constexpr const char* name = "simd rhs"; ///< Names it in tune keys.
  static constexpr int rhs_per_spinor = V::lanes; ///< Right-hand sides one spinor holds: one per lane.
  static_assert(std::is_same_v<typename V::real_type, real_type>, "SIMD type of another precision");
  /// One parity of a field with n_spin spin components per site: a block, one right-hand side per
  /// lane; both parities.
  ///@{
  template <int n_spin> using spinor_type = SIMDBlockSpinor<V, ES, std::conditional_t<PrecisionTraits<P>::is_half, short, real_type>, n_spin>;
  template <int n_spin> using field_type = FullSpinor<spinor_type<n_spin>>;
  ///@}
  using multi_spinor_type = detail::no_blocks; ///< The spinor is the block.
  template <int n_spin> using block_type = detail::no_blocks; ///< No blocks as rows.
  /// One-lane doubled links, and long links.
  ///@{
  using links_type = LinkField<LaneLinks<SIMDComplex<real_type, 1, simd::Portable<real_type, 1>>, ES, Recon>>;
  using long_links_type = LinkField<LaneLinks<SIMDComplex<real_type, 1, simd::Portable<real_type, 1>>, ES, LongRecon>>;
  ///@}
  using link_accessor = decltype(std::declval<links_type>().template reader<V>(0)); ///< Their reader (broadcast to V's lanes).
  using long_link_accessor = decltype(std::declval<long_links_type>().template reader<V>(0)); ///< The long links' reader.
  using site_table_type = SiteTable<NeighbourMode::table, ES>; ///< Neighbours and boundary phases.
  /// The same layout with long links stored as R.
  template <class R> using with_long_links = SIMDBlockStencilLayout<P, ES, Recon, V, R>;

  /// The geometry of the lattice lat.
  static geometry_type geometry(const Lattice& lat, const options&) { return lat; }
  /// The lattice of the geometry, and the lattice of the sites a functor sweeps (the same).
  ///@{
  static const Lattice& lattice(const geometry_type& g) { return g; }
  static const Lattice& sites(const geometry_type& g) { return g; }
  ///@}
  /// The one-lane doubled links of u (ghost zone filled) for hops of `hop` sites.
  template <class GT> static links_type links(const GaugeField<GT, ES>& u, const geometry_type& g, int hop) {
    check_simd_isa();
    return links_type(u, SIMDGeometry(g, 1), hop);
  }
  /// The one-lane doubled long links of w (ghost zone filled) for three-site hops.
  template <class GT> static long_links_type long_links(const GaugeField<GT, ES>& w, const geometry_type& g) {
    check_simd_isa();
    return long_links_type(w, SIMDGeometry(g, 1), 3);
  }
  /// The readers of the links, and of the long links, used by the sites of parity p.
  ///@{
  static link_accessor accessor(const links_type& l, int p) { return l.template reader<V>(p); }
  static long_link_accessor long_accessor(const long_links_type& l, int p) { return l.template reader<V>(p); }
  ///@}
  /// Bytes of one link, and of one long link, as stored.
  ///@{
  static constexpr double bytes_per_link() { return links_type::bytes_per_link(); }
  static constexpr double bytes_per_long_link() { return long_links_type::bytes_per_link(); }
  ///@}
  /// The site table of boundary phases bc.
  static site_table_type site_table(const geometry_type& g, const BoundaryPhases& bc) { return site_table_type(g, bc); }
  /// A block S of parity `parity` on geometry g, every lane a right-hand side.
  template <class S> static S create(const geometry_type& g, int parity, const std::string& label) {
    return S(g, parity, V::lanes, label);
  }
  /// Whether block s lives on geometry g.
  template <class S> static bool holds(const S& s, const geometry_type& g) { return s.lattice() == g; }
  /// The functor's readers and writers of block s.
  ///@{
  template <class S> static auto reader(const S& s) { return lane_reader(s); }
  template <class S> static auto writer(const S& s) { return lane_writer(s); }
  ///@}
};

} // namespace kqcd
