// Inputs the gauge reader fuzzers (tests/fuzz) once crashed on, kept in
// tests/fuzz/regressions/<format>/: each must now be rejected with kqcd::io_error, with the format
// forced, detected, and with accept_bad. The hand-made fuzzer seeds (tests/fuzz/seeds/) must read.
#include "test_harness.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

using namespace kqcd;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

/// Every file of dir/<format>/ (README files aside), by format.
std::map<std::string, std::vector<fs::path>> inputs(const fs::path& dir) {
  std::map<std::string, std::vector<fs::path>> out;
  for (const char* format : {"nersc", "ildg", "milc"}) {
    auto& files = out[format];
    if (!fs::is_directory(dir / format)) continue;
    for (const auto& e : fs::directory_iterator(dir / format))
      if (e.is_regular_file() && e.path().extension() != ".md") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  }
  return out;
}
} // namespace

TEST_CASE("every input the reader fuzzers crashed on is an io_error", "[io][fuzz]") {
  std::size_t count = 0;
  for (const auto& [format, files] : inputs(KQCD_FUZZ_REGRESSIONS)) {
    for (const auto& path : files) {
      const std::string bytes = slurp(path);
      INFO(path.string());
      for (const GaugeFormat f : {parse_gauge_format(format), GaugeFormat::auto_detect})
        for (const bool accept_bad : {false, true}) {
          GaugeReadOptions o;
          o.format = f;
          o.accept_bad = accept_bad;
          INFO("accept_bad " << accept_bad << ", format " << (f == GaugeFormat::auto_detect ? "auto" : format));
          CHECK_THROWS_AS(read_gauge_bytes(bytes, path.string(), o), io_error);
        }
      CHECK_THROWS_AS(read_gauge(path.string()), io_error);
      ++count;
    }
  }
  // The folder must be there; without inputs the test says so instead of passing empty.
  REQUIRE(fs::is_directory(KQCD_FUZZ_REGRESSIONS));
  if (count == 0) SKIP("no regression inputs in " KQCD_FUZZ_REGRESSIONS ": the fuzzers have found no crash to keep");
  WARN(count << " regression inputs read from " KQCD_FUZZ_REGRESSIONS);
}

TEST_CASE("the fuzzer seeds read as unit configurations", "[io][fuzz]") {
  const auto seeds = inputs(fs::path(KQCD_FUZZ_REGRESSIONS).parent_path() / "seeds");
  for (const auto& [format, files] : seeds) {
    REQUIRE(!files.empty());
    for (const auto& path : files) {
      INFO(path.string());
      GaugeReadOptions o;
      o.format = parse_gauge_format(format);
      const auto cfg = read_gauge_bytes(slurp(path), path.string(), o);
      CHECK(cfg.format == format);
      CHECK(cfg.lattice.volume() == 2);
      CHECK(cfg.warnings.empty());
      CHECK_THAT(max_su3_deviation(cfg.links), Catch::Matchers::WithinAbs(0.0, 1e-15));
      CHECK(read_gauge(path.string()).format == format); // detected from the content
    }
  }
}
