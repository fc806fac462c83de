// ILDG files: SciDAC LIME records (144-byte header: magic 0x456789ab, version, MB/ME flags, int64
// data length, 128-byte type; data padded to 8 bytes). We use `ildg-format` (XML: field, precision,
// lx..lt), `ildg-binary-data` (big-endian links, x fastest, mu = 0..3, row-major 3x3 complex) and,
// when present, `scidac-checksum`: per site the CRC32 of its bytes, rotated left by the site's
// lexicographic index mod 29 (suma) and mod 31 (sumb), XORed.
#include "io_common.hpp"

#include <kqcd/io/atomic_file.hpp>

#include <optional>

namespace kqcd::io_detail {

namespace {
constexpr std::uint32_t lime_magic = 0x456789ab;
constexpr std::size_t record_header_bytes = 144, type_bytes = 128;
constexpr std::uint16_t message_begin = 0x8000, message_end = 0x4000;

std::uint32_t rotl(std::uint32_t x, int r) { return r == 0 ? x : (x << r) | (x >> (32 - r)); }

struct Record {
  std::string type;
  std::string_view data;
};

std::vector<Record> lime_records(const Verifier& v, std::string_view file) {
  std::vector<Record> records;
  std::size_t pos = 0;
  while (pos < file.size()) {
    const std::string where = "LIME record " + std::to_string(records.size()) + " at byte " + std::to_string(pos);
    v.require(file.size() - pos >= record_header_bytes, where + ": header truncated");
    v.require(load_uint(file, pos, 4, Endian::big) == lime_magic, where + ": bad magic number");
    const std::uint64_t length = load_uint(file, pos + 8, 8, Endian::big);
    const std::size_t available = file.size() - pos - record_header_bytes;
    v.require(length <= available, where + ": " + std::to_string(length) + " data bytes stated, " +
                                       std::to_string(available) + " left in the file (truncated)");
    const std::string_view type_field = file.substr(pos + 16, type_bytes);
    records.push_back({std::string(type_field.substr(0, type_field.find('\0'))),
                       file.substr(pos + record_header_bytes, std::size_t(length))});
    const std::size_t padded = (std::size_t(length) + 7) / 8 * 8;
    pos += record_header_bytes + std::min(padded, available); // the last record may lack its padding
  }
  return records;
}

std::pair<std::uint32_t, std::uint32_t> scidac_checksums(std::string_view data, std::size_t site_bytes) {
  std::uint32_t a = 0, b = 0;
  for (std::size_t site = 0; site < data.size() / site_bytes; ++site) {
    const std::uint32_t crc = crc32(data.substr(site * site_bytes, site_bytes));
    a ^= rotl(crc, int(site % 29));
    b ^= rotl(crc, int(site % 31));
  }
  return {a, b};
}

void append_record(std::string& out, const std::string& type, std::string_view data, std::uint16_t flags) {
  append_uint(out, lime_magic, 4, Endian::big);
  append_uint(out, 1, 2, Endian::big);
  append_uint(out, flags, 2, Endian::big);
  append_uint(out, data.size(), 8, Endian::big);
  std::string type_field = type;
  type_field.resize(type_bytes, '\0');
  out += type_field;
  out += data;
  out.append((8 - data.size() % 8) % 8, '\0');
}
} // namespace

bool looks_like_ildg(std::string_view file) { return file.size() >= 4 && load_uint(file, 0, 4, Endian::big) == lime_magic; }

void read_ildg(Verifier& v, std::string_view file, HostGaugeConfig& cfg) {
  v.require(looks_like_ildg(file), "not a LIME file: the magic number 0x456789ab is missing");
  std::optional<std::string_view> format, binary, checksum;
  for (const auto& r : lime_records(v, file)) {
    // The first of each kind counts, as in QIO.
    if (r.type == "ildg-format" && !format) format = r.data;
    else if (r.type == "ildg-binary-data" && !binary) binary = r.data;
    else if (r.type == "scidac-checksum" && !checksum) checksum = r.data;
  }
  v.require(format.has_value(), "ILDG: no ildg-format record");
  v.require(binary.has_value(), "ILDG: no ildg-binary-data record");

  const std::string field = xml_value(*format, "field");
  v.require(field == "su3gauge", "ILDG ildg-format: field is '" + field + "', expected su3gauge");
  std::int64_t precision = 0;
  const std::string precision_text = xml_value(*format, "precision");
  v.require(parse_int(precision_text, precision) && (precision == 32 || precision == 64),
            "ILDG ildg-format: precision is '" + precision_text + "', expected 32 or 64");
  std::array<std::int64_t, Nd> dims{};
  const char* tags[Nd] = {"lx", "ly", "lz", "lt"};
  for (int mu = 0; mu < Nd; ++mu) {
    const std::string text = xml_value(*format, tags[mu]);
    v.require(parse_int(text, dims[mu]), std::string("ILDG ildg-format: ") + tags[mu] + " is '" + text + "', not an integer");
  }
  cfg.lattice = lattice_from_dims(v, dims);
  cfg.format = "ildg";
  cfg.precision = precision == 32 ? "single" : "double";

  const int word_bytes = int(precision / 8);
  const std::size_t site_bytes = std::size_t(Nd) * Nc * Nc * 2 * word_bytes;
  const std::size_t expected = std::size_t(cfg.lattice.volume()) * site_bytes;
  v.require(binary->size() == expected, "ILDG ildg-binary-data is " + std::to_string(binary->size()) +
                                            " bytes, expected " + std::to_string(expected) + " for " +
                                            cfg.lattice.to_string() + " at precision " + precision_text);

  if (checksum) {
    std::uint32_t stated_a = 0, stated_b = 0;
    const std::string a = xml_value(*checksum, "suma"), b = xml_value(*checksum, "sumb");
    v.require(parse_hex32(a, stated_a) && parse_hex32(b, stated_b),
              "ILDG scidac-checksum: suma '" + a + "' / sumb '" + b + "' are not hexadecimal");
    const auto [sum_a, sum_b] = scidac_checksums(*binary, site_bytes);
    v.check(sum_a == stated_a && sum_b == stated_b, "SciDAC checksum (suma sumb)",
            hex32(stated_a) + " " + hex32(stated_b) + " (record)", hex32(sum_a) + " " + hex32(sum_b) + " (data)");
  }

  cfg.links = decode_links(v, *binary, cfg.lattice.volume(), Nc, word_bytes, Endian::big);
  check_unitarity(v, cfg.links);
}

} // namespace kqcd::io_detail

