// Fields of the virtual-node SIMD layout (as in Grid): the local lattice is cut into `lanes`
// sub-lattices by halving some dimensions, and SIMD lane q of each vector site holds the site of
// sub-lattice q at the same local coordinates; a hop out of a split dimension exchanges lanes
// (q <-> q ^ 2^level(mu)). Split dimensions keep an even local extent, so each parity's vector sites
// are the local checkerboard sites. The gauge field is stored doubled (U_mu(x) and U_mu^dag(x - mu)
// lane-aligned with x); boundary phases are applied to the projected spinor, never to the links.
// Partitioned dimensions are never split, so faces travel to the neighbour's ghost zone whole.
#pragma once

#include <kqcd/arch/simd_complex.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/clover_field.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/packed_gauge.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd {

/// The lane split of a lattice: which dimensions are halved, the local lattice, the lane order.
class SIMDGeometry {
public:
  SIMDGeometry() = default;
  /// split[mu] in {1, 2} with product lanes; all zeros picks t, z, y, x in that order (the first
  /// dimensions whose extent is divisible by 4 and which are not partitioned over ranks).
  SIMDGeometry(const Lattice& global, int lanes, std::array<int, Nd> split = {0, 0, 0, 0}) : global_(global), lanes_(lanes) {
    if (lanes < 1 || (lanes & (lanes - 1)) != 0)
      throw invalid_argument("SIMD lanes must be a power of two, found " + std::to_string(lanes));
    const bool automatic = split == std::array<int, Nd>{0, 0, 0, 0};
    if (automatic) {
      split = {1, 1, 1, 1};
      int n = 1;
      for (int mu = Nd - 1; mu >= 0 && n < lanes; --mu)
        if (global.dim(mu) % 4 == 0 && !global.partitioned(mu)) {
          split[mu] = 2;
          n *= 2;
        }
      if (n != lanes)
        throw invalid_argument("lattice " + global.to_string() + " cannot be split into " + std::to_string(lanes) +
                               " SIMD lanes: each of log2(lanes) dimensions is halved and must keep an even extent "
                               "(extent divisible by 4)" + std::string(global.distributed() ? " and not be partitioned over ranks" : "") +
                               ", found only " + std::to_string(n) + " lanes' worth");
    }
    int n = 1, level = 0;
    std::array<int, Nd> local{};
    for (int mu = 0; mu < Nd; ++mu) {
      if (split[mu] != 1 && split[mu] != 2)
        throw invalid_argument("SIMD split of dimension " + std::to_string(mu) + " must be 1 or 2, found " +
                               std::to_string(split[mu]));
      if (split[mu] == 2 && global.dim(mu) % 4 != 0)
        throw invalid_argument("SIMD split of dimension " + std::to_string(mu) + " needs an extent divisible by 4, found " +
                               std::to_string(global.dim(mu)) + " in lattice " + global.to_string());
      if (split[mu] == 2 && global.partitioned(mu))
        throw invalid_argument("SIMD split of dimension " + std::to_string(mu) + ": the dimension is partitioned over " +
                               std::to_string(global.grid(mu)) + " ranks (faces travel as whole vector sites)");
      n *= split[mu];
      split_[mu] = split[mu];
      level_[mu] = split[mu] == 2 ? level++ : -1;
      local[mu] = global.dim(mu) / split[mu];
    }
    if (n != lanes)
      throw invalid_argument("SIMD split " + std::to_string(split[0]) + "x" + std::to_string(split[1]) + "x" +
                             std::to_string(split[2]) + "x" + std::to_string(split[3]) + " gives " + std::to_string(n) +
                             " lanes, expected " + std::to_string(lanes));
    local_ = vector_lattice(global, local);
  }

  /// The lattice laid out: the whole lattice, or this rank's part of a distributed one.
  KOKKOS_INLINE_FUNCTION const Lattice& global() const { return global_; }
  /// The lattice of vector sites (one sub-lattice); distributed as global() is, with a ghost zone as deep.
  const Lattice& local() const { return local_; }
  /// Lanes per vector site.
  int lanes() const { return lanes_; }
  /// Sub-lattices along mu (1 or 2), or along every dimension.
  ///@{
  int split(int mu) const { return split_[mu]; }
  std::array<int, Nd> split() const { return split_; }
  ///@}
  /// The lane-exchange level of a hop across the sub-lattice boundary in mu; -1 if mu is not split.
  int level(int mu) const { return level_[mu]; }
  /// Vector sites per parity, and ghost vector sites per parity (0 on one rank).
  ///@{
  int vsites() const { return local_.cb_volume(); }
  int ghost_vsites() const { return local_.ghost_sites(); }
  ///@}
  /// Coordinate of lane's sub-lattice in dimension mu (0 or 1).
  KOKKOS_INLINE_FUNCTION int lane_coord(int lane, int mu) const { return level_[mu] < 0 ? 0 : (lane >> level_[mu]) & 1; }
  /// Global coordinates of lane `lane` of vector site vsite on parity.
  KOKKOS_INLINE_FUNCTION Coords coords(int vsite, int lane, int parity) const {
    Coords c = local_.cb_coords(vsite, parity);
    for (int mu = 0; mu < Nd; ++mu) c.x[mu] += lane_coord(lane, mu) * local_.dim(mu);
    return c;
  }
  /// The vector site and lane that hold global site x (coords' inverse; host code).
  void locate(const Coords& x, int& vsite, int& lane) const {
    Coords local = x;
    lane = 0;
    for (int mu = 0; mu < Nd; ++mu) {
      const int half = x.x[mu] / local_.dim(mu);
      local.x[mu] = x.x[mu] - half * local_.dim(mu);
      if (level_[mu] >= 0) lane |= half << level_[mu];
    }
    vsite = local_.cb_index(local);
  }
  /// Whether both lay out the same lattice with the same lanes and split.
  bool operator==(const SIMDGeometry& o) const { return global_ == o.global_ && lanes_ == o.lanes_ && split_ == o.split_; }
  /// Whether the automatic split of lat into `lanes` exists (the constructor's own check).
  static bool splits(const Lattice& lat, int lanes) {
    try {
      SIMDGeometry(lat, lanes);
      return true;
    } catch (const invalid_argument&) {
      return false;
    }
  }

private:
  /// The vector sites' lattice: extents `local`, on the process grid of `lat` where it has one.
  static Lattice vector_lattice(const Lattice& lat, const std::array<int, Nd>& local) {
    if (!lat.distributed()) return Lattice(local);
    std::array<int, Nd> grid{}, coords{}, global{};
    int neighbours[Nd][2];
    for (int mu = 0; mu < Nd; ++mu) {
      grid[mu] = lat.grid(mu);
      coords[mu] = lat.grid_coord(mu);
      global[mu] = local[mu] * grid[mu];
      for (int side = 0; side < 2; ++side) neighbours[mu][side] = lat.neighbour_rank(mu, side);
    }
    return Lattice::sub_lattice(Lattice(global), grid, coords, neighbours, lat.rank(), lat.communicator()).with_ghost_depth(lat.ghost_depth());
  }

  Lattice global_, local_;
  int lanes_ = 1;
  std::array<int, Nd> split_{1, 1, 1, 1};
  int level_[Nd] = {-1, -1, -1, -1}; // a plain array: lane_coord reads it on devices too
};

namespace detail {
template <class ExecSpace> constexpr void require_host_space() {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible,
                "the SIMD layout is for host execution spaces (ArchTraits<ES>::simd_layout)");
}
} // namespace detail

