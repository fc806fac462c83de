// Halo exchange of a checkerboarded field (spinor or gauge view with a ghost zone, lattice.hpp):
// a pack kernel per direction gathers its two faces into contiguous buffers, MPI_Irecv/MPI_Isend
// move them, an unpack kernel per direction scatters the received faces into the ghost zone.
// start() packs and starts the messages, so that the caller computes the interior while they fly;
// finish() (or land()) completes them.
// Buffers go to MPI directly where the host can address them (CPU backends) or MPI is GPU-aware
// (comm::gpu_aware_mpi()); otherwise through page-locked host mirrors (host staging). Where the
// process grid's transport is NCCL (comm/device_comm.hpp) and the field lives on the CUDA device,
// the faces are packed, sent GPU to GPU, received and unpacked on NCCL's stream instead, beside
// the interior on the compute stream, without the host waiting for either; land() leaves them
// there, so that the exterior that reads them can run there too.
// How a face's rows travel is a face pack the caller supplies (WholeRows by default): an operator
// may send less than whole rows (the Wilson hopping term sends spin-projected halves,
// stencil/wilson_dslash.hpp). Which sites form a face and where the ghost slots lie is the exchange's
// face geometry (CheckerboardFaceSites by default: one parity of the checkerboarded lattice; the
// multigrid's coarse lattice has its own, multigrid/coarse_halo.hpp).
#pragma once

#include <kqcd/comm/device_comm.hpp>
#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kqcd {

/// The face geometry of one parity of a checkerboarded lattice (core/lattice.hpp's face and ghost
/// numbering). A face geometry gives a face's sites per layer (face_sites), the layers a face
/// sends (depth), the local extents (extent), the row-block index of face entry f on the layer
/// x_mu (site), and the first site of ghost slot (mu, side) in the view that receives the faces
/// (ghost_start).
struct CheckerboardFaceSites {
  Lattice lat; ///< The lattice (its parity chosen per exchange).
  /// Sites per layer of a face orthogonal to mu.
  KOKKOS_INLINE_FUNCTION int face_sites(int mu) const { return lat.face_sites(mu); }
  /// Layers of a face (the ghost depth).
  KOKKOS_INLINE_FUNCTION int depth() const { return lat.ghost_depth(); }
  /// Local extent along mu.
  KOKKOS_INLINE_FUNCTION int extent(int mu) const { return lat.dim(mu); }
  /// The checkerboard index of face entry f of parity `parity` on the layer x_mu.
  KOKKOS_INLINE_FUNCTION int site(int mu, int f, int x_mu, int parity) const { return lat.cb_index(lat.face_coords(mu, f, x_mu, parity)); }
  /// The first site of ghost slot (mu, side): after the local sites of the field.
  int ghost_start(int mu, int side) const { return lat.cb_volume() + lat.ghost_offset(mu, side); }
};