namespace kqcd {

void write_ildg(const std::string& path, const HostGaugeConfig& cfg, bool force) {
  using namespace io_detail;
  require_writable(path, cfg);
  const std::string data = encode_links(cfg.links, 8, Endian::big);
  const Lattice& lat = cfg.lattice;
  const std::string format =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ildgFormat xmlns=\"http://www.lqcd.org/ildg\"><version>1.0</version>"
      "<field>su3gauge</field><precision>64</precision><lx>" + std::to_string(lat.dim(0)) + "</lx><ly>" +
      std::to_string(lat.dim(1)) + "</ly><lz>" + std::to_string(lat.dim(2)) + "</lz><lt>" +
      std::to_string(lat.dim(3)) + "</lt></ildgFormat>";
  const auto [a, b] = scidac_checksums(data, std::size_t(Nd) * Nc * Nc * 2 * 8);
  const std::string checksum = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><scidacChecksum><version>1.0</version><suma>" +
                               hex32(a) + "</suma><sumb>" + hex32(b) + "</sumb></scidacChecksum>";
  std::string out;
  append_record(out, "ildg-format", format, message_begin);
  append_record(out, "ildg-binary-data", data, 0);
  append_record(out, "scidac-checksum", checksum, message_end);
  write_file_atomically(path, out, force);
}

} // namespace kqcd
