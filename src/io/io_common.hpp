// Pieces the format readers and writers share (private to src/io): byte-order access, whole-file
// reading, the verification policy, link decoding and encoding, and the observables a header states.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/io/gauge_file.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kqcd::io_detail {

using Endian = ByteOrder;

/// Random access to a file's bytes, whole in memory or read on demand (headers only).
class ByteSource {
public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  /// Up to n bytes from offset (fewer at the end of the file).
  virtual std::string read(std::uint64_t offset, std::size_t n) const = 0;
};

/// Unsigned integer of width bytes at data[offset] (the caller has checked the bounds).
std::uint64_t load_uint(std::string_view data, std::size_t offset, int width, Endian order);
/// Append v as width bytes in the given order.
void append_uint(std::string& out, std::uint64_t v, int width, Endian order);

std::string read_whole_file(const std::string& path);

/// Applies the read options to what a reader finds: structural damage always throws; a failed
/// verification throws unless accept_bad, which records a warning instead.
class Verifier {
public:
  Verifier(std::string path, bool accept_bad, std::vector<std::string>& warnings)
      : path_(std::move(path)), accept_bad_(accept_bad), warnings_(warnings) {}
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const { throw io_error("'" + path_ + "': " + what); }
  void require(bool ok, const std::string& what) const {
    if (!ok) fail(what);
  }
  /// A verification: field's value should be expected, the data gave found.
  void check(bool ok, const std::string& field, const std::string& expected, const std::string& found);

private:
  std::string path_;
  bool accept_bad_;
  std::vector<std::string>& warnings_;
};

/// A lattice from header dimensions, each bounded before the volume is formed.
Lattice lattice_from_dims(const Verifier& v, const std::array<std::int64_t, Nd>& dims);

/// Words of word_bytes (4: float, 8: double) in the given order.
std::string encode_links(const std::vector<std::complex<double>>& links, int word_bytes, Endian order);

/// Largest deviation of the 3x3 matrix m from SU(3).
double su3_deviation(const std::complex<double>* m);

/// The plaquette and link trace a header states, of host links in MILC order on lattice lat (whole).
GaugeHeaderObservables measure(const Lattice& lat, const std::vector<std::complex<double>>& links);

/// The links fit the lattice and are finite (a writer's precondition); throws invalid_argument.
void require_writable(const std::string& path, const HostGaugeConfig& cfg);

std::string hex32(std::uint32_t x);
std::string fixed(double x, int digits = 10);
/// Text between <tag> and </tag> in xml; empty if absent.
std::string xml_value(std::string_view xml, const std::string& tag);
bool parse_int(std::string_view text, std::int64_t& out);
bool parse_hex32(std::string_view text, std::uint32_t& out);

std::uint32_t crc32(std::string_view data);

std::uint32_t rotl(std::uint32_t x, int r);

/// Each format's header: the layout, with the file's size checked against it.
GaugeFileLayout nersc_layout(const Verifier& v, const ByteSource& file);
GaugeFileLayout milc_layout(const Verifier& v, const ByteSource& file);
GaugeFileLayout ildg_layout(const Verifier& v, const ByteSource& file);

bool looks_like_nersc(std::string_view first_bytes);
bool looks_like_milc(std::string_view first_bytes);
bool looks_like_ildg(std::string_view first_bytes);

/// NERSC header text, MILC has no writer; ILDG records around the binary data.
std::string nersc_header(const Lattice& lat, GaugeHeaderObservables obs, std::uint32_t checksum);
std::string ildg_prefix(const Lattice& lat, std::uint64_t data_bytes);
std::string ildg_suffix(std::uint64_t data_bytes, std::uint32_t suma, std::uint32_t sumb);

} // namespace kqcd::io_detail
