// SiteTable: neighbours of checkerboard sites and what a hop does when it crosses the lattice
// boundary. NeighbourMode::table precomputes the 8 one-site neighbours of every site (longer hops,
// e.g. the three-site hops of the Naik term, are computed); NeighbourMode::on_the_fly computes them
// from the coordinates (less memory traffic, more integer work). Both give identical results.
// Off-rank neighbours of a distributed lattice are ghost-zone indices (>= cb_volume()), so the
// kernels read them like any other site. The crossing is a policy: a boundary phase on a site per
// thread (detail::BoundaryData), or on the virtual-node SIMD layout a lane exchange and per-lane
// phases (LaneCrossing, fields/simd_fields.hpp), the sites then being vector sites.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/boundary.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kqcd {

/// A neighbour's index and whether the hop crossed the lattice boundary.
struct Neighbour {
  int index;    ///< checkerboard index on the opposite parity
  bool crossed; ///< the hop crosses the lattice boundary
};

namespace detail {
template <class ExecSpace> struct BoundaryData;
} // namespace detail

/// The neighbours (mode) and the boundary crossing (Crossing: built from the geometry and the
/// boundary phases; its member `lattice` is the lattice of the sites indexed).
template <NeighbourMode mode, class ExecSpace, class Crossing = detail::BoundaryData<ExecSpace>> class SiteTable;

/// The sites of one parity a sweep visits, entry k -> site: a run of consecutive sites from `first`
/// that continues at site 0 after site wrap - 1, or a list on the device. The interior and exterior
/// of a lattice split along its slowest direction are runs (the exterior wraps), which a kernel
/// reads without the list's extra load; other splits and reorderings are lists. Default: entry k
/// is site k.
template <class MemorySpace> struct SweepSites {
  Kokkos::View<const int*, MemorySpace> list; ///< The sites, where use_list.
  int first = 0;          ///< The run's first site.
  int wrap = 0;           ///< Sites of the parity (where the run wraps to 0).
  int count = 0;          ///< Entries of the sweep.
  bool use_list = false;  ///< Whether the sites come from list.
  /// The site of entry k.
  KOKKOS_FORCEINLINE_FUNCTION int operator()(int k) const {
    if (use_list) return list(k);
    const int s = first + k;
    return s < wrap ? s : s - wrap;
  }
  /// Every site of a parity of n sites, in index order.
  static SweepSites all(int n) { return {{}, 0, n, n, false}; }
  /// A sweep over `sites` (distinct, each below n) in their order: a run where, read from their
  /// start or from their first gap on and around, they are consecutive sites (the run visits them
  /// in that order), else the list copied to the device.
  static SweepSites of(const std::vector<int>& sites, int n, const std::string& label) {
    SweepSites s{{}, 0, n, int(sites.size()), false};
    if (sites.empty()) return s;
    const std::size_t m = sites.size();
    const auto run_from = [&](std::size_t j) {
      for (std::size_t i = 0; i < m; ++i)
        if (sites[(j + i) % m] != (sites[j] + int(i)) % n) return false;
      return true;
    };
    std::size_t gap = 0; // the first entry that does not follow its predecessor
    for (std::size_t i = 1; i < m && gap == 0; ++i)
      if (sites[i] != sites[i - 1] + 1) gap = i;
    for (const std::size_t j : {std::size_t(0), gap})
      if (run_from(j)) {
        s.first = sites[j];
        return s;
      }
    Kokkos::View<int*, MemorySpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), sites.size());
    auto h = Kokkos::create_mirror_view(d);
    for (std::size_t i = 0; i < sites.size(); ++i) h(i) = sites[i];
    Kokkos::deep_copy(d, h);
    s.list = d;
    s.use_list = true;
    return s;
  }
};

