// libFuzzer target for one gauge reader (KQCD_FUZZ_FORMAT: nersc, ildg or milc): the input bytes go
// to read_gauge_bytes with that format forced, once strict and once with accept_bad (which reaches
// the observables behind the verifications). kqcd::io_error is the expected answer to bad input;
// any other exception, a crash or a sanitizer report is a finding (libFuzzer keeps the input).
#include <kqcd/core/error.hpp>
#include <kqcd/io/gauge_io.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#ifndef KQCD_FUZZ_FORMAT
#error "define KQCD_FUZZ_FORMAT as nersc, ildg or milc"
#endif
#define KQCD_FUZZ_STR2(x) #x
#define KQCD_FUZZ_STR(x) KQCD_FUZZ_STR2(x)

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Kokkos::initialize(Kokkos::InitializationSettings().set_num_threads(1).set_disable_warnings(true));
  std::atexit([] { Kokkos::finalize(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kqcd::GaugeFormat format = kqcd::parse_gauge_format(KQCD_FUZZ_STR(KQCD_FUZZ_FORMAT));
  static const bool verbose = std::getenv("KQCD_FUZZ_VERBOSE") != nullptr;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const bool accept_bad : {false, true}) {
    kqcd::GaugeReadOptions options;
    options.format = format;
    options.accept_bad = accept_bad;
    try {
      const auto cfg = kqcd::read_gauge_bytes(bytes, "fuzz-input", options);
      // What a reader returns must be consistent.
      if (cfg.links.size() != std::size_t(cfg.lattice.volume()) * 4 * 9) {
        std::fprintf(stderr, "finding: %zu links for volume %lld\n", cfg.links.size(), (long long)cfg.lattice.volume());
        std::abort();
      }
    } catch (const kqcd::io_error& e) {
      // rejected: fine (KQCD_FUZZ_VERBOSE=1 prints why, to check the seeds)
      if (verbose) std::fprintf(stderr, "rejected (accept_bad %d): %s\n", int(accept_bad), e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "finding: %s reader threw something other than kqcd::io_error: %s\n",
                   KQCD_FUZZ_STR(KQCD_FUZZ_FORMAT), e.what());
      std::abort();
    }
  }
  return 0;
}
