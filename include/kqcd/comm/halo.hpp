// Halo exchange of a checkerboarded field (spinor or gauge view with a ghost zone, lattice.hpp):
// a pack kernel gathers each face into a contiguous buffer, MPI_Irecv/MPI_Isend move them, an
// unpack kernel scatters the received faces into the ghost zone. start() returns once the
// messages are posted, so the caller computes the interior while they fly, then calls finish().
// Buffers go to MPI directly where the host can address them (CPU backends) or MPI is GPU-aware
// (comm::gpu_aware_mpi()); otherwise through page-locked host mirrors (host staging).
// For the Wilson hopping term a spinor halo can travel spin-projected: half the bytes.
#pragma once

#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace kqcd {

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

/// i^k z for a run-time k (exact: a swap and sign changes).
template <class T> KOKKOS_INLINE_FUNCTION Kokkos::complex<T> mul_i_pow_at(int k, const Kokkos::complex<T>& z) {
  switch (k & 3) {
  case 0: return z;
  case 1: return {-z.imag(), z.real()};
  case 2: return {-z.real(), -z.imag()};
  default: return {z.imag(), -z.real()};
  }
}

/// The hops of the Wilson kernel project psi(x +- mu) to h_s = psi_s + sigma i^code psi_perm(s),
/// s = 0, 1 (kernels/dslash_wilson.hpp), and perm(s) is 2 or 3 in every direction: a ghost site
/// holding h in spins 0, 1 and zeros in spins 2, 3 projects to h again, bit for bit.
constexpr bool projection_reads_upper_spins() {
  for (int mu = 0; mu < Nd; ++mu)
    for (int s = 0; s < 2; ++s)
      if (gamma_dr::perm_at(mu, s) < 2) return false;
  return true;
}
static_assert(projection_reads_upper_spins(), "the spin-projected halo needs perm(mu, s) in {2, 3} for s = 0, 1");

/// Spinor views (site, colour, spin), or (site, colour, spin, lane) with a lane per SIMD lane of a
/// vector site (fields/simd_fields.hpp), can travel spin-projected for the Wilson hopping term.
template <class View> KOKKOS_INLINE_FUNCTION constexpr bool spin_projectable() {
  if constexpr ((View::rank() == 3 || View::rank() == 4) && !std::is_arithmetic_v<typename View::non_const_value_type>)
    return View::static_extent(1) == Nc && View::static_extent(2) == Ns;
  else return false;
}
/// Lanes per site of a spinor view (1 without a lane index).
template <class View> KOKKOS_INLINE_FUNCTION constexpr int spinor_lanes() {
  if constexpr (View::rank() == 4) return int(View::static_extent(3));
  else return 1;
}
/// Spin component sp of colour c, lane `lane` of a spinor view's row.
template <class View>
KOKKOS_FORCEINLINE_FUNCTION typename View::reference_type spin_at(const View& v, std::size_t row, int c, int sp, int lane) {
  if constexpr (View::rank() == 4) return v(row, c, sp, lane);
  else {
    (void)lane;
    return v(row, c, sp);
  }
}
/// Components per row of a face as it travels: projected only where asked and the view is a
/// spinor (h_0, h_1 of each colour and lane).
template <class View> KOKKOS_INLINE_FUNCTION constexpr int face_components(bool projected) {
  constexpr bool projectable = spin_projectable<View>();
  constexpr int whole = components_per_row<View>();
  if constexpr (projectable) return projected ? Nc * 2 * spinor_lanes<View>() : whole;
  else return whole;
}