namespace detail {
/// Component k of row `row` of a field view: a half spinor's norm (row), packed half spinor
/// (row, colour), spinor (row, colour, spin) or gauge view (row, mu, row, col).
template <class View> KOKKOS_INLINE_FUNCTION typename View::reference_type component(const View& v, std::size_t row, int k) {
  if constexpr (View::rank() == 1) {
    (void)k;
    return v(row);
  } else if constexpr (View::rank() == 2) {
    return v(row, k);
  } else if constexpr (View::rank() == 3) {
    constexpr int n2 = int(View::static_extent(2));
    return v(row, k / n2, k % n2);
  } else {
    constexpr int n2 = int(View::static_extent(2)), n3 = int(View::static_extent(3));
    return v(row, k / (n2 * n3), (k / n3) % n2, k % n3);
  }
}
template <class View> KOKKOS_INLINE_FUNCTION constexpr int components_per_row() {
  if constexpr (View::rank() == 1) return 1;
  else if constexpr (View::rank() == 2) return int(View::static_extent(1));
  else if constexpr (View::rank() == 3) return int(View::static_extent(1) * View::static_extent(2));
  else return int(View::static_extent(1) * View::static_extent(2) * View::static_extent(3));
}

/// Copies one face, sites.depth() layers deep, between a field and a buffer: to_buffer gathers
/// layer j from x_mu = x_mu + step j (step +1 from the face x_mu = 0, -1 from x_mu = L - 1);
/// otherwise the buffer goes to ghost slot `ghost_base` onwards, layer after layer. A site owns
/// `rows` consecutive rows of the view (a block of right-hand sides: site * rows + r), each
/// `per_row` buffer entries as the face pack `face` packs and unpacks it; the face geometry
/// `sites` numbers the face.
template <class FieldView, class BufferView, class Face, class Sites = CheckerboardFaceSites> struct FaceCopy {
  FieldView field;
  BufferView buffer;
  Sites sites;
  int mu, x_mu, step, parity, ghost_base, rows, per_row;
  Face face;
  bool to_buffer;
  KOKKOS_INLINE_FUNCTION void operator()(int f) const {
    const int n = sites.face_sites(mu), layer = f / n;
    const std::size_t site = to_buffer ? std::size_t(sites.site(mu, f - layer * n, x_mu + step * layer, parity)) : std::size_t(ghost_base + f);
    for (int r = 0; r < rows; ++r) {
      const std::size_t row = site * rows + r, at = (std::size_t(f) * rows + r) * per_row;
      if (to_buffer) face.pack(field, row, buffer, at);
      else face.unpack(field, row, buffer, at);
    }
  }
};
/// The two faces (sides) of one direction in one launch: entries [0, n) copy side 0, [n, 2n) side 1.
template <class Copy> struct BothFaces {
  Copy side[2];
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(int f) const {
    if (f < n) side[0](f);
    else side[1](f - n);
  }
};
} // namespace detail

/// The default face pack: every component of every row travels and lands as it left. A face pack
/// says how many buffer entries a row of view View takes in flight (components<View>(), at most
/// its components) and gives, per face (direction mu, side 0 for the x_mu = 0 face, 1 for
/// x_mu = L - 1), the device functor that packs a row into the buffer and unpacks it into a ghost
/// row on the receiver: face<View>(mu, side) with pack(view, row, buffer, at) and
/// unpack(view, row, buffer, at). The receiver unpacks slot (mu, side) with the sender's face of
/// (mu, side).
struct WholeRows {
  /// Any face: the row's components in order.
  template <class View> struct Face {
    /// Row `row` of v into the buffer from entry `at`.
    template <class Buffer> KOKKOS_INLINE_FUNCTION void pack(const View& v, std::size_t row, const Buffer& b, std::size_t at) const {
      for (int k = 0; k < detail::components_per_row<View>(); ++k) b(at + k) = detail::component(v, row, k);
    }
    /// The buffer from entry `at` into row `row` of v.
    template <class Buffer> KOKKOS_INLINE_FUNCTION void unpack(const View& v, std::size_t row, const Buffer& b, std::size_t at) const {
      for (int k = 0; k < detail::components_per_row<View>(); ++k) detail::component(v, row, k) = b(at + k);
    }
  };
  /// Buffer entries per row: all its components.
  template <class View> int components() const { return detail::components_per_row<View>(); }
  /// The pack of every face.
  template <class View> Face<View> face(int, int) const { return {}; }
};

/// How the faces of a halo travel.
enum class HaloRoute {
  host_memory,   ///< the field lives in host memory: MPI takes it as it is
  host_staging,  ///< device memory copied through page-locked host buffers for MPI
  gpu_aware_mpi, ///< device memory handed to an MPI that takes it
  nccl           ///< device memory GPU to GPU by NCCL (the process grid's NCCL transport)
};

/// "host memory", "host staging", "device memory (GPU-aware MPI)" or "device memory (NCCL)".
inline const char* halo_route_name(HaloRoute r) {
  switch (r) {
  case HaloRoute::host_memory: return "host memory";
  case HaloRoute::host_staging: return "host staging";
  case HaloRoute::gpu_aware_mpi: return "device memory (GPU-aware MPI)";
  case HaloRoute::nccl: return "device memory (NCCL)";
  }
  return "";
}

