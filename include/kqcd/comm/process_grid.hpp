// ProcessGrid: a Cartesian communicator over the four directions (any subset split) and the
// sub-lattice each rank holds. Lattices it hands out refer to its communicator, so it must
// outlive every field built on them. Without MPI (or on one rank) it is the trivial 1x1x1x1 grid.
// The grid also chooses how halos travel (comm/device_comm.hpp: MPI, or NCCL between GPUs).
#pragma once

#include <kqcd/comm/device_comm.hpp>
#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/lattice.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

namespace kqcd {

/// The grid of MPI ranks over which a lattice is split.
class ProcessGrid {
public:
  /// The grid over MPI_COMM_WORLD (every rank calls it). A 0 entry in `grid` (or all zero) lets
  /// choose_grid() pick the split for `global`; without MPI, or before MPI_Init, one rank.
  ProcessGrid(const Lattice& global, std::array<int, Nd> grid = {0, 0, 0, 0}) : global_(global) {
    const int ranks = world_size();
    if (std::all_of(grid.begin(), grid.end(), [](int g) { return g == 0; })) grid = choose_grid(global, ranks);
    for (int mu = 0; mu < Nd; ++mu)
      if (grid[mu] < 1) throw invalid_argument("process grid: extent " + std::to_string(grid[mu]) + " in direction " + std::to_string(mu) + " must be positive");
    check_grid(global, grid, ranks);
    grid_ = grid;
#if KQCD_HAVE_MPI
    if (comm::mpi_active()) {
      int periods[Nd] = {1, 1, 1, 1};
      // MPI orders Cartesian coordinates with the last one fastest; reverse so that x is fastest
      // like the lattice's own indexing (the rank order does not change the results).
      int dims_rev[Nd] = {grid[3], grid[2], grid[1], grid[0]};
      MPI_Cart_create(MPI_COMM_WORLD, Nd, dims_rev, periods, 0, &comm_);
      MPI_Comm_rank(comm_, &rank_);
      int c[Nd];
      MPI_Cart_coords(comm_, rank_, Nd, c);
      for (int mu = 0; mu < Nd; ++mu) coords_[mu] = c[Nd - 1 - mu];
      for (int mu = 0; mu < Nd; ++mu) {
        int bwd = 0, fwd = 0;
        MPI_Cart_shift(comm_, Nd - 1 - mu, 1, &bwd, &fwd);
        neighbours_[mu][0] = fwd;
        neighbours_[mu][1] = bwd;
      }
      transport_ = agreed_transport(comm_, ranks);
#if KQCD_HAVE_NCCL
      if (transport_ == comm::Transport::nccl) device_comm_ = std::make_unique<comm::DeviceCommunicator>(comm_);
#endif
    }
#endif
    local_ = Lattice::sub_lattice(global, grid_, coords_, neighbours_, rank_, comm_, device_comm_.get());
  }
  ~ProcessGrid() {
    device_comm_.reset(); // before its MPI communicator goes
#if KQCD_HAVE_MPI
    if (comm_ != MPI_COMM_NULL && comm::mpi_active()) MPI_Comm_free(&comm_);
#endif
  }
  ProcessGrid(const ProcessGrid&) = delete;
  ProcessGrid& operator=(const ProcessGrid&) = delete;

  /// This rank's sub-lattice.
  const Lattice& lattice() const { return local_; }
  /// The whole lattice.
  const Lattice& global_lattice() const { return global_; }
  /// Ranks in each direction.
  std::array<int, Nd> grid() const { return grid_; }
  /// This rank's coordinates in the grid.
  std::array<int, Nd> coords() const { return coords_; }
  /// This rank's number.
  int rank() const { return rank_; }
  /// Ranks in all.
  int size() const { return grid_[0] * grid_[1] * grid_[2] * grid_[3]; }
  /// How halos travel between this grid's ranks.
  comm::Transport transport() const { return transport_; }
  /// The grid as text.
  std::string to_string() const {
    return std::to_string(grid_[0]) + "x" + std::to_string(grid_[1]) + "x" + std::to_string(grid_[2]) + "x" +
           std::to_string(grid_[3]);
  }

