// Lattice geometry and checkerboard indexing (conventions.md): lexicographic index with x
// fastest and t slowest, parity (x+y+z+t) mod 2, checkerboard index = lexicographic index / 2.
// On a process grid (comm/process_grid.hpp) a Lattice is one rank's sub-lattice: dim() and
// volume() are local, global_dim() and origin() place it in the global lattice. Distributed local
// extents are all even, so local parity is global parity and every face holds the same number of
// sites of each parity. The ghost zone (sites cb_volume() .. cb_volume() + ghost_sites() - 1 of a
// checkerboarded field) holds the off-rank neighbours, one slot per partitioned direction and
// side, ghost_depth() layers deep (1 by default; with_ghost_depth() for stencils that hop further):
// slot (mu, 0) the sites at x_mu = L_mu + j (from the forward rank), (mu, 1) those at x_mu = -1 - j,
// layer j = 0 .. depth - 1 after layer j - 1.
#pragma once

#include <kqcd/core/communicator.hpp>
#include <kqcd/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace kqcd {

/// Space-time dimensions.
inline constexpr int Nd = 4;
/// Colours.
inline constexpr int Nc = 3;
/// Spin components.
inline constexpr int Ns = 4;

/// Site coordinates (x, y, z, t).
struct Coords {
  int x[Nd]; ///< coordinate in each direction
};

/// A 4-d periodic lattice, or one rank's part of a lattice distributed over a process grid.
class Lattice {
public:
  Lattice() = default;
  /// A single-rank lattice of extents dims.
  explicit Lattice(std::array<int, Nd> dims) {
    for (int mu = 0; mu < Nd; ++mu) {
      if (dims[mu] < 1)
        throw invalid_argument("lattice extent in direction " + std::to_string(mu) + " must be positive, found " +
                               std::to_string(dims[mu]));
      dims_[mu] = dims[mu];
      global_[mu] = dims[mu];
    }
    if (dims_[0] % 2 != 0)
      throw invalid_argument("lattice extent Lx must be even for checkerboarding, found " + std::to_string(dims_[0]));
    volume_ = std::int64_t(dims_[0]) * dims_[1] * dims_[2] * dims_[3];
    if (volume_ > (std::int64_t(1) << 30))
      throw invalid_argument("lattice volume " + std::to_string(volume_) + " exceeds the 2^30 sites one rank supports");
  }

  /// Local extent in direction mu.
  KOKKOS_INLINE_FUNCTION int dim(int mu) const { return dims_[mu]; }
  /// Local extents.
  std::array<int, Nd> dims() const { return {dims_[0], dims_[1], dims_[2], dims_[3]}; }
  /// Local sites.
  KOKKOS_INLINE_FUNCTION std::int64_t volume() const { return volume_; }
  /// Local sites of one parity.
  KOKKOS_INLINE_FUNCTION int cb_volume() const { return int(volume_ / 2); }
  /// Local sites of one timeslice.
  KOKKOS_INLINE_FUNCTION std::int64_t spatial_volume() const { return std::int64_t(dims_[0]) * dims_[1] * dims_[2]; }

  /// Lexicographic index of local coordinates c (x fastest).
  KOKKOS_INLINE_FUNCTION std::int64_t lex_index(const Coords& c) const {
    return c.x[0] + std::int64_t(dims_[0]) * (c.x[1] + std::int64_t(dims_[1]) * (c.x[2] + std::int64_t(dims_[2]) * c.x[3]));
  }
  /// Local coordinates of lexicographic index i.
  KOKKOS_INLINE_FUNCTION Coords lex_coords(std::int64_t i) const {
    Coords c;
    for (int mu = 0; mu < Nd; ++mu) {
      c.x[mu] = int(i % dims_[mu]);
      i /= dims_[mu];
    }
    return c;
  }
  /// Parity of c: (x + y + z + t) mod 2.
  KOKKOS_INLINE_FUNCTION static int parity(const Coords& c) { return (c.x[0] + c.x[1] + c.x[2] + c.x[3]) & 1; }
  /// Index of c among the sites of its parity.
  KOKKOS_INLINE_FUNCTION int cb_index(const Coords& c) const { return int(lex_index(c) / 2); }

