// An extended field: one rank's sub-lattice grown by `depth` layers on both sides of every
// partitioned direction, filled from the neighbouring ranks one direction after another. Each
// direction sends whole slabs of the extended lattice, including the layers earlier directions
// filled, so the edges and corners that staples and clover leaves reach arrive too (two hops
// instead of a diagonal message). The extended lattice is an ordinary single-rank Lattice, so the
// gauge kernels (staples, smearing, clover, flow) run on it unchanged: with depth d their results
// on the sites at least d layers from its edge, this rank's own sites, are those of the global
// lattice; extract() and InteriorReduce keep only those. Directions that are not split keep
// their extent and their periodic wrap.
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/gauge_field.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <string>

namespace kqcd {

/// Where this rank's sites sit in the extended lattice: coordinates shifted by `shift`.
struct InteriorMap {
  /// This rank's lattice, and the extended lattice.
  ///@{
  Lattice local, ext;
  ///@}
  int shift[Nd] = {0, 0, 0, 0}; ///< Offset of the local sites in the extended lattice.

  /// Coordinates c of the local lattice in the extended lattice.
  KOKKOS_INLINE_FUNCTION Coords to_ext(Coords c) const {
    for (int mu = 0; mu < Nd; ++mu) c.x[mu] += shift[mu];
    return c;
  }
  /// Checkerboard index in the extended lattice of local site s of parity `parity`.
  KOKKOS_INLINE_FUNCTION int ext_index(int s, int parity) const { return ext.cb_index(to_ext(local.cb_coords(s, parity))); }
  /// Parity in the extended lattice of local sites of parity `parity` (the shift may flip it).
  KOKKOS_INLINE_FUNCTION int ext_parity(int parity) const {
    return (parity + shift[0] + shift[1] + shift[2] + shift[3]) & 1;
  }
};

namespace detail {

/// Copies the per-site components between local site s and its extended-lattice site.
template <class SrcView, class DstView> struct InteriorCopy {
  static constexpr int ncomp = components_per_row<DstView>();
  SrcView src;
  DstView dst;
  InteriorMap map;
  int parity; ///< local parity
  bool to_ext;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    const int e = map.ext_index(s, parity);
    if (to_ext)
      for (int k = 0; k < ncomp; ++k) component(dst, e, k) = component(src, s, k);
    else
      for (int k = 0; k < ncomp; ++k) component(dst, s, k) = component(src, e, k);
  }
};

/// Copies a slab x_mu in [x0, x0 + depth) of the extended lattice (both parities) to or from a
/// contiguous buffer; i enumerates the slab with x_mu fastest.
template <class View, class Buffer> struct SlabCopy {
  static constexpr int ncomp = components_per_row<View>();
  View v[2];
  Buffer buffer;
  Lattice ext;
  int mu, x0, depth;
  bool to_buffer;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    Coords c;
    int r = i;
    c.x[mu] = x0 + r % depth;
    r /= depth;
    for (int nu = 0; nu < Nd; ++nu)
      if (nu != mu) {
        c.x[nu] = r % ext.dim(nu);
        r /= ext.dim(nu);
      }
    const View& f = v[Lattice::parity(c)];
    const int s = ext.cb_index(c);
    if (to_buffer)
      for (int k = 0; k < ncomp; ++k) buffer(std::size_t(i) * ncomp + k) = component(f, s, k);
    else
      for (int k = 0; k < ncomp; ++k) component(f, s, k) = buffer(std::size_t(i) * ncomp + k);
  }
};

} // namespace detail

/// A two-value site reduction functor F built for the extended lattice (and the extended parity
/// map.ext_parity(parity)), run over this rank's own sites only.
template <class F> struct InteriorReduce {
  F f; ///< The reduction functor of the extended lattice.
  InteriorMap map; ///< The local sites' map.
  int parity; ///< Parity of the local sites.
  /// Reduces f at local site s's extended site.
  KOKKOS_INLINE_FUNCTION void operator()(int s, double& a, double& b) const { f(map.ext_index(s, parity), a, b); }
};

/// A single-rank lattice extended by halo layers of the neighbouring ranks.
class LatticeExtension {
public:
  /// On a single rank (nothing partitioned) the extended lattice is the local one.
  LatticeExtension(const Lattice& local, int depth) : depth_(depth) {
    std::array<int, Nd> dims = local.dims();
    map_.local = local;
    for (int mu = 0; mu < Nd; ++mu)
      if (local.partitioned(mu)) {
        if (depth > local.dim(mu))
          throw invalid_argument("extended field: depth " + std::to_string(depth) + " exceeds the local extent " +
                                 std::to_string(local.dim(mu)) + " in direction " + std::to_string(mu) +
                                 "; use fewer ranks in that direction");
        dims[mu] += 2 * depth;
        map_.shift[mu] = depth;
      }
    map_.ext = local.distributed() ? Lattice(dims) : local;
  }

  /// This rank's lattice.
  const Lattice& local() const { return map_.local; }
  /// The extended lattice.
  const Lattice& extended() const { return map_.ext; }
  /// Where the local sites sit in it.
  const InteriorMap& map() const { return map_; }
  /// The halo depth.
  int depth() const { return depth_; }