/// The virtual-node SIMD layout as a spinor storage (fields/spinor.hpp), on a SIMDGeometry: in float
/// or double (Store = V::real_type) the vector sites' [colour][spin][lane] complex numbers, then
/// the ghost vector sites of a distributed lattice; view() holds them as [vsite * lanes][colour][spin]
/// for the BLAS (its first sites() rows are this rank's). Store = short: QUDA's half format on
/// lanes, the reals of [vsite][colour][spin][2 lanes] as fixed point, each site's (each lane's) in
/// units of its norm, norm() = [vsite][lane] (the largest magnitude of the site's reals); V is then
/// a single-precision register: the kernels compute in float. NS spin components per site (1: a
/// colour vector).
template <class V, class ExecSpace, class Store = typename V::real_type, int NS = Ns> struct LaneStorage {
  static constexpr bool fixed_point = std::is_same_v<Store, short>; ///< Whether the reals are 16-bit fixed point (Store = short).
  static_assert(!fixed_point || std::is_same_v<typename V::real_type, float>, "16-bit spinors compute in float");
  static constexpr int lanes = V::lanes; ///< Lanes per vector site.
  /// The storage policy's types (fields/spinor.hpp): execution space, shape, precision, stored value, views.
  ///@{
  using execution_space = ExecSpace;
  using shape_type = SIMDGeometry;
  using real_type = typename V::real_type;
  using value_type = std::conditional_t<fixed_point, short, Kokkos::complex<real_type>>;
  using view_type = std::conditional_t<fixed_point, Kokkos::View<short* [Nc][NS][2 * lanes], Kokkos::LayoutRight, Kokkos::HostSpace>,
                                       Kokkos::View<value_type* [Nc][NS], Kokkos::LayoutRight, Kokkos::HostSpace>>;
  using norm_view_type = std::conditional_t<fixed_point, Kokkos::View<float* [lanes], Kokkos::LayoutRight, Kokkos::HostSpace>, NoNorm>;
  ///@}
  /// Vector sites as rows of complex lanes, ghost zone included: the halo exchange's rows (16 bits:
  /// the stored reals, the norms beside them).
  using halo_view_type = std::conditional_t<fixed_point, view_type,
                                            Kokkos::View<value_type* [Nc][NS][lanes], Kokkos::LayoutRight, Kokkos::HostSpace,
                                                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>>;
  /// Vector sites as rows of [colour][spin][2 lanes] reals, ghost zone included: the hopping functor's rows.
  using lane_view_type = std::conditional_t<fixed_point, view_type,
                                            Kokkos::View<real_type* [Nc][NS][2 * lanes], Kokkos::LayoutRight, Kokkos::HostSpace,
                                                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>>;
  /// The storage policy's constants: spin components, vector sites, default label.
  ///@{
  static constexpr int n_spin = NS;
  static constexpr bool vector_sites = true;
  static constexpr const char* label = fixed_point ? "simd_half_spinor" : "simd_spinor";
  ///@}
  /// Types the storage is built from.
  struct names {
    using simd_type = V; ///< The SIMD register type.
    static constexpr int lanes = V::lanes; ///< Lanes per register.
  };
  /// Throws unless geometry g has the type's lanes (host execution spaces only).
  static void check(const SIMDGeometry& g) {
    detail::require_host_space<ExecSpace>();
    if (g.lanes() != lanes)
      throw invalid_argument(std::string(label) + ": geometry has " + std::to_string(g.lanes()) + " lanes, the type holds " +
                             std::to_string(lanes));
  }
  /// Rows of the view on geometry g, ghost vector sites included.
  static std::size_t rows(const SIMDGeometry& g) {
    const std::size_t vsites = std::size_t(g.vsites() + g.ghost_vsites());
    return fixed_point ? vsites : vsites * lanes;
  }
  /// The lattice of geometry g.
  static const Lattice& lattice(const SIMDGeometry& g) { return g.global(); }
  /// View v as rows of [colour][spin][2 lanes] reals.
  static lane_view_type lane_view(const view_type& v, const SIMDGeometry& g) {
    if constexpr (fixed_point) return v;
    else return lane_view_type(reinterpret_cast<real_type*>(v.data()), g.vsites() + g.ghost_vsites());
  }
  /// View v as the halo exchange's rows.
  static halo_view_type halo_view(const view_type& v, const SIMDGeometry& g) {
    if constexpr (fixed_point) return v;
    else return halo_view_type(v.data(), g.vsites() + g.ghost_vsites());
  }
};

/// One parity of a spinor (NS = 4) or colour vector (NS = 1) in the SIMD layout, float or double (V = SIMDComplex).
template <class V, class ExecSpace, int NS = Ns> using SIMDSpinor = Spinor<LaneStorage<V, ExecSpace, typename V::real_type, NS>>;
/// One parity of a spinor (NS = 4) or colour vector (NS = 1) in the SIMD layout in 16 bits (V a single-precision register).
template <class V, class ExecSpace, int NS = Ns> using SIMDHalfSpinor = Spinor<LaneStorage<V, ExecSpace, short, NS>>;

template <int L, class T, class N, class Real, int NS = Ns> struct LaneSiteAccessor;