  /// Coordinates of checkerboard site cb_site on checkerboard parity.
  KOKKOS_INLINE_FUNCTION Coords cb_coords(int cb_site, int parity) const {
    Coords c;
    int j = cb_site;
    const int half_x = dims_[0] / 2;
    const int xh = j % half_x;
    j /= half_x;
    c.x[1] = j % dims_[1];
    j /= dims_[1];
    c.x[2] = j % dims_[2];
    c.x[3] = j / dims_[2];
    c.x[0] = 2 * xh + ((c.x[1] + c.x[2] + c.x[3] + parity) & 1);
    return c;
  }

  /// Same extents, process grid and position.
  bool operator==(const Lattice& o) const {
    for (int mu = 0; mu < Nd; ++mu)
      if (dims_[mu] != o.dims_[mu] || global_[mu] != o.global_[mu] || origin_[mu] != o.origin_[mu]) return false;
    return true;
  }

  // Domain decomposition. A Lattice built from extents alone is the whole lattice on one rank.
  /// Global extent in direction mu.
  KOKKOS_INLINE_FUNCTION int global_dim(int mu) const { return global_[mu]; }
  /// Global extents.
  std::array<int, Nd> global_dims() const { return {global_[0], global_[1], global_[2], global_[3]}; }
  /// Global coordinate of this rank's first site in direction mu.
  KOKKOS_INLINE_FUNCTION int origin(int mu) const { return origin_[mu]; }
  /// Global sites.
  std::int64_t global_volume() const { return std::int64_t(global_[0]) * global_[1] * global_[2] * global_[3]; }
  /// Ranks along direction mu (1: the direction is not split).
  KOKKOS_INLINE_FUNCTION int grid(int mu) const { return grid_[mu]; }
  /// This rank's coordinate in the process grid, direction mu.
  KOKKOS_INLINE_FUNCTION int grid_coord(int mu) const { return grid_coord_[mu]; }
  /// Whether direction mu is split over several ranks.
  KOKKOS_INLINE_FUNCTION bool partitioned(int mu) const { return grid_[mu] > 1; }
  /// More than one rank holds this lattice.
  KOKKOS_INLINE_FUNCTION bool distributed() const { return ghost_sites_ > 0; }
  /// The rank holding the neighbouring sub-lattice in direction mu, forward (side 0) or backward (1).
  int neighbour_rank(int mu, int side) const { return neighbour_rank_[mu][side]; }
  /// This rank's number.
  int rank() const { return rank_; }
  /// The communicator of the process grid.
  comm::handle communicator() const { return comm_; }
  /// The grid's GPU-to-GPU transport (NCCL), or nullptr where halos go through MPI.
  const comm::DeviceCommunicator* device_communicator() const { return device_comm_; }
  /// Lexicographic index of a local site in the global lattice (random fields are keyed by it).
  KOKKOS_INLINE_FUNCTION std::int64_t global_lex_index(const Coords& c) const {
    std::int64_t i = 0;
    for (int mu = Nd - 1; mu >= 0; --mu) i = i * global_[mu] + (c.x[mu] + origin_[mu]);
    return i;
  }

  /// Ghost sites per parity (0 on one rank), and where slot (mu, side) starts after cb_volume().
  KOKKOS_INLINE_FUNCTION int ghost_sites() const { return ghost_sites_; }
  /// Layers of the ghost zone: the longest hop off the sub-lattice it serves.
  KOKKOS_INLINE_FUNCTION int ghost_depth() const { return ghost_depth_; }
  /// The same lattice with a ghost zone `depth` layers deep (fields built on it have room for the
  /// hops of a stencil up to `depth` sites long); throws where a split direction is shorter.
  Lattice with_ghost_depth(int depth) const {
    if (depth < 1) throw invalid_argument("ghost depth must be at least 1, found " + std::to_string(depth));
    for (int mu = 0; mu < Nd; ++mu)
      if (partitioned(mu) && dims_[mu] < depth)
        throw invalid_argument("a ghost zone " + std::to_string(depth) + " layers deep needs local extents of at least " +
                               std::to_string(depth) + " in split directions; direction " + std::to_string(mu) + " has " +
                               std::to_string(dims_[mu]));
    Lattice l = *this;
    l.ghost_depth_ = depth;
    l.set_ghost_offsets();
    return l;
  }
  /// Offset of the ghost rows of direction mu, side (0: forward, 1: backward), after the local sites.
  KOKKOS_INLINE_FUNCTION int ghost_offset(int mu, int side) const { return ghost_offset_[mu][side]; }
  /// Sites of one parity on a face orthogonal to mu.
  KOKKOS_INLINE_FUNCTION int face_sites(int mu) const { return int(volume_ / dims_[mu] / 2); }
  /// Index on the face orthogonal to mu of the site c (its x_mu ignored).
  KOKKOS_INLINE_FUNCTION int face_index(const Coords& c, int mu) const {
    std::int64_t i = 0;
    for (int nu = Nd - 1; nu >= 0; --nu)
      if (nu != mu) i = i * dims_[nu] + c.x[nu];
    return int(i / 2);
  }
  /// The site of parity `parity` with face index f on the face x_mu = x_mu (inverse of face_index).
  KOKKOS_INLINE_FUNCTION Coords face_coords(int mu, int f, int x_mu, int parity) const {
    Coords c;
    c.x[mu] = x_mu;
    const int first = mu == 0 ? 1 : 0; // the fastest direction on the face; its extent is even
    const int half = dims_[first] / 2;
    int rest = f / half, sum = x_mu;
    for (int nu = first + 1; nu < Nd; ++nu)
      if (nu != mu) {
        c.x[nu] = rest % dims_[nu];
        rest /= dims_[nu];
        sum += c.x[nu];
      }
    c.x[first] = 2 * (f % half) + ((parity - sum) & 1);
    return c;
  }

