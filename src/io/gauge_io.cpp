// The format-independent part of gauge I/O: detection, dispatch, byte order, link decoding, the
// SU(3) check and the observables headers carry.
#include "io_common.hpp"

#include <kqcd/core/profile.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/kernels/gauge_observables.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace kqcd {

namespace io_detail {

std::uint64_t load_uint(std::string_view data, std::size_t offset, int width, Endian order) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i) {
    const int shift = 8 * (order == Endian::big ? width - 1 - i : i);
    v |= std::uint64_t(static_cast<unsigned char>(data[offset + i])) << shift;
  }
  return v;
}

void append_uint(std::string& out, std::uint64_t v, int width, Endian order) {
  for (int i = 0; i < width; ++i) {
    const int shift = 8 * (order == Endian::big ? width - 1 - i : i);
    out.push_back(char((v >> shift) & 0xff));
  }
}

std::string read_whole_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw io_error("cannot open '" + path + "'");
  const auto size = f.tellg();
  if (size < 0) throw io_error("cannot read '" + path + "'");
  std::string data(std::size_t(size), '\0');
  f.seekg(0);
  if (!f.read(data.data(), size)) throw io_error("cannot read '" + path + "'");
  return data;
}

void Verifier::check(bool ok, const std::string& field, const std::string& expected, const std::string& found) {
  if (ok) return;
  const std::string msg = "'" + path_ + "': " + field + " mismatch: expected " + expected + ", found " + found;
  if (!accept_bad_) throw io_error(msg + " (the file is damaged or not what it claims; accept it with --accept-bad)");
  warnings_.push_back(msg);
}

Lattice lattice_from_dims(const Verifier& v, const std::array<std::int64_t, Nd>& dims) {
  constexpr std::int64_t max_sites = std::int64_t(1) << 30;
  std::int64_t volume = 1;
  std::array<int, Nd> d{};
  for (int mu = 0; mu < Nd; ++mu) {
    v.require(dims[mu] >= 1 && dims[mu] <= max_sites,
              "lattice dimension " + std::to_string(mu + 1) + " is " + std::to_string(dims[mu]) + ", expected 1 to 2^30");
    volume *= dims[mu];
    v.require(volume <= max_sites, "lattice volume exceeds 2^30 sites");
    d[mu] = int(dims[mu]);
  }
  try {
    return Lattice(d);
  } catch (const invalid_argument& e) {
    v.fail(std::string("unsupported lattice: ") + e.what());
  }
}

std::string encode_links(const std::vector<std::complex<double>>& links, int word_bytes, Endian order) {
  std::string out;
  out.reserve(links.size() * 2 * word_bytes);
  for (const auto& z : links)
    for (const double x : {z.real(), z.imag()}) {
      if (word_bytes == 4) append_uint(out, std::bit_cast<std::uint32_t>(float(x)), 4, order);
      else append_uint(out, std::bit_cast<std::uint64_t>(x), 8, order);
    }
  return out;
}

double su3_deviation(const std::complex<double>* m) {
  double dev = 0;
  for (int a = 0; a < Nc; ++a)
    for (int b = 0; b < Nc; ++b) {
      std::complex<double> s = 0;
      for (int k = 0; k < Nc; ++k) s += m[a * Nc + k] * std::conj(m[b * Nc + k]);
      dev = std::max(dev, std::abs(s - double(a == b)));
    }
  const auto det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                   m[2] * (m[3] * m[7] - m[4] * m[6]);
  return std::max(dev, std::abs(det - 1.0));
}

GaugeHeaderObservables measure(const Lattice& lat, const std::vector<std::complex<double>>& links) {
  using ES = Kokkos::DefaultHostExecutionSpace;
  GaugeField<Kokkos::complex<double>, ES> u(lat, "io_measure");
  import_gauge(u, links, HostGaugeOrder::milc);
  using View = typename CBGaugeField<Kokkos::complex<double>, ES>::view_type;
  double plaquettes = 0, traces = 0;
  for (int p = 0; p < 2; ++p) { // the kernels of gauge/gauge_observables.hpp, on one rank's host links
    double s = 0, t = 0, tr = 0;
    Kokkos::parallel_reduce("kqcd::io_plaquette", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                            PlaquetteFunctor<View>{{u[0].view(), u[1].view()}, lat, p}, s, t);
    Kokkos::parallel_reduce("kqcd::io_link_trace", Kokkos::RangePolicy<ES>(0, lat.cb_volume()), LinkTraceFunctor<View>{u[p].view()}, tr);
    plaquettes += s + t;
    traces += tr;
  }
  const double volume = double(lat.volume());
  return {plaquettes / (6 * volume * Nc), traces / (volume * Nd * Nc)};
}

void require_writable(const std::string& path, const HostGaugeConfig& cfg) {
  const std::size_t want = std::size_t(cfg.lattice.volume()) * Nd * Nc * Nc;
  if (cfg.lattice.volume() == 0 || cfg.links.size() != want)
    throw invalid_argument("cannot write '" + path + "': " + std::to_string(cfg.links.size()) +
                           " complex numbers, expected " + std::to_string(want) + " for lattice " + cfg.lattice.to_string());
  for (const auto& z : cfg.links)
    if (!std::isfinite(z.real()) || !std::isfinite(z.imag()))
      throw invalid_argument("cannot write '" + path + "': the links hold a non-finite number");
}