/// Up to V::lanes right-hand sides of one parity as a block storage (fields/multi_spinor.hpp) for
/// SIMDBlockWilsonDslash: lane r holds right-hand side r of every site ([site][colour][spin][2 lanes
/// reals], SIMDSpinor's layout on the unsplit lattice), then the ghost sites of a distributed
/// lattice. Store = short: the reals in 16-bit fixed point, each site's right-hand side in units of
/// its own norm (norm() = [site][lane]: SIMDHalfSpinor's format, V a single-precision register).
/// With fewer right-hand sides than lanes the other lanes stay zero: the block BLAS keeps them so.
/// NS spin components per site (4, or 1: colour vectors).
template <class V, class ExecSpace, class Store = typename V::real_type, int NS = Ns> struct LaneBlocks {
  static constexpr bool fixed_point = std::is_same_v<Store, short>; ///< Whether the reals are 16-bit fixed point (Store = short).
  static_assert(!fixed_point || std::is_same_v<typename V::real_type, float>, "16-bit blocks compute in float");
  static constexpr int lanes = V::lanes; ///< Lanes per vector site.
  /// The block storage policy's types (fields/multi_spinor.hpp): execution space, precision, stored value, views.
  ///@{
  using execution_space = ExecSpace;
  using real_type = typename V::real_type;
  using value_type = Store;
  using view_type = Kokkos::View<Store* [Nc][NS][2 * lanes], Kokkos::LayoutRight, Kokkos::HostSpace>;
  using norm_view_type = std::conditional_t<fixed_point, Kokkos::View<float* [lanes], Kokkos::LayoutRight, Kokkos::HostSpace>, NoNorm>;
  ///@}
  /// The halo exchange's rows: sites of complex lanes, or in 16 bits the stored reals (norms beside them).
  using halo_view_type = typename LaneStorage<V, ExecSpace, Store, NS>::halo_view_type;
  /// The block storage policy's constants: capacity, right-hand sides in the lanes, labels.
  ///@{
  static constexpr int max_rhs = lanes;
  static constexpr int n_spin = NS;
  static constexpr bool rhs_in_lanes = true;
  static constexpr bool vector_sites = false;
  static constexpr const char* label = "simd_block_spinor";
  static constexpr const char* capacity = " (one per SIMD lane)";
  ///@}
  /// Types the storage is built from.
  struct names {
    using simd_type = V; ///< The SIMD register type.
    using store_type = Store; ///< The stored real type.
    static constexpr int lanes = V::lanes; ///< Lanes per register.
  };
  /// Compile-time check that ExecSpace is a host execution space.
  static void check() { detail::require_host_space<ExecSpace>(); }
  using shape_type = Lattice; ///< What the block is built on.
  /// Rows of the view on lat: a site per row, ghost sites included.
  static std::size_t rows(const Lattice& lat, int) { return std::size_t(lat.cb_volume() + lat.ghost_sites()); }
  /// The lattice of the shape.
  static const Lattice& lattice(const Lattice& lat) { return lat; }
  /// View v as the halo exchange's rows.
  static halo_view_type halo_view(const view_type& v, const Lattice&, int) {
    if constexpr (fixed_point) return v;
    else return halo_view_type(reinterpret_cast<Kokkos::complex<real_type>*>(v.data()), v.extent(0));
  }
  /// Accessor of site-and-lane j of v (norms n) as complex numbers in Real.
  template <class Real> static auto lane_sites(const view_type& v, const norm_view_type& n) {
    if constexpr (fixed_point) return LaneSiteAccessor<lanes, Store, float, Real, NS>{v.data(), n.data()};
    else return LaneSiteAccessor<lanes, Store, void, Real, NS>{v.data()};
  }
  /// Right-hand side r of block b to or from the single spinor s (any storage; converting precision).
  template <class Block, class Single> static void transfer(const Block& b, int r, const Single& s, bool in) {
    const auto plain_r = SpinorAccess<Single>::template read<double>(s);
    const auto plain_w = SpinorAccess<Single>::template write<double>(s); // view handles: written through on extract
    const auto block = b.template lane_sites<double>();
    Kokkos::parallel_for("kqcd::SIMDBlockSpinor::transfer", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, b.sites()),
                         [=](int i) {
                           Kokkos::complex<double> v[Nc][NS];
                           if (in) {
                             plain_r.load(i, v);
                             block.store(i * lanes + r, v);
                           } else {
                             block.load(i * lanes + r, v);
                             plain_w.store(i, v);
                           }
                         });
    Kokkos::fence();
  }
};

/// A block of right-hand sides in the SIMD lanes, of four-spinors (NS = 4) or colour vectors (NS = 1).
template <class V, class ExecSpace, class Store = typename V::real_type, int NS = Ns>
using SIMDBlockSpinor = SpinorBlock<LaneBlocks<V, ExecSpace, Store, NS>>;

/// A site's spinor in the SIMD layout for the hopping functor: T = const real_type (read) or
/// real_type (write). Sites are vector sites; the address is computed once per site.
template <class V, class T, int NS = Ns> struct SIMDSpinorAccessor {
  using cplx = V; ///< The complex register type.
  using real = typename V::real_type; ///< Its real type.
  static constexpr int n_spin = NS; ///< Spin components per site.
  static constexpr int R = 2 * V::lanes; ///< Reals per stored complex entry (2 per lane).
  static constexpr bool unit_scale = true; ///< Loaded values need no further scale.
  T* p; ///< [vsite][Nc][NS][R]
  /// First real of vector site `site`.
  KOKKOS_FORCEINLINE_FUNCTION T* base(int site) const { return p + std::size_t(site) * (Nc * NS * R); }
  /// Loads the site's Nc x NS registers.
  KOKKOS_FORCEINLINE_FUNCTION void load(int site, V s[Nc][NS]) const {
    const T* b = base(site);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < NS; ++sp) s[c][sp] = V::load(b + (c * NS + sp) * R);
  }
  /// Colour c of the projection (SpinorAccessor::load_projected).
  template <class Proj> KOKKOS_FORCEINLINE_FUNCTION real load_projected(int site, int c, V h[2]) const {
    const T* b = base(site) + c * Ns * R;
    project_spins<Proj>([&](int sp) { return V::load(b + sp * R); }, h);
    return real(1);
  }
  /// Stores the site's Nc x NS registers.
  KOKKOS_FORCEINLINE_FUNCTION void store(int site, const V s[Nc][NS]) const {
    T* b = base(site);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < NS; ++sp) s[c][sp].store(b + (c * NS + sp) * R);
  }
};

/// A site's 16-bit spinor (NS spin components) in the SIMD layout (SIMDHalfSpinor) for the hopping
/// functor, in float registers: T = const short (read) or short (write), N = const float or float (the norms). A read
/// converts the integers (a projection sums them first, exactly) and scales by each lane's norm;
/// a store finds each lane's largest magnitude, writes it as the norm and the reals in its units.
template <class V, class T, class N, int NS = Ns> struct SIMDHalfSpinorAccessor {
  using cplx = V; ///< The complex register type.
  using real = typename V::real_type; ///< Its real type.
  static constexpr int n_spin = NS; ///< Spin components per site.
  static constexpr int L = V::lanes; ///< Lanes per register.
  static constexpr int R = 2 * L; ///< Reals per stored complex entry (2 per lane).
  static constexpr bool unit_scale = true; ///< Loaded values need no further scale.
  T* p;    ///< [vsite][Nc][NS][R]
  N* norm; ///< [vsite][L]
  /// First stored integer of vector site `site`.
  KOKKOS_FORCEINLINE_FUNCTION T* base(int site) const { return p + std::size_t(site) * (Nc * NS * R); }
  /// Each lane's norm / half_scale in both halves of the lane.
  KOKKOS_FORCEINLINE_FUNCTION V unit(int site) const { return real(1.0f / half_scale) * V::load_pairs(norm + std::size_t(site) * L); }
  /// Loads the site's Nc x NS registers, scaled by each lane's norm.
  KOKKOS_FORCEINLINE_FUNCTION void load(int site, V s[Nc][NS]) const {
    const T* b = base(site);
    const V n = unit(site);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < NS; ++sp) s[c][sp] = V::scale_lanes(n, V::load_fixed16(b + (c * NS + sp) * R));
  }
  /// Colour c of the projection (SpinorAccessor::load_projected), scaled by each lane's norm.
  template <class Proj> KOKKOS_FORCEINLINE_FUNCTION real load_projected(int site, int c, V h[2]) const {
    const T* b = base(site) + c * NS * R;
    const V n = unit(site);
    project_spins<Proj>([&](int sp) { return V::load_fixed16(b + sp * R); }, h);
    for (int s = 0; s < 2; ++s) h[s] = V::scale_lanes(n, h[s]);
    return real(1);
  }
  /// Stores the site: each lane's largest magnitude as its norm, the reals in its units.
  KOKKOS_FORCEINLINE_FUNCTION void store(int site, const V s[Nc][NS]) const {
    V m = V::zero();
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < NS; ++sp) m = V::abs_max(s[c][sp], m);
    m = m.lane_max();
    // A zero site stores zeros (its scale stays finite).
    const V inv = real(half_scale) * V::reciprocal_lanes(V::abs_max(m, V::broadcast(real(1e-30f), real(1e-30f))));
    T* b = base(site);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < NS; ++sp) V::scale_lanes(inv, s[c][sp]).store_fixed16(b + (c * NS + sp) * R);
    real t[R];
    m.store(t);
    for (int i = 0; i < L; ++i) norm[std::size_t(site) * L + i] = t[2 * i];
  }
};

