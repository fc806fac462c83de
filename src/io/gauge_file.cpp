// The block pieces of gauge I/O (io/gauge_file.hpp): decoding a block of sites with its part of
// the checksums and checks, keyed by global site index; verifying the combined result; the bytes
// writers put around the links; and the one-process writers built from them.
#include "io_common.hpp"

#include <kqcd/io/atomic_file.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>

namespace kqcd {

using namespace io_detail;

namespace {
// Float data reaches about 5e-7 (a few ulps per product in the 3x3 sums); 1e-5 leaves room.
constexpr double su3_tolerance = 1e-5;

double load_real(std::string_view data, std::size_t offset, int word_bytes, Endian order) {
  const auto bits = load_uint(data, offset, word_bytes, order);
  return word_bytes == 4 ? double(std::bit_cast<float>(std::uint32_t(bits))) : std::bit_cast<double>(bits);
}

/// Global lexicographic index of the block's local site i.
std::int64_t global_site(const Lattice& place, std::int64_t i) {
  Coords c;
  for (int mu = 0; mu < Nd; ++mu) {
    c.x[mu] = int(i % place.dim(mu));
    i /= place.dim(mu);
  }
  return place.global_lex_index(c);
}

void require_block_size(const GaugeFileLayout& layout, std::string_view bytes, const Lattice& place) {
  const std::size_t want = std::size_t(place.volume()) * layout.site_bytes();
  if (bytes.size() != want)
    throw invalid_argument("gauge block: " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(want));
}

/// Adds one site's bytes (global index g) to the checksums.
void add_site_checksum(const GaugeFileLayout& layout, std::string_view site, std::int64_t g, GaugeBlockCheck& check) {
  switch (layout.checksum) {
  case GaugeChecksumKind::nersc_sum:
    for (std::size_t i = 0; i + 4 <= site.size(); i += 4) check.sum[0] += std::uint32_t(load_uint(site, i, 4, layout.order));
    break;
  case GaugeChecksumKind::milc_sum29_31: {
    const std::int64_t words = std::int64_t(site.size() / 4);
    for (std::int64_t k = 0; k < words; ++k) {
      const auto word = std::uint32_t(load_uint(site, std::size_t(4 * k), 4, layout.order));
      const std::int64_t w = g * words + k;
      check.sum[0] ^= rotl(word, int(w % 29));
      check.sum[1] ^= rotl(word, int(w % 31));
    }
    break;
  }
  case GaugeChecksumKind::scidac_crc32: {
    const std::uint32_t crc = crc32(site);
    check.sum[0] ^= rotl(crc, int(g % 29));
    check.sum[1] ^= rotl(crc, int(g % 31));
    break;
  }
  case GaugeChecksumKind::none: break;
  }
}

std::string link_name(std::int64_t link) {
  return "link " + std::to_string(link % Nd) + " of site " + std::to_string(link / Nd);
}
} // namespace

GaugeBlockCheck combine(GaugeChecksumKind kind, const GaugeBlockCheck& a, const GaugeBlockCheck& b) {
  GaugeBlockCheck r = a;
  for (int k = 0; k < 2; ++k) r.sum[k] = kind == GaugeChecksumKind::nersc_sum ? a.sum[k] + b.sum[k] : a.sum[k] ^ b.sum[k];
  r.nonfinite_link = std::min(a.nonfinite_link, b.nonfinite_link);
  if (b.bad_su3_link < a.bad_su3_link) r.bad_su3_link = b.bad_su3_link, r.bad_su3_deviation = b.bad_su3_deviation;
  return r;
}

GaugeBlock decode_gauge_block(const GaugeFileLayout& layout, std::string_view bytes, const Lattice& place) {
  require_block_size(layout, bytes, place);
  const std::size_t site_bytes = layout.site_bytes(), stored = std::size_t(layout.rows) * Nc;
  const int wb = layout.word_bytes;
  GaugeBlock block;
  block.links.resize(std::size_t(place.volume()) * Nd * Nc * Nc);
  for (std::int64_t i = 0; i < place.volume(); ++i) {
    const std::int64_t g = global_site(place, i);
    const std::string_view site = bytes.substr(std::size_t(i) * site_bytes, site_bytes);
    add_site_checksum(layout, site, g, block.check);
    std::size_t at = 0;
    for (int mu = 0; mu < Nd; ++mu) {
      std::complex<double>* m = block.links.data() + (std::size_t(i) * Nd + mu) * Nc * Nc;
      const std::int64_t link = g * Nd + mu;
      for (std::size_t k = 0; k < stored; ++k, at += 2 * wb) {
        const double re = load_real(site, at, wb, layout.order), im = load_real(site, at + wb, wb, layout.order);
        if (!std::isfinite(re) || !std::isfinite(im)) block.check.nonfinite_link = std::min(block.check.nonfinite_link, link);
        m[k] = {re, im};
      }
      if (layout.rows == 2)
        for (int c = 0; c < Nc; ++c) {
          const int c1 = (c + 1) % Nc, c2 = (c + 2) % Nc;
          m[6 + c] = std::conj(m[c1] * m[3 + c2] - m[c2] * m[3 + c1]);
        }
      const double dev = su3_deviation(m);
      if (!(dev <= su3_tolerance) && link < block.check.bad_su3_link)
        block.check.bad_su3_link = link, block.check.bad_su3_deviation = dev;
    }
  }
  return block;
}

GaugeBlockCheck checksum_gauge_block(const GaugeFileLayout& layout, std::string_view bytes, const Lattice& place) {
  require_block_size(layout, bytes, place);
  GaugeBlockCheck check;
  const std::size_t site_bytes = layout.site_bytes();
  for (std::int64_t i = 0; i < place.volume(); ++i)
    add_site_checksum(layout, bytes.substr(std::size_t(i) * site_bytes, site_bytes), global_site(place, i), check);
  return check;
}

void verify_gauge_file(const GaugeFileLayout& layout, const std::string& path, const GaugeReadOptions& options,
                       const GaugeBlockCheck& all, const std::function<GaugeHeaderObservables()>& measure,
                       std::vector<std::string>& warnings) {
  Verifier v(path, options.accept_bad, warnings);
  const auto* s = layout.stated;
  const auto* d = all.sum;
  switch (layout.checksum) {
  case GaugeChecksumKind::nersc_sum:
    if (!layout.checksum_stated) v.check(false, "CHECKSUM", "a CHECKSUM header line", "none");
    else v.check(d[0] == s[0], "CHECKSUM", hex32(s[0]) + " (header)", hex32(d[0]) + " (data)");
    break;
  case GaugeChecksumKind::milc_sum29_31:
    v.check(d[0] == s[0] && d[1] == s[1], "MILC checksums (sum29 sum31)", hex32(s[0]) + " " + hex32(s[1]) + " (header)",
            hex32(d[0]) + " " + hex32(d[1]) + " (data)");
    break;
  case GaugeChecksumKind::scidac_crc32:
    v.check(d[0] == s[0] && d[1] == s[1], "SciDAC checksum (suma sumb)", hex32(s[0]) + " " + hex32(s[1]) + " (record)",
            hex32(d[0]) + " " + hex32(d[1]) + " (data)");
    break;
  case GaugeChecksumKind::none: break;
  }
  if (all.nonfinite_link != GaugeBlockCheck::none) v.fail(link_name(all.nonfinite_link) + " holds a non-finite number");
  if (all.bad_su3_link != GaugeBlockCheck::none)
    v.check(false, "SU(3) " + link_name(all.bad_su3_link), "|U U^dag - 1|, |det U - 1| <= " + fixed(su3_tolerance, 6),
            fixed(all.bad_su3_deviation, 6));
  if (layout.header_values.empty()) return;
  const GaugeHeaderObservables measured = measure();
  for (const auto& [key, text] : layout.header_values) {
    const double value = key == "PLAQUETTE" ? measured.plaquette : measured.link_trace;
    char* parse_end = nullptr;
    const double stated_value = std::strtod(text.c_str(), &parse_end);
    v.require(parse_end && *parse_end == '\0' && !text.empty(), "NERSC header: " + key + " '" + text + "' is not a number");
    v.check(std::abs(stated_value - value) <= layout.header_tolerance, key, text + " (header)", fixed(value) + " (data)");
  }
}

std::string serialize_layout(const GaugeFileLayout& l) {
  nlohmann::json j = {{"dims", l.lattice.dims()},
                      {"format", l.format},
                      {"precision", l.precision},
                      {"data_offset", l.data_offset},
                      {"rows", l.rows},
                      {"word_bytes", l.word_bytes},
                      {"little", l.order == ByteOrder::little},
                      {"checksum", int(l.checksum)},
                      {"checksum_stated", l.checksum_stated},
                      {"stated", {l.stated[0], l.stated[1]}},
                      {"header_values", l.header_values},
                      {"header_tolerance", l.header_tolerance}};
  return j.dump();
}

GaugeFileLayout deserialize_layout(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  GaugeFileLayout l;
  l.lattice = Lattice(j.at("dims").get<std::array<int, Nd>>());
  l.format = j.at("format").get<std::string>();
  l.precision = j.at("precision").get<std::string>();
  l.data_offset = j.at("data_offset").get<std::uint64_t>();
  l.rows = j.at("rows").get<int>();
  l.word_bytes = j.at("word_bytes").get<int>();
  l.order = j.at("little").get<bool>() ? ByteOrder::little : ByteOrder::big;
  l.checksum = GaugeChecksumKind(j.at("checksum").get<int>());
  l.checksum_stated = j.at("checksum_stated").get<bool>();
  l.stated[0] = j.at("stated").at(0).get<std::uint32_t>();
  l.stated[1] = j.at("stated").at(1).get<std::uint32_t>();
  l.header_values = j.at("header_values").get<std::vector<std::pair<std::string, std::string>>>();
  l.header_tolerance = j.at("header_tolerance").get<double>();
  return l;
}

GaugeFileLayout writer_layout(GaugeFormat format, const Lattice& global) {
  if (format != GaugeFormat::nersc && format != GaugeFormat::ildg)
    throw invalid_argument("gauge files are written as NERSC or ILDG only");
  GaugeFileLayout l;
  l.lattice = global;
  l.format = format == GaugeFormat::nersc ? "nersc" : "ildg";
  l.precision = "double";
  l.checksum = format == GaugeFormat::nersc ? GaugeChecksumKind::nersc_sum : GaugeChecksumKind::scidac_crc32;
  l.checksum_stated = true;
  return l;
}

std::string encode_gauge_block(const GaugeFileLayout& layout, const std::vector<std::complex<double>>& links,
                               const std::string& path) {
  for (const auto& z : links)
    if (!std::isfinite(z.real()) || !std::isfinite(z.imag()))
      throw invalid_argument("cannot write '" + path + "': the links hold a non-finite number");
  return encode_links(links, layout.word_bytes, layout.order);
}

std::string gauge_file_header(const GaugeFileLayout& layout, const GaugeBlockCheck& all, GaugeHeaderObservables obs) {
  if (layout.format == "nersc") return nersc_header(layout.lattice, obs, all.sum[0]);
  return ildg_prefix(layout.lattice, std::uint64_t(layout.lattice.volume()) * layout.site_bytes());
}

std::string gauge_file_trailer(const GaugeFileLayout& layout, const GaugeBlockCheck& all) {
  if (layout.format == "nersc") return {};
  return ildg_suffix(std::uint64_t(layout.lattice.volume()) * layout.site_bytes(), all.sum[0], all.sum[1]);
}

namespace {
void write_whole(const std::string& path, GaugeFormat format, const HostGaugeConfig& cfg, bool force) {
  require_writable(path, cfg);
  const GaugeFileLayout layout = writer_layout(format, cfg.lattice);
  const std::string data = encode_gauge_block(layout, cfg.links, path);
  const GaugeBlockCheck check = checksum_gauge_block(layout, data, cfg.lattice);
  const GaugeHeaderObservables obs = format == GaugeFormat::nersc ? measure(cfg.lattice, cfg.links) : GaugeHeaderObservables{};
  write_file_atomically(path, gauge_file_header(layout, check, obs) + data + gauge_file_trailer(layout, check), force);
}
} // namespace

void write_nersc(const std::string& path, const HostGaugeConfig& cfg, bool force) {
  write_whole(path, GaugeFormat::nersc, cfg, force);
}

void write_ildg(const std::string& path, const HostGaugeConfig& cfg, bool force) {
  write_whole(path, GaugeFormat::ildg, cfg, force);
}

} // namespace kqcd
