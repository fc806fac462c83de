// The autotuner and its persistent cache: round trip, corrupt files, concurrent writers,
// KQCD_TUNE=0, launch-shape helpers, and tuned Wilson hopping terms identical to untuned ones.
#include "test_harness.hpp"

#include <kqcd/core/tune.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include "host_fields.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include <sys/wait.h>
#include <unistd.h>

using namespace kqcd;
using namespace kqcd::test;

namespace {

/// Sets an environment variable for a scope, restoring the old value after.
class ScopedEnv {
public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* v = std::getenv(name_.c_str())) old_ = v;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  std::string name_;
  std::optional<std::string> old_;
};

/// A fresh, empty folder for one test's cache files, removed afterwards.
class TempDir {
public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("kqcd-tune-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
  std::filesystem::path path_;
};

TuneEntry entry(const std::string& kernel, int spt, const std::string& lattice = "4x4x4x4") {
  return {{kernel, "aux", lattice, "double", "OpenMP", "test device", "0.0"}, {PolicyKind::team, 1, spt}, 1e-6 * spt};
}

/// Collects what is written to std::cerr in a scope.
class CaptureCerr {
public:
  CaptureCerr() : old_(std::cerr.rdbuf(buffer_.rdbuf())) {}
  ~CaptureCerr() { std::cerr.rdbuf(old_); }
  std::string text() const { return buffer_.str(); }

private:
  std::stringstream buffer_;
  std::streambuf* old_;
};

// Kernel launches seen by a Kokkos Tools callback, by name.
std::atomic<int> dslash_launches{0};
void count_launch(const char* name, std::uint32_t, std::uint64_t*) {
  if (std::string_view(name) == "kqcd::WilsonDslash") ++dslash_launches;
}
class CountLaunches {
public:
  CountLaunches() {
    dslash_launches = 0;
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(count_launch);
  }
  ~CountLaunches() { Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr); }
};

} // namespace

TEST_CASE("tune cache round trip", "[tune]") {
  TempDir dir;
  const auto path = dir.file("sub/folder/tunecache.json"); // folders are created on write
  {
    TuneCache cache(path);
    REQUIRE(cache.entries().empty());
    cache.insert(entry("k1", 16));
    cache.insert(entry("k2", 32));
    cache.insert(entry("k1", 64)); // replaces
    auto scratch = entry("k3", 32), md = entry("k4", 16);
    scratch.config.kind = PolicyKind::team_scratch;
    md.config = {PolicyKind::mdrange, 0, 16};
    cache.insert(scratch);
    cache.insert(md);
    auto pairs = entry("k5", 32);
    pairs.config = {PolicyKind::mdrange, 0, 32, 2};
    cache.insert(pairs);
  }
  TuneCache again(path);
  REQUIRE(again.entries().size() == 5);
  REQUIRE(again.find(entry("k5", 0).key)->config == LaunchConfig{PolicyKind::mdrange, 0, 32, 2});
  REQUIRE(again.find(entry("k3", 0).key)->config == LaunchConfig{PolicyKind::team_scratch, 1, 32});
  REQUIRE(again.find(entry("k4", 0).key)->config == LaunchConfig{PolicyKind::mdrange, 0, 16});
  const auto k1 = again.find(entry("k1", 0).key);
  REQUIRE(k1);
  REQUIRE(k1->config == LaunchConfig{PolicyKind::team, 1, 64});
  REQUIRE(std::abs(k1->seconds - 64e-6) < 1e-18);
  REQUIRE(again.find(entry("k2", 0).key)->config.sites_per_team == 32);
  REQUIRE_FALSE(again.find(entry("k1", 0, "8x8x8x8").key)); // the lattice is part of the key
  // The file is JSON another tool can read.
  std::ifstream f(path);
  const auto j = nlohmann::json::parse(f);
  REQUIRE(j.at("format") == "kqcd-tunecache");
  REQUIRE(j.at("entries").size() == 5);
}

TEST_CASE("a corrupt tune cache is ignored with a warning and rewritten", "[tune]") {
  TempDir dir;
  const auto path = dir.file("tunecache.json");
  for (const std::string bad : {"{ not json", R"({"format": "something else", "entries": []})",
                                R"({"format": "kqcd-tunecache", "format_version": 1, "entries": [{"kernel": 3}]})"}) {
    std::ofstream(path) << bad;
    std::string warning;
    {
      CaptureCerr capture;
      TuneCache cache(path);
      REQUIRE(cache.entries().empty());
      warning = capture.text();
      cache.insert(entry("k", 8));
    }
    CAPTURE(bad);
    REQUIRE(warning.find("warning") != std::string::npos);
    REQUIRE(warning.find(path) != std::string::npos);
    CaptureCerr quiet;
    TuneCache reread(path);
    REQUIRE(reread.entries().size() == 1);
    REQUIRE(quiet.text().empty());
  }
}

TEST_CASE("concurrent writers leave a valid cache holding every entry", "[tune]") {
  TempDir dir;
  const auto path = dir.file("tunecache.json");
  constexpr int writers = 4, per_writer = 25;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) { // child: file I/O only, then leave without running the parent's destructors
      TuneCache cache(path);
      for (int i = 0; i < per_writer; ++i) cache.insert(entry("writer" + std::to_string(w) + "." + std::to_string(i), 8));
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  CaptureCerr capture;
  TuneCache cache(path);
  REQUIRE(capture.text().empty());
  REQUIRE(cache.entries().size() == std::size_t(writers * per_writer));
  REQUIRE_FALSE(std::filesystem::exists(path + ".tmp" + std::to_string(::getpid())));
}