/// Site j of a SIMD-layout spinor (lane j % L of vector site j / L) as complex numbers in Real: the
/// conversions between layouts and precisions and the 16-bit BLAS (SpinorAccess). T: the stored
/// reals (const for reading); N: the norms of 16-bit storage (void without).
template <int L, class T, class N, class Real, int NS> struct LaneSiteAccessor {
  using cplx = Kokkos::complex<Real>; ///< Complex numbers in Real.
  static constexpr int n_spin = NS; ///< Spin components per site.
  static constexpr bool fixed_point = !std::is_void_v<N>; ///< Whether the storage is 16-bit (with norms).
  T* p; ///< The stored reals.
  N* norm = nullptr; ///< The per-site norms (16-bit storage).
  /// Index of the real part of (colour c, spin sp) of site j.
  KOKKOS_INLINE_FUNCTION std::size_t at(int j, int c, int sp) const {
    return ((std::size_t(j / L) * Nc + c) * NS + sp) * (2 * L) + 2 * (j % L);
  }
  /// Loads site j.
  KOKKOS_INLINE_FUNCTION void load(int j, cplx s[Nc][NS]) const {
    Real n = Real(1);
    if constexpr (fixed_point) n = Real(norm[j]) * Real(1.0f / half_scale);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < NS; ++sp) {
        const std::size_t k = at(j, c, sp);
        s[c][sp] = cplx(n * Real(p[k]), n * Real(p[k + 1]));
      }
  }
  /// Stores site j (16 bits: in units of its largest magnitude, stored as its norm).
  KOKKOS_INLINE_FUNCTION void store(int j, const cplx s[Nc][NS]) const {
    if constexpr (fixed_point) {
      Real m = Real(0);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) m = Kokkos::fmax(m, Kokkos::fmax(Kokkos::fabs(s[c][sp].real()), Kokkos::fabs(s[c][sp].imag())));
      const Real inv = m > Real(0) ? Real(1) / m : Real(0);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) {
          const std::size_t k = at(j, c, sp);
          p[k] = to_fixed16(float(s[c][sp].real() * inv));
          p[k + 1] = to_fixed16(float(s[c][sp].imag() * inv));
        }
      norm[j] = float(m);
    } else {
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) {
          const std::size_t k = at(j, c, sp);
          p[k] = T(s[c][sp].real());
          p[k + 1] = T(s[c][sp].imag());
        }
    }
  }
};

/// Accessor factory of SIMDSpinor.
template <class V, class ES, int NS> struct SpinorAccess<SIMDSpinor<V, ES, NS>> {
  using spinor_type = SIMDSpinor<V, ES, NS>; ///< The spinor type.
  using R = typename V::real_type; ///< Its stored real type.
  /// Accessor types reading and writing its sites in precision Real.
  ///@{
  template <class Real> using read_type = LaneSiteAccessor<V::lanes, const R, void, Real, NS>;
  template <class Real> using write_type = LaneSiteAccessor<V::lanes, R, void, Real, NS>;
  ///@}
  /// Accessors of the sites of s in precision Real.
  ///@{
  template <class Real, RowsOf<spinor_type> S> static read_type<Real> read(const S& s) { return {reinterpret_cast<const R*>(s.view().data())}; }
  template <class Real, RowsOf<spinor_type> S> static write_type<Real> write(const S& s) { return {reinterpret_cast<R*>(s.view().data())}; }
  ///@}
  static constexpr double site_bytes = double(sizeof(R)) * 2 * Nc * NS; ///< Bytes stored per site.
};
/// Accessor factory of SIMDHalfSpinor.
template <class V, class ES, int NS> struct SpinorAccess<SIMDHalfSpinor<V, ES, NS>> {
  using spinor_type = SIMDHalfSpinor<V, ES, NS>; ///< The spinor type.
  /// Accessor types reading and writing its sites in precision Real.
  ///@{
  template <class Real> using read_type = LaneSiteAccessor<V::lanes, const short, const float, Real, NS>;
  template <class Real> using write_type = LaneSiteAccessor<V::lanes, short, float, Real, NS>;
  ///@}
  /// Accessors of the sites of s in precision Real.
  ///@{
  template <class Real, RowsOf<spinor_type> S> static read_type<Real> read(const S& s) { return {s.view().data(), s.norm().data()}; }
  template <class Real, RowsOf<spinor_type> S> static write_type<Real> write(const S& s) { return {s.view().data(), s.norm().data()}; }
  ///@}
  static constexpr double site_bytes = 2.0 * 2 * Nc * NS + sizeof(float); ///< Bytes stored per site.
};

/// The SIMD-layout fields whose vector sites the hopping functor reads as registers: spinors,
/// blocks with a right-hand side per lane, and blocks of rows of vector sites.
template <class S> concept LaneSiteRows = requires(const S& s) {
  typename S::simd_type;
  s.lane_view();
};
namespace detail {
/// The lane accessor reading (read) or writing the vector sites of s.
template <bool read, class S> auto lane_accessor(const S& s) {
  using V = typename S::simd_type;
  using Real = std::conditional_t<read, const typename V::real_type, typename V::real_type>;
  if constexpr (S::has_norm) {
    using Short = std::conditional_t<read, const short, short>;
    using Norm = std::conditional_t<read, const float, float>;
    return SIMDHalfSpinorAccessor<V, Short, Norm, S::n_spin>{s.view().data(), s.norm().data()};
  } else {
    return SIMDSpinorAccessor<V, Real, S::n_spin>{s.lane_view().data()};
  }
}
} // namespace detail
/// The hopping functor's accessors of a SIMD-layout field (any LaneSiteRows): lane_reader / lane_writer.
///@{
template <LaneSiteRows S> auto lane_reader(const S& s) { return detail::lane_accessor<true>(s); }
template <LaneSiteRows S> auto lane_writer(const S& s) { return detail::lane_accessor<false>(s); }
///@}

namespace detail {
/// A register of reals stored as S: V's own, or 16-bit integers (as reals).
template <class V, class S> KOKKOS_FORCEINLINE_FUNCTION V load_stored(const S* p) {
  if constexpr (std::is_same_v<S, short>) return V::load_fixed16(p);
  else return V::load(p);
}
} // namespace detail

/// A hop matrix of a doubled SIMD gauge field: element (a, b) is one register, lane-aligned. Stored
/// whole or as two rows (Recon18, Recon12: whole_rows), an element is read, and an element of row 2
/// rebuilt, where the hop asks for it; stored otherwise (Recon8, and the U(3) reconstructions
/// Recon13 and Recon9 with their lanes' phases), the matrix is unpacked once (the specialisation
/// below). 16-bit links (Store = short) stay in units of the fixed point (scale: the hopping functor
/// folds it into each hop's reconstruction), the rebuilt third row rescaled once.
template <class V, class Recon = Recon18, class Store = typename V::real_type,
          bool unpacked = !Recon::whole_rows || Recon::group == LinkGroup::u3>