  /// One rank's part of `global` on a process grid (used by ProcessGrid, which checks the shapes).
  static Lattice sub_lattice(const Lattice& global, const std::array<int, Nd>& grid, const std::array<int, Nd>& coords,
                             const int neighbours[Nd][2], int rank, comm::handle comm,
                             const comm::DeviceCommunicator* device_comm = nullptr) {
    std::array<int, Nd> local{};
    for (int mu = 0; mu < Nd; ++mu) local[mu] = global.dim(mu) / grid[mu];
    Lattice l(local);
    for (int mu = 0; mu < Nd; ++mu) {
      l.global_[mu] = global.dim(mu);
      l.grid_[mu] = grid[mu];
      l.grid_coord_[mu] = coords[mu];
      l.origin_[mu] = coords[mu] * local[mu];
      for (int side = 0; side < 2; ++side) l.neighbour_rank_[mu][side] = neighbours[mu][side];
    }
    l.set_ghost_offsets();
    l.rank_ = rank;
    l.comm_ = comm;
    l.device_comm_ = device_comm;
    return l;
  }
  /// Extents and process grid as text.
  std::string to_string() const {
    return std::to_string(dims_[0]) + "x" + std::to_string(dims_[1]) + "x" + std::to_string(dims_[2]) + "x" +
           std::to_string(dims_[3]);
  }

private:
  void set_ghost_offsets() {
    int offset = 0;
    for (int mu = 0; mu < Nd; ++mu)
      for (int side = 0; side < 2; ++side) {
        ghost_offset_[mu][side] = offset;
        if (grid_[mu] > 1) offset += ghost_depth_ * face_sites(mu);
      }
    ghost_sites_ = offset;
  }
  int dims_[Nd] = {0, 0, 0, 0};
  std::int64_t volume_ = 0;
  int global_[Nd] = {0, 0, 0, 0};
  int origin_[Nd] = {0, 0, 0, 0};
  int grid_[Nd] = {1, 1, 1, 1};
  int grid_coord_[Nd] = {0, 0, 0, 0};
  int neighbour_rank_[Nd][2] = {};
  int ghost_offset_[Nd][2] = {};
  int ghost_sites_ = 0;
  int ghost_depth_ = 1;
  int rank_ = 0;
  comm::handle comm_ = comm::null_handle();
  const comm::DeviceCommunicator* device_comm_ = nullptr;
};

/// Throws for a feature that does not run on a distributed lattice yet, so that it can never
/// silently compute with the sub-lattice's own periodic wrap-around.
inline void require_single_rank(const Lattice& lat, const std::string& what) {
  if (lat.distributed())
    throw invalid_argument(what + " does not run on a distributed lattice yet (this rank holds " + lat.to_string() +
                           " of " + std::to_string(lat.global_dim(0)) + "x" + std::to_string(lat.global_dim(1)) + "x" +
                           std::to_string(lat.global_dim(2)) + "x" + std::to_string(lat.global_dim(3)) + "): run it on one rank");
}

/// Parse "LXxLYxLZxLT" (e.g. "16x16x16x32"); throws invalid_argument naming the text.
Lattice parse_lattice(const std::string& text);

} // namespace kqcd
