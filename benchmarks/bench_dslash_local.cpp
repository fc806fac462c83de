// The site-local operators' benchmark cases: the hopping term with the site-local term of the
// preconditioned clover / twisted-mass / twisted-clover operators (A^-1 H on one parity, QUDA's
// "Dslash" count: clover 1872, twisted mass 1368, twisted clover 1872 flops per site), on either layout.
#include "dslash_cases.hpp"

#include <kqcd/stencil/operators.hpp>

namespace kqcd::bench {

namespace {
/// out_o = A_oo^-1 H_oe in_e with the site-local term of Op's term (m = 0.1, c_sw = 1, mu = 0.1), Op
/// an EvenOddOperator on the plain or the SIMD layout.
template <class Op, class... Args> nlohmann::json time_local(const DslashOptions& opts, Args... args) {
  using Term = typename Op::term_type;
  using ES = typename Term::execution_space;
  typename Op::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, BoundaryPhases::antiperiodic_time(), args...);
  op.set_overlap(opts.overlap);
  op.set_spin_projection(opts.spin_projection);
  constexpr bool plain = !requires { op.layout().geometry(); };
  if (opts.sites_per_team > 0) op.set_sites_per_team(opts.sites_per_team);
  auto in = op.create_spinor(0, "bench_in"), out = op.create_spinor(1, "bench_out");
  if constexpr (plain) {
    fill_random(in, 42);
  } else {
    CBSpinor<Kokkos::complex<compute_t<typename Term::precision>>, Ns, ES> plain_in(opts.lattice, 0);
    random_spinor(plain_in, 42);
    op.layout().to_layout(in, plain_in);
  }
  const auto [per_call, iters] = time_calls<ES>(opts, [&] { op.apply_hopping_inverse(out, in, 1, 1); });
  nlohmann::json r = {{"time_per_call_s", per_call},
                      {"iterations", iters},
                      {"flops_per_site", WilsonDslash<double>::flops_per_site + Term::local_flops},
                      {"site_local_memory_bytes", op.memory_bytes()}};
  add_rates(r, opts.lattice, op.hopping_flops(), op.hopping_bytes(), per_call, opts.overlap);
  if constexpr (plain) {
    constexpr NeighbourMode mode = ArchTraits<ES>::neighbour_mode;
    r.update({{"layout", "scalar"},
              {"neighbours", mode == NeighbourMode::table ? "table" : "on-the-fly"},
              {"sites_per_team", op.dslash_sites_per_team()},
              {"launch", op.dslash().last_launch_config().to_string()}});
  } else {
    const auto split = op.layout().geometry().split();
    r.update({{"layout", "simd"},
              {"isa", Op::dslash_type::simd_type::isa::name},
              {"simd_lanes", Op::dslash_type::simd_type::lanes},
              {"lane_split", {split[0], split[1], split[2], split[3]}},
              {"neighbours", "table"},
              {"sites_per_team", op.dslash_sites_per_team()},
              {"launch", op.dslash().last_launch_config().to_string()}});
  }
  return r;
}

/// Whether a site-local operator runs on the SIMD layout: --layout simd (refused where it cannot),
/// or auto where the backend has the layout and the lattice splits into its lanes.
template <class Term> bool local_on_simd(const DslashOptions& opts) {
  using ES = typename Term::execution_space;
  return choose_simd_layout<ES>(opts.layout, [&] { return simd_split_misfit<ES, typename Term::precision>(opts.lattice); });
}

template <bool compiled, class Term, class... Args> nlohmann::json time_local_if(const DslashOptions& opts, Args... args) {
  if constexpr (compiled) {
    using ES = typename Term::execution_space;
    return visit_layout<ES>(local_on_simd<Term>(opts), [&]<class Tag>(Tag) {
      return time_local<EvenOddOperator<Term, typename Tag::template layout<typename Term::precision, ES>>>(opts, args...);
    });
  } else {
    ((void)args, ...);
    throw not_compiled("operator " + opts.op, compiled_operators, "KQCD_OPERATORS");
  }
}

template <class ES, class Real> nlohmann::json time_local_op(const DslashOptions& opts) {
  if (opts.neighbours != "auto")
    throw invalid_argument("--operator " + opts.op + " runs with the backend's neighbour mode only (--neighbours auto)");
  const double mass = 0.1, csw = 1.0, mu = 0.1;
  if (opts.op == "clover") return time_local_if<operator_compiled("clover"), CloverTerm<Real, ES>>(opts, mass, csw);
  if (opts.op == "clover-dynamic")
    return time_local_if<operator_compiled("clover-dynamic"), CloverTerm<Real, ES, CloverInverse::dynamic>>(opts, mass, csw);
  if (opts.op == "twisted") return time_local_if<operator_compiled("twisted"), TwistedMassTerm<Real, ES>>(opts, mass, mu);
  return time_local_if<operator_compiled("twisted-clover"), TwistedCloverTerm<Real, ES>>(opts, mass, csw, mu);
}

} // namespace

std::vector<std::string> default_suite_operators() {
  std::vector<std::string> ops{"dslash", "eo"};
  for (const char* op : {"clover", "clover-dynamic", "twisted", "twisted-clover"})
    if (operator_compiled(op)) ops.emplace_back(op);
  return ops;
}

nlohmann::json time_local_dslash(const DslashOptions& opts) {
  return with_backend_and_precision(opts, [&]<class ES, class Real>() { return time_local_op<ES, Real>(opts); });
}

} // namespace kqcd::bench