namespace detail {
/// The neighbour of site (cb_site, parity) in direction mu, forward (dir = +1) or backward. On a
/// split direction a hop off the sub-lattice lands in the ghost zone (lattice.hpp), and `crossed`
/// marks only hops across the global boundary.
/// On-rank neighbours are the site's index plus a step (32-bit integer work, no index rebuilt from
/// coordinates): the index is x/2 + (Lx/2) (y + Ly (z + Lz t)), so a hop in mu > 0 moves it by the
/// stride of mu (minus (L - 1) strides when it wraps), and a hop in x by 0 or 1 depending on x's parity.
KOKKOS_INLINE_FUNCTION Neighbour compute_neighbour(const Lattice& lat, int cb_site, int parity, int mu, int dir) {
  const Coords c = lat.cb_coords(cb_site, parity);
  const int L = lat.dim(mu);
  const int x = c.x[mu] + dir;
  const int half_x = lat.dim(0) / 2;
  int stride = half_x;
  for (int nu = 1; nu < mu; ++nu) stride *= lat.dim(nu);
  if (x >= 0 && x < L) {
    const int odd = c.x[0] & 1;
    return {cb_site + (mu > 0 ? dir * stride : dir > 0 ? odd : odd - 1), false};
  }
  const int side = x < 0 ? 1 : 0;
  const bool crossed = side == 0 ? lat.grid_coord(mu) == lat.grid(mu) - 1 : lat.grid_coord(mu) == 0;
  if (lat.partitioned(mu)) return {lat.cb_volume() + lat.ghost_offset(mu, side) + lat.face_index(c, mu), crossed};
  return {cb_site - dir * (mu > 0 ? (L - 1) * stride : half_x - 1), crossed};
}

/// The neighbour |dir| sites along mu (any distance up to the ghost depth, e.g. the three-site hops
/// of the Naik term): the index rebuilt from the coordinates; a hop off a split direction lands in
/// layer |x_mu - edge| of the ghost zone (lattice.hpp).
KOKKOS_INLINE_FUNCTION Neighbour compute_far_neighbour(const Lattice& lat, int cb_site, int parity, int mu, int dir) {
  Coords c = lat.cb_coords(cb_site, parity);
  const int L = lat.dim(mu);
  const int x = c.x[mu] + dir;
  if (x >= 0 && x < L) {
    c.x[mu] = x;
    return {lat.cb_index(c), false};
  }
  const int side = x < 0 ? 1 : 0;
  const bool crossed = side == 0 ? lat.grid_coord(mu) == lat.grid(mu) - 1 : lat.grid_coord(mu) == 0;
  if (lat.partitioned(mu)) {
    const int layer = side == 0 ? x - L : -1 - x;
    return {lat.cb_volume() + lat.ghost_offset(mu, side) + layer * lat.face_sites(mu) + lat.face_index(c, mu), crossed};
  }
  c.x[mu] = ((x % L) + L) % L;
  return {lat.cb_index(c), crossed};
}

/// The checkerboard sites of a local lattice in slabs of up to 4 x 4 (z, t) slices, slab by slab, each
/// slab in index order (empty where z and t allow no slab wider than one slice: the index order
/// itself). A block of right-hand sides reads a source site from its z- and t-neighbours; in index
/// order the t-neighbours are a whole 3-volume apart, which for large blocks exceeds a GPU's L2, so
/// the second read would come from memory again.
inline std::vector<int> tiled_site_order(const Lattice& lat) {
  const auto tile = [](int L) { return L % 4 == 0 ? 4 : L % 2 == 0 ? 2 : 1; };
  const int slice = lat.dim(0) / 2 * lat.dim(1), Lz = lat.dim(2), Lt = lat.dim(3);
  const int bz = tile(Lz), bt = tile(Lt);
  if (bz * bt == 1 || (bz == Lz && bt == Lt)) return {};
  std::vector<int> order;
  order.reserve(std::size_t(lat.cb_volume()));
  for (int t0 = 0; t0 < Lt; t0 += bt)
    for (int z0 = 0; z0 < Lz; z0 += bz)
      for (int t = t0; t < t0 + bt; ++t)
        for (int z = z0; z < z0 + bz; ++z)
          for (int i = 0; i < slice; ++i) order.push_back((t * Lz + z) * slice + i);
  return order;
}

/// A hop across the boundary multiplies by the boundary phase (one site per thread).
template <class ExecSpace> struct BoundaryData {
  Lattice lattice; ///< The sites indexed.
  Kokkos::complex<double> phase[Nd]; ///< forward phase b_mu; backward uses conj(b_mu)
  explicit BoundaryData(const Lattice& lat, const BoundaryPhases& bc) : lattice(lat) {
    for (int mu = 0; mu < Nd; ++mu) phase[mu] = bc.b[mu];
  }
  /// The phase a hop in direction (mu, dir) picks up when it crosses the boundary: b_mu forward,
  /// conj(b_mu) backward.
  template <int mu, int dir, class Real> KOKKOS_FORCEINLINE_FUNCTION Kokkos::complex<Real> crossing_phase() const {
    return {Real(phase[mu].real()), Real(dir > 0 ? phase[mu].imag() : -phase[mu].imag())};
  }
  /// A hop in direction (mu, dir) crossed the boundary: the n components of h pick up its phase.
  template <int mu, int dir, class Real, class C, int n> KOKKOS_FORCEINLINE_FUNCTION void cross(C (&h)[n]) const {
    const Kokkos::complex<Real> ph = crossing_phase<mu, dir, Real>();
    for (int s = 0; s < n; ++s) h[s] = cmul(ph, h[s]);
  }
};
} // namespace detail

