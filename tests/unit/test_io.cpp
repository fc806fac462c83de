// Gauge file I/O: every reference configuration reproduces the values in shared/data/README.md,
// the MILC and ILDG copies agree, writes round-trip, and damaged copies are rejected by name.
#include "test_harness.hpp"

#include <gauge_reference.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/io/atomic_file.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace kqcd;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
namespace fs = std::filesystem;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

/// A private temporary folder, removed with everything in it at the end of the test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kqcd_test_io_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(file(name), std::ios::binary) << bytes;
    return file(name);
  }
};

/// read_gauge must throw io_error whose message contains every one of parts.
void require_rejected(const std::string& path, std::initializer_list<std::string> parts, GaugeReadOptions o = {}) {
  try {
    (void)read_gauge(path, o);
    FAIL("no error for " << path);
  } catch (const io_error& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), ContainsSubstring(path));
    for (const auto& p : parts) CHECK_THAT(e.what(), ContainsSubstring(p));
  }
}

struct Reference {
  const char* file;
  const char* format;
  const char* precision;
  std::array<int, 4> dims;
  double plaquette;
};
const Reference references[] = {
    {"milc-l4444.milc", "milc", "single", {4, 4, 4, 4}, 0.5948501589},
    {"milc-l4444.ildg", "ildg", "single", {4, 4, 4, 4}, 0.5948501589},
    {"milc-l8888-b6.0.milc", "milc", "single", {8, 8, 8, 8}, 0.5935602404},
    {"nersc-l4444.cfg", "nersc", "single", {4, 4, 4, 4}, 0.0382422893},
    {"purgaug-l4448.nersc", "nersc", "double", {4, 4, 4, 8}, 0.9022631188},
};
} // namespace

TEST_CASE("every reference configuration reads and reproduces its plaquette", "[io]") {
  for (const auto& r : references) {
    INFO(r.file);
    const auto path = kqcd::test::shared_data(r.file);
    REQUIRE(detect_gauge_format(path) == parse_gauge_format(r.format));
    const auto cfg = read_gauge(path);
    REQUIRE(cfg.format == r.format);
    REQUIRE(cfg.precision == r.precision);
    REQUIRE(cfg.lattice.dims() == r.dims);
    REQUIRE(cfg.warnings.empty());
    const auto obs = ref::gauge_observables(r.dims, cfg.links);
    // The README values carry 10 decimals: 1e-9 relative at most, float data is exact in double.
    REQUIRE_THAT(obs.plaquette, WithinAbs(r.plaquette, 1e-9 * r.plaquette));
    REQUIRE(max_su3_deviation(cfg.links) < 1e-6); // all are float data: about 5e-7
  }
  const auto nersc = read_gauge(kqcd::test::shared_data("nersc-l4444.cfg"));
  REQUIRE_THAT(ref::gauge_observables({4, 4, 4, 4}, nersc.links).link_trace, WithinAbs(0.4630322094, 1e-9));
  const auto purg = read_gauge(kqcd::test::shared_data("purgaug-l4448.nersc"));
  REQUIRE_THAT(ref::gauge_observables({4, 4, 4, 8}, purg.links).link_trace, WithinAbs(0.7346409505, 1e-9));
}

TEST_CASE("the MILC and ILDG copies of one lattice give identical links", "[io]") {
  const auto milc = read_gauge(kqcd::test::shared_data("milc-l4444.milc"));
  const auto ildg = read_gauge(kqcd::test::shared_data("milc-l4444.ildg"));
  REQUIRE(milc.links == ildg.links);
}

TEST_CASE("forcing a format reads the file as that format", "[io]") {
  GaugeReadOptions o;
  o.format = GaugeFormat::milc;
  REQUIRE(read_gauge(kqcd::test::shared_data("milc-l4444.milc"), o).format == "milc");
  require_rejected(kqcd::test::shared_data("nersc-l4444.cfg"), {"not a MILC file"}, o);
  REQUIRE_THROWS_AS(parse_gauge_format("szin"), invalid_argument);
}

TEST_CASE("writers round-trip and write atomically", "[io]") {
  const TempDir tmp;
  for (const char* source : {"nersc-l4444.cfg", "purgaug-l4448.nersc", "milc-l4444.ildg"}) {
    INFO(source);
    const auto cfg = read_gauge(kqcd::test::shared_data(source));
    const auto nersc = tmp.file("out.nersc"), ildg = tmp.file("out.ildg");
    write_nersc(nersc, cfg, true);
    write_ildg(ildg, cfg, true);
    for (const auto& path : {nersc, ildg}) {
      const auto back = read_gauge(path);
      REQUIRE(back.links == cfg.links);
      REQUIRE(back.precision == "double");
      REQUIRE(back.lattice == cfg.lattice);
    }
  }
  const auto cfg = read_gauge(kqcd::test::shared_data("milc-l4444.milc"));
  const auto existing = tmp.write("existing", "keep me");
  REQUIRE_THROWS_AS(write_nersc(existing, cfg), io_error);
  REQUIRE_THROWS_AS(write_ildg(existing, cfg), io_error);
  REQUIRE(slurp(existing) == "keep me");
  write_ildg(existing, cfg, /*force=*/true);
  REQUIRE(read_gauge(existing).links == cfg.links);
  REQUIRE_THROWS_AS(write_nersc(tmp.file("no/such/folder/x"), cfg), io_error);
  auto wrong = cfg;
  wrong.links.resize(10);
  REQUIRE_THROWS_AS(write_nersc(tmp.file("wrong"), wrong), invalid_argument);
  // No temporary files are left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path)) ++files;
  REQUIRE(files == 3);
}

