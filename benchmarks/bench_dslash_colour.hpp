// The colour-hop stencils' benchmark cases (--operator staggered, improved-staggered, asqtad, hisq,
// laplace, covdev): colour vectors on either layout in single, double or 16-bit storage, the long
// links of the improved operators also compressed (--recon 13, 9), bytes also in the perfect-reuse
// model. Compiled once per storage precision (bench_dslash_colour_<precision>.cpp), in parallel.
#pragma once

#include "dslash_cases.hpp"

#include <kqcd/gauge/staggered_links.hpp>
#include <kqcd/stencil/staggered.hpp>

#include <bit>
#include <optional>

namespace kqcd::bench::colour {

/// A colour-hop stencil on colour vectors, one parity, on Layout: the staggered D (naive: 570 flops
/// per site; improved, random fat and long links: 1146), the 4D Laplacian (its xpay form a x + H in)
/// or the forward covariant derivative along t.
template <class ES, class Layout> nlohmann::json time_colour_hops_on(const DslashOptions& opts) {
  using Real = typename Layout::real_type;
  using Stencil = ColourHopStencil<StaggeredSigns, 1, Real, ES, Layout>;
  using Unit = ColourHopStencil<UnitSigns, 1, Real, ES, Layout>;
  typename Stencil::gauge_type u(opts.lattice), w(opts.lattice);
  random_gauge(u, 1234);
  const bool staggered = opts.op == "staggered" || improved_staggered_operator(opts.op);
  if (opts.op == "improved-staggered") random_gauge(w, 1235);
  if (opts.op == "asqtad" || opts.op == "hisq") {
    // The links of the action from the random thin links (distributed: the rank's part).
    const auto links = make_staggered_links(u, StaggeredLinkParams{parse_staggered_action(opts.op), 1.0, 0.0});
    convert_gauge(u, links.fat);
    convert_gauge(w, links.lng);
  }
  const auto bc = BoundaryPhases::antiperiodic_time();
  // d on in (a spinor, or a block of n_rhs right-hand sides), out = a out + H in.
  auto time_on = [&](auto& d, auto& in, auto& out, int n_rhs, unsigned mask, Real a) {
    const bool xpay = a != Real(0);
    // --graph: the call captured once (in the shape a first call tuned) and submitted per call; as
    // for the Wilson operators, on the links stored whole and the backend's neighbours (each other
    // layout would compile the graph machinery again for a launch-bound case it does not change).
    std::optional<Kokkos::Experimental::Graph<ES>> graph;
    if (opts.graph) {
      if (opts.lattice.distributed() || n_rhs > 1) throw invalid_argument("--graph runs on one process with --rhs 1");
      constexpr bool graphable = std::is_same_v<typename Layout::recon_type, Recon18> && std::is_same_v<typename Layout::long_recon_type, Recon18> &&
                                 Layout::neighbour_mode == default_neighbour_mode<typename Layout::precision, ES> && Layout::rhs_per_spinor == 1;
      if constexpr (graphable && requires { d.then_apply(GraphNode<ES>(), out, in, 0, mask); }) {
        d.apply(out, in, 0, mask, a, &out, Real(1));
        graph = Kokkos::Experimental::create_graph<ES>(
            [&](const auto& root) { d.then_apply(GraphNode<ES>(root), out, in, 0, mask, a, &out, Real(1)); });
        graph->instantiate();
      } else {
        throw invalid_argument("--graph runs with --recon 18 and the backend's neighbour mode");
      }
    }
    auto call = [&] {
      if (graph) graph->submit();
      else d.apply(out, in, 0, mask, a, &out, Real(1));
    };
    const auto [per_call, iters] = time_calls<ES>(opts, call);
    const double flops = d.flops(mask, xpay, n_rhs), bytes = d.bytes(mask, xpay, n_rhs);
    nlohmann::json r{{"time_per_call_s", per_call},
                     {"iterations", iters},
                     {"layout", Layout::name},
                     {"spins", 1},
                     {"hops", std::popcount(mask)},
                     {"xpay", xpay},
                     {"flops_per_site", flops / opts.lattice.cb_volume()},
                     {"neighbours", Layout::neighbour_mode == NeighbourMode::table ? "table" : "on-the-fly"},
                     {"graph", opts.graph},
                     {"link_bytes", Layout::bytes_per_link()},
                     {"long_link_bytes", d.has_long_links() ? nlohmann::json(Layout::bytes_per_long_link()) : nlohmann::json()},
                     {"launch", d.launcher().last_launch_config().to_string()}};
    if (n_rhs > 1) r["time_per_rhs_s"] = per_call / n_rhs;
    add_rates(r, opts.lattice, flops, bytes, per_call, opts.overlap);
    const double ranks = double(opts.lattice.global_volume() / opts.lattice.volume());
    r["gbytes_per_s_reuse"] = ranks * d.bytes_reuse(mask, xpay, n_rhs) / per_call * 1e-9;
    if (opts.lattice.distributed()) {
      const auto& l = d.launcher();
      l.set_timing(true);
      l.reset_times();
      for (int i = 0; i < (opts.quick ? 2 : 20); ++i) call();
      l.set_timing(false);
      const DslashTimes t = l.times();
      const double per = 1.0 / std::max(t.calls, 1);
      r["phases"] = {{"calls_timed", t.calls},
                     {"pack_post_s", comm::max(opts.lattice, t.pack_post * per)},
                     {"interior_s", comm::max(opts.lattice, t.interior * per)},
                     {"wait_unpack_s", comm::max(opts.lattice, t.wait_unpack * per)},
                     {"exterior_s", comm::max(opts.lattice, t.exterior * per)},
                     {"halo_bytes_per_rank", d.halo_bytes(n_rhs)},
                     {"ghost_depth", d.descriptor().depth},
                     {"exterior_sites_per_rank", l.exterior_sites(0)}};
    }
    return r;
  };
  auto run = [&](auto& d, unsigned mask, Real a) -> nlohmann::json {
    d.launcher().set_overlap(opts.overlap);
    if (opts.sites_per_team > 0) d.launcher().set_sites_per_team(opts.sites_per_team);
    if (opts.rhs > 1) {
      if constexpr (std::remove_cvref_t<decltype(d)>::has_blocks) {
        auto in = d.create_block(1, opts.rhs, "bench_in"), out = d.create_block(0, opts.rhs, "bench_out");
        auto one = d.create_spinor(1, "bench_one");
        for (int r = 0; r < opts.rhs; ++r) {
          random_spinor(one, 42 + std::uint64_t(r));
          in.insert(r, one);
        }
        return time_on(d, in, out, opts.rhs, mask, a);
      } else if constexpr (Layout::rhs_per_spinor > 1) {
        // A right-hand side per SIMD lane: opts.rhs of them filled, the others zero.
        if (opts.rhs > Layout::rhs_per_spinor)
          throw invalid_argument("--rhs " + std::to_string(opts.rhs) + " on the SIMD layout: at most one per lane (" +
                                 std::to_string(Layout::rhs_per_spinor) + ")");
        auto in = d.create_spinor(1, "bench_in"), out = d.create_spinor(0, "bench_out");
        cb_spinor_t<typename Layout::precision, ES, 1> one(opts.lattice, 1, "bench_one");
        for (int r = 0; r < opts.rhs; ++r) {
          random_spinor(one, 42 + std::uint64_t(r));
          in.insert(r, one);
        }
        return time_on(d, in, out, opts.rhs, mask, a);
      } else {
        throw invalid_argument("--operator " + opts.op + " with --rhs > 1 runs on the scalar layout or the SIMD lanes");
      }
    }
    if constexpr (Layout::rhs_per_spinor == 1) {
      auto in = d.create_spinor(1, "bench_in"), out = d.create_spinor(0, "bench_out");
      random_spinor(in, 42);
      random_spinor(out, 43);
      return time_on(d, in, out, 1, mask, a);
    } else {
      throw invalid_argument("a right-hand side per SIMD lane needs --rhs > 1");
    }
  };
  if (staggered) {
    Stencil d("StaggeredDslash", u, bc, improved_staggered_operator(opts.op) ? &w : nullptr);
    return run(d, d.available_hops(), Real(0));
  }
  if constexpr (std::is_same_v<typename Layout::long_recon_type, Recon18>) {
    Unit d(opts.op == "laplace" ? "Laplacian" : "CovariantDerivative", u, bc);
    if (opts.op == "laplace") return run(d, hops::one_site, Real(-8));
    return run(d, hop_bit(3, +1), Real(0));
  } else {
    throw invalid_argument("--operator " + opts.op + " has no long links to compress");
  }
}

/// The stencil on Layout with the links stored as --recon asks (with the layout's default neighbours;
/// for the improved staggered operators the long links, the fat links whole), or recon 18 with the
/// neighbours --neighbours asks. P: the storage precision (float, double, kqcd::half).
template <class ES, class P, template <class, class, class, NeighbourMode> class Layout>
nlohmann::json time_colour_hops_stored(const DslashOptions& opts) {
  constexpr NeighbourMode native = default_neighbour_mode<P, ES>;
  if (opts.neighbours != "auto" && opts.recon != 18) throw invalid_argument("--recon other than 18 runs with --neighbours auto only");
  using Whole = Layout<P, ES, Recon18, native>;
  if (opts.recon == 13) return time_colour_hops_on<ES, typename Whole::template with_long_links<Recon13>>(opts);
  if (opts.recon == 9) return time_colour_hops_on<ES, typename Whole::template with_long_links<Recon9>>(opts);
  // Whole links compressed as the Wilson hopping term's are: where the build compiles that reconstruction.
  auto compressed = [&]<class Recon>() { return time_colour_hops_on<ES, Layout<P, ES, Recon, native>>(opts); };
  if (opts.recon == 12) return if_recon_compiled<Recon12>(compressed);
  if (opts.recon == 8) return if_recon_compiled<Recon8>(compressed);
  if (opts.neighbours == "table") return time_colour_hops_on<ES, Layout<P, ES, Recon18, NeighbourMode::table>>(opts);
  if (opts.neighbours == "on-the-fly") return time_colour_hops_on<ES, Layout<P, ES, Recon18, NeighbourMode::on_the_fly>>(opts);
  return time_colour_hops_on<ES, Layout<P, ES, Recon18, native>>(opts);
}
template <class P, class ES, class Recon, NeighbourMode mode> using SIMDColourLayout = SIMDStencilLayout<P, ES, Recon, mode>;
/// A right-hand side per SIMD lane (neighbours from the table).
template <class P, class ES, class Recon, NeighbourMode mode> using SIMDLanesLayout = SIMDBlockStencilLayout<P, ES, Recon>;

/// A colour-hop stencil on the layout --layout asks for: auto takes the SIMD lanes where the backend
/// has them and they split the lattice (with long links: into sub-lattices at least 3 sites long),
/// for one right-hand side.
template <class ES, class P> nlohmann::json time_colour_hops(const DslashOptions& opts) {
  // Blocks of right-hand sides: rows of the scalar layout's fields (auto), or --layout simd's lanes.
  const std::string layout = opts.rhs > 1 && opts.layout == "auto" ? "scalar" : opts.layout;
  const bool simd = use_simd_layout<ES>(parse_layout_choice(layout), [&]() -> std::string {
    // A right-hand side per lane keeps the lattice whole.
    if constexpr (ArchTraits<ES>::simd_layout)
      return opts.rhs > 1 ? "" : SIMDStencilLayout<P, ES>::misfit(opts.lattice, improved_staggered_operator(opts.op) ? 3 : 1);
    else return "";
  });
  if constexpr (ArchTraits<ES>::simd_layout) {
    if (simd && opts.rhs > 1) {
      if (opts.neighbours == "on-the-fly") throw invalid_argument("--rhs on the SIMD lanes reads neighbours from the table");
      return time_colour_hops_stored<ES, P, SIMDLanesLayout>(opts);
    }
    if (simd) return time_colour_hops_stored<ES, P, SIMDColourLayout>(opts);
  }
  return time_colour_hops_stored<ES, P, PlainStencilLayout>(opts);
}

/// The colour-hop cases in storage precision P on --backend (a precision the build leaves out:
/// not_compiled).
template <class P> nlohmann::json time_colour_hops_in(const DslashOptions& opts) {
  return if_precision_compiled<P>(opts, [&]<class Q>() { return with_backend(opts, [&]<class ES>() { return time_colour_hops<ES, Q>(opts); }); });
}
extern template nlohmann::json time_colour_hops_in<half>(const DslashOptions&);
extern template nlohmann::json time_colour_hops_in<float>(const DslashOptions&);
extern template nlohmann::json time_colour_hops_in<double>(const DslashOptions&);

} // namespace kqcd::bench::colour