std::string hex32(std::uint32_t x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", unsigned(x));
  return buf;
}
std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string xml_value(std::string_view xml, const std::string& tag) {
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  const auto b = xml.find(open);
  if (b == std::string_view::npos) return {};
  const auto e = xml.find(close, b + open.size());
  if (e == std::string_view::npos) return {};
  std::string_view v = xml.substr(b + open.size(), e - b - open.size());
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  return std::string(v);
}

bool parse_int(std::string_view text, std::int64_t& out) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() && !text.empty();
}

bool parse_hex32(std::string_view text, std::uint32_t& out) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty() || text.size() > 8) return false;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

std::uint32_t rotl(std::uint32_t x, int r) { return r == 0 ? x : (x << r) | (x >> (32 - r)); }

std::uint32_t crc32(std::string_view data) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (const char ch : data) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

} // namespace io_detail

using namespace io_detail;

GaugeFormat parse_gauge_format(const std::string& name) {
  if (name == "auto") return GaugeFormat::auto_detect;
  if (name == "nersc") return GaugeFormat::nersc;
  if (name == "ildg") return GaugeFormat::ildg;
  if (name == "milc") return GaugeFormat::milc;
  throw invalid_argument("unknown gauge format '" + name + "', expected auto, nersc, ildg or milc");
}

namespace {
class MemorySource : public ByteSource {
public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  std::string read(std::uint64_t offset, std::size_t n) const override {
    return offset >= bytes_.size() ? std::string() : std::string(bytes_.substr(std::size_t(offset), n));
  }

private:
  std::string_view bytes_;
};

class FileSource : public ByteSource {
public:
  explicit FileSource(const std::string& path) : path_(path), f_(path, std::ios::binary | std::ios::ate) {
    if (!f_) throw io_error("cannot open '" + path + "'");
    const auto size = f_.tellg();
    if (size < 0) throw io_error("cannot read '" + path + "'");
    size_ = std::uint64_t(size);
  }
  std::uint64_t size() const override { return size_; }
  std::string read(std::uint64_t offset, std::size_t n) const override {
    if (offset >= size_) return {};
    std::string out(std::size_t(std::min<std::uint64_t>(n, size_ - offset)), '\0');
    f_.clear();
    f_.seekg(std::streamoff(offset));
    if (!f_.read(out.data(), std::streamsize(out.size()))) throw io_error("cannot read '" + path_ + "'");
    return out;
  }

private:
  std::string path_;
  mutable std::ifstream f_;
  std::uint64_t size_ = 0;
};

GaugeFormat detect(const std::string& path, std::string_view first_bytes) {
  if (looks_like_nersc(first_bytes)) return GaugeFormat::nersc;
  if (looks_like_ildg(first_bytes)) return GaugeFormat::ildg;
  if (looks_like_milc(first_bytes)) return GaugeFormat::milc;
  throw io_error("'" + path + "': not a NERSC, ILDG/LIME or MILC gauge configuration (unrecognised first bytes)");
}

constexpr std::size_t detection_bytes = 16;

GaugeFileLayout layout_of(const ByteSource& source, const std::string& path, const GaugeReadOptions& options) {
  const GaugeFormat format =
      options.format == GaugeFormat::auto_detect ? detect(path, source.read(0, detection_bytes)) : options.format;
  std::vector<std::string> no_warnings; // a header has damage or nothing to warn about
  const Verifier v(path, options.accept_bad, no_warnings);
  switch (format) {
  case GaugeFormat::nersc: return nersc_layout(v, source);
  case GaugeFormat::ildg: return ildg_layout(v, source);
  case GaugeFormat::milc: return milc_layout(v, source);
  case GaugeFormat::auto_detect: break;
  }
  throw invalid_argument("read_gauge: no format");
}
} // namespace

GaugeFileLayout read_gauge_layout(const std::string& path, const GaugeReadOptions& options) {
  return layout_of(FileSource(path), path, options);
}

GaugeFileLayout gauge_layout_from_bytes(std::string_view file, const std::string& path, const GaugeReadOptions& options) {
  return layout_of(MemorySource(file), path, options);
}

GaugeFormat detect_gauge_format(const std::string& path) { return detect(path, FileSource(path).read(0, detection_bytes)); }

HostGaugeConfig read_gauge(const std::string& path, const GaugeReadOptions& options) {
  ProfileScope prof("kqcd::read_gauge");
  std::string bytes;
  {
    auto init = prof.phase(ProfilePhase::init); // reading the file
    bytes = read_whole_file(path);
  }
  auto compute = prof.phase(ProfilePhase::compute); // decoding and verifying
  return read_gauge_bytes(bytes, path, options);
}

HostGaugeConfig read_gauge_bytes(std::string_view file, const std::string& path, const GaugeReadOptions& options) {
  const GaugeFileLayout layout = gauge_layout_from_bytes(file, path, options);
  HostGaugeConfig cfg;
  cfg.lattice = layout.lattice;
  cfg.format = layout.format;
  cfg.precision = layout.precision;
  // The whole lattice is one block.
  auto block = decode_gauge_block(
      layout, file.substr(std::size_t(layout.data_offset), std::size_t(layout.lattice.volume()) * layout.site_bytes()),
      layout.lattice);
  verify_gauge_file(layout, path, options, block.check, [&] { return measure(layout.lattice, block.links); }, cfg.warnings);
  cfg.links = std::move(block.links);
  return cfg;
}

double max_su3_deviation(const std::vector<std::complex<double>>& links) {
  double dev = 0;
  for (std::size_t i = 0; i + Nc * Nc <= links.size(); i += Nc * Nc) dev = std::max(dev, su3_deviation(links.data() + i));
  return dev;
}

} // namespace kqcd
