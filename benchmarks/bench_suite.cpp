#include "bench.hpp"

#include <cstdio>
#include <format>

namespace kqcd::bench {

nlohmann::json run_suite(const std::vector<Lattice>& lattices, const std::string& backend_in, bool quick) {
  const std::string backend = backend_in.empty() ? std::string(Kokkos::DefaultExecutionSpace::name()) : backend_in;
  std::fprintf(stderr, "[kqcd bench] STREAM copy on %s\n", backend.c_str());
  const double copy = stream_copy_gbytes_per_s(backend, quick);
  nlohmann::json suite{{"copy_gbytes_per_s", copy}, {"provenance", to_json(make_provenance(backend))},
                       {"results", nlohmann::json::array()}};
  const char* ops[] = {"dslash", "eo", "clover", "clover-dynamic", "twisted", "twisted-clover"};
  const int total = int(lattices.size()) * 2 * int(std::size(ops));
  int n = 0;
  for (const auto& lat : lattices)
    for (const char* op : ops)
      for (const char* prec : {"single", "double"}) {
        std::fprintf(stderr, "[kqcd bench] case %d/%d: %s %s %s\n", ++n, total, op, prec, lat.to_string().c_str());
        DslashOptions o;
        o.lattice = lat;
        o.precision = prec;
        o.backend = backend;
        o.op = op;
        o.quick = quick;
        suite["results"].push_back(run_dslash(o, copy));
      }
  return suite;
}

std::string format_table(const nlohmann::json& suite) {
  std::string out = std::format("STREAM copy: {:.1f} GB/s ({} on {})\n", suite["copy_gbytes_per_s"].get<double>(),
                                suite["provenance"]["backend"].get<std::string>(),
                                suite["provenance"]["device"].get<std::string>());
  out += std::format("{:<20} {:<13} {:<7} {:>12} {:>10} {:>10} {:>8}\n", "benchmark", "lattice", "prec", "time/call",
                     "GFLOP/s", "GB/s", "%copy");
  for (const auto& r : suite["results"]) {
    const auto& l = r["lattice"];
    out += std::format("{:<20} {:<13} {:<7} {:>10.1f}us {:>10.2f} {:>10.2f} {:>7.0f}%\n", r["benchmark"].get<std::string>(),
                       std::format("{}x{}x{}x{}", l[0].get<int>(), l[1].get<int>(), l[2].get<int>(), l[3].get<int>()),
                       r["precision"].get<std::string>(), r["time_per_call_s"].get<double>() * 1e6,
                       r["gflops"].get<double>(), r["gbytes_per_s"].get<double>(), r["percent_of_copy"].get<double>());
  }
  out += "GB/s use the no-reuse byte model (conventions.md; the clover-type rows add the site-local matrices read);\n"
         "GFLOP/s count 1320 flops per site per hopping term, QUDA's 1872 (clover, twisted clover) and 1368 (twisted\n"
         "mass) for A^-1 H on one parity.\n";
  return out;
}

} // namespace kqcd::bench