struct LaneLink {
  using real = typename V::real_type; ///< Real type of V.
  static constexpr int R = 2 * V::lanes; ///< Reals per stored element (2 per lane).
  static constexpr bool fixed_point = std::is_same_v<Store, short>; ///< Whether the links are 16-bit fixed point.
  static constexpr bool unit_scale = !fixed_point; ///< Whether elements need no scale (not fixed point).
  static_assert(Recon::pairs % Nc == 0, "rows of the hop matrix stored whole");
  static constexpr int rows = Recon::pairs / Nc; ///< Rows of the matrix stored (2 or 3).
  const Store* p; ///< [Recon::pairs][R]
  real scale = fixed_point ? real(1.0f / half_scale) : real(1); ///< Factor elements in fixed-point units are to be scaled by.
  /// Element (a, b) as stored (a < rows).
  KOKKOS_FORCEINLINE_FUNCTION V stored(int a, int b) const { return detail::load_stored<V>(p + (a * Nc + b) * R); }
  /// Element (a, b), the third row rebuilt if not stored.
  KOKKOS_FORCEINLINE_FUNCTION V element(int a, int b) const {
    if (rows == Nc || a < rows) return stored(a, b);
    const V r0[Nc] = {stored(0, 0), stored(0, 1), stored(0, 2)};
    const V r1[Nc] = {stored(1, 0), stored(1, 1), stored(1, 2)};
    if constexpr (fixed_point) return scale * detail::third_row_element(r0, r1, b);
    else return detail::third_row_element(r0, r1, b);
  }
  /// Element (a, b) times h.
  KOKKOS_FORCEINLINE_FUNCTION V mul(int a, int b, const V& h) const { return cmul(element(a, b), h); }
  /// Element (a, b) times h, plus c.
  KOKKOS_FORCEINLINE_FUNCTION V madd(int a, int b, const V& h, const V& c) const { return cmadd(element(a, b), h, c); }
};
/// Doubled SIMD links unpacked once per hop (Recon8, Recon13, Recon9): the stored registers decoded
/// (16-bit: by their ranges), the matrix rebuilt in registers; scale: the constant of U(3)
/// reconstructions (else 1).
template <class V, class Recon, class Store> struct LaneLink<V, Recon, Store, true> {
  using real = typename V::real_type; ///< Real type of V.
  static constexpr int R = 2 * V::lanes; ///< Reals per stored element (2 per lane).
  static constexpr bool unit_scale = Recon::group != LinkGroup::u3; ///< Whether elements need no scale.
  V U[Nc][Nc]; ///< The unpacked matrix.
  real scale; ///< Factor elements are to be scaled by.
  /// Unpacks the stored reals at p of a field stored divided by s.
  KOKKOS_FORCEINLINE_FUNCTION LaneLink(const Store* p, real s) : scale(s) {
    V packed[Recon::pairs];
    for (int k = 0; k < Recon::pairs; ++k) {
      packed[k] = detail::load_stored<V>(p + k * R);
      if constexpr (std::is_same_v<Store, short>) packed[k] = real(Recon::range(k) / half_scale) * packed[k];
    }
    Recon::unpack(packed, U);
  }
  /// Element (a, b) times h.
  KOKKOS_FORCEINLINE_FUNCTION V mul(int a, int b, const V& h) const { return cmul(U[a][b], h); }
  /// Element (a, b) times h, plus c.
  KOKKOS_FORCEINLINE_FUNCTION V madd(int a, int b, const V& h, const V& c) const { return cmadd(U[a][b], h, c); }
};
/// A hop matrix stored as Recon packs it, one complex number per stored pair, each element
/// broadcast to every lane: the links of a block whose lanes are right-hand sides of one site.
/// Recon18 reads an element where the hop asks for it; the others rebuild the matrix once per hop
/// in complex numbers (a site's lanes share it).
template <class V, class Recon = Recon18> struct BroadcastLink {
  using real = typename V::real_type; ///< Real type of V.
  using complex = Kokkos::complex<real>; ///< One element.
  static constexpr bool unit_scale = Recon::group != LinkGroup::u3; ///< Whether elements need no scale.
  complex U[Nc][Nc]; ///< The rebuilt matrix.
  real scale; ///< Factor elements are to be scaled by (the constant of U(3) reconstructions, else 1).
  /// Rebuilds the matrix from the Recon::pairs complex numbers at p of a field stored divided by s.
  KOKKOS_FORCEINLINE_FUNCTION BroadcastLink(const real* p, real s) : scale(s) {
    complex packed[Recon::pairs];
    for (int k = 0; k < Recon::pairs; ++k) packed[k] = complex(p[2 * k], p[2 * k + 1]);
    Recon::unpack(packed, U);
  }
  /// Element (a, b) times h.
  KOKKOS_FORCEINLINE_FUNCTION V mul(int a, int b, const V& h) const { return madd(a, b, h, V::zero()); }
  /// Element (a, b) times h, plus c.
  KOKKOS_FORCEINLINE_FUNCTION V madd(int a, int b, const V& h, const V& c) const {
    return V::madd_scalar(U[a][b].real(), U[a][b].imag(), h, c);
  }
};
/// Whole matrices: each element read where the hop asks for it.
template <class V> struct BroadcastLink<V, Recon18> {
  using real = typename V::real_type; ///< Real type of V.
  static constexpr bool unit_scale = true; ///< Elements need no scale.
  static constexpr real scale = real(1); ///< Factor elements are to be scaled by (1).
  const real* p; ///< [Nc][Nc][2]
  /// Element (a, b) times h.
  KOKKOS_FORCEINLINE_FUNCTION V mul(int a, int b, const V& h) const { return madd(a, b, h, V::zero()); }
  /// Element (a, b) times h, plus c.
  KOKKOS_FORCEINLINE_FUNCTION V madd(int a, int b, const V& h, const V& c) const {
    const real* e = p + 2 * (a * Nc + b);
    return V::madd_scalar(e[0], e[1], h, c);
  }
};
/// The hopping functor's gauge accessor of a doubled field (LaneLinks) of L lanes per element
/// stored as Recon packs it: lane-aligned registers (L = V::lanes) or broadcast links (L = 1, in
/// V's precision).
template <class V, int L, class Recon = Recon18, class Store = typename V::real_type> struct DoubledLinkAccessor {
  using real = typename V::real_type; ///< Real type of V.
  static_assert(L > 1 || std::is_same_v<Store, real>, "broadcast links are stored in the arithmetic precision");
  /// The hop matrix: broadcast (L = 1) or lane-aligned.
  using link_type = std::conditional_t<L == 1, BroadcastLink<V, Recon>, LaneLink<V, Recon, Store>>;
  static constexpr bool doubled = true; ///< Each site stores the matrices of its forward and backward hops.
  const Store* p; ///< [site][2 Nd][Recon::pairs][2 L]
  real scale = real(1); ///< The matrices are stored divided by it (LinkField::scale).
  /// The matrix of the hop from site in direction dir along mu.
  template <int mu, int dir> KOKKOS_FORCEINLINE_FUNCTION link_type hop_link(int site) const {
    const Store* q = p + (std::size_t(site) * (2 * Nd) + 2 * mu + (dir > 0 ? 0 : 1)) * (Recon::pairs * 2 * L);
    if constexpr (L > 1 && Recon::whole_rows && Recon::group != LinkGroup::u3) {
      // Whole 16-bit matrices carry the field's range; SU(3) rows are stored as they are.
      if constexpr (std::is_same_v<Store, short> && Recon::group == LinkGroup::any) return link_type{q, real(scale * (1.0 / half_scale))};
      else return link_type{q};
    } else if constexpr (L == 1 && std::is_same_v<Recon, Recon18>) {
      return link_type{q};
    } else {
      return link_type(q, scale);
    }
  }
};