/// Copies one face, ghost_depth() layers deep, between a field and a buffer: to_buffer gathers
/// layer j from x_mu = x_mu + step j (step +1 from the face x_mu = 0, -1 from x_mu = L - 1);
/// otherwise the buffer goes to ghost slot `ghost_base` onwards, layer after layer. A site owns `rows` consecutive
/// rows of the view (a block of right-hand sides: site * rows + r). With sigma = +1 or -1 (spinor
/// views only) the face travels spin-projected for the hop with projector 1 + sigma g_mu: only h
/// (face_components per row), and a ghost row gets (h_0, h_1, 0, 0); sigma = 0: whole rows.
template <class FieldView, class BufferView> struct FaceCopy {
  static constexpr int ncomp = components_per_row<FieldView>();
  FieldView field;
  BufferView buffer;
  Lattice lat;
  int mu, x_mu, step, parity, ghost_base, rows;
  int sigma;
  bool to_buffer;
  KOKKOS_INLINE_FUNCTION void operator()(int f) const {
    const int n = lat.face_sites(mu), layer = f / n;
    const std::size_t site =
        to_buffer ? std::size_t(lat.cb_index(lat.face_coords(mu, f - layer * n, x_mu + step * layer, parity))) : std::size_t(ghost_base + f);
    const int per_row = face_components<FieldView>(sigma != 0);
    for (int r = 0; r < rows; ++r) {
      const std::size_t row = site * rows + r, at = (std::size_t(f) * rows + r) * per_row;
      if constexpr (spin_projectable<FieldView>()) {
        if (sigma != 0) {
          copy_projected(row, at);
          continue;
        }
      }
      for (int k = 0; k < ncomp; ++k) {
        if (to_buffer) buffer(at + k) = component(field, row, k);
        else component(field, row, k) = buffer(at + k);
      }
    }
  }
  KOKKOS_INLINE_FUNCTION void copy_projected(std::size_t row, std::size_t at) const {
    using T = typename FieldView::non_const_value_type;
    constexpr int lanes = spinor_lanes<FieldView>();
    const int shift = sigma > 0 ? 0 : 2; // -1 is i^2
    for (int c = 0; c < Nc; ++c)
      for (int l = 0; l < lanes; ++l) {
        const std::size_t h = at + (2 * c) * lanes + l; // h_s of (c, l) at h + s lanes
        if (to_buffer) {
          for (int sp = 0; sp < 2; ++sp)
            buffer(h + sp * lanes) = spin_at(field, row, c, sp, l) +
                                     mul_i_pow_at(gamma_dr::code_at(mu, sp) + shift, T(spin_at(field, row, c, gamma_dr::perm_at(mu, sp), l)));
        } else {
          spin_at(field, row, c, 0, l) = buffer(h);
          spin_at(field, row, c, 1, l) = buffer(h + lanes);
          spin_at(field, row, c, 2, l) = T(0);
          spin_at(field, row, c, 3, l) = T(0);
        }
      }
  }
};
} // namespace detail

