// MILC binary gauge files (io_lat4.c): a 96-byte header (magic 20103 in the file's byte order,
// dims int32[4], time stamp char[64], site order int32, checksums sum29 and sum31) and float32
// links, site by site (x fastest), mu = 0..3, row-major 3x3 complex. The checksums rotate each
// 32-bit data word (read in the file's byte order) left by its index mod 29 and mod 31 and XOR them.
#include "io_common.hpp"

namespace kqcd::io_detail {

namespace {
constexpr std::uint32_t milc_magic = 20103;
constexpr std::size_t header_bytes = 96, order_offset = 84, checksum_offset = 88;

std::uint32_t rotl(std::uint32_t x, int r) { return r == 0 ? x : (x << r) | (x >> (32 - r)); }

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

bool looks_like_milc(std::string_view file) {
  Endian order;
  return byte_order(file, order);
}

void read_milc(Verifier& v, std::string_view file, HostGaugeConfig& cfg) {
  Endian order = Endian::little;
  v.require(byte_order(file, order), "not a MILC file: the magic number 20103 is missing");
  v.require(file.size() >= header_bytes,
            "MILC header is " + std::to_string(file.size()) + " bytes, expected " + std::to_string(header_bytes));
  auto int32_at = [&](std::size_t offset) { return std::int64_t(std::int32_t(load_uint(file, offset, 4, order))); };
  std::array<std::int64_t, Nd> dims{};
  for (int mu = 0; mu < Nd; ++mu) dims[mu] = int32_at(4 + 4 * mu);
  cfg.lattice = lattice_from_dims(v, dims);
  cfg.format = "milc";
  cfg.precision = "single";
  v.require(int32_at(order_offset) == 0,
            "MILC header: site order " + std::to_string(int32_at(order_offset)) + " is not supported, expected 0 (natural)");

  const std::string_view data = file.substr(header_bytes);
  const std::size_t expected = std::size_t(cfg.lattice.volume()) * Nd * Nc * Nc * 2 * 4;
  v.require(data.size() == expected, "MILC data is " + std::to_string(data.size()) + " bytes, expected " +
                                         std::to_string(expected) + " for " + cfg.lattice.to_string() +
                                         (data.size() < expected ? " (truncated)" : " (extra bytes)"));

  std::uint32_t sum29 = 0, sum31 = 0;
  for (std::size_t i = 0; i < data.size() / 4; ++i) {
    const auto word = std::uint32_t(load_uint(data, 4 * i, 4, order));
    sum29 ^= rotl(word, int(i % 29));
    sum31 ^= rotl(word, int(i % 31));
  }
  const auto stated29 = std::uint32_t(load_uint(file, checksum_offset, 4, order));
  const auto stated31 = std::uint32_t(load_uint(file, checksum_offset + 4, 4, order));
  v.check(sum29 == stated29 && sum31 == stated31, "MILC checksums (sum29 sum31)",
          hex32(stated29) + " " + hex32(stated31) + " (header)", hex32(sum29) + " " + hex32(sum31) + " (data)");

  cfg.links = decode_links(v, data, cfg.lattice.volume(), Nc, 4, order);
  check_unitarity(v, cfg.links);
}

} // namespace kqcd::io_detail