/// The doubled, lane-interleaved storage of links (LinkField's policy; see the top of this file) on
/// a SIMDGeometry: each vector site of a target parity stores the 2 Nd matrices of its hops, lane
/// `lane` of each element that of the site in that lane, forward U_mu(x) (index 2 mu) and backward
/// U_mu(x - hop mu)^dag (2 mu + 1), as Recon packs them; Store: V's reals or 16-bit fixed point
/// (short: value / Recon::range, as SiteLinks' 16-bit pairs). Hops of `hop` sites (1, or 3 for long
/// links). One lane (V = a one-lane register) serves blocks whose lanes are right-hand sides.
template <class V, class ExecSpace, class Recon = Recon18, class Store = typename V::real_type> struct LaneLinks {
  using execution_space = ExecSpace; ///< Where the links are read.
  using pack_space = Kokkos::DefaultHostExecutionSpace; ///< Where they are packed.
  using recon_type = Recon; ///< How each matrix is stored.
  using shape_type = SIMDGeometry; ///< What the links are laid out on.
  static constexpr int lanes = V::lanes; ///< Lanes per vector site.
  static constexpr int pairs = Recon::pairs; ///< Complex numbers stored per matrix.
  /// [vsite][2 Nd hops][pairs][2 lanes reals] of one target parity.
  using view_type = Kokkos::View<Store* [2 * Nd][pairs][2 * lanes], Kokkos::LayoutRight, Kokkos::HostSpace>;
  static constexpr double bytes_per_link = 2.0 * pairs * sizeof(Store); ///< Bytes stored per matrix and lane.
  static constexpr bool fixed_point = std::is_same_v<Store, short>; ///< Whether the links are 16-bit fixed point.

  /// The lattice of geometry g.
  static const Lattice& lattice(const SIMDGeometry& g) { return g.global(); }
  /// Vector sites stored per parity.
  static int sites(const SIMDGeometry& g) { return g.vsites(); }
  /// Throws unless hops of `hop` sites can be stored (1 or 3) on a host backend with the storage's lanes.
  static void check(const SIMDGeometry& g, int hop) {
    detail::require_host_space<ExecSpace>();
    if (hop != 1 && hop != 3) throw invalid_argument("doubled SIMD links: hops of 1 or 3 sites, found " + std::to_string(hop));
    if (g.lanes() != lanes)
      throw invalid_argument("doubled SIMD links: geometry of " + std::to_string(g.lanes()) + " lanes, storage of " + std::to_string(lanes));
  }
  /// Storage of one target parity.
  static view_type allocate(const SIMDGeometry& g, int) { return view_type("simd_gauge", sites(g)); }
  /// The reader of one parity's links for a site functor computing in registers W (W's lanes: the
  /// storage's, or broadcast from one lane).
  template <class W> static DoubledLinkAccessor<W, lanes, Recon, Store> reader(const view_type& v, double scale) {
    return {v.data(), typename W::real_type(scale)};
  }

  /// Gathers the hop matrices of the sites of target parity p and stores them doubled.
  template <class SrcView> struct Packer {
    static constexpr int matrices = 2 * Nd * lanes; ///< Matrices per vector site: each lane's 2 Nd hops.
    SrcView fwd; ///< The links of parity p.
    SrcView bwd; ///< The links of the other parity.
    SIMDGeometry g; ///< The layout.
    int p; ///< The target parity.
    int hop; ///< Sites per hop.
    view_type dst; ///< The storage.
    /// U = matrix k of vector site vs (lane k / (2 Nd), hop k % (2 Nd)). Every on-rank link is some
    /// site's forward hop: a backward hop counts in the SU(3) check only from the ghost zone.
    KOKKOS_INLINE_FUNCTION bool gather(int vs, int k, Kokkos::complex<double> U[Nc][Nc]) const {
      const Lattice& lat = g.global();
      const int lane = k / (2 * Nd), mu = (k % (2 * Nd)) / 2;
      const int xs = lat.cb_index(g.coords(vs, lane, p));
      if (k % 2 == 0) {
        for (int a = 0; a < Nc; ++a)
          for (int b = 0; b < Nc; ++b) U[a][b] = Kokkos::complex<double>(fwd(xs, mu, a, b).real(), fwd(xs, mu, a, b).imag());
        return true;
      }
      const int ys = hop == 1 ? detail::compute_neighbour(lat, xs, p, mu, -1).index : detail::compute_far_neighbour(lat, xs, p, mu, -hop).index;
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) U[a][b] = Kokkos::complex<double>(bwd(ys, mu, b, a).real(), -bwd(ys, mu, b, a).imag());
      return ys >= lat.cb_volume();
    }
    /// Stores the packed pairs q of matrix k of vector site vs in its lane.
    KOKKOS_INLINE_FUNCTION void store(int vs, int k, const Kokkos::complex<double> q[pairs]) const {
      const int lane = k / (2 * Nd), h = k % (2 * Nd);
      for (int j = 0; j < pairs; ++j) {
        if constexpr (std::is_same_v<Store, short>) {
          dst(vs, h, j, 2 * lane) = to_fixed16(float(q[j].real()) / Recon::range(j));
          dst(vs, h, j, 2 * lane + 1) = to_fixed16(float(q[j].imag()) / Recon::range(j));
        } else {
          dst(vs, h, j, 2 * lane) = Store(q[j].real());
          dst(vs, h, j, 2 * lane + 1) = Store(q[j].imag());
        }
      }
    }
  };
  /// The packer of target parity p of u into d.
  template <class GT> static auto packer(const GaugeField<GT, ExecSpace>& u, const SIMDGeometry& g, const view_type& d, int p, int hop) {
    return Packer<typename CBGaugeField<GT, ExecSpace>::view_type>{u[p].view(), u[1 - p].view(), g, p, hop, d};
  }
};

/// The SIMD layout's boundary crossing (SiteTable's policy: SiteTable<mode, ES, LaneCrossing<V>>
/// holds the neighbours of the vector sites and their lane exchanges): the sites are the vector
/// sites of a SIMD geometry, and a hop across the sub-lattice boundary exchanges lanes in a split
/// dimension, then multiplies by the boundary phase on the lanes whose hop crosses the global
/// boundary (all lanes in an unsplit dimension; in a split one, the upper half forward and the
/// lower half backward).
template <class V> struct LaneCrossing {
  using real_type = typename V::real_type; ///< Real type of V.
  Lattice lattice; ///< The vector sites (SIMDGeometry::local()).
  /// The crossing of geometry g with boundary phases bc.
  LaneCrossing(const SIMDGeometry& g, const BoundaryPhases& bc) : lattice(g.local()) {
    for (int mu = 0; mu < Nd; ++mu) {
      level_[mu] = g.level(mu);
      const Kokkos::complex<double> b = bc.b[mu];
      has_phase_[mu] = !(b == Kokkos::complex<double>(1.0));
      for (int lane = 0; lane < V::lanes; ++lane) {
        const bool split = level_[mu] >= 0;
        const bool fwd = !split || g.lane_coord(lane, mu) == 1, bwd = !split || g.lane_coord(lane, mu) == 0;
        const Kokkos::complex<double> pf = fwd ? b : 1.0, pb = bwd ? Kokkos::conj(b) : 1.0;
        phase_[mu][0][2 * lane] = real_type(pf.real());
        phase_[mu][0][2 * lane + 1] = real_type(pf.imag());
        phase_[mu][1][2 * lane] = real_type(pb.real());
        phase_[mu][1][2 * lane + 1] = real_type(pb.imag());
      }
    }
  }
  /// What a hop across the sub-lattice boundary does to h: lane exchange, then boundary phase.
  template <int mu, int dir, class Real, int n> KOKKOS_FORCEINLINE_FUNCTION void cross(V (&h)[n]) const {
    if (level_[mu] >= 0)
      for (int s = 0; s < n; ++s) h[s] = h[s].swap_blocks(level_[mu]);
    if (has_phase_[mu]) {
      const V ph = V::load(phase_[mu][dir > 0 ? 0 : 1]);
      for (int s = 0; s < n; ++s) h[s] = cmul(ph, h[s]);
    }
  }

private:
  int level_[Nd];
  bool has_phase_[Nd];
  real_type phase_[Nd][2][2 * V::lanes];
};

