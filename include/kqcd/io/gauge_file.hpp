// The pieces of gauge-file reading and writing that work on a block of sites, so that one rank
// (read_gauge, write_nersc, write_ildg) and many ranks (io/distributed_gauge.hpp, MPI-IO) share
// them: the parsed header (GaugeFileLayout: where the links start and what the file claims), the
// decoding of a block's bytes with its part of the checksums, keyed by GLOBAL site index, the
// verification of the combined results, and the header and trailer bytes a writer puts around the
// links. A block is the sub-lattice `place` (local extents, origin and global extents of a Lattice;
// a whole lattice is one block), its sites in its own lexicographic order (x fastest).
#pragma once

#include <kqcd/core/lattice.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kqcd {

/// Byte order of a file.
enum class ByteOrder { big, little };

/// How a file's checksum is formed and combined over blocks: NERSC's 32-bit word sum (added, mod
/// 2^32), MILC's sum29/sum31 and SciDAC's CRC32 pair (rotated by global index, XORed).
enum class GaugeChecksumKind { none, nersc_sum, milc_sum29_31, scidac_crc32 };

/// How a gauge file stores its links: format, precision, byte order, offsets.
struct GaugeFileLayout {
  Lattice lattice;       ///< the global lattice
  std::string format;    ///< "nersc", "ildg" or "milc"
  std::string precision; ///< "single" or "double", as stored
  std::uint64_t data_offset = 0; ///< byte of the first site's links
  int rows = 3;                  ///< stored rows per link (2: the third is reconstructed)
  int word_bytes = 8;            ///< 4 (float) or 8 (double)
  ByteOrder order = ByteOrder::big; ///< byte order of the stored numbers
  GaugeChecksumKind checksum = GaugeChecksumKind::none; ///< checksum the format carries
  bool checksum_stated = false;   ///< false where the header should state one but does not (NERSC)
  std::uint32_t stated[2] = {0, 0}; ///< stated checksums (NERSC: stated[0])
  std::vector<std::pair<std::string, std::string>> header_values; ///< NERSC PLAQUETTE / LINK_TRACE as written
  double header_tolerance = 1e-9; ///< allowed |header value - measured|

  /// Bytes stored per site.
  std::size_t site_bytes() const { return std::size_t(Nd) * rows * Nc * 2 * word_bytes; }
};

/// Where file is (used in messages), its format and, read from the first bytes only, the layout;
/// checks the file's size against it. Throws io_error naming the file and field.
GaugeFileLayout read_gauge_layout(const std::string& path, const GaugeReadOptions& options = {});
/// The layout of a file whose bytes are in memory.
GaugeFileLayout gauge_layout_from_bytes(std::string_view file, const std::string& path, const GaugeReadOptions& options = {});

/// Text form of a layout (for sending it to other ranks) and back.
std::string serialize_layout(const GaugeFileLayout& layout);
/// Parses the text written by serialize_layout.
GaugeFileLayout deserialize_layout(const std::string& text);

/// What one block contributes to the verification; combine blocks with combine().
struct GaugeBlockCheck {
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max(); ///< no such link
  std::uint32_t sum[2] = {0, 0};     ///< the block's part of the checksums
  std::int64_t nonfinite_link = none; ///< first link (global site * Nd + mu) holding a non-finite number
  std::int64_t bad_su3_link = none;   ///< first link outside SU(3) (tolerance of check_gauge_block)
  double bad_su3_deviation = 0;       ///< its deviation
};
/// a and b's blocks together (b's first-bad entries win only if they come first).
GaugeBlockCheck combine(GaugeChecksumKind kind, const GaugeBlockCheck& a, const GaugeBlockCheck& b);

/// One block of a gauge file: its byte range and the sites it holds.
struct GaugeBlock {
  std::vector<std::complex<double>> links; ///< [local site][mu][row][col], HostGaugeOrder::milc
  GaugeBlockCheck check; ///< its checks
};
/// Decodes the block's bytes (place.volume() sites of layout.site_bytes()) and forms its checks.
GaugeBlock decode_gauge_block(const GaugeFileLayout& layout, std::string_view bytes, const Lattice& place);

/// The block's part of the checksum of its already encoded bytes (writers).
GaugeBlockCheck checksum_gauge_block(const GaugeFileLayout& layout, std::string_view bytes, const Lattice& place);

/// The plaquette and link trace a gauge file's header states.
struct GaugeHeaderObservables {
  /// The stated values.
  ///@{
  double plaquette, link_trace;
  ///@}
};
/// Verifies the combined checks of all blocks against the layout: checksum, finite numbers, SU(3)
/// and (measure() is called only when the header states values) the header's plaquette and link
/// trace. Failures throw io_error, or become warnings with options.accept_bad (not the
/// non-finite numbers: damage). Every rank given the same inputs throws the same message.
void verify_gauge_file(const GaugeFileLayout& layout, const std::string& path, const GaugeReadOptions& options,
                       const GaugeBlockCheck& all, const std::function<GaugeHeaderObservables()>& measure,
                       std::vector<std::string>& warnings);

/// The layout writers use: 3x3 links, IEEE64 big-endian, with the format's checksum.
GaugeFileLayout writer_layout(GaugeFormat format, const Lattice& global);
/// Links [site][mu][row][col] as the layout's words (3 rows). Throws invalid_argument naming path
/// if any is non-finite.
std::string encode_gauge_block(const GaugeFileLayout& layout, const std::vector<std::complex<double>>& links,
                               const std::string& path);
/// The bytes a writer puts before and after the links, given the combined checksum and observables.
std::string gauge_file_header(const GaugeFileLayout& layout, const GaugeBlockCheck& all, GaugeHeaderObservables obs);
/// The trailer of a gauge file: the checksums of all blocks.
std::string gauge_file_trailer(const GaugeFileLayout& layout, const GaugeBlockCheck& all);

/// Throws io_error unless path can be written: its folder exists, and it does not unless overwrite.
void check_output_path(const std::string& path, bool overwrite);

} // namespace kqcd