TEST_CASE("tune cache path and switch from the environment", "[tune]") {
  {
    ScopedEnv cache("KQCD_TUNE_CACHE", "/some/where/cache.json");
    REQUIRE(tune_cache_path() == "/some/where/cache.json");
  }
  {
    ScopedEnv unset("KQCD_TUNE_CACHE", "");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    REQUIRE(tune_cache_path() == "/xdg/kqcd/tunecache.json");
  }
  {
    ScopedEnv off("KQCD_TUNE", "0");
    REQUIRE_FALSE(tuning_enabled());
  }
  ScopedEnv on("KQCD_TUNE", "1");
  REQUIRE(tuning_enabled());
}

/// A kernel that does nothing (at namespace scope: CUDA cannot name a function-local kernel type).
struct NopSiteKernel {
  KOKKOS_INLINE_FUNCTION void operator()(int) const {}
};

TEMPLATE_LIST_TEST_CASE("launch shapes fit the iteration space and the warp", "[tune]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  constexpr int warp = ArchTraits<ES>::warp_size;
  REQUIRE(fit_team_size<ES>(256, 1000, 1024) == std::min(256, (1000 + warp - 1) / warp * warp));
  REQUIRE(fit_team_size<ES>(256, 5, 1024) == warp * ((5 + warp - 1) / warp)); // trimmed to the sites, whole warps
  REQUIRE(fit_team_size<ES>(1024, 100000, 96 + warp - 1) % warp == 0);
  REQUIRE(fit_team_size<ES>(1, 1, 1) == 1);
  const auto lat = test_lattice;
  const auto c = site_candidates<ES>(NopSiteKernel{}, lat.cb_volume());
  REQUIRE(c.size() >= 2);
  REQUIRE(c.front().kind == PolicyKind::range);
  for (const auto& k : c) {
    if (k.kind != PolicyKind::team) continue;
    REQUIRE(k.team_size <= ArchTraits<ES>::max_team_size);
    REQUIRE((k.team_size % warp == 0 || k.team_size < warp));
    REQUIRE(k.sites_per_team >= k.team_size);
  }
}

TEMPLATE_LIST_TEST_CASE("tuned Wilson hopping term equals the untuned one, xpay with out aliasing x", "[tune][dslash]",
                        kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Dslash = WilsonDslash<Real, ES>;
  using Field = SpinorField<Kokkos::complex<Real>, Ns, ES>;
  const Lattice& lat = test_lattice;
  typename Dslash::gauge_type u(lat);
  import_gauge(u, random_host_gauge(lat, 71));
  const auto psi_host = random_host_spinor(lat, 72);
  const Real a = Real(0.75), b = Real(-0.5);

  // out = H psi_o on even sites, then x = a x + b H psi_o in place (x starts as psi_e).
  auto run = [&](std::vector<std::complex<double>>& hop, std::vector<std::complex<double>>& xpay) {
    Dslash d(u, mixed_bc());
    Field psi(lat), out(lat);
    import_spinor(psi, psi_host);
    d.apply(out[0], psi[1], 1, 0);
    hop = export_spinor(out);
    d.apply_xpay(psi[0], psi[1], -1, 0, a, psi[0], b);
    xpay = export_spinor(psi);
    return d.last_launch_config();
  };
  TempDir dir;
  const auto path = dir.file("tunecache.json");
  ScopedEnv cache_path("KQCD_TUNE_CACHE", path);
  std::vector<std::complex<double>> hop0, xpay0, hop1, xpay1, hop2, xpay2;
  {
    ScopedEnv off("KQCD_TUNE", "0");
    CountLaunches count;
    const auto c = run(hop0, xpay0);
    REQUIRE(dslash_launches == 2); // no trials
    REQUIRE(c.kind == PolicyKind::team);
    REQUIRE(c.sites_per_team == ArchTraits<ES>::sites_per_team);
    REQUIRE_FALSE(std::filesystem::exists(path));
  }
  ScopedEnv on("KQCD_TUNE", "1");
  {
    CountLaunches count;
    run(hop1, xpay1); // tunes both kernels
    REQUIRE(dslash_launches > 4);
  }
  {
    CountLaunches count;
    run(hop2, xpay2); // both from the cache
    REQUIRE(dslash_launches == 2);
  }
  // The launch shape does not change any site's arithmetic: identical bits.
  REQUIRE(hop1 == hop0);
  REQUIRE(xpay1 == xpay0);
  REQUIRE(hop2 == hop0);
  REQUIRE(xpay2 == xpay0);
  // And xpay really is a x + b H psi with the untouched x (trial runs were undone). Even sites only:
  // odd sites of psi are the input, unchanged.
  std::vector<std::complex<double>> hop_dag;
  {
    Dslash d(u, mixed_bc());
    Field psi(lat), out(lat);
    import_spinor(psi, psi_host);
    d.apply(out[0], psi[1], -1, 0);
    hop_dag = export_spinor(out);
  }
  double worst = 0;
  for (int s = 0; s < lat.cb_volume(); ++s) {
    const auto site = std::size_t(lat.lex_index(lat.cb_coords(s, 0)));
    for (std::size_t k = 0; k < 12; ++k) {
      const auto i = site * 12 + k;
      worst = std::max(worst, std::abs(xpay0[i] - (double(a) * psi_host[i] + double(b) * hop_dag[i])));
    }
  }
  REQUIRE(worst < 20 * tol<Real>());
  // Both variants are in the file, keyed by lattice, precision and backend.
  TuneCache file(path);
  int found = 0;
  for (const auto& e : file.entries())
    if (e.key.kernel == "kqcd::WilsonDslash" && e.key.lattice == lat.to_string() &&
        e.key.precision == precision_name<Real>() && e.key.backend == ES::name())
      ++found;
  REQUIRE(found == 2);
}
