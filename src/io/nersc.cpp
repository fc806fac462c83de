// NERSC gauge files: a text header (BEGIN_HEADER, KEY = VALUE lines, END_HEADER) and the links,
// site by site (x fastest), mu = 0..3, row-major complex pairs; 4D_SU3_GAUGE stores two rows.
// CHECKSUM is the sum mod 2^32 of the data's 32-bit words read in the file's byte order (both
// reference files reproduce it, IEEE32BIG and IEEE64BIG alike).
#include "io_common.hpp"

#include <map>

namespace kqcd::io_detail {

namespace {
constexpr std::string_view begin_marker = "BEGIN_HEADER", end_marker = "END_HEADER";
constexpr std::size_t max_header_bytes = 1 << 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

struct Precision {
  int word_bytes;
  Endian order;
};
bool parse_floating_point(const std::string& s, Precision& p) {
  static const std::map<std::string, Precision> known = {
      {"IEEE32", {4, Endian::big}},   {"IEEE32BIG", {4, Endian::big}}, {"IEEE32LITTLE", {4, Endian::little}},
      {"IEEE64", {8, Endian::big}},   {"IEEE64BIG", {8, Endian::big}}, {"IEEE64LITTLE", {8, Endian::little}}};
  const auto it = known.find(s);
  if (it == known.end()) return false;
  p = it->second;
  return true;
}
} // namespace

bool looks_like_nersc(std::string_view first_bytes) { return first_bytes.starts_with(begin_marker); }

GaugeFileLayout nersc_layout(const Verifier& v, const ByteSource& source) {
  // The header, END_HEADER's line included, lies within the first MiB and a line.
  const std::string head = source.read(0, max_header_bytes + 4096);
  v.require(looks_like_nersc(head), "not a NERSC file: it does not start with BEGIN_HEADER");
  const auto end = std::string_view(head).substr(0, max_header_bytes).find(end_marker);
  v.require(end != std::string_view::npos, "NERSC header has no END_HEADER in its first MiB");
  const auto data_start = head.find('\n', end);
  v.require(data_start != std::string_view::npos, "NERSC header: END_HEADER line is not terminated (file truncated)");

  std::map<std::string, std::string> header;
  std::string_view text = std::string_view(head).substr(begin_marker.size(), end - begin_marker.size());
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    header[std::string(trim(line.substr(0, eq)))] = std::string(trim(line.substr(eq + 1)));
  }
  auto field = [&](const std::string& key) -> const std::string& {
    const auto it = header.find(key);
    v.require(it != header.end(), "NERSC header: " + key + " is missing");
    return it->second;
  };

  GaugeFileLayout layout;
  const std::string& datatype = field("DATATYPE");
  v.require(datatype == "4D_SU3_GAUGE" || datatype == "4D_SU3_GAUGE_3x3",
            "NERSC header: DATATYPE is '" + datatype + "', expected 4D_SU3_GAUGE or 4D_SU3_GAUGE_3x3");
  layout.rows = datatype == "4D_SU3_GAUGE" ? 2 : 3;
  Precision prec{};
  v.require(parse_floating_point(field("FLOATING_POINT"), prec),
            "NERSC header: FLOATING_POINT is '" + field("FLOATING_POINT") + "', expected IEEE32BIG, IEEE32LITTLE, "
            "IEEE64BIG or IEEE64LITTLE");
  std::array<std::int64_t, Nd> dims{};
  for (int mu = 0; mu < Nd; ++mu) {
    const std::string key = "DIMENSION_" + std::to_string(mu + 1);
    v.require(parse_int(field(key), dims[mu]), "NERSC header: " + key + " is '" + field(key) + "', not an integer");
  }
  layout.lattice = lattice_from_dims(v, dims);
  layout.format = "nersc";
  layout.precision = prec.word_bytes == 4 ? "single" : "double";
  layout.word_bytes = prec.word_bytes;
  layout.order = prec.order;
  layout.data_offset = data_start + 1;

  const std::uint64_t data_bytes = source.size() - layout.data_offset;
  const std::uint64_t expected_bytes = std::uint64_t(layout.lattice.volume()) * layout.site_bytes();
  v.require(data_bytes == expected_bytes, "NERSC data is " + std::to_string(data_bytes) + " bytes, expected " +
                                              std::to_string(expected_bytes) + " for " + datatype + " " +
                                              field("FLOATING_POINT") + " on " + layout.lattice.to_string() +
                                              (data_bytes < expected_bytes ? " (truncated)" : " (extra bytes)"));

  layout.checksum = GaugeChecksumKind::nersc_sum;
  const auto checksum = header.find("CHECKSUM");
  layout.checksum_stated = checksum != header.end();
  if (layout.checksum_stated)
    v.require(parse_hex32(checksum->second, layout.stated[0]),
              "NERSC header: CHECKSUM '" + checksum->second + "' is not hexadecimal");
  for (const std::string key : {"PLAQUETTE", "LINK_TRACE"}) {
    const auto it = header.find(key);
    if (it != header.end()) layout.header_values.emplace_back(key, it->second);
  }
  // Header values carry 10 decimals; single-precision writers sum in float.
  layout.header_tolerance = prec.word_bytes == 4 ? 1e-6 : 1e-9;
  return layout;
}

std::string nersc_header(const Lattice& lat, GaugeHeaderObservables obs, std::uint32_t checksum) {
  std::string header = "BEGIN_HEADER\nHDR_VERSION = 1.0\nDATATYPE = 4D_SU3_GAUGE_3x3\nSTORAGE_FORMAT = 1.0\n";
  for (int mu = 0; mu < Nd; ++mu) header += "DIMENSION_" + std::to_string(mu + 1) + " = " + std::to_string(lat.dim(mu)) + "\n";
  header += "LINK_TRACE = " + fixed(obs.link_trace) + "\nPLAQUETTE = " + fixed(obs.plaquette) + "\nCHECKSUM = " +
            hex32(checksum) + "\n";
  for (int mu = 0; mu < Nd; ++mu) header += "BOUNDARY_" + std::to_string(mu + 1) + " = PERIODIC\n";
  header += "FLOATING_POINT = IEEE64BIG\nCREATOR = kqcd\nEND_HEADER\n";
  return header;
}

} // namespace kqcd::io_detail
