// Gauge configurations on a process grid, by parallel I/O: rank 0 parses the header and sends
// every rank the layout (read_gauge_header); each rank then reads only its own sites' bytes with
// MPI-IO (a subarray of the global site order, one element = one site's bytes), decodes and checks
// them, and the checksums and checks are combined over the ranks before one verification that
// every rank does alike, with the header's values (plaquette, link trace) measured by the caller's
// `header_observables` (read_gauge_into; gauge/gauge_files.hpp passes the distributed observables).
// Writing (write_gauge) is the reverse: each rank encodes its sites and writes them into a
// temporary file beside the target, rank 0 adds the header and trailer (after the
// checksum reduction) and renames it over the target. Any failure is thrown on every rank with the
// same message and leaves no file behind. On a lattice held by one rank (or without MPI) the
// same code reads and writes with plain file streams, as read_gauge and write_nersc do.
#pragma once

#include <kqcd/comm/mpi.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/io/atomic_file.hpp>
#include <kqcd/io/gauge_file.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>
#include <unistd.h>

namespace kqcd {

namespace detail {
inline int world_rank() {
  int r = 0;
#if KQCD_HAVE_MPI
  if (comm::mpi_active()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}

/// Runs f on every rank of comm; if it throws a kqcd::error on any rank, every rank throws the
/// error of the lowest such rank (so all leave a collective together, with one message).
template <class F> void all_or_none([[maybe_unused]] comm::handle comm, F&& f) {
  int kind = 0; // 0 ok, 1 io_error, 2 invalid_argument, 3 other kqcd::error
  std::string msg;
  try {
    f();
  } catch (const io_error& e) {
    kind = 1, msg = e.what();
  } catch (const invalid_argument& e) {
    kind = 2, msg = e.what();
  } catch (const error& e) {
    kind = 3, msg = e.what();
  }
#if KQCD_HAVE_MPI
  if (comm::mpi_active() && comm != MPI_COMM_NULL) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int first = kind ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return;
    int head[2] = {kind, int(msg.size())};
    MPI_Bcast(head, 2, MPI_INT, first, comm);
    kind = head[0];
    msg.resize(std::size_t(head[1]));
    if (head[1] > 0) MPI_Bcast(msg.data(), head[1], MPI_CHAR, first, comm);
  }
#endif
  if (kind == 1) throw io_error(msg);
  if (kind == 2) throw invalid_argument(msg);
  if (kind == 3) throw error(msg);
}

/// Runs f on rank 0 of MPI_COMM_WORLD; a kqcd::error it throws is thrown on every rank.
template <class F> void on_root(F&& f) {
#if KQCD_HAVE_MPI
  const comm::handle world = comm::mpi_active() ? MPI_COMM_WORLD : MPI_COMM_NULL;
#else
  const comm::handle world = comm::null_handle();
#endif
  all_or_none(world, [&] {
    if (world_rank() == 0) f();
  });
}

#if KQCD_HAVE_MPI
inline void bcast_string(std::string& s, MPI_Comm comm = MPI_COMM_WORLD) {
  int n = int(s.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  s.resize(std::size_t(n));
  if (n > 0) MPI_Bcast(s.data(), n, MPI_CHAR, 0, comm);
}

/// The checks of every rank's block, combined, on every rank.
inline GaugeBlockCheck allreduce_check(GaugeChecksumKind kind, GaugeBlockCheck c, MPI_Comm comm) {
  if (kind == GaugeChecksumKind::nersc_sum) {
    std::uint64_t s[2] = {c.sum[0], c.sum[1]};
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_UINT64_T, MPI_SUM, comm);
    c.sum[0] = std::uint32_t(s[0]), c.sum[1] = std::uint32_t(s[1]); // mod 2^32
  } else {
    MPI_Allreduce(MPI_IN_PLACE, c.sum, 2, MPI_UINT32_T, MPI_BXOR, comm);
  }
  std::int64_t first[2] = {c.nonfinite_link, c.bad_su3_link};
  MPI_Allreduce(MPI_IN_PLACE, first, 2, MPI_INT64_T, MPI_MIN, comm);
  // The deviation of the first bad link, from the rank holding it.
  double dev = c.bad_su3_link == first[1] && first[1] != GaugeBlockCheck::none ? c.bad_su3_deviation : 0.0;
  MPI_Allreduce(MPI_IN_PLACE, &dev, 1, MPI_DOUBLE, MPI_MAX, comm);
  c.nonfinite_link = first[0], c.bad_su3_link = first[1], c.bad_su3_deviation = dev;
  return c;
}

/// The file view of this rank's sites: a subarray of the global lattice (t slowest, x fastest)
/// of elements of one site's bytes. Free both types after use.
struct SiteView {
  MPI_Datatype site = MPI_DATATYPE_NULL, block = MPI_DATATYPE_NULL;
  SiteView(const Lattice& lat, std::size_t site_bytes) {
    int sizes[Nd], subsizes[Nd], starts[Nd];
    for (int mu = 0; mu < Nd; ++mu) {
      sizes[Nd - 1 - mu] = lat.global_dim(mu);
      subsizes[Nd - 1 - mu] = lat.dim(mu);
      starts[Nd - 1 - mu] = lat.origin(mu);
    }
    MPI_Type_contiguous(int(site_bytes), MPI_BYTE, &site);
    MPI_Type_commit(&site);
    MPI_Type_create_subarray(Nd, sizes, subsizes, starts, MPI_ORDER_C, site, &block);
    MPI_Type_commit(&block);
  }
  ~SiteView() {
    MPI_Type_free(&block);
    MPI_Type_free(&site);
  }
  SiteView(const SiteView&) = delete;
  SiteView& operator=(const SiteView&) = delete;
};

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(code, text, &n);
  return std::string(text, std::size_t(n));
}
#endif

/// This rank's sites' bytes of the file (layout's data, lat's sub-lattice).
inline std::string read_site_bytes(const std::string& path, const GaugeFileLayout& layout, const Lattice& lat) {
  std::string bytes(std::size_t(lat.volume()) * layout.site_bytes(), '\0');
  if (!lat.distributed()) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw io_error("cannot open '" + path + "'");
    f.seekg(std::streamoff(layout.data_offset));
    if (!f.read(bytes.data(), std::streamsize(bytes.size()))) throw io_error("cannot read '" + path + "'");
    return bytes;
  }
#if KQCD_HAVE_MPI
  MPI_File fh;
  int rc = MPI_File_open(lat.communicator(), path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  // MPI_File_open is collective: every rank sees the same result.
  if (rc != MPI_SUCCESS) throw io_error("cannot open '" + path + "': " + mpi_error_text(rc));
  const SiteView view(lat, layout.site_bytes());
  rc = MPI_File_set_view(fh, MPI_Offset(layout.data_offset), view.site, view.block, "native", MPI_INFO_NULL);
  if (rc == MPI_SUCCESS) rc = MPI_File_read_at_all(fh, 0, bytes.data(), int(lat.volume()), view.site, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (rc != MPI_SUCCESS) throw io_error("cannot read '" + path + "': " + mpi_error_text(rc));
#endif
  return bytes;
}
} // namespace detail

/// The file's layout (lattice, format, precision, where the links are, what it claims), parsed on
/// rank 0 of MPI_COMM_WORLD and known on every rank; errors are thrown on every rank.
inline GaugeFileLayout read_gauge_header(const std::string& path, const GaugeReadOptions& options = {}) {
  std::string text;
  detail::on_root([&] { text = serialize_layout(read_gauge_layout(path, options)); });
#if KQCD_HAVE_MPI
  if (comm::mpi_active()) detail::bcast_string(text);
#endif
  return deserialize_layout(text);
}

/// Reads the links of u's sites (u on a process grid of layout.lattice, or the whole lattice),
/// verifies the whole file (checksums, SU(3), header plaquette and link trace: header_observables(u)
/// returns the field's GaugeHeaderObservables, collectively) and returns the accepted verification
/// failures (options.accept_bad), the same on every rank. Collective.
template <class GT, class ES, class HeaderObservables>
std::vector<std::string> read_gauge_into(GaugeField<GT, ES>& u, const std::string& path, const GaugeFileLayout& layout,
                                         const GaugeReadOptions& options, HeaderObservables&& header_observables) {
  static_assert(std::is_same_v<typename GaugeField<GT, ES>::real_type, double>,
                "read_gauge_into: header plaquettes are checked in double precision");
  const Lattice& lat = u.lattice();
  if (lat.global_dims() != layout.lattice.dims())
    throw invalid_argument("read_gauge_into: the field's lattice " + Lattice(lat.global_dims()).to_string() +
                           " is not the file's " + layout.lattice.to_string());
  GaugeBlock block;
  detail::all_or_none(lat.communicator(), [&] { block = decode_gauge_block(layout, detail::read_site_bytes(path, layout, lat), lat); });
  GaugeBlockCheck all = block.check;
#if KQCD_HAVE_MPI
  if (lat.distributed()) all = detail::allreduce_check(layout.checksum, all, lat.communicator());
#endif
  std::vector<std::string> warnings;
  bool imported = false;
  auto measure = [&] {
    if (!imported) import_gauge(u, block.links, HostGaugeOrder::milc), imported = true;
    return GaugeHeaderObservables(header_observables(u));
  };
  verify_gauge_file(layout, path, options, all, measure, warnings);
  if (!imported) import_gauge(u, block.links, HostGaugeOrder::milc);
  return warnings;
}

/// Writes u as NERSC (3x3, IEEE64BIG) or ILDG (64-bit, scidac-checksum), atomically: an existing
/// path is replaced only with force, and a failure leaves no file. NERSC headers carry
/// header_observables(u) (collective). Collective over u's ranks.
template <class GT, class ES, class HeaderObservables>
void write_gauge(const std::string& path, GaugeFormat format, const GaugeField<GT, ES>& u, bool force,
                 [[maybe_unused]] HeaderObservables&& header_observables) { // unused without MPI
  const Lattice& lat = u.lattice();
  if (!lat.distributed()) {
    // One rank holds the whole lattice: write as write_nersc / write_ildg do (on world rank 0
    // when every rank holds a copy).
    HostGaugeConfig cfg;
    cfg.lattice = Lattice(lat.global_dims());
    cfg.links = export_gauge(u, HostGaugeOrder::milc);
    detail::on_root([&] { format == GaugeFormat::nersc ? write_nersc(path, cfg, force) : write_ildg(path, cfg, force); });
    return;
  }
#if KQCD_HAVE_MPI
  const MPI_Comm comm = lat.communicator();
  const GaugeFileLayout layout = writer_layout(format, Lattice(lat.global_dims()));
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  detail::all_or_none(comm, [&] {
    if (lat.rank() == 0) check_output_path(path, force);
  });
  detail::bcast_string(tmp, comm); // rank 0's process id names it
  std::string data;
  detail::all_or_none(comm, [&] { data = encode_gauge_block(layout, export_gauge(u, HostGaugeOrder::milc), path); });
  const GaugeBlockCheck all =
      detail::allreduce_check(layout.checksum, checksum_gauge_block(layout, data, lat), comm);
  GaugeHeaderObservables obs{};
  if (format == GaugeFormat::nersc) obs = header_observables(u);
  std::string header = gauge_file_header(layout, all, obs), trailer = gauge_file_trailer(layout, all);
  detail::bcast_string(header, comm); // rank 0's text is the file's
  detail::bcast_string(trailer, comm);

  MPI_File fh;
  int rc = MPI_File_open(comm, tmp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) throw io_error("cannot write '" + tmp + "': " + detail::mpi_error_text(rc));
  int ok = 1;
  {
    const detail::SiteView view(lat, layout.site_bytes());
    const MPI_Offset data_bytes = MPI_Offset(layout.lattice.volume()) * MPI_Offset(layout.site_bytes());
    // A file left by an earlier process of the same id would keep its longer tail.
    ok &= MPI_File_set_size(fh, MPI_Offset(header.size()) + data_bytes + MPI_Offset(trailer.size())) == MPI_SUCCESS;
    if (lat.rank() == 0) {
      ok &= MPI_File_write_at(fh, 0, header.data(), int(header.size()), MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS;
      if (!trailer.empty())
        ok &= MPI_File_write_at(fh, MPI_Offset(header.size()) + data_bytes, trailer.data(), int(trailer.size()), MPI_BYTE,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS;
    }
    ok &= MPI_File_set_view(fh, MPI_Offset(header.size()), view.site, view.block, "native", MPI_INFO_NULL) == MPI_SUCCESS;
    ok &= MPI_File_write_at_all(fh, 0, data.data(), int(lat.volume()), view.site, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    ok &= MPI_File_sync(fh) == MPI_SUCCESS;
  }
  MPI_File_close(&fh);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
  detail::all_or_none(comm, [&] {
    if (lat.rank() != 0) return;
    try {
      if (!ok) throw io_error("cannot write '" + tmp + "'");
      check_output_path(path, force); // another process may have made it meanwhile
      if (std::rename(tmp.c_str(), path.c_str()) != 0) throw io_error("cannot rename '" + tmp + "' to '" + path + "'");
    } catch (...) {
      std::remove(tmp.c_str());
      throw;
    }
  });
#endif
}

} // namespace kqcd