/// Whether NCCL can carry the faces of a field in MemorySpace computed on ExecSpace: it lives on the
/// CUDA device and is computed there (and NCCL is built).
template <class ExecSpace, class MemorySpace>
inline constexpr bool nccl_capable =
#if KQCD_HAVE_NCCL
    std::is_same_v<ExecSpace, Kokkos::Cuda> && !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
#else
    false;
#endif

/// The route of the faces of a field in MemorySpace, computed on ExecSpace, on `lat`: host memory
/// where the host can address it; NCCL where the lattice's process grid has the NCCL transport and
/// the field lives on the CUDA device; else device memory to MPI where comm::gpu_aware_mpi() says
/// MPI takes it, host staging otherwise.
template <class ExecSpace, class MemorySpace> HaloRoute halo_route(const Lattice& lat) {
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) return HaloRoute::host_memory;
  if (nccl_capable<ExecSpace, MemorySpace> && lat.device_communicator()) return HaloRoute::nccl;
  return comm::gpu_aware_mpi() ? HaloRoute::gpu_aware_mpi : HaloRoute::host_staging;
}

/// Exchanges the faces of a field with the neighbouring ranks into its ghost rows: the faces and
/// ghost slots of face geometry Sites, the neighbours, communicators and transport of the lattice's
/// process grid.
template <class FieldView, class ExecSpace, class Sites = CheckerboardFaceSites> class HaloExchange {
public:
  using value_type = typename FieldView::non_const_value_type; ///< A row's element.
  using buffer_type = Kokkos::View<value_type*, typename FieldView::memory_space>; ///< A device buffer of elements.
  /// Host staging buffers are page-locked: copies from pageable memory run at a fraction of the
  /// link's bandwidth.
  using host_buffer_type = Kokkos::View<value_type*, Kokkos::SharedHostPinnedSpace>;
  static constexpr int ncomp = detail::components_per_row<FieldView>(); ///< Components per row.
  HaloExchange() = default;
  /// `rows` rows of the view per site (a block of right-hand sides); messages are tagged from
  /// `tag_base` on, so that exchanges with different bases can be in flight together.
  /// The faces take halo_route().
  explicit HaloExchange(const Lattice& lat, int rows = 1, int tag_base = 0)
    requires std::is_same_v<Sites, CheckerboardFaceSites>
      : HaloExchange(lat, CheckerboardFaceSites{lat}, rows, tag_base) {}
  /// The same on the faces of `sites` (ghost slots of the split directions of lat's process grid).
  HaloExchange(const Lattice& lat, const Sites& sites, int rows = 1, int tag_base = 0)
      : lat_(lat), sites_(sites), rows_(rows), tag_base_(tag_base), route_(halo_route<ExecSpace, typename FieldView::memory_space>(lat)),
        staging_(route_ == HaloRoute::host_staging && lat.distributed()) {
    for (int mu = 0; mu < Nd; ++mu)
      if (lat.partitioned(mu))
        for (int side = 0; side < 2; ++side) {
          const int n = face_rows(mu) * rows * ncomp;
          send_[mu][side] = buffer_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::halo_send"), n);
          recv_[mu][side] = buffer_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::halo_recv"), n);
          if (staging_) {
            send_host_[mu][side] = host_buffer_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::halo_send_host"), n);
            recv_host_[mu][side] = host_buffer_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::halo_recv_host"), n);
          }
        }
  }

  /// Rows of the view per site.
  int rows() const { return rows_; }
  /// How the faces travel (halo_route_name).
  std::string path() const { return halo_route_name(route_); }

  /// Bytes sent per exchange by this rank with face pack `faces`.
  template <class Faces = WholeRows> double bytes(const Faces& faces = {}) const {
    double b = 0;
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu)) b += 2.0 * face_rows(mu) * rows_ * per_row(faces) * sizeof(value_type);
    return b;
  }

  /// Packs the faces of `field` (sites of `parity`, where the face geometry has parities) with face
  /// pack `faces` and posts the messages.
  template <class Faces = WholeRows> void start(const FieldView& field, int parity, const Faces& faces = {}) {
#if KQCD_HAVE_MPI
    if (!lat_.distributed()) return;
    const int per_site = rows_ * per_row(faces);
    const ExecSpace space = faces_space(true);
    // Side 0 of the receiver (its x_mu = L) is our x_mu = 0 face, sent backward; side 1 our
    // x_mu = L - 1 face, sent forward. The tag names the receiver's ghost slot.
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu)) {
        using Copy = detail::FaceCopy<FieldView, buffer_type, decltype(faces.template face<FieldView>(mu, 0)), Sites>;
        const auto pack = [&](int side) {
          return Copy{field, send_[mu][side], sites_, mu, side == 0 ? 0 : sites_.extent(mu) - 1, side == 0 ? 1 : -1, parity, 0, rows_,
                      per_row(faces), faces.template face<FieldView>(mu, side), true};
        };
        Kokkos::parallel_for("kqcd::halo_pack", Kokkos::RangePolicy<ExecSpace>(space, 0, 2 * face_rows(mu)),
                             detail::BothFaces<Copy>{{pack(0), pack(1)}, face_rows(mu)});
      }
