// Profiling: Kokkos Tools regions of top-level calls and their phases nest properly, and the
// recorded times add up (phases within their call, nested calls within their parent's phase).
#include "test_harness.hpp"

#include <kqcd/core/profile.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/stencil/local_operators.hpp>

#include "host_fields.hpp"

#include <sstream>
#include <string>
#include <vector>

using namespace kqcd;
using namespace kqcd::test;

namespace {
// Regions seen through Kokkos Tools callbacks: each push with the depth it was pushed at.
struct RegionLog {
  std::vector<std::string> stack;
  std::vector<std::pair<std::size_t, std::string>> pushes; // (depth, name)
  std::vector<std::string> parents;                         // enclosing region of each push ("" at top)
  int unmatched_pops = 0;
};
RegionLog region_log;
void on_push(const char* name) {
  region_log.parents.push_back(region_log.stack.empty() ? "" : region_log.stack.back());
  region_log.pushes.emplace_back(region_log.stack.size(), name);
  region_log.stack.emplace_back(name);
}
void on_pop() {
  if (region_log.stack.empty()) ++region_log.unmatched_pops;
  else region_log.stack.pop_back();
}
class ListenToRegions {
public:
  ListenToRegions() {
    region_log = {};
    Kokkos::Tools::Experimental::set_push_region_callback(on_push);
    Kokkos::Tools::Experimental::set_pop_region_callback(on_pop);
  }
  ~ListenToRegions() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
  }
};
double phase_sum(const ProfileRecord& r) {
  double s = 0;
  for (double p : r.phase_seconds) s += p;
  return s;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("profile regions nest and times add up", "[profile]", kqcd::test::Configs) {
  using ES = space_of<TestType>;
  using Real = real_of<TestType>;
  using Op = WilsonEOOperator<Real, ES>;
  const Lattice& lat = test_lattice;
  set_profiling(true);
  reset_profile();
  SolverResult res;
  {
    ListenToRegions listen;
    typename Op::gauge_type u(lat);
    import_gauge(u, random_host_gauge(lat, 81));
    Op op(u, mixed_bc(), 0.2);
    auto b = op.create_vector(), x = op.create_vector();
    import_spinor(b, random_host_spinor(lat, 82));
    SolverParams params;
    params.tol = sizeof(Real) == 4 ? 1e-5 : 1e-10;
    res = cg_normal(op, x, b, params);
    REQUIRE(region_log.stack.empty());
    REQUIRE(region_log.unmatched_pops == 0);
  }
  set_profiling(false);
  REQUIRE(res.converged());

  // Every phase region sits directly inside its call's region; operator applications inside the
  // solver's compute phase.
  int ops = 0, solves = 0;
  for (std::size_t i = 0; i < region_log.pushes.size(); ++i) {
    const auto& [depth, name] = region_log.pushes[i];
    const auto& parent = region_log.parents[i];
    CAPTURE(name, parent, depth);
    if (const auto colon = name.rfind(':'); colon != std::string::npos && name[colon - 1] != ':')
      REQUIRE(parent == name.substr(0, colon));
    if (name == "kqcd::cg_normal") {
      ++solves;
      REQUIRE(depth == 0);
    }
    if (name == "kqcd::EvenOddOperator::apply") {
      ++ops;
      REQUIRE(parent == "kqcd::cg_normal:compute");
    }
  }
  REQUIRE(solves == 1);
  REQUIRE(ops >= 2 * res.iterations);

  const auto records = profile_records();
  REQUIRE(records.contains("kqcd::cg_normal"));
  REQUIRE(records.contains("kqcd::import_gauge"));
  const auto& cg = records.at("kqcd::cg_normal");
  const auto& op = records.at("kqcd::EvenOddOperator::apply");
  const auto& imp = records.at("kqcd::import_gauge");
  REQUIRE(cg.calls == 1);
  REQUIRE(op.calls == ops);
  REQUIRE(imp.calls == 1);
  const double eps = 1e-6; // clock granularity and the bookkeeping between phases
  for (const auto* r : {&cg, &op, &imp}) {
    REQUIRE(r->total_seconds > 0);
    REQUIRE(phase_sum(*r) <= r->total_seconds + eps);
  }
  REQUIRE(cg.phase_seconds[int(ProfilePhase::compute)] > 0);
  REQUIRE(imp.phase_seconds[int(ProfilePhase::h2d)] > 0);
  REQUIRE(imp.phase_seconds[int(ProfilePhase::init)] > 0);
  // Nested calls fit inside the phase that made them.
  REQUIRE(op.total_seconds <= cg.phase_seconds[int(ProfilePhase::compute)] + eps);

  std::ostringstream table;
  print_profile(table);
  REQUIRE(table.str().find("kqcd::cg_normal") != std::string::npos);
  REQUIRE(table.str().find("compute") != std::string::npos);
}

TEMPLATE_LIST_TEST_CASE("profiling off records nothing but still marks regions", "[profile]", kqcd::EnabledExecutionSpaces) {
  using ES = TestType;
  using Op = WilsonOperator<double, ES>;
  set_profiling(false);
  reset_profile();
  ListenToRegions listen;
  typename Op::gauge_type u(test_lattice);
  Op op(u, mixed_bc(), 0.1);
  auto in = op.create_vector(), out = op.create_vector();
  op.apply(out, in, 1);
  REQUIRE(profile_records().empty());
  REQUIRE(region_log.pushes.size() >= 2);
  REQUIRE(region_log.pushes[0].second == "kqcd::FullOperator::apply");
  REQUIRE(region_log.pushes[1].second == "kqcd::FullOperator::apply:compute");
  REQUIRE(region_log.stack.empty());
}