/// Packed Hermitian 6x6 blocks of one parity (the clover term and its inverses: two per site, the
/// [site][2][36] packing of kernels/local_terms.hpp) in the SIMD layout: [vsite][2][21 slots][2 lanes
/// reals], slot i < 6 the real diagonal entry i in both halves of each lane (one multiply scales a
/// lane's complex number), slot 6 + i (i - 1) / 2 + j the complex entry (i, j), i > j.
/// Store = short keeps each block of each lane in 16-bit fixed point, in units of its own largest
/// magnitude: unit() = [vsite][2][lanes] holds that magnitude / half_scale (the 16-bit operators'
/// blocks: half the bytes of float lanes).
template <class V, class ExecSpace, class Store = typename V::real_type> class SIMDHermitianBlocks {
public:
  using real_type = typename V::real_type; ///< Arithmetic precision.
  using store_type = Store; ///< The stored real type.
  static constexpr bool fixed_point = std::is_same_v<Store, short>; ///< Whether the entries are 16-bit fixed point.
  static constexpr int lanes = V::lanes; ///< Lanes per vector site.
  static constexpr int slots = 21; ///< Slots per block: 6 diagonal, 15 off-diagonal.
  /// [vsite][2 blocks][slots][2 lanes reals].
  using view_type = Kokkos::View<Store* [2][slots][2 * lanes], Kokkos::LayoutRight, Kokkos::HostSpace>;
  /// Each block's unit, [vsite][2 blocks][lanes] (fixed point).
  using unit_type = Kokkos::View<real_type* [2][lanes], Kokkos::LayoutRight, Kokkos::HostSpace>;

  SIMDHermitianBlocks() = default;
  /// packed: the blocks of the sites of `parity` in the plain checkerboard order.
  template <class PackedView>
  SIMDHermitianBlocks(const PackedView& packed, const SIMDGeometry& g, int parity)
      : data_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "simd_hermitian_blocks"), g.vsites()),
        unit_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "simd_hermitian_units"), fixed_point ? g.vsites() : 0) {
    detail::require_host_space<ExecSpace>();
    if (packed.extent(0) != std::size_t(g.global().cb_volume()))
      throw invalid_argument("SIMDHermitianBlocks: " + std::to_string(packed.extent(0)) + " packed sites, expected " +
                             std::to_string(g.global().cb_volume()) + " (one parity of " + g.global().to_string() + ")");
    if constexpr (fixed_point) {
      // One rounding rule for 16-bit blocks: HalfHermitianBlocks', its entries and units moved into lanes.
      const HalfHermitianBlocks<ExecSpace> half(packed);
      const unit_type u = unit_;
      const auto units = half.unit();
      scatter(half.view(), g, parity, [=](int vs, int lane, int site, int b) { u(vs, b, lane) = units(site, b); });
    } else scatter(packed, g, parity, [](int, int, int, int) {});
  }
  /// The blocks.
  const view_type& view() const { return data_; }
  /// Each block's unit (fixed point only; empty otherwise).
  const unit_type& unit() const { return unit_; }
  /// Bytes stored.
  double memory_bytes() const { return double(data_.span()) * sizeof(Store) + double(unit_.span()) * sizeof(real_type); }

private:
  /// Entry k of each block of src (the plain checkerboard order) into its slot and lane; unit(vsite,
  /// lane, site, block) for whatever else a block carries.
  template <class Source, class Unit> void scatter(const Source& src, const SIMDGeometry& g, int parity, const Unit& unit) {
    const view_type d = data_;
    Kokkos::parallel_for("kqcd::SIMDHermitianBlocks", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, g.vsites()),
                         [=](int vs) {
                           for (int lane = 0; lane < lanes; ++lane) {
                             const int site = g.global().cb_index(g.coords(vs, lane, parity));
                             for (int b = 0; b < 2; ++b) {
                               unit(vs, lane, site, b);
                               for (int i = 0; i < 6; ++i) d(vs, b, i, 2 * lane) = d(vs, b, i, 2 * lane + 1) = Store(src(site, b, i));
                               for (int k = 0; k < 15; ++k) {
                                 d(vs, b, 6 + k, 2 * lane) = Store(src(site, b, 6 + 2 * k));
                                 d(vs, b, 6 + k, 2 * lane + 1) = Store(src(site, b, 7 + 2 * k));
                               }
                             }
                           }
                         });
    Kokkos::fence();
  }
  view_type data_;
  unit_type unit_;
};

/// The site-local policies' block accessor (kernels/local_terms.hpp, detail::hermitian6_mv) of
/// SIMDHermitianBlocks: lane-aligned registers. In 16 bits each entry is scaled by its block's unit
/// as read; the block product instead multiplies integer-valued entries and scales its 6 results
/// once (unscaled(), block_unit()).
template <class V, class Store = typename V::real_type, bool scaled = true> struct LaneHermitianBlocks {
  using real = typename V::real_type; ///< Real type of V.
  static constexpr bool block_accessor = true; ///< Marks a block accessor (detail::hermitian6_mv).
  static constexpr bool fixed_point = std::is_same_v<Store, short>; ///< Whether the entries are 16-bit fixed point.
  static constexpr int R = 2 * V::lanes; ///< Reals per slot (2 per lane).
  const Store* p;              ///< [vsite][2][21][R]
  const real* units = nullptr; ///< [vsite][2][lanes] (fixed point)
  /// First stored real of slot k of block (site, b).
  KOKKOS_FORCEINLINE_FUNCTION const Store* slot(int site, int b, int k) const {
    return p + ((std::size_t(site) * 2 + b) * 21 + k) * R;
  }
  /// Each lane's unit of block (site, b) in both halves of the lane.
  KOKKOS_FORCEINLINE_FUNCTION V block_unit(int site, int b) const {
    return V::load_pairs(units + (std::size_t(site) * 2 + b) * V::lanes);
  }
  /// Slot k of block (site, b) as a register (scaled by its unit unless unscaled).
  KOKKOS_FORCEINLINE_FUNCTION V entry(int site, int b, int k) const {
    if constexpr (!fixed_point) return V::load(slot(site, b, k));
    else if constexpr (scaled) return V::scale_lanes(block_unit(site, b), V::load_fixed16(slot(site, b, k)));
    else return V::load_fixed16(slot(site, b, k));
  }
  /// The same blocks read as the stored integers (a block product scales its results by block_unit).
  KOKKOS_FORCEINLINE_FUNCTION LaneHermitianBlocks<V, Store, false> unscaled() const
    requires(fixed_point && scaled)
  {
    return {p, units};
  }
  /// Diagonal entry i in both halves of each lane (a real scale for V::scale_lanes).
  KOKKOS_FORCEINLINE_FUNCTION V diag(int site, int b, int i) const { return entry(site, b, i); }
  /// Diagonal entry i times v.
  KOKKOS_FORCEINLINE_FUNCTION V diag_mul(int site, int b, int i, const V& v) const { return V::scale_lanes(diag(site, b, i), v); }
  /// Off-diagonal entry (i, j), i > j.
  template <class C = V> KOKKOS_FORCEINLINE_FUNCTION V offdiag(int site, int b, int i, int j) const {
    return entry(site, b, 6 + i * (i - 1) / 2 + j);
  }
};
/// The site-local policies' accessor of SIMDHermitianBlocks.
template <class V, class ES, class Store> LaneHermitianBlocks<V, Store> block_reader(const SIMDHermitianBlocks<V, ES, Store>& b) {
  return {b.view().data(), b.unit().data()};
}