#if KQCD_HAVE_NCCL
    if (const comm::DeviceCommunicator* dc = nccl_route()) {
      // Receives and sends in the order of the MPI path's tags, the same on every rank.
      std::vector<comm::DeviceCommunicator::Message> receives, sends;
      for (int mu = 0; mu < Nd; ++mu)
        if (lat_.partitioned(mu))
          for (int side = 0; side < 2; ++side) {
            const std::size_t bytes = std::size_t(face_rows(mu)) * per_site * sizeof(value_type);
            receives.push_back({recv_[mu][side].data(), bytes, lat_.neighbour_rank(mu, side)});
            sends.push_back({send_[mu][side].data(), bytes, lat_.neighbour_rank(mu, 1 - side)});
          }
      dc->start(receives, sends);
      return;
    }
#endif
    ExecSpace().fence("kqcd::halo_pack");
    requests_.clear();
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu))
        for (int side = 0; side < 2; ++side) {
          const int n = int(face_rows(mu) * per_site * sizeof(value_type));
          requests_.emplace_back();
          MPI_Irecv(staging_ ? (void*)recv_host_[mu][side].data() : (void*)recv_[mu][side].data(), n, MPI_BYTE,
                    lat_.neighbour_rank(mu, side), tag_base_ + 2 * mu + side, lat_.communicator(), &requests_.back());
        }
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu))
        for (int side = 0; side < 2; ++side) {
          const int count = face_rows(mu) * per_site;
          if (staging_)
            Kokkos::deep_copy(Kokkos::subview(send_host_[mu][side], std::pair(0, count)),
                              Kokkos::subview(send_[mu][side], std::pair(0, count)));
          requests_.emplace_back();
          // Our side-0 face goes backward and lands in the receiver's slot (mu, 0).
          MPI_Isend(staging_ ? (void*)send_host_[mu][side].data() : (void*)send_[mu][side].data(),
                    int(count * sizeof(value_type)), MPI_BYTE, lat_.neighbour_rank(mu, 1 - side), tag_base_ + 2 * mu + side,
                    lat_.communicator(), &requests_.back());
        }
#else
    (void)field, (void)parity, (void)faces;
#endif
  }

  /// Waits for the messages and fills the ghost zone of `field` (the face pack of start(); the field
  /// packed, or a view of the ghost slots alone where the face geometry places them so): on the
  /// NCCL route the unpack is queued on the faces' stream, which is returned with the join that
  /// makes the compute stream wait for it; elsewhere it is done and the compute stream returned.
  /// Work queued on the returned stream before the join sees the ghost zone filled.
  template <class Faces = WholeRows> SideStream<ExecSpace> land(const FieldView& field, const Faces& faces = {}) {
#if KQCD_HAVE_MPI
    if (!lat_.distributed()) return {};
#if KQCD_HAVE_NCCL
    if (const comm::DeviceCommunicator* dc = nccl_route()) dc->post();
#endif
    MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    const ExecSpace space = faces_space(false);
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu)) {
        using Copy = detail::FaceCopy<FieldView, buffer_type, decltype(faces.template face<FieldView>(mu, 0)), Sites>;
        const auto unpack = [&](int side) {
          const int count = face_rows(mu) * rows_ * per_row(faces);
          if (staging_)
            Kokkos::deep_copy(Kokkos::subview(recv_[mu][side], std::pair(0, count)),
                              Kokkos::subview(recv_host_[mu][side], std::pair(0, count)));
          return Copy{field, recv_[mu][side], sites_, mu, 0, 0, 0, sites_.ghost_start(mu, side), rows_,
                      per_row(faces), faces.template face<FieldView>(mu, side), false};
        };
        Kokkos::parallel_for("kqcd::halo_unpack", Kokkos::RangePolicy<ExecSpace>(space, 0, 2 * face_rows(mu)),
                             detail::BothFaces<Copy>{{unpack(0), unpack(1)}, face_rows(mu)});
      }
