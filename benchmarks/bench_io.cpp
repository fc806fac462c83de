// Gauge file throughput: write and read (with full verification) of a generated configuration in
// each writable format, MB/s counted on the file size. Files go to a temporary folder, removed after.
#include "bench.hpp"

#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace kqcd::bench {

nlohmann::json run_io(const Lattice& lattice, bool quick) {
  namespace fs = std::filesystem;
  GaugeField<Kokkos::complex<double>, Kokkos::DefaultHostExecutionSpace> u(lattice);
  random_gauge(u, 1234);
  HostGaugeConfig cfg;
  cfg.lattice = lattice;
  cfg.links = export_gauge(u);
  const fs::path folder = fs::temp_directory_path() / ("kqcd_bench_io_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  nlohmann::json results = nlohmann::json::array();
  try {
    for (const std::string format : {"nersc", "ildg"}) {
      const std::string path = (folder / ("config." + format)).string();
      double write_s = 1e30, read_s = 1e30;
      for (int rep = 0; rep < (quick ? 1 : 3); ++rep) { // best of three: the page cache settles
        Kokkos::Timer t;
        if (format == "nersc") write_nersc(path, cfg, true);
        else write_ildg(path, cfg, true);
        write_s = std::min(write_s, t.seconds());
        t.reset();
        const auto back = read_gauge(path);
        read_s = std::min(read_s, t.seconds());
        if (back.links != cfg.links) throw io_error("bench io: '" + path + "' did not read back identically");
      }
      const double mb = double(fs::file_size(path)) / 1e6;
      std::fprintf(stderr, "[kqcd bench io] %s %s: %.1f MB, write %.1f MB/s, read %.1f MB/s\n", format.c_str(),
                   lattice.to_string().c_str(), mb, mb / write_s, mb / read_s);
      nlohmann::json r{{"benchmark", "io_" + format}, {"case", format}, {"format", format}, {"lattice", lattice.dims()},
                        {"precision", "double"}, {"megabytes", mb}, {"write_s", write_s}, {"read_s", read_s},
                        {"time_per_call_s", write_s + read_s}, {"write_mbytes_per_s", mb / write_s},
                        {"read_mbytes_per_s", mb / read_s},
                        {"note", "double precision; read includes checksums, SU(3) and header checks"}};
      finish_record(r, "io", Kokkos::DefaultHostExecutionSpace::name());
      results.push_back(std::move(r));
    }
  } catch (...) {
    fs::remove_all(folder);
    throw;
  }
  fs::remove_all(folder);
  return results;
}

} // namespace kqcd::bench