/// Exchanges the faces of a field with the neighbouring ranks into its ghost rows.
template <class FieldView, class ExecSpace> class HaloExchange {
public:
  using value_type = typename FieldView::non_const_value_type; ///< A row's element.
  using buffer_type = Kokkos::View<value_type*, typename FieldView::memory_space>; ///< A device buffer of elements.
  /// Host staging buffers are page-locked: copies from pageable memory run at a fraction of the
  /// link's bandwidth.
  using host_buffer_type = Kokkos::View<value_type*, Kokkos::SharedHostPinnedSpace>;
  static constexpr int ncomp = detail::components_per_row<FieldView>(); ///< Components per row.
  static constexpr bool projectable = detail::spin_projectable<FieldView>(); ///< Whether the rows are spinors (faces sent spin-projected).
  /// Whether the field's memory is host-accessible.
  static constexpr bool host_accessible =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename FieldView::memory_space>::accessible;

  HaloExchange() = default;
  /// `rows` rows of the view per site (a block of right-hand sides); messages are tagged from
  /// `tag_base` on, so that exchanges with different bases can be in flight together.
  /// Device memory goes to MPI directly where comm::gpu_aware_mpi() says MPI takes it, else staged.
  explicit HaloExchange(const Lattice& lat, int rows = 1, int tag_base = 0)
      : lat_(lat), rows_(rows), tag_base_(tag_base), staging_(!host_accessible && lat.distributed() && !comm::gpu_aware_mpi()) {
    for (int mu = 0; mu < Nd; ++mu)
      if (lat.partitioned(mu))
        for (int side = 0; side < 2; ++side) {
          const int n = lat.ghost_depth() * lat.face_sites(mu) * rows * ncomp;
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
  /// How the buffers reach MPI: "host memory", "device memory (GPU-aware MPI)" or "host staging".
  std::string path() const {
    return host_accessible ? "host memory" : staging_ ? "host staging" : "device memory (GPU-aware MPI)";
  }

  /// Bytes sent per exchange by this rank (spin-projected, where the view can be: half of a
  /// spinor's components; other views travel whole).
  double bytes(bool projected = false) const {
    double b = 0;
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu))
        b += 2.0 * face_rows(mu) * rows_ * detail::face_components<FieldView>(projected) * sizeof(value_type);
    return b;
  }

  /// Packs the faces of `field` (sites of `parity`) and posts the messages. With isign = +1 or -1
  /// (spinors only) each face travels projected for the Wilson hop of that sign that reads it;
  /// the ghost zone then serves that hopping term only. isign = 0: whole sites.
  void start(const FieldView& field, int parity, int isign = 0) {
#if KQCD_HAVE_MPI
    if (!lat_.distributed()) return;
    if (isign != 0 && !projectable)
      throw invalid_argument("HaloExchange: only spinor fields travel spin-projected");
    projected_ = isign != 0;
    const int per_site = rows_ * detail::face_components<FieldView>(projected_);
    // Side 0 of the receiver (its x_mu = L) is our x_mu = 0 face, sent backward; side 1 our
    // x_mu = L - 1 face, sent forward. The tag names the receiver's ghost slot. Slot 0 feeds the
    // receiver's forward hops (projector 1 - isign g_mu), slot 1 its backward hops (1 + isign g_mu).
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu))
        for (int side = 0; side < 2; ++side) {
          const int x_mu = side == 0 ? 0 : lat_.dim(mu) - 1;
          const int sigma = projected_ ? (side == 0 ? -isign : isign) : 0;
          Kokkos::parallel_for(projected_ ? "kqcd::halo_pack_projected" : "kqcd::halo_pack",
                               Kokkos::RangePolicy<ExecSpace>(0, face_rows(mu)),
                               detail::FaceCopy<FieldView, buffer_type>{field, send_[mu][side], lat_, mu, x_mu, side == 0 ? 1 : -1,
                                                                        parity, 0, rows_, sigma, true});
        }
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
    (void)field, (void)parity, (void)isign;
#endif
  }

  /// Waits for the messages and fills the ghost zone of `field`.
  void finish(const FieldView& field) {
#if KQCD_HAVE_MPI
    if (!lat_.distributed()) return;
    MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    for (int mu = 0; mu < Nd; ++mu)
      if (lat_.partitioned(mu))
        for (int side = 0; side < 2; ++side) {
          const int count = face_rows(mu) * rows_ * detail::face_components<FieldView>(projected_);
          if (staging_)
            Kokkos::deep_copy(Kokkos::subview(recv_[mu][side], std::pair(0, count)),
                              Kokkos::subview(recv_host_[mu][side], std::pair(0, count)));
          const int ghost = lat_.cb_volume() + lat_.ghost_offset(mu, side);
          // Any non-zero sigma unpacks a projected face (the projection was the sender's).
          Kokkos::parallel_for(projected_ ? "kqcd::halo_unpack_projected" : "kqcd::halo_unpack",
                               Kokkos::RangePolicy<ExecSpace>(0, face_rows(mu)),
                               detail::FaceCopy<FieldView, buffer_type>{field, recv_[mu][side], lat_, mu, 0, 0, 0, ghost, rows_,
                                                                        projected_ ? 1 : 0, false});
        }
#else
    (void)field;
#endif
  }

  /// The whole exchange: start() then finish().
  void exchange(const FieldView& field, int parity, int isign = 0) {
    start(field, parity, isign);
    finish(field);
  }

private:
  /// Sites of one parity a face of direction mu sends: ghost_depth() layers.
  int face_rows(int mu) const { return lat_.ghost_depth() * lat_.face_sites(mu); }
  Lattice lat_;
  int rows_ = 1, tag_base_ = 0;
  bool staging_ = false;
  bool projected_ = false; ///< the messages in flight are spin-projected
  buffer_type send_[Nd][2], recv_[Nd][2];
  host_buffer_type send_host_[Nd][2], recv_host_[Nd][2];
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
