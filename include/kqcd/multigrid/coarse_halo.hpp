// The halo of a coarse field of multigrid on a process grid: the coarse sites next to this rank's
// part of the coarse lattice in every split direction, one layer deep, numbered after the local
// ones. Ghost slot (mu, side) holds the face x_mu = 0 of the forward neighbour (side 0) or the face
// x_mu = L - 1 of the backward one (side 1), n components per site in face_index order, as the
// fine lattice's ghost zone does (core/lattice.hpp). The exchange is the framework's
// (comm/halo.hpp) on the coarse lattice's face geometry, so the faces take the fine halo's route:
// MPI on the memory itself, host staging, or NCCL between GPUs.
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/multigrid/coarse_spinor.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd::mg {

/// The face geometry of a coarse lattice (comm/halo.hpp's CheckerboardFaceSites for the fine one):
/// lexicographic sites with no parity, one layer deep, ghost slot (mu, side) from offset[mu][side]
/// in a view of the ghost sites alone.
struct CoarseFaceSites {
  CoarseGeometry g; ///< The rank's part of the coarse lattice.
  int offset[Nd][2] = {}; ///< The first ghost site of slot (mu, side).
  int total = 0; ///< Ghost sites of every slot.
  CoarseFaceSites() = default;
  /// The slots of the split directions of lat, one after another (mu, then side).
  CoarseFaceSites(const Lattice& lat, const CoarseGeometry& geometry) : g(geometry) {
    for (int mu = 0; mu < Nd; ++mu)
      for (int side = 0; side < 2; ++side) {
        offset[mu][side] = total;
        if (lat.partitioned(mu)) total += g.face_sites(mu);
      }
  }
  /// Sites of a face orthogonal to mu.
  KOKKOS_INLINE_FUNCTION int face_sites(int mu) const { return g.face_sites(mu); }
  /// One layer.
  KOKKOS_INLINE_FUNCTION int depth() const { return 1; }
  /// Local extent along mu.
  KOKKOS_INLINE_FUNCTION int extent(int mu) const { return g.dims[mu]; }
  /// The site of face entry f on the layer x_mu (coarse sites have no parity).
  KOKKOS_INLINE_FUNCTION int site(int mu, int f, int x_mu, int) const { return g.index(g.face_coords(mu, f, x_mu)); }
  /// The first site of ghost slot (mu, side) in the ghost view.
  int ghost_start(int mu, int side) const { return offset[mu][side]; }
};

/// The ghost zone of coarse fields of n components on geometry g of the fine lattice lat's
/// process grid, and its exchange.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class CoarseHalo {
public:
  using view_type = Kokkos::View<Kokkos::complex<Real>*, ExecSpace>; ///< A coarse field's storage, or the ghost zone's.

  CoarseHalo() = default;
  /// The ghost slots of every split direction of lat (none on one rank).
  CoarseHalo(const Lattice& lat, const CoarseGeometry& g, int n) : lat_(lat), sites_(lat, g) {
    if (sites_.total > 0) {
      ghost_ = view_type("mg_coarse_halo_ghost", std::size_t(sites_.total) * n);
      halo_ = Exchange(lat, sites_, n, tag);
    }
  }
  /// Ghost sites (0 on one rank).
  int ghost_sites() const { return sites_.total; }
  /// Ghost sites of coarse geometry g on lat's process grid: one face per split direction and side.
  static int ghost_sites(const Lattice& lat, const CoarseGeometry& g) { return CoarseFaceSites(lat, g).total; }
  /// The ghost zone: site volume() + i of the neighbour table is entry i * n + k here.
  const view_type& ghost() const { return ghost_; }
  /// The neighbour of coarse site c in direction mu, forward (dir = +1) or backward: a local index,
  /// or volume() + i for ghost site i where the hop leaves this rank's part of a split direction;
  /// a direction that is not split wraps around.
  int neighbour(const Coords& c, int mu, int dir) const {
    const CoarseGeometry& g = sites_.g;
    Coords y = c;
    y.x[mu] += dir;
    if (y.x[mu] >= 0 && y.x[mu] < g.dims[mu]) return g.index(y);
    if (lat_.partitioned(mu)) return g.volume() + sites_.offset[mu][dir > 0 ? 0 : 1] + g.face_index(c, mu);
    y.x[mu] = (y.x[mu] + g.dims[mu]) % g.dims[mu];
    return g.index(y);
  }

  /// Fills the ghost zone from the neighbours' faces of their coarse field `in` (collective).
  void exchange(const view_type& in) const {
    if (sites_.total == 0) return;
    halo_.start(in, 0);
    halo_.finish(ghost_);
  }

private:
  using Exchange = HaloExchange<view_type, ExecSpace, CoarseFaceSites>;
  static constexpr int tag = 0x4d00; ///< Tags of the coarse faces (2 mu + side added).
  Lattice lat_;
  CoarseFaceSites sites_;
  view_type ghost_;
  mutable Exchange halo_; ///< Its buffers and requests change in an exchange of a const halo.
};

} // namespace kqcd::mg
