// The Wilson hopping term and even-odd operator on the virtual-node SIMD layout of host backends
// (fields/simd_fields.hpp), and blocks of right-hand sides one per SIMD lane. Compiled once per
// storage precision (bench_dslash_simd_<precision>.cpp), in parallel.
#pragma once

#include "dslash_cases.hpp"

#include <kqcd/stencil/operators.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <optional>

namespace kqcd::bench::simd_cases {

/// A block of right-hand sides, one per SIMD lane (SIMDBlockWilsonDslash): opts.rhs of the
/// register's lanes are filled (the rest compute zeros); GFLOP/s and GB/s count the filled ones.
/// P: float, double or half (16-bit lanes, float links); Recon: how the links are stored.
template <class ES, class P, class Recon> nlohmann::json time_block_simd(const DslashOptions& opts) {
  using D = SIMDBlockWilsonDslash<P, ES, Recon>;
  auto make_block = [](const D& d, int parity, const char* label) { return d.create_spinor(parity, label); };
  nlohmann::json r = time_wilson_block<ES, D, CBSpinor<Kokkos::complex<compute_t<P>>, Ns, ES>>(opts, make_block, [](D&) {});
  r.update({{"layout", "simd (right-hand sides in lanes)"}, {"lanes", D::rhs_per_spinor}, {"isa", D::simd_type::isa::name}});
  return r;
}

/// P: float, double or half (16-bit spinors and links on float lanes); mode: the vector sites'
/// neighbours.
template <class ES, class P, class Recon, NeighbourMode mode = ArchTraits<ES>::neighbour_mode>
nlohmann::json time_dslash_simd(const DslashOptions& opts) {
  using Op = EvenOddOperator<WilsonMassTerm<P, ES>, SIMDLayout<P, ES, Recon, mode>>;
  using Real = compute_t<P>;
  GaugeField<Kokkos::complex<Real>, ES> u(opts.lattice);
  random_gauge(u, 1234);
  Op op(u, BoundaryPhases::antiperiodic_time(), 0.1);
  op.set_overlap(opts.overlap);
  op.set_spin_projection(opts.spin_projection);
  if (opts.sites_per_team > 0) op.set_sites_per_team(opts.sites_per_team);
  const auto& d = op.dslash();
  auto in = d.create_spinor(1, "bench_in"), out = d.create_spinor(0, "bench_out");
  auto in_e = op.create_vector("bench_in_e"), out_e = op.create_vector("bench_out_e");
  CBSpinor<Kokkos::complex<Real>, Ns, ES> tmp_o(opts.lattice, 1), tmp_e(opts.lattice, 0);
  random_spinor(tmp_o, 42);
  random_spinor(tmp_e, 43);
  to_simd(in, tmp_o);
  to_simd(in_e, tmp_e);
  const bool eo = opts.op == "eo";
  auto graph =
      eo_graph<ES, std::is_same_v<Recon, Recon18> && mode == ArchTraits<ES>::neighbour_mode && !std::is_same_v<P, kqcd::half>>(
          opts, op, out_e, in_e);
  const auto call = [&] {
    if (graph) graph->submit();
    else if (eo) op.apply(out_e, in_e, 1);
    else d.apply(out, in, 1, 0);
  };
  const auto [per_call, iters] = time_calls<ES>(opts, call);
  const auto split = d.geometry().split();
  nlohmann::json r{{"time_per_call_s", per_call},
                   {"iterations", iters},
                   {"layout", "simd"},
                   {"isa", Op::dslash_type::simd_type::isa::name},
                   {"simd_lanes", Op::dslash_type::simd_type::lanes},
                   {"lane_split", {split[0], split[1], split[2], split[3]}},
                   {"recon", Recon::name},
                   {"neighbours", mode == NeighbourMode::table ? "table" : "on-the-fly"},
                   {"sites_per_team", d.sites_per_team()},
                   {"launch", d.last_launch_config().to_string()},
                   {"graph", opts.graph}};
  add_rates(r, opts.lattice, eo ? op.flops() : d.flops(false), eo ? op.bytes() : d.bytes(false), per_call, opts.overlap);
  if (opts.lattice.distributed()) r["phases"] = phase_times<ES>(opts, d, call);
  return r;
}

/// The Wilson cases on the SIMD layout in storage precision Real on --backend; null where the
/// plain layout runs them (a backend without the layout, or --layout auto where the lanes do not
/// split the lattice).
template <class ES, class Real> nlohmann::json time_wilson_simd_on(const DslashOptions& opts) {
  if constexpr (ArchTraits<ES>::simd_layout) {
    // The SIMD layout is the faster one where it exists; it has its own neighbour table.
    // --rhs with --layout simd: a block with one right-hand side per lane (up to the lanes of
    // the register of this precision's arithmetic).
    constexpr int lanes = ArchTraits<ES>::template simd_complex<compute_t<Real>>::lanes;
    if (opts.layout == "simd" && opts.rhs > 1) {
      if (opts.rhs > lanes || opts.graph || (opts.op != "dslash" && opts.op != "wilson") || opts.neighbours != "auto")
        throw invalid_argument("--layout simd with --rhs runs the hopping term (--operator dslash) on "
                               "up to " + std::to_string(lanes) + " right-hand sides, one per SIMD lane in this precision; found --rhs " +
                               std::to_string(opts.rhs));
      if (opts.recon == 12) return time_block_simd<ES, Real, Recon12>(opts);
      if (opts.recon == 8) return time_block_simd<ES, Real, Recon8>(opts);
      return time_block_simd<ES, Real, Recon18>(opts);
    }
    const bool plain = opts.rhs == 1;
    if (opts.layout == "simd" && !plain)
      throw invalid_argument("--layout simd runs with --rhs 1 (or up to the lanes, --operator dslash)");
    // auto takes the lanes for a call of one right-hand side.
    const bool may_simd = opts.layout == "simd" || plain;
    if (may_simd && choose_simd_layout<ES>(opts.layout, [&] { return simd_split_misfit<ES, Real>(opts.lattice); })) {
      // As on the plain layout: both neighbour modes with recon 18 in single and double.
      if (opts.neighbours != "auto" && (opts.recon != 18 || std::is_same_v<Real, half>))
        throw invalid_argument("--recon 12/8 and --precision half run with --neighbours auto only");
      if (opts.recon == 12) return time_dslash_simd<ES, Real, Recon12>(opts);
      if (opts.recon == 8) return time_dslash_simd<ES, Real, Recon8>(opts);
      if constexpr (!std::is_same_v<Real, half>) {
        if (opts.neighbours == "table") return time_dslash_simd<ES, Real, Recon18, NeighbourMode::table>(opts);
        if (opts.neighbours == "on-the-fly") return time_dslash_simd<ES, Real, Recon18, NeighbourMode::on_the_fly>(opts);
      }
      return time_dslash_simd<ES, Real, Recon18>(opts);
    }
  } else {
    (void)opts;
  }
  return nullptr;
}

/// time_wilson_simd_on for --backend (a precision the build leaves out: not_compiled).
template <class Real> nlohmann::json time_wilson_simd_in(const DslashOptions& opts) {
  return if_precision_compiled<Real>(opts, [&]<class R>() { return with_backend(opts, [&]<class ES>() { return time_wilson_simd_on<ES, R>(opts); }); });
}
extern template nlohmann::json time_wilson_simd_in<half>(const DslashOptions&);
extern template nlohmann::json time_wilson_simd_in<float>(const DslashOptions&);
extern template nlohmann::json time_wilson_simd_in<double>(const DslashOptions&);

} // namespace kqcd::bench::simd_cases