  /// A new field on the extended lattice holding u's links, halo filled.
  template <class GT, class ES> GaugeField<GT, ES> extend(const GaugeField<GT, ES>& u) const {
    GaugeField<GT, ES> e(map_.ext, "extended_gauge");
    copy_interior(u, e);
    fill_halo(e);
    return e;
  }
  /// This rank's links of u into the interior of e (the halo is left as it was).
  template <class GT, class ES> void copy_interior(const GaugeField<GT, ES>& u, GaugeField<GT, ES>& e) const {
    check(u.lattice(), map_.local, "copy_interior: source");
    check(e.lattice(), map_.ext, "copy_interior: target");
    for (int p = 0; p < 2; ++p) copy_sites<ES>(u[p].view(), e[map_.ext_parity(p)].view(), p, true);
  }
  /// The interior of e back into u.
  template <class GT, class ES> void extract(const GaugeField<GT, ES>& e, GaugeField<GT, ES>& u) const {
    check(e.lattice(), map_.ext, "extract: source");
    check(u.lattice(), map_.local, "extract: target");
    for (int p = 0; p < 2; ++p) copy_sites<ES>(e[map_.ext_parity(p)].view(), u[p].view(), p, false);
  }
  /// A new view of this rank's sites of parity `parity` from a per-site view of the extended
  /// lattice's matching parity (e.g. clover blocks built on an extended gauge field).
  template <class ES, class View> View extract_sites(const View& ext_view, int parity) const {
    View out(Kokkos::view_alloc(Kokkos::WithoutInitializing, ext_view.label()), map_.local.cb_volume());
    copy_sites<ES>(ext_view, out, parity, false);
    return out;
  }

  /// Refills the halo of a field on the extended lattice from the neighbours' interiors.
  template <class GT, class ES> void fill_halo(GaugeField<GT, ES>& e) const {
    check(e.lattice(), map_.ext, "fill_halo");
    fill_halo<ES>(e[0].view(), e[1].view());
  }
  /// The same for any per-site view pair (even, odd) of the extended lattice.
  template <class ES, class View> void fill_halo(const View& even, const View& odd) const {
#if KQCD_HAVE_MPI
    const Lattice& local = map_.local;
    const Lattice& ext = map_.ext;
    if (!local.distributed()) return;
    using value_type = typename View::non_const_value_type;
    using Buffer = Kokkos::View<value_type*, typename View::memory_space>;
    constexpr int ncomp = detail::components_per_row<View>();
    for (int mu = 0; mu < Nd; ++mu) {
      if (!local.partitioned(mu)) continue;
      const int d = depth_, L = local.dim(mu);
      const int sites = int(d * (ext.volume() / ext.dim(mu)));
      const std::size_t bytes = std::size_t(sites) * ncomp * sizeof(value_type);
      if (bytes > std::size_t(INT_MAX))
        throw invalid_argument("extended field: a " + std::to_string(bytes) + "-byte slab exceeds one MPI message");
      // Slab 0 (our first d layers) goes backward and fills the neighbour's layers L + d onwards;
      // slab 1 (our last d layers) goes forward and fills its layers 0 .. d-1.
      Buffer send[2], recv[2];
      for (int k = 0; k < 2; ++k) {
        send[k] = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::ext_send"), std::size_t(sites) * ncomp);
        recv[k] = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kqcd::ext_recv"), std::size_t(sites) * ncomp);
        Kokkos::parallel_for("kqcd::ext_pack", Kokkos::RangePolicy<ES>(0, sites),
                             detail::SlabCopy<View, Buffer>{{even, odd}, send[k], ext, mu, k == 0 ? d : L, d, true});
      }
      ES().fence("kqcd::ext_pack");
      auto send_h0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), send[0]);
      auto send_h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), send[1]);
      auto recv_h0 = Kokkos::create_mirror_view(recv[0]);
      auto recv_h1 = Kokkos::create_mirror_view(recv[1]);
      MPI_Request req[4];
      const int fwd = local.neighbour_rank(mu, 0), bwd = local.neighbour_rank(mu, 1);
      MPI_Irecv(recv_h0.data(), int(bytes), MPI_BYTE, fwd, 0, local.communicator(), &req[0]);
      MPI_Irecv(recv_h1.data(), int(bytes), MPI_BYTE, bwd, 1, local.communicator(), &req[1]);
      MPI_Isend(send_h0.data(), int(bytes), MPI_BYTE, bwd, 0, local.communicator(), &req[2]);
      MPI_Isend(send_h1.data(), int(bytes), MPI_BYTE, fwd, 1, local.communicator(), &req[3]);
      MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      Kokkos::deep_copy(recv[0], recv_h0);
      Kokkos::deep_copy(recv[1], recv_h1);
      for (int k = 0; k < 2; ++k)
        Kokkos::parallel_for("kqcd::ext_unpack", Kokkos::RangePolicy<ES>(0, sites),
                             detail::SlabCopy<View, Buffer>{{even, odd}, recv[k], ext, mu, k == 0 ? L + d : 0, d, false});
      // The next direction's slabs include these layers.
      ES().fence("kqcd::ext_unpack");
    }
#else
    (void)even, (void)odd;
#endif
  }

private:
  template <class ES, class Src, class Dst> void copy_sites(const Src& src, const Dst& dst, int parity, bool to_ext) const {
    Kokkos::parallel_for("kqcd::ext_copy", Kokkos::RangePolicy<ES>(0, map_.local.cb_volume()),
                         detail::InteriorCopy<Src, Dst>{src, dst, map_, parity, to_ext});
  }
  static void check(const Lattice& found, const Lattice& expected, const char* what) {
    if (!(found == expected))
      throw invalid_argument(std::string("extended field: ") + what + " lives on a " + found.to_string() +
                             " lattice, expected " + expected.to_string());
  }

  InteriorMap map_;
  int depth_;
};

} // namespace kqcd
