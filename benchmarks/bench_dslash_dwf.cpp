// The domain-wall benchmark cases (--operator shamir | moebius, --Ls N): the whole 4D even-odd
// preconditioned operator D_hat (two hops over all slices and the fifth-dimension terms,
// DomainWallOperator::flops() and bytes()) and, under "hop", the 4D hopping term over all slices
// alone (QUDA's "Dslash4" row: 1320 flops per 5D site), on the blocks of the plain layout or of the
// SIMD lanes (a row of vector sites per slice; --layout auto takes the lanes where they split the lattice).
#include "dslash_cases.hpp"

#include <kqcd/stencil/domain_wall.hpp>

namespace kqcd::bench {

namespace {
/// The parameters the cases run with: --Ls, M5 1.8, m_f 0.01, Moebius b5 1.5, c5 0.5.
DomainWallParams domain_wall_bench_params(const DslashOptions& opts) {
  DomainWallParams p;
  p.Ls = opts.Ls;
  p.M5 = 1.8;
  p.mf = 0.01;
  if (opts.op == "moebius") p.b5 = 1.5, p.c5 = 0.5;
  return p;
}

template <class ES, class P, class Op> nlohmann::json time_dwf(const DslashOptions& opts) {
  typename Op::gauge_type u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, BoundaryPhases::antiperiodic_time(), domain_wall_bench_params(opts));
  auto& d = op.dslash();
  if (opts.sites_per_team > 0) d.set_sites_per_team(opts.sites_per_team);
  d.set_overlap(opts.overlap);
  d.set_spin_projection(opts.spin_projection);
  auto in = op.create_vector("bench_in"), out = op.create_vector("bench_out"), out_o = op.create_spinor(1, "bench_out_o");
  typename Op::dslash_type::spinor_type one(op.geometry(), 0);
  for (int s = 0; s < op.Ls(); ++s) {
    fill_random(one, 42 + std::uint64_t(s));
    in.insert(s, one);
  }
  const auto [per_call, iters] = time_calls<ES>(opts, [&] { op.apply(out, in, 1); });
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"iterations", iters},
                   {"Ls", op.Ls()},
                   {"M5", op.params().M5},
                   {"b5", op.params().b5},
                   {"c5", op.params().c5},
                   {"mf", op.params().mf},
                   {"flops_per_5d_site", op.flops() / (double(opts.lattice.cb_volume()) * op.Ls())},
                   {"layout", Op::layout_type::name},
                   {"neighbours", Op::layout_type::neighbour_mode == NeighbourMode::table ? "table" : "on-the-fly"},
                   {"launch", d.last_launch_config().to_string()}};
  add_rates(r, opts.lattice, op.flops(), op.bytes(), per_call, opts.overlap);
  const auto hop_call = [&] { d.apply(out_o, in, 1, 1); };
  const auto [hop_per_call, hop_iters] = time_calls<ES>(opts, hop_call);
  nlohmann::json hop{{"time_per_call_s", hop_per_call}, {"iterations", hop_iters}, {"flops_per_5d_site", 1320}};
  add_rates(hop, opts.lattice, op.hop_flops(), op.hop_bytes(), hop_per_call, opts.overlap);
  if (opts.lattice.distributed()) hop["phases"] = phase_times<ES>(opts, d, hop_call, op.Ls());
  r["hop"] = hop;
  return r;
}
} // namespace

nlohmann::json time_domain_wall_dslash(const DslashOptions& opts) {
  if (opts.neighbours != "auto") throw invalid_argument("--operator " + opts.op + " runs with --neighbours auto only");
  if (opts.recon != 18 || opts.rhs != 1) throw invalid_argument("--operator " + opts.op + " runs with --recon 18 and --rhs 1 only");
  if (opts.Ls < 2 || opts.Ls > max_fifth_dim)
    throw invalid_argument("--Ls " + std::to_string(opts.Ls) + ": expected 2 to " + std::to_string(max_fifth_dim));
  return with_backend_and_precision(opts, [&]<class ES, class Real>() {
    const bool simd = choose_simd_layout<ES>(opts.layout, [&]() -> std::string {
      if constexpr (ArchTraits<ES>::simd_layout) return SIMDStencilLayout<Real, ES>::misfit(opts.lattice);
      else return "";
    });
    if constexpr (ArchTraits<ES>::simd_layout)
      if (simd) return time_dwf<ES, Real, SIMDDomainWallOperator<Real, ES>>(opts);
    return time_dwf<ES, Real, DomainWallOperator<Real, ES>>(opts);
  });
}

} // namespace kqcd::bench
