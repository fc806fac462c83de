// Reading and writing gauge configurations: NERSC (4D_SU3_GAUGE and 4D_SU3_GAUGE_3x3, IEEE32/64,
// either byte order), ILDG/SciDAC LIME (32 and 64 bit) and MILC (float32, either byte order).
// The format is detected from the content, never from the file name. Every read checks the data
// against what the file claims (sizes, checksums, header plaquette and link trace) and that every
// link is in SU(3); any problem is a kqcd::io_error naming the file, the field, the expected and
// the found value. GaugeReadOptions::accept_bad turns the verification failures (not structural
// damage) into warnings. Devices take the links with import_gauge(u, cfg.links, HostGaugeOrder::milc).
#pragma once

#include <kqcd/core/lattice.hpp>

#include <complex>
#include <string>
#include <string_view>
#include <vector>

namespace kqcd {

/// Gauge file formats (auto_detect: from the file's header).
enum class GaugeFormat { auto_detect, nersc, ildg, milc };

/// "auto", "nersc", "ildg" or "milc"; throws invalid_argument otherwise.
GaugeFormat parse_gauge_format(const std::string& name);

/// Options of read_gauge.
struct GaugeReadOptions {
  /// File format (auto_detect: from the header).
  GaugeFormat format = GaugeFormat::auto_detect;
  bool accept_bad = false; ///< verification failures become warnings (for known-bad files)
};

/// A gauge configuration on the host with its header values.
struct HostGaugeConfig {
  /// The lattice of the configuration.
  Lattice lattice;
  std::vector<std::complex<double>> links; ///< [site lexicographic][mu][row][col] (HostGaugeOrder::milc)
  std::string format;                      ///< "nersc", "ildg" or "milc"
  std::string precision;                   ///< "single" or "double", as stored
  std::vector<std::string> warnings;       ///< accepted verification failures
};

/// The format of the file's content (never auto_detect); throws io_error if none fits.
GaugeFormat detect_gauge_format(const std::string& path);

/// Reads a gauge configuration file (NERSC, ILDG or MILC) into host memory.
HostGaugeConfig read_gauge(const std::string& path, const GaugeReadOptions& options = {});
/// read_gauge on a file's bytes already in memory (what read_gauge does after reading the file);
/// name stands for the file in messages.
HostGaugeConfig read_gauge_bytes(std::string_view bytes, const std::string& name, const GaugeReadOptions& options = {});

/// NERSC 4D_SU3_GAUGE_3x3, IEEE64BIG, with CHECKSUM, PLAQUETTE and LINK_TRACE in the header.
/// Written atomically; an existing file is replaced only with force.
void write_nersc(const std::string& path, const HostGaugeConfig& cfg, bool force = false);
/// ILDG LIME file, 64-bit big-endian, with ildg-format, ildg-binary-data and scidac-checksum records.
void write_ildg(const std::string& path, const HostGaugeConfig& cfg, bool force = false);

/// Largest deviation of any link from SU(3): max over links of max |U U^dag - 1|_ij and |det U - 1|.
double max_su3_deviation(const std::vector<std::complex<double>>& links);

} // namespace kqcd
