// MILC binary gauge files (io_lat4.c): a 96-byte header (magic 20103 in the file's byte order,
// dims int32[4], time stamp char[64], site order int32, checksums sum29 and sum31) and float32
// links, site by site (x fastest), mu = 0..3, row-major 3x3 complex. The checksums rotate each
// 32-bit data word (read in the file's byte order) left by its global index mod 29 and mod 31 and
// XOR them (gauge_io.cpp).
#include "io_common.hpp"

namespace kqcd::io_detail {

namespace {
constexpr std::uint32_t milc_magic = 20103;
constexpr std::size_t header_bytes = 96, order_offset = 84, checksum_offset = 88;

bool byte_order(std::string_view file, Endian& order) {
  if (file.size() < 4) return false;
  for (const Endian e : {Endian::little, Endian::big})
    if (load_uint(file, 0, 4, e) == milc_magic) {
      order = e;
      return true;
    }
  return false;
}
} // namespace

bool looks_like_milc(std::string_view first_bytes) {
  Endian order;
  return byte_order(first_bytes, order);
}

GaugeFileLayout milc_layout(const Verifier& v, const ByteSource& source) {
  const std::string head = source.read(0, header_bytes);
  GaugeFileLayout layout;
  Endian order = Endian::little;
  v.require(byte_order(head, order), "not a MILC file: the magic number 20103 is missing");
  v.require(head.size() >= header_bytes,
            "MILC header is " + std::to_string(head.size()) + " bytes, expected " + std::to_string(header_bytes));
  auto int32_at = [&](std::size_t offset) { return std::int64_t(std::int32_t(load_uint(head, offset, 4, order))); };
  std::array<std::int64_t, Nd> dims{};
  for (int mu = 0; mu < Nd; ++mu) dims[mu] = int32_at(4 + 4 * mu);
  layout.lattice = lattice_from_dims(v, dims);
  layout.format = "milc";
  layout.precision = "single";
  layout.word_bytes = 4;
  layout.order = order;
  layout.data_offset = header_bytes;
  v.require(int32_at(order_offset) == 0,
            "MILC header: site order " + std::to_string(int32_at(order_offset)) + " is not supported, expected 0 (natural)");

  const std::uint64_t data_bytes = source.size() - header_bytes;
  const std::uint64_t expected = std::uint64_t(layout.lattice.volume()) * layout.site_bytes();
  v.require(data_bytes == expected, "MILC data is " + std::to_string(data_bytes) + " bytes, expected " +
                                        std::to_string(expected) + " for " + layout.lattice.to_string() +
                                        (data_bytes < expected ? " (truncated)" : " (extra bytes)"));
  layout.checksum = GaugeChecksumKind::milc_sum29_31;
  layout.checksum_stated = true;
  layout.stated[0] = std::uint32_t(load_uint(head, checksum_offset, 4, order));
  layout.stated[1] = std::uint32_t(load_uint(head, checksum_offset + 4, 4, order));
  return layout;
}

} // namespace kqcd::io_detail
