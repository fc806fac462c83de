// NERSC gauge files: a text header (BEGIN_HEADER, KEY = VALUE lines, END_HEADER) and the links,
// site by site (x fastest), mu = 0..3, row-major complex pairs; 4D_SU3_GAUGE stores two rows.
// CHECKSUM is the sum mod 2^32 of the data's 32-bit words read in the file's byte order (both
// reference files reproduce it, IEEE32BIG and IEEE64BIG alike).
#include "io_common.hpp"

#include <kqcd/io/atomic_file.hpp>

#include <cmath>
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

std::uint32_t word_sum(std::string_view data, Endian order) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 4 <= data.size(); i += 4) sum += std::uint32_t(load_uint(data, i, 4, order));
  return sum;
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

bool looks_like_nersc(std::string_view file) { return file.starts_with(begin_marker); }

void read_nersc(Verifier& v, std::string_view file, HostGaugeConfig& cfg) {
  v.require(looks_like_nersc(file), "not a NERSC file: it does not start with BEGIN_HEADER");
  const auto end = file.substr(0, max_header_bytes).find(end_marker);
  v.require(end != std::string_view::npos, "NERSC header has no END_HEADER in its first MiB");
  const auto data_start = file.find('\n', end);
  v.require(data_start != std::string_view::npos, "NERSC header: END_HEADER line is not terminated (file truncated)");

  std::map<std::string, std::string> header;
  std::string_view text = file.substr(begin_marker.size(), end - begin_marker.size());
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

  const std::string& datatype = field("DATATYPE");
  v.require(datatype == "4D_SU3_GAUGE" || datatype == "4D_SU3_GAUGE_3x3",
            "NERSC header: DATATYPE is '" + datatype + "', expected 4D_SU3_GAUGE or 4D_SU3_GAUGE_3x3");
  const int rows = datatype == "4D_SU3_GAUGE" ? 2 : 3;
  Precision prec{};
  v.require(parse_floating_point(field("FLOATING_POINT"), prec),
            "NERSC header: FLOATING_POINT is '" + field("FLOATING_POINT") + "', expected IEEE32BIG, IEEE32LITTLE, "
            "IEEE64BIG or IEEE64LITTLE");
  std::array<std::int64_t, Nd> dims{};
  for (int mu = 0; mu < Nd; ++mu) {
    const std::string key = "DIMENSION_" + std::to_string(mu + 1);
    v.require(parse_int(field(key), dims[mu]), "NERSC header: " + key + " is '" + field(key) + "', not an integer");
  }
  cfg.lattice = lattice_from_dims(v, dims);
  cfg.format = "nersc";
  cfg.precision = prec.word_bytes == 4 ? "single" : "double";

  const std::string_view data = file.substr(data_start + 1);
  const std::size_t expected_bytes = std::size_t(cfg.lattice.volume()) * Nd * rows * Nc * 2 * prec.word_bytes;
  v.require(data.size() == expected_bytes, "NERSC data is " + std::to_string(data.size()) + " bytes, expected " +
                                               std::to_string(expected_bytes) + " for " + datatype + " " +
                                               field("FLOATING_POINT") + " on " + cfg.lattice.to_string() +
                                               (data.size() < expected_bytes ? " (truncated)" : " (extra bytes)"));

  const std::uint32_t sum = word_sum(data, prec.order);
  std::uint32_t stated = 0;
  const auto checksum = header.find("CHECKSUM");
  if (checksum == header.end()) v.check(false, "CHECKSUM", "a CHECKSUM header line", "none");
  else {
    v.require(parse_hex32(checksum->second, stated), "NERSC header: CHECKSUM '" + checksum->second + "' is not hexadecimal");
    v.check(sum == stated, "CHECKSUM", hex32(stated) + " (header)", hex32(sum) + " (data)");
  }

  cfg.links = decode_links(v, data, cfg.lattice.volume(), rows, prec.word_bytes, prec.order);
  check_unitarity(v, cfg.links);

  // Header values carry 10 decimals; single-precision writers sum in float.
  const double tolerance = prec.word_bytes == 4 ? 1e-6 : 1e-9;
  const auto measured = measure(cfg.lattice, cfg.links);
  for (const auto& [key, value] : {std::pair<std::string, double>{"PLAQUETTE", measured.plaquette},
                                   std::pair<std::string, double>{"LINK_TRACE", measured.link_trace}}) {
    const auto it = header.find(key);
    if (it == header.end()) continue;
    char* parse_end = nullptr;
    const double stated_value = std::strtod(it->second.c_str(), &parse_end);
    v.require(parse_end && *parse_end == '\0' && !it->second.empty(),
              "NERSC header: " + key + " '" + it->second + "' is not a number");
    v.check(std::abs(stated_value - value) <= tolerance, key, it->second + " (header)", fixed(value) + " (data)");
  }
}

} // namespace kqcd::io_detail

namespace kqcd {

void write_nersc(const std::string& path, const HostGaugeConfig& cfg, bool force) {
  using namespace io_detail;
  require_writable(path, cfg);
  const std::string data = encode_links(cfg.links, 8, Endian::big);
  const auto measured = measure(cfg.lattice, cfg.links);
  std::string header = "BEGIN_HEADER\nHDR_VERSION = 1.0\nDATATYPE = 4D_SU3_GAUGE_3x3\nSTORAGE_FORMAT = 1.0\n";
  for (int mu = 0; mu < Nd; ++mu)
    header += "DIMENSION_" + std::to_string(mu + 1) + " = " + std::to_string(cfg.lattice.dim(mu)) + "\n";
  header += "LINK_TRACE = " + fixed(measured.link_trace) + "\nPLAQUETTE = " + fixed(measured.plaquette) +
            "\nCHECKSUM = " + hex32(word_sum(data, Endian::big)) + "\n";
  for (int mu = 0; mu < Nd; ++mu) header += "BOUNDARY_" + std::to_string(mu + 1) + " = PERIODIC\n";
  header += "FLOATING_POINT = IEEE64BIG\nCREATOR = kqcd\nEND_HEADER\n";
  write_file_atomically(path, header + data, force);
}

} // namespace kqcd
