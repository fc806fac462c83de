// Where a stencil's fields live and how its site functor reads them: the layout policies of the
// stencil framework. PlainStencilLayout: a site per thread, complex numbers, links packed per site
// (a backward hop reads U_mu(x - h) at the neighbour). SIMDStencilLayout: the virtual-node lanes of
// host backends (fields/simd_fields.hpp), a SIMD register per site vector, links doubled and
// lane-aligned (the backward hop's matrix stored at x), the lane exchange in the site table's
// neighbour access. A stencil written over these (ColourHopStencil) has one functor, one launcher
// and one halo for both; the layout decides the containers, the accessors and the geometry.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/packed_gauge.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <array>
#include <string>

namespace kqcd {

/// The plain layout: CBSpinor sites, recon-18 PackedGauge links in the precision Real, the
/// backend's site table (ArchTraits' neighbour mode).
template <class Real, class ES> struct PlainStencilLayout {
  using real_type = Real; ///< Arithmetic and storage precision.
  using execution_space = ES; ///< The execution space.
  using geometry_type = Lattice; ///< What fields are built on.
  struct options {}; ///< Nothing to choose.
  static constexpr const char* name = "scalar"; ///< As kqcd's --layout and its JSON name it.
  /// One parity, and both, of a field with n_spin spin components per site.
  ///@{
  template <int n_spin> using spinor_type = CBSpinor<Kokkos::complex<Real>, n_spin, ES>;
  template <int n_spin> using field_type = SpinorField<Kokkos::complex<Real>, n_spin, ES>;
  ///@}
  using links_type = PackedGauge<Real, Recon18, ES>; ///< The links as the functor reads them.
  using link_accessor = typename links_type::template accessor_type<Real>; ///< Their reader.
  using site_table_type = SiteTable<ArchTraits<ES>::neighbour_mode, ES>; ///< Neighbours and boundary phases.

  /// The geometry of the lattice lat (its ghost zone as deep as the stencil hops).
  static geometry_type geometry(const Lattice& lat, const options&) { return lat; }
  /// The lattice of the geometry, and the lattice of the sites a functor sweeps (the same).
  ///@{
  static const Lattice& lattice(const geometry_type& g) { return g; }
  static const Lattice& sites(const geometry_type& g) { return g; }
  ///@}
  /// The links of u (ghost zone filled) for hops of `hop` sites.
  template <class GT> static links_type links(const GaugeField<GT, ES>& u, const geometry_type&, int) { return links_type(u); }
  /// The reader of the links used by the sites of parity p.
  static link_accessor accessor(const links_type& l, int p) { return l.template accessor<Real>(p); }
  /// Bytes of one link as stored.
  static constexpr double bytes_per_link() { return links_type::bytes_per_link(); }
  /// The site table of boundary phases bc.
  static site_table_type site_table(const geometry_type& g, const BoundaryPhases& bc) { return site_table_type(g, bc); }
  /// Whether spinor s lives on geometry g.
  template <class S> static bool holds(const S& s, const geometry_type& g) { return s.lattice() == g; }
  /// The functor's readers and writers of spinor s.
  ///@{
  template <class S> static auto reader(const S& s) { return SpinorAccess<S>::template read<Real>(s); }
  template <class S> static auto writer(const S& s) { return SpinorAccess<S>::template write<Real>(s); }
  ///@}
};

/// The virtual-node SIMD layout of host backends (ArchTraits<ES>::simd_layout): SIMDSpinor sites
/// (V's lanes), doubled recon-18 links, the site table of the vector sites with the lanes'
/// crossing. options: the lane split (zeros: the automatic one, SIMDGeometry's).
template <class Real, class ES, class V = typename ArchTraits<ES>::template simd_complex<Real>> struct SIMDStencilLayout {
  using real_type = Real; ///< Arithmetic and storage precision.
  using execution_space = ES; ///< The execution space.
  using simd_type = V; ///< The register of lanes.
  using geometry_type = SIMDGeometry; ///< What fields are built on.
  /// The lane split: 1 or 2 per dimension, all zeros for SIMDGeometry's automatic choice.
  struct options {
    std::array<int, Nd> split{0, 0, 0, 0}; ///< Halvings per dimension.
  };
  static constexpr const char* name = "simd"; ///< As kqcd's --layout and its JSON name it.
  /// One parity, and both, of a field with n_spin spin components per site.
  ///@{
  template <int n_spin> using spinor_type = SIMDSpinor<V, ES, n_spin>;
  template <int n_spin> using field_type = SIMDSpinorField<V, ES, n_spin>;
  ///@}
  using links_type = SIMDGaugeField<V, ES, Recon18>; ///< The links as the functor reads them.
  using link_accessor = DoubledLinkAccessor<V, V::lanes, Recon18>; ///< Their reader.
  using site_table_type = SiteTable<NeighbourMode::table, ES, LaneCrossing<V>>; ///< Neighbours, lane exchanges and boundary phases.

  /// The geometry of the lattice lat (its ghost zone as deep as the stencil hops) in V's lanes.
  static geometry_type geometry(const Lattice& lat, const options& o) { return SIMDGeometry(lat, V::lanes, o.split); }
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
    return links_type(u, g, hop);
  }
  /// The reader of the links used by the sites of parity p.
  static link_accessor accessor(const links_type& l, int p) { return {l.view(p).data()}; }
  /// Bytes of one link as stored (each hop's matrix, whole).
  static constexpr double bytes_per_link() { return 2.0 * Nc * Nc * sizeof(Real); }
  /// The site table of boundary phases bc.
  static site_table_type site_table(const geometry_type& g, const BoundaryPhases& bc) { return site_table_type(g, bc); }
  /// Whether spinor s lives on geometry g.
  template <class S> static bool holds(const S& s, const geometry_type& g) { return s.geometry() == g; }
  /// The functor's readers and writers of spinor s.
  ///@{
  template <class S> static auto reader(const S& s) { return lane_reader(s); }
  template <class S> static auto writer(const S& s) { return lane_writer(s); }
  ///@}
};

} // namespace kqcd