/// Neighbours computed from the site index on the fly.
template <class ExecSpace, class Crossing> class SiteTable<NeighbourMode::on_the_fly, ExecSpace, Crossing> : public Crossing {
/// @cond
public:
  static constexpr NeighbourMode mode = NeighbourMode::on_the_fly;
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  template <class Geometry> SiteTable(const Geometry& g, const BoundaryPhases& bc) : Crossing(g, bc) {}
  template <int mu, int dir> KOKKOS_INLINE_FUNCTION Neighbour neighbour(int cb_site, int parity) const {
    if constexpr (dir == 1 || dir == -1) return detail::compute_neighbour(this->lattice, cb_site, parity, mu, dir);
    else return detail::compute_far_neighbour(this->lattice, cb_site, parity, mu, dir);
  }
};
/// @endcond

/// Neighbours read from a precomputed table.
template <class ExecSpace, class Crossing> class SiteTable<NeighbourMode::table, ExecSpace, Crossing> : public Crossing {
/// @cond
public:
  static constexpr NeighbourMode mode = NeighbourMode::table;
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  // Neighbour index in bits 0..30, boundary crossing in bit 31: one load per hop.
  using table_view = Kokkos::View<std::uint32_t* [2 * Nd], Kokkos::LayoutRight, typename ExecSpace::memory_space>;

  template <class Geometry> SiteTable(const Geometry& g, const BoundaryPhases& bc) : Crossing(g, bc) {
    for (int p = 0; p < 2; ++p) table_[p] = build(this->lattice, p);
  }
  /// The neighbour table of the sites of one parity.
  static table_view build(const Lattice& lat, int p) {
    table_view t(Kokkos::view_alloc(Kokkos::WithoutInitializing, "site_table"), lat.cb_volume());
    Kokkos::parallel_for("kqcd::SiteTable::build", Kokkos::RangePolicy<ExecSpace>(0, lat.cb_volume()), TableRow{lat, p, t});
    return t;
  }
  /// Row s of the table (a functor rather than a KOKKOS_LAMBDA: see linalg/blas.hpp).
  struct TableRow {
    Lattice lat;
    int p;
    table_view t;
    KOKKOS_FUNCTION void operator()(int s) const {
      for (int mu = 0; mu < Nd; ++mu)
        for (int d = 0; d < 2; ++d) {
          const Neighbour n = detail::compute_neighbour(lat, s, p, mu, d == 0 ? 1 : -1);
          t(s, 2 * mu + d) = std::uint32_t(n.index) | (n.crossed ? 0x80000000u : 0u);
        }
    }
  };
  // One-site hops from the table, longer ones computed.
  template <int mu, int dir> KOKKOS_INLINE_FUNCTION Neighbour neighbour(int cb_site, int parity) const {
    if constexpr (dir == 1 || dir == -1) {
      // A select, not an index: a kernel's run-time parity never indexes its argument's array.
      const std::uint32_t e = (parity == 0 ? table_[0] : table_[1])(cb_site, 2 * mu + (dir > 0 ? 0 : 1));
      return {int(e & 0x7fffffffu), (e & 0x80000000u) != 0};
    } else {
      return detail::compute_far_neighbour(this->lattice, cb_site, parity, mu, dir);
    }
  }

private:
  table_view table_[2];
};
/// @endcond

} // namespace kqcd
