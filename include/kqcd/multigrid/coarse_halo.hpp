// The halo of a coarse field of multigrid on a process grid: the coarse sites next to this rank's
// part of the coarse lattice in every split direction, one layer deep, numbered after the local
// ones. Ghost slot (mu, side) holds the face x_mu = 0 of the forward neighbour (side 0) or the face
// x_mu = L - 1 of the backward one (side 1), n components per site in face_index order, as the
// fine lattice's ghost zone does (core/lattice.hpp). The faces take the fine halo's route
// (halo_route): MPI on the memory itself where the host or a GPU-aware MPI addresses it, else
// through host copies (coarse faces are a few kilobytes: their cost is latency, not bandwidth).
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/multigrid/coarse_spinor.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace kqcd::mg {

namespace detail {
/// Face x_mu of a coarse field into a send buffer from entry `at`: item f * n + k.
template <class CView> struct PackCoarseFace {
  CView in, buffer;
  CoarseGeometry g;
  int mu, x_mu, n;
  std::size_t at;
  KOKKOS_FUNCTION void operator()(int i) const {
    const int f = i / n, k = i - f * n;
    buffer(at + std::size_t(i)) = in(std::size_t(g.index(g.face_coords(mu, f, x_mu))) * std::size_t(n) + std::size_t(k));
  }
};
} // namespace detail

/// The ghost zone of coarse fields of n components on geometry g of the fine lattice lat's
/// process grid, and its exchange.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class CoarseHalo {
public:
  using view_type = Kokkos::View<Kokkos::complex<Real>*, ExecSpace>; ///< A coarse field's storage, or the ghost zone's.
  using host_view_type = Kokkos::View<Kokkos::complex<Real>*, Kokkos::SharedHostPinnedSpace>; ///< Host copies of the faces.

  CoarseHalo() = default;
  /// The ghost slots of every split direction of lat (none on one rank).
  CoarseHalo(const Lattice& lat, const CoarseGeometry& g, int n) : lat_(lat), g_(g), n_(n) {
    for (int mu = 0; mu < Nd; ++mu)
      for (int side = 0; side < 2; ++side) {
        offset_[mu][side] = ghost_sites_;
        if (lat.partitioned(mu)) ghost_sites_ += g.face_sites(mu);
      }
    if (ghost_sites_ > 0) {
      send_ = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg_coarse_halo_send"), std::size_t(ghost_sites_) * n);
      ghost_ = view_type("mg_coarse_halo_ghost", std::size_t(ghost_sites_) * n);
      const HaloRoute route = halo_route<ExecSpace, typename view_type::memory_space>(lat);
      if (route != HaloRoute::host_memory && route != HaloRoute::gpu_aware_mpi) {
        send_host_ = host_view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg_coarse_halo_send_host"), send_.extent(0));
        ghost_host_ = host_view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mg_coarse_halo_ghost_host"), ghost_.extent(0));
      }
    }
  }
  /// Ghost sites (0 on one rank).
  int ghost_sites() const { return ghost_sites_; }
  /// Ghost sites of coarse geometry g on lat's process grid: one face per split direction and side.
  static int ghost_sites(const Lattice& lat, const CoarseGeometry& g) {
    int n = 0;
    for (int mu = 0; mu < Nd; ++mu)
      if (lat.partitioned(mu)) n += 2 * g.face_sites(mu);
    return n;
  }
  /// The ghost zone: site volume() + i of the neighbour table is entry i * n + k here.
  const view_type& ghost() const { return ghost_; }
  /// The neighbour of coarse site c in direction mu, forward (dir = +1) or backward: a local index,
  /// or volume() + i for ghost site i where the hop leaves this rank's part of a split direction;
  /// a direction that is not split wraps around.
  int neighbour(const Coords& c, int mu, int dir) const {
    Coords y = c;
    y.x[mu] += dir;
    if (y.x[mu] >= 0 && y.x[mu] < g_.dims[mu]) return g_.index(y);
    if (lat_.partitioned(mu)) return g_.volume() + offset_[mu][dir > 0 ? 0 : 1] + g_.face_index(c, mu);
    y.x[mu] = (y.x[mu] + g_.dims[mu]) % g_.dims[mu];
    return g_.index(y);
  }

  /// Fills the ghost zone from the neighbours' faces of their coarse field `in` (collective).
  void exchange(const view_type& in) const {
#if KQCD_HAVE_MPI
    if (ghost_sites_ == 0) return;
    // Send slot (mu, side) is the face that lands in the receiver's ghost slot (mu, side): side 0
    // our x_mu = 0 face, sent backward; side 1 our x_mu = L - 1 face, sent forward.
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu))
        for (int side = 0; side < 2; ++side)
          Kokkos::parallel_for("kqcd::mg::coarse_halo_pack", Kokkos::RangePolicy<ExecSpace>(0, g_.face_sites(mu) * n_),
                               detail::PackCoarseFace<view_type>{in, send_, g_, mu, side == 0 ? 0 : g_.dims[mu] - 1, n_,
                                                                 std::size_t(offset_[mu][side]) * n_});
    ExecSpace().fence("kqcd::mg::coarse_halo_pack");
    const bool direct = send_host_.extent(0) == 0;
    if (!direct) Kokkos::deep_copy(send_host_, send_);
    Kokkos::complex<Real>* send = direct ? send_.data() : send_host_.data();
    Kokkos::complex<Real>* recv = direct ? ghost_.data() : ghost_host_.data();
    std::vector<MPI_Request> req;
    for (int pass = 0; pass < 2; ++pass)
      for (int mu = 0; mu < Nd; ++mu)
        if (lat_.partitioned(mu))
          for (int side = 0; side < 2; ++side) {
            const std::size_t at = std::size_t(offset_[mu][side]) * n_;
            const int bytes = int(std::size_t(g_.face_sites(mu)) * n_ * sizeof(Kokkos::complex<Real>));
            req.emplace_back();
            if (pass == 0)
              MPI_Irecv(recv + at, bytes, MPI_BYTE, lat_.neighbour_rank(mu, side), tag + 2 * mu + side, lat_.communicator(), &req.back());
            else
              MPI_Isend(send + at, bytes, MPI_BYTE, lat_.neighbour_rank(mu, 1 - side), tag + 2 * mu + side, lat_.communicator(),
                        &req.back());
          }
    MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE);
    if (!direct) Kokkos::deep_copy(ghost_, ghost_host_);
#else
    (void)in;
#endif
  }

private:
  static constexpr int tag = 0x4d00; ///< Tags of the coarse faces (2 mu + side added).
  Lattice lat_;
  CoarseGeometry g_;
  int n_ = 0, ghost_sites_ = 0;
  int offset_[Nd][2] = {};
  view_type send_, ghost_;
  host_view_type send_host_, ghost_host_; ///< Page-locked copies where the faces travel through host memory.
};

} // namespace kqcd::mg