  /// Ranks in MPI_COMM_WORLD (1 without MPI or before MPI_Init).
  static int world_size() {
    int n = 1;
#if KQCD_HAVE_MPI
    if (comm::mpi_active()) MPI_Comm_size(MPI_COMM_WORLD, &n);
#endif
    return n;
  }

  /// A grid of `ranks` ranks for `global`: each prime factor of `ranks`, largest first, splits
  /// the direction with the largest local extent that stays even, t before z, y, x on ties (the
  /// slow directions have the cheapest faces to pack).
  static std::array<int, Nd> choose_grid(const Lattice& global, int ranks) {
    std::array<int, Nd> grid{1, 1, 1, 1};
    std::array<int, Nd> local = global.dims();
    int left = ranks;
    std::array<int, 32> factors{};
    int nf = 0;
    for (int p = 2; left > 1 && nf < 32; ++p)
      while (left % p == 0 && nf < 32) { factors[nf++] = p; left /= p; }
    for (int i = nf - 1; i >= 0; --i) {
      const int p = factors[i];
      int best = -1;
      for (int mu = Nd - 1; mu >= 0; --mu)
        if (local[mu] % p == 0 && (local[mu] / p) % 2 == 0 && (best < 0 || local[mu] > local[best])) best = mu;
      if (best < 0)
        throw invalid_argument("process grid: cannot split the " + global.to_string() + " lattice over " +
                               std::to_string(ranks) + " ranks with even local extents; give --grid");
      grid[best] *= p;
      local[best] /= p;
    }
    return grid;
  }

  /// Checks that `grid` fits `ranks` ranks and splits `global` into even local extents.
  static void check_grid(const Lattice& global, const std::array<int, Nd>& grid, int ranks) {
    const int n = grid[0] * grid[1] * grid[2] * grid[3];
    const std::string name = std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) + "x" +
                             std::to_string(grid[3]);
    if (n != ranks)
      throw invalid_argument("process grid " + name + " has " + std::to_string(n) + " ranks, but " + std::to_string(ranks) +
                             " are running");
    if (n == 1) return;
    for (int mu = 0; mu < Nd; ++mu)
      if (global.dim(mu) % grid[mu] != 0 || (global.dim(mu) / grid[mu]) % 2 != 0)
        throw invalid_argument("process grid " + name + " does not split the " + global.to_string() +
                               " lattice into even local extents: direction " + std::to_string(mu) + " has " +
                               std::to_string(global.dim(mu)) + " sites over " + std::to_string(grid[mu]) + " ranks");
  }

private:
#if KQCD_HAVE_MPI
  /// comm::choose_transport() on every rank of `comm`, which must agree: a rank whose choice fails
  /// or differs makes every rank throw (none is left waiting for a collective the others skip).
  static comm::Transport agreed_transport(MPI_Comm comm, int ranks) {
    int mine = -1;
    std::string why;
    try {
      mine = int(comm::choose_transport(ranks));
    } catch (const error& e) {
      why = e.what();
    }
    int lo = mine, hi = mine;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm);
    if (!why.empty()) throw invalid_argument(why);
    if (lo < 0) throw invalid_argument("the halo transport could not be chosen on another rank (KQCD_TRANSPORT)");
    if (lo != hi) throw invalid_argument("KQCD_TRANSPORT chooses mpi on some ranks and nccl on others: set it alike on every rank");
    return comm::Transport(mine);
  }
#endif
  Lattice global_, local_;
  std::array<int, Nd> grid_{1, 1, 1, 1};
  std::array<int, Nd> coords_{0, 0, 0, 0};
  int neighbours_[Nd][2] = {};
  int rank_ = 0;
  comm::handle comm_ = comm::null_handle();
  comm::Transport transport_ = comm::Transport::mpi;
  std::unique_ptr<comm::DeviceCommunicator> device_comm_;
};

/// Parse a process grid "GXxGYxGZxGT" (e.g. "1x1x2x2"); "auto" or "" gives all zeros (automatic).
std::array<int, Nd> parse_grid(const std::string& text);

} // namespace kqcd
