// Gauge configurations on a process grid, through rank 0: rank 0 reads and verifies the file
// (read_gauge: checksums, header plaquette and link trace, SU(3)) and sends every rank its
// sub-lattice; writing gathers the links to rank 0, which writes atomically (write_nersc,
// write_ildg). A failure on rank 0 is thrown on every rank with rank 0's message, so all ranks
// leave together. This is not parallel I/O yet: rank 0 holds the whole configuration once.
// On one rank (or without MPI) these are read_gauge, import_gauge and export_gauge.
#pragma once

#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <array>
#include <cstdint>
#include <complex>
#include <string>
#include <vector>

namespace kqcd {

namespace detail {
inline int world_rank() {
  int r = 0;
#if KQCD_HAVE_MPI
  if (comm::mpi_active()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}

/// Runs f on rank 0 of MPI_COMM_WORLD; a kqcd::error it throws is thrown on every rank.
template <class F> void on_root(F&& f) {
  int kind = 0; // 0 ok, 1 io_error, 2 invalid_argument, 3 other kqcd::error
  std::string msg;
  if (world_rank() == 0) try {
      f();
    } catch (const io_error& e) {
      kind = 1, msg = e.what();
    } catch (const invalid_argument& e) {
      kind = 2, msg = e.what();
    } catch (const error& e) {
      kind = 3, msg = e.what();
    }
#if KQCD_HAVE_MPI
  if (comm::mpi_active()) {
    int head[2] = {kind, int(msg.size())};
    MPI_Bcast(head, 2, MPI_INT, 0, MPI_COMM_WORLD);
    kind = head[0];
    msg.resize(std::size_t(head[1]));
    if (head[1] > 0) MPI_Bcast(msg.data(), head[1], MPI_CHAR, 0, MPI_COMM_WORLD);
  }
#endif
  if (kind == 1) throw io_error(msg);
  if (kind == 2) throw invalid_argument(msg);
  if (kind == 3) throw error(msg);
}

#if KQCD_HAVE_MPI
inline void bcast_string(std::string& s) {
  int n = int(s.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  s.resize(std::size_t(n));
  if (n > 0) MPI_Bcast(s.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
}
#endif

/// Every rank's sub-lattice (origin and extents), known on every rank.
struct RankBlocks {
  std::vector<std::array<int, 2 * Nd>> blocks; ///< origin[0..3], dims[0..3] per rank of lat's communicator
};
inline RankBlocks rank_blocks(const Lattice& lat) {
  RankBlocks r;
  std::array<int, 2 * Nd> mine{};
  for (int mu = 0; mu < Nd; ++mu) mine[mu] = lat.origin(mu), mine[Nd + mu] = lat.dim(mu);
#if KQCD_HAVE_MPI
  int n = 1;
  MPI_Comm_size(lat.communicator(), &n);
  r.blocks.resize(std::size_t(n));
  MPI_Allgather(mine.data(), 2 * Nd, MPI_INT, r.blocks.data(), 2 * Nd, MPI_INT, lat.communicator());
#else
  r.blocks.push_back(mine);
#endif
  return r;
}

/// Copies the links of the block (origin, dims) between the global array (milc order) and a
/// block array in the block's own lexicographic order.
inline void copy_block(std::vector<std::complex<double>>& global, const Lattice& global_lat, std::vector<std::complex<double>>& block,
                       const std::array<int, 2 * Nd>& b, bool to_block) {
  constexpr std::size_t per_site = Nd * Nc * Nc;
  const std::int64_t v = std::int64_t(b[4]) * b[5] * b[6] * b[7];
  block.resize(std::size_t(v) * per_site);
  for (std::int64_t i = 0; i < v; ++i) {
    Coords c;
    std::int64_t r = i;
    for (int mu = 0; mu < Nd; ++mu) {
      c.x[mu] = int(r % b[Nd + mu]) + b[mu];
      r /= b[Nd + mu];
    }
    auto* g = global.data() + std::size_t(global_lat.lex_index(c)) * per_site;
    auto* l = block.data() + std::size_t(i) * per_site;
    for (std::size_t k = 0; k < per_site; ++k) (to_block ? l[k] : g[k]) = (to_block ? g[k] : l[k]);
  }
}

inline void check_message_size(std::size_t doubles) {
  if (doubles > std::size_t(INT32_MAX))
    throw invalid_argument("distributed gauge I/O: a rank's block of " + std::to_string(doubles) +
                           " doubles exceeds one MPI message; use more ranks");
}
} // namespace detail

/// read_gauge on rank 0; every rank gets the lattice, format and precision (links and warnings
/// on rank 0 only). Call scatter_gauge next.
inline HostGaugeConfig read_gauge_on_root(const std::string& path, const GaugeReadOptions& options = {}) {
  HostGaugeConfig cfg;
  detail::on_root([&] { cfg = read_gauge(path, options); });
#if KQCD_HAVE_MPI
  if (comm::mpi_active()) {
    std::array<int, Nd> dims = cfg.lattice.dims();
    MPI_Bcast(dims.data(), Nd, MPI_INT, 0, MPI_COMM_WORLD);
    if (detail::world_rank() != 0) cfg.lattice = Lattice(dims);
    detail::bcast_string(cfg.format);
    detail::bcast_string(cfg.precision);
  }
#endif
  return cfg;
}

/// u (on a process grid of the configuration's lattice) takes its sites of `links`, the whole
/// configuration in milc order, which only rank 0 needs to hold.
template <class GT, class ES> void scatter_gauge(GaugeField<GT, ES>& u, const std::vector<std::complex<double>>& links) {
  const Lattice& lat = u.lattice();
  if (!lat.distributed()) return import_gauge(u, links, HostGaugeOrder::milc);
#if KQCD_HAVE_MPI
  const Lattice global(lat.global_dims());
  const auto blocks = detail::rank_blocks(lat);
  std::vector<std::complex<double>> mine;
  if (lat.rank() == 0) {
    detail::check_host_size(links.size(), std::size_t(global.volume()) * Nd * Nc * Nc, "scatter_gauge");
    for (std::size_t r = 1; r < blocks.blocks.size(); ++r) {
      std::vector<std::complex<double>> block;
      detail::copy_block(const_cast<std::vector<std::complex<double>>&>(links), global, block, blocks.blocks[r], true);
      detail::check_message_size(2 * block.size());
      MPI_Send(block.data(), int(2 * block.size()), MPI_DOUBLE, int(r), 0, lat.communicator());
    }
    detail::copy_block(const_cast<std::vector<std::complex<double>>&>(links), global, mine, blocks.blocks[0], true);
  } else {
    mine.resize(std::size_t(lat.volume()) * Nd * Nc * Nc);
    detail::check_message_size(2 * mine.size());
    MPI_Recv(mine.data(), int(2 * mine.size()), MPI_DOUBLE, 0, 0, lat.communicator(), MPI_STATUS_IGNORE);
  }
  import_gauge(u, mine, HostGaugeOrder::milc);
#endif
}

/// The whole configuration in milc order on rank 0 (empty on the other ranks).
template <class GT, class ES> std::vector<std::complex<double>> gather_gauge(const GaugeField<GT, ES>& u) {
  const Lattice& lat = u.lattice();
  if (!lat.distributed()) return export_gauge(u, HostGaugeOrder::milc);
  std::vector<std::complex<double>> all;
#if KQCD_HAVE_MPI
  const Lattice global(lat.global_dims());
  const auto blocks = detail::rank_blocks(lat);
  auto mine = export_gauge(u, HostGaugeOrder::milc);
  detail::check_message_size(2 * mine.size());
  if (lat.rank() == 0) {
    all.resize(std::size_t(global.volume()) * Nd * Nc * Nc);
    detail::copy_block(all, global, mine, blocks.blocks[0], false);
    for (std::size_t r = 1; r < blocks.blocks.size(); ++r) {
      const auto& b = blocks.blocks[r];
      std::vector<std::complex<double>> block(std::size_t(b[4]) * b[5] * b[6] * b[7] * Nd * Nc * Nc);
      MPI_Recv(block.data(), int(2 * block.size()), MPI_DOUBLE, int(r), 1, lat.communicator(), MPI_STATUS_IGNORE);
      detail::copy_block(all, global, block, b, false);
    }
  } else {
    MPI_Send(mine.data(), int(2 * mine.size()), MPI_DOUBLE, 0, 1, lat.communicator());
  }
#endif
  return all;
}

/// Gathers u to rank 0, which writes it (NERSC or ILDG, atomically); a failure is thrown on every rank.
template <class GT, class ES>
void write_gauge_on_root(const std::string& path, GaugeFormat format, const GaugeField<GT, ES>& u, bool force = false) {
  if (format != GaugeFormat::nersc && format != GaugeFormat::ildg)
    throw invalid_argument("write_gauge_on_root: only NERSC and ILDG are written");
  HostGaugeConfig cfg;
  cfg.lattice = Lattice(u.lattice().global_dims());
  cfg.links = gather_gauge(u);
  detail::on_root([&] { format == GaugeFormat::nersc ? write_nersc(path, cfg, force) : write_ildg(path, cfg, force); });
}

} // namespace kqcd