/// Copy an ordinary checkerboarded spinor into a SIMD-layout spinor S (same parity and lattice;
/// 16-bit storage rounds each site to its own norm).
template <class S, class ExecSpace, class ST, int NS>
  requires requires(const S& s) { s.geometry(); SpinorAccess<S>::site_bytes; } && (S::n_spin == NS)
void to_simd(S& out, const CBSpinor<ST, NS, ExecSpace>& in) {
  const SIMDGeometry g = out.geometry();
  if (!(in.lattice() == g.global()) || in.parity() != out.parity())
    throw invalid_argument("to_simd: spinor on parity " + std::to_string(in.parity()) + " of " + in.lattice().to_string() +
                           ", SIMD spinor on parity " + std::to_string(out.parity()) + " of " + g.global().to_string());
  using R = typename ST::value_type;
  const auto s = in.view();
  const auto w = SpinorAccess<S>::template write<R>(out);
  constexpr int L = S::lanes;
  const int p = out.parity();
  Kokkos::parallel_for("kqcd::to_simd", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, g.vsites()), [=](int vs) {
    for (int lane = 0; lane < L; ++lane) {
      const int site = g.global().cb_index(g.coords(vs, lane, p));
      Kokkos::complex<R> v[Nc][NS];
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) v[c][sp] = Kokkos::complex<R>(s(site, c, sp).real(), s(site, c, sp).imag());
      w.store(vs * L + lane, v);
    }
  });
  Kokkos::fence();
}

/// Copy a SIMD-layout spinor back into an ordinary checkerboarded spinor.
template <class S, class ExecSpace, class ST, int NS>
  requires requires(const S& s) { s.geometry(); SpinorAccess<S>::site_bytes; } && (S::n_spin == NS)
void from_simd(CBSpinor<ST, NS, ExecSpace>& out, const S& in) {
  const SIMDGeometry g = in.geometry();
  if (!(out.lattice() == g.global()) || in.parity() != out.parity())
    throw invalid_argument("from_simd: SIMD spinor on parity " + std::to_string(in.parity()) + " of " +
                           g.global().to_string() + ", spinor on parity " + std::to_string(out.parity()) + " of " +
                           out.lattice().to_string());
  using R = typename ST::value_type;
  const auto r = SpinorAccess<S>::template read<R>(in);
  const auto d = out.view();
  constexpr int L = S::lanes;
  const int p = in.parity();
  Kokkos::parallel_for("kqcd::from_simd", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, g.vsites()), [=](int vs) {
    for (int lane = 0; lane < L; ++lane) {
      const int site = g.global().cb_index(g.coords(vs, lane, p));
      Kokkos::complex<R> v[Nc][NS];
      r.load(vs * L + lane, v);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < NS; ++sp) d(site, c, sp) = ST(v[c][sp].real(), v[c][sp].imag());
    }
  });
  Kokkos::fence();
}

/// Both parities of a spinor in the SIMD layout (the full operators' vectors).
template <class V, class ExecSpace, int NS = Ns> using SIMDSpinorField = FullSpinor<SIMDSpinor<V, ExecSpace, NS>>;

/// The same conversions for both parities.
template <class V, class ExecSpace, class ST, int NS>
void to_simd(SIMDSpinorField<V, ExecSpace, NS>& out, const SpinorField<ST, NS, ExecSpace>& in) {
  for (int p = 0; p < 2; ++p) to_simd(out[p], in[p]);
}
/// Copies a SIMD-layout spinor into the plain layout.
template <class V, class ExecSpace, class ST, int NS>
void from_simd(SpinorField<ST, NS, ExecSpace>& out, const SIMDSpinorField<V, ExecSpace, NS>& in) {
  for (int p = 0; p < 2; ++p) from_simd(out[p], in[p]);
}

/// convert_sites (fields/spinor_access.hpp) into and out of the SIMD layout: the generic
/// import_spinor, export_spinor and random_spinor of other storages reach the lanes through these.
template <class S, class ExecSpace, class ST, int NS>
  requires requires(const S& s) { s.geometry(); } && (S::n_spin == NS)
void convert_sites(S& out, const CBSpinor<ST, NS, ExecSpace>& in) {
  to_simd(out, in);
}
/// Copies the sites of SIMD-layout spinor in into a plain CBSpinor.
template <class S, class ExecSpace, class ST, int NS>
  requires requires(const S& s) { s.geometry(); } && (S::n_spin == NS)
void convert_sites(CBSpinor<ST, NS, ExecSpace>& out, const S& in) {
  from_simd(out, in);
}

/// dst = src between two SIMD-layout spinors, or blocks of rows of vector sites, of the same lattice
/// and parity (other lanes, split, precision or 16-bit storage): each site moves to its vector site
/// and lane in dst's geometry, every row of a block with it.
template <class Dst, class Src> void convert_layout(Dst& dst, const Src& src) {
  const SIMDGeometry gd = dst.geometry(), gs = src.geometry();
  if (!(gd.global() == gs.global()) || dst.parity() != src.parity())
    throw invalid_argument("convert_layout: SIMD spinor on parity " + std::to_string(src.parity()) + " of " +
                           gs.global().to_string() + " into one on parity " + std::to_string(dst.parity()) + " of " +
                           gd.global().to_string());
  static_assert(Dst::n_spin == Src::n_spin, "convert_layout: the spinors differ in spin components");
  int n = 1; // rows per vector site
  if constexpr (requires { dst.n_rhs(); src.n_rhs(); }) {
    n = dst.n_rhs();
    if (src.n_rhs() != n)
      throw invalid_argument("convert_layout: blocks of " + std::to_string(src.n_rhs()) + " and " + std::to_string(n) + " rows");
  }
  const auto r = SpinorAccess<Src>::template read<double>(src);
  const auto w = SpinorAccess<Dst>::template write<double>(dst);
  constexpr int LD = Dst::lanes, LS = Src::lanes;
  const int p = dst.parity();
  Kokkos::parallel_for("kqcd::convert_layout", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, gd.vsites()), [=](int vs) {
    for (int lane = 0; lane < LD; ++lane) {
      int svs, slane;
      gs.locate(gd.coords(vs, lane, p), svs, slane);
      for (int k = 0; k < n; ++k) {
        Kokkos::complex<double> v[Nc][Src::n_spin];
        r.load((svs * n + k) * LS + slane, v);
        w.store((vs * n + k) * LD + lane, v);
      }
    }
  });
  Kokkos::fence();
}

} // namespace kqcd