TEST_CASE("damaged NERSC files are rejected with the file, field and values", "[io]") {
  const TempDir tmp;
  const std::string good = slurp(kqcd::test::shared_data("nersc-l4444.cfg"));
  const auto data_at = good.find("END_HEADER\n") + 11;
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  require_rejected(tmp.write("trunc", good.substr(0, good.size() - 100)), {"bytes, expected", "truncated"});
  require_rejected(tmp.write("long", good + "xxxx"), {"extra bytes"});
  require_rejected(tmp.write("header_only", good.substr(0, 200)), {"END_HEADER"});
  std::string flipped = good;
  flipped[data_at + 1000] ^= 0x10;
  require_rejected(tmp.write("flip", flipped), {"CHECKSUM mismatch", "717938df"});
  require_rejected(tmp.write("plaq", edited("PLAQUETTE = 0.0382422893", "PLAQUETTE = 0.0392422893")),
                   {"PLAQUETTE mismatch", "0.0392422893", "0.0382422893"});
  require_rejected(tmp.write("trace", edited("LINK_TRACE = 0.4630322094", "LINK_TRACE = 0.5")), {"LINK_TRACE mismatch"});
  require_rejected(tmp.write("type", edited("4D_SU3_GAUGE\n", "4D_SU3_GAUGE_2x2\n")), {"DATATYPE", "4D_SU3_GAUGE_2x2"});
  require_rejected(tmp.write("fp", edited("IEEE32BIG", "IEEE16BIG")), {"FLOATING_POINT", "IEEE16BIG"});
  require_rejected(tmp.write("dim", edited("DIMENSION_4 = 4", "DIMENSION_4 = 8")), {"bytes, expected"});
  require_rejected(tmp.write("huge", edited("DIMENSION_4 = 4", "DIMENSION_4 = 99999999999")), {"dimension 4"});
  require_rejected(tmp.write("big", edited("DIMENSION_4 = 4", "DIMENSION_4 = 1073741824")), {"2^30"});
  require_rejected(tmp.write("neg", edited("DIMENSION_1 = 4", "DIMENSION_1 = -4")), {"dimension 1"});
  require_rejected(tmp.write("nodim", edited("DIMENSION_2", "DIMENSIONX2")), {"DIMENSION_2 is missing"});

  // A flipped byte with a matching checksum is caught by the SU(3) check; accept_bad lets it through.
  const auto cfg = read_gauge(kqcd::test::shared_data("purgaug-l4448.nersc"));
  auto bad = cfg;
  bad.links[5] *= 1.5;
  const auto path = tmp.file("nonsu3.nersc");
  write_nersc(path, bad);
  require_rejected(path, {"SU(3) link 0 of site 0"});
  GaugeReadOptions accept;
  accept.accept_bad = true;
  const auto accepted = read_gauge(path, accept);
  REQUIRE(accepted.warnings.size() == 1);
  REQUIRE(accepted.links == bad.links);
  std::string flipped_bad = good;
  flipped_bad[data_at + 1000] ^= 0x10;
  REQUIRE_FALSE(read_gauge(tmp.write("flip2", flipped_bad), accept).warnings.empty());
}

TEST_CASE("damaged MILC and ILDG files are rejected", "[io]") {
  const TempDir tmp;
  const std::string milc = slurp(kqcd::test::shared_data("milc-l4444.milc"));
  require_rejected(tmp.write("m_trunc", milc.substr(0, milc.size() - 1)), {"MILC data", "truncated"});
  require_rejected(tmp.write("m_head", milc.substr(0, 50)), {"MILC header"});
  std::string m = milc;
  m[500] ^= 0x01;
  require_rejected(tmp.write("m_flip", m), {"MILC checksums", "2352c05 d137321d"});
  m = milc;
  m[4] = 8; // Lx = 8: the data no longer fits
  require_rejected(tmp.write("m_dims", m), {"bytes, expected"});
  m = milc;
  m[84] = 1;
  require_rejected(tmp.write("m_order", m), {"site order"});
  require_rejected(tmp.write("garbage", "hello world, not a gauge file"), {"not a NERSC, ILDG/LIME or MILC"});
  require_rejected(tmp.write("empty", ""), {"not a NERSC"});
  REQUIRE_THROWS_AS(read_gauge(tmp.file("does-not-exist")), io_error);

  const std::string ildg = slurp(kqcd::test::shared_data("milc-l4444.ildg"));
  require_rejected(tmp.write("i_trunc", ildg.substr(0, ildg.size() - 300)), {"LIME record", "truncated"});
  require_rejected(tmp.write("i_trunc2", ildg.substr(0, 1000)), {"LIME record"});
  std::string i = ildg;
  const auto binary = i.find("ildg-binary-data") + 128;
  i[binary + 77] ^= 0x40;
  require_rejected(tmp.write("i_flip", i), {"SciDAC checksum", "37affb9c 2fc07bbf"});
  i = ildg;
  i.replace(i.find("<lt>4</lt>"), 10, "<lt>6</lt>");
  require_rejected(tmp.write("i_dims", i), {"ildg-binary-data is", "expected"});
  i = ildg;
  i.replace(i.find("<precision>32"), 13, "<precision>16");
  require_rejected(tmp.write("i_prec", i), {"precision is '16'"});
  i = ildg;
  i.replace(i.find("su3gauge"), 8, "u1_gauge");
  require_rejected(tmp.write("i_field", i), {"field is 'u1_gauge'"});
  i = ildg;
  i[i.find("ildg-binary-data") - 16 + 8] = char(0x7f); // record length far beyond the file
  require_rejected(tmp.write("i_len", i), {"LIME record", "truncated"});
}