#if KQCD_HAVE_NCCL
    if constexpr (nccl_capable<ExecSpace, typename FieldView::memory_space>)
      if (const comm::DeviceCommunicator* dc = nccl_route()) return {space, [dc] { dc->join(ExecSpace().cuda_stream()); }};
#endif
#else
    (void)field, (void)faces;
#endif
    return {};
  }
  /// land(), then the compute stream waits for the ghost zone.
  template <class Faces = WholeRows> void finish(const FieldView& field, const Faces& faces = {}) { land(field, faces).join(); }

  /// The whole exchange: start() then finish().
  template <class Faces = WholeRows> void exchange(const FieldView& field, int parity, const Faces& faces = {}) {
    start(field, parity, faces);
    finish(field, faces);
  }

private:
  /// Where the faces are packed and unpacked: on the NCCL route the messages' stream, which
  /// `follow` makes wait for the compute stream's work so far (the field), so that the interior
  /// computes meanwhile; else the compute stream (the default instance).
  ExecSpace faces_space([[maybe_unused]] bool follow) {
#if KQCD_HAVE_NCCL
    if constexpr (nccl_capable<ExecSpace, typename FieldView::memory_space>)
      if (const comm::DeviceCommunicator* dc = nccl_route()) {
        if (follow) dc->follow(ExecSpace().cuda_stream());
        if (!nccl_space_) nccl_space_.emplace(dc->stream());
        return *nccl_space_;
      }
#endif
    return ExecSpace();
  }
  /// The process grid's NCCL communicator where the faces take the NCCL route, else nullptr.
  const comm::DeviceCommunicator* nccl_route() const {
    return nccl_capable<ExecSpace, typename FieldView::memory_space> && route_ == HaloRoute::nccl ? lat_.device_communicator()
                                                                                                   : nullptr;
  }
  /// Sites a face of direction mu sends: depth() layers.
  int face_rows(int mu) const { return sites_.depth() * sites_.face_sites(mu); }
  /// Buffer entries per row in flight with face pack `faces` (at most a row's components).
  template <class Faces> static int per_row(const Faces& faces) {
    const int n = faces.template components<FieldView>();
    if (n < 1 || n > ncomp)
      throw invalid_argument("HaloExchange: a face pack sends " + std::to_string(n) + " entries of a row of " + std::to_string(ncomp));
    return n;
  }
  Lattice lat_;
  Sites sites_;
  int rows_ = 1, tag_base_ = 0;
  HaloRoute route_ = HaloRoute::host_memory;
  bool staging_ = false;
  buffer_type send_[Nd][2], recv_[Nd][2];
  host_buffer_type send_host_[Nd][2], recv_host_[Nd][2];
  std::optional<ExecSpace> nccl_space_; ///< An instance on the NCCL route's stream, made at the first exchange.
#if KQCD_HAVE_MPI
  std::vector<MPI_Request> requests_;
#endif
};

/// Fills the ghost zone of a gauge field's links (a hop reads U_mu(x - mu) of an off-rank site)
/// once, before the links are packed or laid out for a kernel; returns u.
template <class Gauge> const Gauge& with_gauge_halo(const Gauge& u) {
  if (!u.lattice().distributed()) return u;
  HaloExchange<typename Gauge::cb_type::view_type, typename Gauge::execution_space> halo(u.lattice());
  for (int p = 0; p < 2; ++p) halo.exchange(u[p].view(), p);
  return u;
}

} // namespace kqcd
