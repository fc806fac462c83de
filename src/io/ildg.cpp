// ILDG files: SciDAC LIME records (144-byte header: magic 0x456789ab, version, MB/ME flags, int64
// data length, 128-byte type; data padded to 8 bytes). We use `ildg-format` (XML: field, precision,
// lx..lt), `ildg-binary-data` (big-endian links, x fastest, mu = 0..3, row-major 3x3 complex) and,
// when present, `scidac-checksum`: per site the CRC32 of its bytes, rotated left by the site's
// global lexicographic index mod 29 (suma) and mod 31 (sumb), XORed (gauge_io.cpp).
#include "io_common.hpp"

#include <optional>

namespace kqcd::io_detail {

namespace {
constexpr std::uint32_t lime_magic = 0x456789ab;
constexpr std::size_t record_header_bytes = 144, type_bytes = 128;
constexpr std::uint16_t message_begin = 0x8000, message_end = 0x4000;

struct Record {
  std::string type;
  std::uint64_t offset, length; ///< of the data
};

std::vector<Record> lime_records(const Verifier& v, const ByteSource& file) {
  std::vector<Record> records;
  std::uint64_t pos = 0;
  const std::uint64_t size = file.size();
  while (pos < size) {
    const std::string where = "LIME record " + std::to_string(records.size()) + " at byte " + std::to_string(pos);
    const std::string head = file.read(pos, record_header_bytes);
    v.require(head.size() == record_header_bytes, where + ": header truncated");
    v.require(load_uint(head, 0, 4, Endian::big) == lime_magic, where + ": bad magic number");
    const std::uint64_t length = load_uint(head, 8, 8, Endian::big);
    const std::uint64_t available = size - pos - record_header_bytes;
    v.require(length <= available, where + ": " + std::to_string(length) + " data bytes stated, " +
                                       std::to_string(available) + " left in the file (truncated)");
    const std::string_view type_field = std::string_view(head).substr(16, type_bytes);
    records.push_back({std::string(type_field.substr(0, type_field.find('\0'))), pos + record_header_bytes, length});
    const std::uint64_t padded = (length + 7) / 8 * 8;
    pos += record_header_bytes + std::min(padded, available); // the last record may lack its padding
  }
  return records;
}

void append_record_header(std::string& out, const std::string& type, std::uint64_t length, std::uint16_t flags) {
  append_uint(out, lime_magic, 4, Endian::big);
  append_uint(out, 1, 2, Endian::big);
  append_uint(out, flags, 2, Endian::big);
  append_uint(out, length, 8, Endian::big);
  std::string type_field = type;
  type_field.resize(type_bytes, '\0');
  out += type_field;
}

void append_record(std::string& out, const std::string& type, std::string_view data, std::uint16_t flags) {
  append_record_header(out, type, data.size(), flags);
  out += data;
  out.append((8 - data.size() % 8) % 8, '\0');
}
} // namespace

bool looks_like_ildg(std::string_view first_bytes) {
  return first_bytes.size() >= 4 && load_uint(first_bytes, 0, 4, Endian::big) == lime_magic;
}

GaugeFileLayout ildg_layout(const Verifier& v, const ByteSource& file) {
  v.require(looks_like_ildg(file.read(0, 4)), "not a LIME file: the magic number 0x456789ab is missing");
  std::optional<Record> format_record, binary, checksum_record;
  for (const auto& r : lime_records(v, file)) {
    // The first of each kind counts, as in QIO.
    if (r.type == "ildg-format" && !format_record) format_record = r;
    else if (r.type == "ildg-binary-data" && !binary) binary = r;
    else if (r.type == "scidac-checksum" && !checksum_record) checksum_record = r;
  }
  v.require(format_record.has_value(), "ILDG: no ildg-format record");
  v.require(binary.has_value(), "ILDG: no ildg-binary-data record");
  const std::string format = file.read(format_record->offset, std::size_t(format_record->length));

  GaugeFileLayout layout;
  const std::string field = xml_value(format, "field");
  v.require(field == "su3gauge", "ILDG ildg-format: field is '" + field + "', expected su3gauge");
  std::int64_t precision = 0;
  const std::string precision_text = xml_value(format, "precision");
  v.require(parse_int(precision_text, precision) && (precision == 32 || precision == 64),
            "ILDG ildg-format: precision is '" + precision_text + "', expected 32 or 64");
  std::array<std::int64_t, Nd> dims{};
  const char* tags[Nd] = {"lx", "ly", "lz", "lt"};
  for (int mu = 0; mu < Nd; ++mu) {
    const std::string text = xml_value(format, tags[mu]);
    v.require(parse_int(text, dims[mu]), std::string("ILDG ildg-format: ") + tags[mu] + " is '" + text + "', not an integer");
  }
  layout.lattice = lattice_from_dims(v, dims);
  layout.format = "ildg";
  layout.precision = precision == 32 ? "single" : "double";
  layout.word_bytes = int(precision / 8);
  layout.order = Endian::big;
  layout.data_offset = binary->offset;

  const std::uint64_t expected = std::uint64_t(layout.lattice.volume()) * layout.site_bytes();
  v.require(binary->length == expected, "ILDG ildg-binary-data is " + std::to_string(binary->length) +
                                            " bytes, expected " + std::to_string(expected) + " for " +
                                            layout.lattice.to_string() + " at precision " + precision_text);

  if (checksum_record) {
    const std::string checksum = file.read(checksum_record->offset, std::size_t(checksum_record->length));
    const std::string a = xml_value(checksum, "suma"), b = xml_value(checksum, "sumb");
    v.require(parse_hex32(a, layout.stated[0]) && parse_hex32(b, layout.stated[1]),
              "ILDG scidac-checksum: suma '" + a + "' / sumb '" + b + "' are not hexadecimal");
    layout.checksum = GaugeChecksumKind::scidac_crc32;
    layout.checksum_stated = true;
  }
  return layout;
}

std::string ildg_prefix(const Lattice& lat, std::uint64_t data_bytes) {
  const std::string format =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ildgFormat xmlns=\"http://www.lqcd.org/ildg\"><version>1.0</version>"
      "<field>su3gauge</field><precision>64</precision><lx>" + std::to_string(lat.dim(0)) + "</lx><ly>" +
      std::to_string(lat.dim(1)) + "</ly><lz>" + std::to_string(lat.dim(2)) + "</lz><lt>" +
      std::to_string(lat.dim(3)) + "</lt></ildgFormat>";
  std::string out;
  append_record(out, "ildg-format", format, message_begin);
  append_record_header(out, "ildg-binary-data", data_bytes, 0);
  return out;
}

std::string ildg_suffix(std::uint64_t data_bytes, std::uint32_t suma, std::uint32_t sumb) {
  const std::string checksum = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><scidacChecksum><version>1.0</version><suma>" +
                               hex32(suma) + "</suma><sumb>" + hex32(sumb) + "</sumb></scidacChecksum>";
  std::string out((8 - data_bytes % 8) % 8, '\0'); // the binary record's padding
  append_record(out, "scidac-checksum", checksum, message_end);
  return out;
}

} // namespace kqcd::io_detail
