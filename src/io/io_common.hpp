// Pieces the format readers and writers share (private to src/io): byte-order access, whole-file
// reading, the verification policy, link decoding and encoding, and the observables a header states.
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kqcd::io_detail {

enum class Endian { big, little };

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

/// Decode volume * Nd links of `rows` stored rows (2: the third is conj(row0 x row1)) of complex
/// numbers in words of word_bytes (4: float, 8: double); non-finite values are damage.
std::vector<std::complex<double>> decode_links(const Verifier& v, std::string_view data, std::int64_t volume, int rows,
                                               int word_bytes, Endian order);
/// All three rows, as words of word_bytes.
std::string encode_links(const std::vector<std::complex<double>>& links, int word_bytes, Endian order);

/// Every link in SU(3) to within what float storage allows (the bound for double files too: they
/// are often float data widened, as the reference purgaug file is).
void check_unitarity(Verifier& v, const std::vector<std::complex<double>>& links);

struct HeaderObservables {
  double plaquette, link_trace;
};
HeaderObservables measure(const Lattice& lat, const std::vector<std::complex<double>>& links);

/// The links fit the lattice and are finite (a writer's precondition); throws invalid_argument.
void require_writable(const std::string& path, const HostGaugeConfig& cfg);

std::string hex32(std::uint32_t x);
std::string fixed(double x, int digits = 10);
/// Text between <tag> and </tag> in xml; empty if absent.
std::string xml_value(std::string_view xml, const std::string& tag);
bool parse_int(std::string_view text, std::int64_t& out);
bool parse_hex32(std::string_view text, std::uint32_t& out);

std::uint32_t crc32(std::string_view data);

void read_nersc(Verifier& v, std::string_view file, HostGaugeConfig& cfg);
void read_milc(Verifier& v, std::string_view file, HostGaugeConfig& cfg);
void read_ildg(Verifier& v, std::string_view file, HostGaugeConfig& cfg);

bool looks_like_nersc(std::string_view file);
bool looks_like_milc(std::string_view file);
bool looks_like_ildg(std::string_view file);

} // namespace kqcd::io_detail
