// Parallel gauge-file I/O (io/distributed_gauge.hpp) against the one-process reader and writers
// (read_gauge, write_nersc, write_ildg) and the reference values of ../shared/data: every
// reference file read on 1, 2 and 4 ranks over several process grids gives the one-process links
// bit for bit; files written on N ranks are byte-identical to the one-process writer's and read
// back with their checksums verified; a flipped byte is the same checksum error on every rank;
// a failed write leaves no file. Double precision only: read_gauge_into checks header values in
// double.
#include "test_harness.hpp"

#include <kqcd/comm/process_grid.hpp>
#include <kqcd/gauge/gauge_files.hpp>
#include <kqcd/gauge/gauge_observables.hpp>

#include "host_fields.hpp"
#include "mpi_compare.hpp"

#include <mpi.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {

using Gauge = GaugeField<Kokkos::complex<double>>;

/// Grids for the 4^4 and 4^3x8 files ({0,0,0,0}: chosen automatically).
std::vector<std::array<int, Nd>> io_grids() {
  switch (ProcessGrid::world_size()) {
  case 1: return {{1, 1, 1, 1}};
  case 2: return {{1, 1, 1, 2}, {2, 1, 1, 1}, {1, 2, 1, 1}, {1, 1, 2, 1}, {0, 0, 0, 0}};
  case 4: return {{1, 1, 2, 2}, {2, 1, 1, 2}, {2, 2, 1, 1}, {1, 2, 2, 1}, {0, 0, 0, 0}};
  default: return {{0, 0, 0, 0}};
  }
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

/// A folder of its own per world size (the np1, np2 and np4 runs may overlap), empty.
std::string scratch(const std::string& what) {
  const std::string dir = "test_mpi_io_" + what + "_np" + std::to_string(ProcessGrid::world_size());
  if (world_rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

std::size_t files_in(const std::string& dir) {
  return std::size_t(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()));
}

/// The message of the kqcd::io_error that f throws ("" if none).
template <class F> std::string io_error_of(F&& f) {
  try {
    f();
  } catch (const io_error& e) {
    return e.what();
  }
  return "";
}

// Plaquettes of ../shared/data/README.md (nersc-l4444.cfg: its header's PLAQUETTE).
const std::vector<std::pair<std::string, double>> reference_files = {{"milc-l4444.milc", 0.5948501589},
                                                                     {"milc-l4444.ildg", 0.5948501589},
                                                                     {"nersc-l4444.cfg", 0.0382422893},
                                                                     {"purgaug-l4448.nersc", 0.9022631188},
                                                                     {"milc-l8888-b6.0.milc", 0.5935602404}};

} // namespace

TEST_CASE("gauge files read in parallel equal the one-process read", "[mpi][io]") {
  for (const auto& [name, reference] : reference_files) {
    CAPTURE(name);
    // The one-process answer: every rank reads the whole file itself.
    const HostGaugeConfig whole = read_gauge(shared_data(name));
    Gauge ug(whole.lattice);
    import_gauge(ug, whole.links);
    const double plaq = plaquette(ug).total;
    CHECK(std::abs(plaq - reference) < 1e-9);
    for (const auto& shape : io_grids()) {
      const GaugeFileLayout layout = read_gauge_header(shared_data(name));
      CHECK(layout.lattice.dims() == whole.lattice.dims());
      CHECK(layout.format == whole.format);
      CHECK(layout.precision == whole.precision);
      ProcessGrid pg(layout.lattice, shape);
      CAPTURE(pg.to_string());
      Gauge ul(pg.lattice());
      const auto warnings = read_gauge_into(ul, shared_data(name), layout);
      CHECK(warnings.empty());
      CHECK(gauge_diff(ul, ug) == 0.0);
      CHECK(std::abs(plaquette(ul).total - plaq) < 1e-13);
    }
  }
  // Failures of rank 0's header parsing are thrown on every rank.
  CHECK(all_ranks(!io_error_of([] { read_gauge_header(shared_data("no-such-file")); }).empty()));
  CHECK(all_ranks(!io_error_of([] { read_gauge_header(shared_data("README.md")); }).empty()));
}

TEST_CASE("gauge files written in parallel are the one-process writer's bytes", "[mpi][io]") {
  const std::string dir = scratch("write");
  for (const std::string name : {"purgaug-l4448.nersc", "milc-l4444.ildg"}) {
    CAPTURE(name);
    const HostGaugeConfig whole = read_gauge(shared_data(name));
    Gauge ug(whole.lattice);
    import_gauge(ug, whole.links);
    for (const auto format : {GaugeFormat::nersc, GaugeFormat::ildg}) {
      const std::string ext = format == GaugeFormat::nersc ? ".nersc" : ".ildg";
      // The one-process writer's file, by rank 0.
      const std::string serial = dir + "/serial" + ext;
      if (world_rank() == 0) format == GaugeFormat::nersc ? write_nersc(serial, whole, true) : write_ildg(serial, whole, true);
      MPI_Barrier(MPI_COMM_WORLD);
      const std::string expected = slurp(serial);
      for (const auto& shape : io_grids()) {
        ProcessGrid pg(whole.lattice, shape);
        CAPTURE(pg.to_string(), ext);
        Gauge ul(pg.lattice());
        read_gauge_into(ul, shared_data(name), read_gauge_header(shared_data(name)));
        const std::string path = dir + "/parallel" + ext;
        write_gauge(path, format, ul, true);
        CHECK(all_ranks(slurp(path) == expected));
        // The one-process reader verifies the checksums and gets the links bit for bit.
        const HostGaugeConfig back = read_gauge(path);
        CHECK(back.links == whole.links);
        // Read back in parallel.
        Gauge ur(pg.lattice());
        CHECK(read_gauge_into(ur, path, read_gauge_header(path)).empty());
        CHECK(gauge_diff(ur, ug) == 0.0);
        // An existing file is kept without force, on every rank.
        CHECK(all_ranks(!io_error_of([&] { write_gauge(path, format, ul, false); }).empty()));
        CHECK(all_ranks(slurp(path) == expected));
        CHECK(all_ranks(files_in(dir) == 2)); // no temporary file left
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank() == 0) std::filesystem::remove(path);
        MPI_Barrier(MPI_COMM_WORLD);
      }
      if (world_rank() == 0) std::filesystem::remove(serial);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
}

TEST_CASE("a flipped byte is the same checksum error on every rank", "[mpi][io]") {
  const std::string dir = scratch("corrupt");
  struct Case {
    std::string name, field;
  };
  for (const Case& c : {Case{"milc-l4444.milc", "MILC checksums"}, Case{"milc-l4444.ildg", "SciDAC checksum"},
                        Case{"nersc-l4444.cfg", "CHECKSUM"}}) {
    CAPTURE(c.name);
    const GaugeFileLayout layout = read_gauge_header(shared_data(c.name));
    const std::string path = dir + "/" + c.name;
    if (world_rank() == 0) {
      std::string bytes = slurp(shared_data(c.name));
      // The lowest mantissa bit of the last site's first word: still finite and in SU(3) to
      // float accuracy, so only the checksum sees it (the last site lies on the last rank).
      const std::size_t word = std::size_t(layout.data_offset) + std::size_t(layout.lattice.volume() - 1) * layout.site_bytes();
      bytes[word + (layout.order == ByteOrder::big ? layout.word_bytes - 1 : 0)] ^= 1;
      std::ofstream(path, std::ios::binary) << bytes;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (const auto& shape : io_grids()) {
      ProcessGrid pg(layout.lattice, shape);
      CAPTURE(pg.to_string());
      Gauge u(pg.lattice());
      const std::string msg = io_error_of([&] { read_gauge_into(u, path, read_gauge_header(path)); });
      CAPTURE(msg);
      CHECK(all_ranks(msg.find(c.field) != std::string::npos));
      CHECK(same_on_all_ranks(msg));
      // The one-process reader says the same.
      CHECK(msg == io_error_of([&] { read_gauge(path); }));
      // Accepted as known-bad: one warning, the same on every rank.
      GaugeReadOptions accept;
      accept.accept_bad = true;
      const auto warnings = read_gauge_into(u, path, read_gauge_header(path, accept), accept);
      CHECK(warnings.size() == 1);
      CHECK(same_on_all_ranks(warnings.empty() ? "" : warnings[0]));
    }
  }
}

TEST_CASE("a failed parallel write leaves no file", "[mpi][io]") {
  const std::string dir = scratch("fail");
  const HostGaugeConfig whole = read_gauge(shared_data("purgaug-l4448.nersc"));
  for (const auto& shape : io_grids()) {
    ProcessGrid pg(whole.lattice, shape);
    CAPTURE(pg.to_string());
    Gauge u(pg.lattice());
    read_gauge_into(u, shared_data("purgaug-l4448.nersc"), read_gauge_header(shared_data("purgaug-l4448.nersc")));
    // A folder that does not exist.
    const std::string msg = io_error_of([&] { write_gauge(dir + "/missing/out.nersc", GaugeFormat::nersc, u); });
    CHECK(all_ranks(msg.find("does not exist") != std::string::npos));
    CHECK(same_on_all_ranks(msg));
    // A non-finite link on the last rank only: invalid_argument on every rank, nothing written.
    if (pg.rank() == pg.size() - 1) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u[1].view());
      h(0, 2, 1, 1) = Kokkos::complex<double>(std::nan(""), 0.0);
      Kokkos::deep_copy(u[1].view(), h);
    }
    int thrown = 0;
    try {
      write_gauge(dir + "/nan.nersc", GaugeFormat::nersc, u);
    } catch (const invalid_argument&) {
      thrown = 1;
    }
    CHECK(all_ranks(thrown == 1));
    CHECK(all_ranks(files_in(dir) == 0));
  }
}
