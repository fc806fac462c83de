// Time to solution of the even-odd Wilson system with CG on the normal equations, in double,
// single, or mixed precision (single inner iterations, double reliable updates), and the split of
// that time between operator applications (the Dslash) and the linear algebra.
#include "bench.hpp"

#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/ops/wilson_operator.hpp>
#include <kqcd/solvers/cg.hpp>

namespace kqcd::bench {

namespace {
/// Wraps an operator and accumulates the time spent in apply() (fenced on both sides).
template <class Op, class ES> struct TimedOperator {
  using vector_type = typename Op::vector_type;
  const Op& op;
  mutable double seconds = 0;
  mutable int applies = 0;
  vector_type create_vector(const std::string& label = "timed_vector") const { return op.create_vector(label); }
  void apply(vector_type& out, const vector_type& in, int isign) const {
    ES().fence();
    Kokkos::Timer t;
    op.apply(out, in, isign);
    ES().fence();
    seconds += t.seconds();
    ++applies;
  }
};

template <class ES> nlohmann::json time_cg(const SolverOptions& o) {
  using EOd = WilsonEOOperator<double, ES>;
  using EOf = WilsonEOOperator<float, ES>;
  typename EOd::gauge_type u(o.lattice);
  random_gauge(u, 2024);
  GaugeField<Kokkos::complex<float>, ES> uf(o.lattice);
  convert_gauge(uf, u);
  const double mass = wilson_mass_from_kappa(o.kappa);
  const auto bc = BoundaryPhases::antiperiodic_time();
  EOd opd(u, mass, bc);
  EOf opf(uf, mass, bc);
  SolverParams params;
  params.tol = o.precision == "single" ? std::max(o.tol, 1e-6) : o.tol;
  params.max_iter = o.quick ? 5 : 10000;
  params.label = "bench";
  nlohmann::json r;
  auto run = [&](const auto& outer, const auto& sloppy, auto& x, const auto& b) {
    TimedOperator<std::decay_t<decltype(outer)>, ES> t_outer{outer};
    TimedOperator<std::decay_t<decltype(sloppy)>, ES> t_sloppy{sloppy};
    SolverResult res;
    double best = 1e30;
    for (int rep = 0; rep < (o.quick ? 1 : 3); ++rep) { // the first solve warms up
      blas::zero(x);
      t_outer.seconds = t_sloppy.seconds = 0;
      t_outer.applies = t_sloppy.applies = 0;
      if constexpr (std::is_same_v<std::decay_t<decltype(outer)>, std::decay_t<decltype(sloppy)>>)
        res = cg_normal(t_outer, x, b, params);
      else
        res = cg_normal(t_outer, t_sloppy, x, b, params);
      if (res.seconds < best) {
        best = res.seconds;
        const double op_seconds = t_outer.seconds + t_sloppy.seconds;
        const double flops = t_outer.applies * outer.flops() + t_sloppy.applies * sloppy.flops();
        r = {{"iterations", res.iterations},
             {"true_residual", res.true_residual},
             {"status", to_string(res.status)},
             {"time_to_solution_s", res.seconds},
             {"operator_s", op_seconds},
             {"linear_algebra_s", res.seconds - op_seconds},
             {"operator_fraction", op_seconds / res.seconds},
             {"operator_applications", t_outer.applies + t_sloppy.applies},
             {"gflops", flops / res.seconds * 1e-9}};
      }
    }
  };
  if (o.precision == "double" || o.precision == "mixed") {
    auto b = opd.create_vector("b"), x = opd.create_vector("x");
    random_spinor(b, 5);
    if (o.precision == "double") run(opd, opd, x, b);
    else run(opd, opf, x, b);
  } else {
    auto b = opf.create_vector("b"), x = opf.create_vector("x");
    random_spinor(b, 5);
    run(opf, opf, x, b);
  }
  return r;
}
} // namespace

nlohmann::json run_cg(const SolverOptions& o) {
  if (o.precision != "double" && o.precision != "single" && o.precision != "mixed")
    throw invalid_argument("precision '" + o.precision + "': expected double, single or mixed");
  const std::string backend = o.backend.empty() ? std::string(Kokkos::DefaultExecutionSpace::name()) : o.backend;
  nlohmann::json r;
  if (!with_execution_space(backend, [&]<class ES>() { r = time_cg<ES>(o); }))
    throw invalid_argument("backend '" + backend + "' is not enabled in this build");
  const auto d = o.lattice.dims();
  r["benchmark"] = "wilson_eo_cg_normal";
  r["lattice"] = {d[0], d[1], d[2], d[3]};
  r["precision"] = o.precision;
  r["kappa"] = o.kappa;
  r["tol"] = o.tol;
  r["backend"] = backend;
  r["flops_note"] = "2688 flops per even site per operator application (QUDA's MatPC count)";
  r["provenance"] = to_json(make_provenance(backend));
  return r;
}

} // namespace kqcd::bench
