// Time to solution of the even-odd Wilson, clover, twisted-mass or twisted-clover system (--operator) with
// CG on the normal equations or BiCGStab, on the plain or the SIMD layout (--layout), in
// double, single, or mixed precision (double reliable updates around single inner iterations, or
// around 16-bit inner iterations: mixed-half, Wilson's with reconstruct-12 links on the plain layout,
// 16-bit float lanes on the SIMD layout), on a gauge
// file or a random (hot) gauge field, and the split of that time between operator applications
// (the Dslash) and the linear algebra. With --rhs N (every operator): a block of N systems by
// multi-RHS CG (double, mixed or mixed-half) or block CG
// (double), against N single-RHS CG solves of the same systems in the same run.
#include "bench.hpp"

#include <kqcd/comm/halo.hpp>
#include <kqcd/comm/process_grid.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/random_fields.hpp>
#include <kqcd/instances/wilson_dslash_instances.hpp>
#include <kqcd/io/gauge_io.hpp>
#include <kqcd/solvers/bicgstab.hpp>
#include <kqcd/solvers/block_cg.hpp>
#include <kqcd/solvers/cg.hpp>
#include <kqcd/solvers/cg_multi.hpp>
#include <kqcd/stencil/operators.hpp>
#include <kqcd/stencil/wilson_dslash.hpp>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <vector>

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

/// A block of o.rhs systems (double) on the even-odd operator op (plain layout, or the SIMD
/// layout with one right-hand side per lane): multi-RHS CG or block CG, then the same systems one by
/// one; mixed where the sloppy operator sop differs from op.
template <class ES, class EO, class Sloppy>
nlohmann::json time_block(const SolverOptions& o, const SolverParams& params, const EO& op, const Sloppy& sop) {
  const int n = o.rhs;
  auto b = op.create_multi(n, "b"), x = op.create_multi(n, "x");
  std::vector<typename EO::vector_type> b_s, x_s;
  for (int r = 0; r < n; ++r) {
    CBSpinor<Kokkos::complex<double>, Ns, ES> plain(op.lattice(), 0);
    random_spinor(plain, 5 + std::uint64_t(r));
    b.insert(r, plain);
    b_s.push_back(op.create_vector("b_r"));
    x_s.push_back(op.create_vector("x_r"));
    if constexpr (requires { b_s.back().geometry(); }) to_simd(b_s.back(), plain);
    else blas::copy(b_s.back(), plain);
  }
  const bool block = o.solver == "block-cg";
  double best = 1e30, best_single = 1e30;
  nlohmann::json r;
  for (int rep = 0; rep < (o.quick ? 1 : 3); ++rep) { // the first solve warms up
    blas::axpby_each(std::vector<double>(std::size_t(n), 0.0), b, std::vector<double>(std::size_t(n), 0.0), x);
    ES().fence();
    Kokkos::Timer t;
    std::vector<SolverResult> res;
    if constexpr (std::is_same_v<EO, Sloppy>) res = block ? block_cg_normal(op, x, b, params) : cg_normal_multi(op, x, b, params);
    else res = cg_normal_multi(op, sop, x, b, params);
    ES().fence();
    const double s = t.seconds();
    double single = 0.0;
    int single_iterations = 0;
    for (int k = 0; k < n; ++k) {
      blas::zero(x_s[std::size_t(k)]);
      const auto one = cg_normal(op, sop, x_s[std::size_t(k)], b_s[std::size_t(k)], params);
      single += one.seconds;
      single_iterations = std::max(single_iterations, one.iterations);
    }
    best_single = std::min(best_single, single);
    if (s < best) {
      best = s;
      int iterations = 0, updates = 0;
      double worst = 0.0;
      bool converged = true;
      for (const auto& e : res) {
        iterations = std::max(iterations, e.iterations);
        updates = std::max(updates, e.residual_updates);
        worst = std::max(worst, e.true_residual);
        converged = converged && e.converged();
      }
      r = {{"iterations", iterations},
           {"true_residual", worst},
           {"status", converged ? "converged" : "not converged"},
           {"time_to_solution_s", s},
           {"residual_updates", updates},
           {"rhs", n},
           {"single_rhs_iterations", single_iterations}};
    }
  }
  r["single_rhs_cg_s"] = best_single;
  r["speedup_over_single_rhs"] = best_single / best;
  if (block) r["dense_solver"] = block_cg_dense_solver;
  return r;
}

/// Whether the solve runs on the SIMD layout: --layout simd (refused where it cannot), or auto where
/// the backend has the layout and the lattice splits into the lanes of every precision the solve uses.
template <class ES> bool use_simd_layout(const SolverOptions& o, const Lattice& lat) {
  return choose_simd_layout<ES>(o.layout, [&]() -> std::string {
    constexpr int lanes = ArchTraits<ES>::template simd_complex<double>::lanes;
    if ((o.rhs > 1 || o.solver == "block-cg") && o.rhs > lanes)
      return "a block holds one right-hand side per double-precision lane, at most " + std::to_string(lanes) + " (" +
             ArchTraits<ES>::template simd_complex<double>::isa::name + "), found --rhs " + std::to_string(o.rhs);
    // Every precision the solve uses must split the lattice into its lanes (the geometry's error names it).
    if (o.precision == "double") return simd_split_misfit<ES, double>(lat);
    if (o.precision == "single") return simd_split_misfit<ES, float>(lat);
    return simd_split_misfit<ES, double, float>(lat);
  });
}

template <class ES> nlohmann::json time_solver(const SolverOptions& o, const HostGaugeConfig* cfg) {
  if (o.layout != "auto" && o.layout != "scalar" && o.layout != "simd")
    throw invalid_argument("layout '" + o.layout + "': expected auto, scalar or simd");
  using EOd = WilsonEOOperator<double, ES>;
  const Lattice lattice = cfg ? cfg->lattice : o.lattice;
  typename EOd::gauge_type u(lattice);
  if (cfg) import_gauge(u, cfg->links, HostGaugeOrder::milc);
  else random_gauge(u, 2024);
  const double mass = wilson_mass_from_kappa(o.kappa);
  const auto bc = BoundaryPhases::antiperiodic_time();
  nlohmann::json r;
  GaugeField<Kokkos::complex<float>, ES> uf; // the float links of single, mixed and mixed-half solves
  if (o.precision != "double") {
    uf = GaugeField<Kokkos::complex<float>, ES>(lattice);
    convert_gauge(uf, u);
  }
  SolverParams params;
  params.tol = o.precision == "single" ? std::max(o.tol, 1e-6) : o.tol;
  params.reliable_delta = o.reliable_delta;
  params.max_iter = 10000;
  params.label = "bench";
  // A block of o.rhs systems with the term Td, and for mixed solves the sloppy term (Tf: float; Th:
  // 16 bits): one right-hand side per lane of the SIMD layout, or the plain layout's block.
  const bool blocks = o.rhs > 1 || o.solver == "block-cg";
  auto solve_block = [&]<class Td, class Tf, class Th>(auto... args) {
    // make.template operator()<T>(links): the layout's operator with term T.
    auto on_layout = [&](const auto& make) {
      const auto opd = make.template operator()<Td>(u);
      if (o.precision == "double") {
        r = time_block<ES>(o, params, opd, opd);
      } else if (o.precision == "mixed") {
        r = time_block<ES>(o, params, opd, make.template operator()<Tf>(uf));
      } else if constexpr (!precision_compiled<half>) {
        throw not_compiled("precision half (of mixed-half)", compiled_precisions, "KQCD_PRECISIONS");
      } else {
        r = time_block<ES>(o, params, opd, make.template operator()<Th>(uf));
      }
    };
    if constexpr (ArchTraits<ES>::simd_layout) {
      if (use_simd_layout<ES>(o, lattice)) {
        using V = typename ArchTraits<ES>::template simd_complex<double>;
        on_layout([&]<class T>(const auto& links) { return SIMDEvenOddOperator<T>(links, bc, mass, args...); });
        r.update({{"layout", "simd"}, {"isa", V::isa::name}, {"simd_lanes", V::lanes}});
        return;
      }
    }
    if (o.layout == "simd") use_simd_layout<ES>(o, lattice); // refuses
    on_layout([&]<class T>(const auto& links) { return PlainEvenOddOperator<T>(links, bc, mass, args...); });
    r["layout"] = "scalar";
  };
  // The GFLOP/s of an operator's timed applications (TimedOperator).
  auto gflops_of = [](const auto& timed, const auto& op) {
    return timed.applies > 0 ? timed.applies * op.flops() / timed.seconds * 1e-9 : 0.0;
  };
  // An operator's applications, seconds and rate inside the solve (each application fenced).
  auto in_solver = [&](const auto& timed, const auto& op) {
    return nlohmann::json{{"applications", timed.applies}, {"seconds", timed.seconds}, {"gflops", gflops_of(timed, op)}};
  };
  // An operator's rate outside the solver, timed as inside it (fenced applications alternating
  // with the adjoint, the pattern of the normal equations).
  auto bare_gflops = [&](const auto& op, const auto& src) {
    auto in = op.create_vector("bare_in"), out = op.create_vector("bare_out");
    blas::copy(in, src);
    TimedOperator<std::decay_t<decltype(op)>, ES> timed{op};
    for (int i = 0; i < 2; ++i) timed.apply(out, in, 1);
    timed.seconds = 0;
    timed.applies = 0;
    for (int i = 0; i < 10; ++i) {
      timed.apply(out, in, 1);
      timed.apply(in, out, -1);
      blas::copy(in, src); // keeps the vector's magnitude (and a 16-bit field's scale) as in the solve
    }
    return gflops_of(timed, op);
  };
  auto run = [&](const auto& outer, const auto& sloppy, auto& x, const auto& b) {
    TimedOperator<std::decay_t<decltype(outer)>, ES> t_outer{outer};
    TimedOperator<std::decay_t<decltype(sloppy)>, ES> t_sloppy{sloppy};
    using Outer = std::decay_t<decltype(outer)>;
    using Sloppy = std::decay_t<decltype(sloppy)>;
    constexpr bool mixed = !std::is_same_v<Outer, Sloppy>;
    SolverResult res;
    double best = 1e30;
    for (int rep = 0; rep < (o.quick ? 1 : 3); ++rep) { // the first solve warms up
      blas::zero(x);
      t_outer.seconds = t_sloppy.seconds = 0;
      t_outer.applies = t_sloppy.applies = 0;
      const bool cg = o.solver == "cg";
      if constexpr (!mixed)
        res = cg ? cg_normal(t_outer, x, b, params) : bicgstab(t_outer, x, b, params);
      else
        res = cg ? cg_normal(t_outer, t_sloppy, x, b, params) : bicgstab(t_outer, t_sloppy, x, b, params);
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
             {"seconds_per_iteration", res.seconds / std::max(res.iterations, 1)},
             {"gflops", flops / res.seconds * 1e-9},
             {"residual_updates", res.residual_updates},
             {"outer_operator", in_solver(t_outer, outer)}};
        if constexpr (mixed) r["sloppy_operator"] = in_solver(t_sloppy, sloppy);
      }
    }
    // The operators' bare rates on the same source, for the in-solver fractions.
    auto compare = [&](const char* key, const auto& op) {
      const double rate = bare_gflops(op, b);
      r[key]["bare_gflops"] = rate;
      r[key]["in_solver_fraction"] = r[key]["gflops"].template get<double>() / rate;
    };
    compare("outer_operator", outer);
    if constexpr (mixed) compare("sloppy_operator", sloppy);
  };
  // One solve with outer's reliable updates around sloppy's iterations (the same operator for a
  // single precision), from the same random source on every layout; on the SIMD layout the
  // precision change moves each site to its lane in the sloppy operator's split.
  auto solve = [&](const auto& outer, const auto& sloppy) {
    auto b = outer.create_vector("b"), x = outer.create_vector("x");
    nlohmann::json layout = {{"layout", "scalar"}};
    if constexpr (requires { b.geometry(); }) {
      CBSpinor<typename decltype(b)::value_type, Ns, ES> plain(lattice, 0);
      random_spinor(plain, 5);
      to_simd(b, plain);
      layout = {{"layout", "simd"},
                {"isa", decltype(b)::simd_type::isa::name},
                {"simd_lanes", decltype(b)::lanes},
                {"sloppy_simd_lanes", std::decay_t<decltype(sloppy)>::vector_type::lanes}};
    } else {
      random_spinor(b, 5);
    }
    run(outer, sloppy, x, b);
    r.update(layout);
  };
  // The solve in o.precision on operators made on demand (single: the float one alone; mixed: double
  // outer, float inner).
  auto by_precision = [&](const auto& make_double, const auto& make_float) {
    if (o.precision == "single") {
      const auto opf = make_float();
      solve(opf, opf);
    } else {
      const auto opd = make_double();
      if (o.precision == "double") {
        solve(opd, opd);
      } else {
        const auto opf = make_float();
        solve(opd, opf);
      }
    }
  };
  const bool simd = use_simd_layout<ES>(o, lattice);
  // A site-local term (clover, twisted mass, twisted clover) in double, float and half: EvenOddOperator
  // or its SIMD form.
  auto with_term = [&]<class Td, class Tf, class Th>(auto... args) {
    if (blocks) return solve_block.template operator()<Td, Tf, Th>(args...);
    visit_layout<ES>(simd, [&]<class Tag>(Tag) {
      // Term T's operator on the chosen layout, on the links given.
      auto make = [&]<class T>(const auto& links) {
        return EvenOddOperator<T, typename Tag::template layout<typename T::precision, ES>>(links, bc, mass, args...);
      };
      if (o.precision != "mixed-half") {
        by_precision([&] { return make.template operator()<Td>(u); }, [&] { return make.template operator()<Tf>(uf); });
      } else if constexpr (precision_compiled<half>) {
        solve(make.template operator()<Td>(u), make.template operator()<Th>(uf));
      } else {
        throw not_compiled("precision half (of mixed-half)", compiled_precisions, "KQCD_PRECISIONS");
      }
    });
  };
  auto refuse = [&] { throw not_compiled("operator " + o.op, compiled_operators, "KQCD_OPERATORS"); };
  if (o.op == "clover") {
    if constexpr (operator_compiled("clover"))
      with_term.template operator()<CloverTerm<double, ES>, CloverTerm<float, ES>, CloverTerm<half, ES>>(o.csw);
    else refuse();
  } else if (o.op == "twisted") {
    if constexpr (operator_compiled("twisted"))
      with_term.template operator()<TwistedMassTerm<double, ES>, TwistedMassTerm<float, ES>, TwistedMassTerm<half, ES>>(o.mu);
    else refuse();
  } else if (o.op == "twisted-clover") {
    if constexpr (operator_compiled("twisted-clover"))
      with_term.template operator()<TwistedCloverTerm<double, ES>, TwistedCloverTerm<float, ES>, TwistedCloverTerm<half, ES>>(o.csw,
                                                                                                                          o.mu);
    else refuse();
  } else if (blocks) {
    solve_block.template operator()<WilsonMassTerm<double, ES>, WilsonMassTerm<float, ES>, WilsonMassTerm<half, ES>>();
  } else if (o.precision == "mixed-half") {
    // Wilson's sloppy operator also compresses the links (reconstruct-12) on the scalar layout.
    if constexpr (precision_compiled<half> && recon_compiled<Recon12>) {
      if constexpr (ArchTraits<ES>::simd_layout) {
        if (simd) {
          solve(SIMDEvenOddOperator<WilsonMassTerm<double, ES>>(u, bc, mass), SIMDEvenOddOperator<WilsonMassTerm<half, ES>>(uf, bc, mass));
          return r;
        }
      }
      solve(EOd(u, bc, mass), WilsonEOOperator<half, ES, ArchTraits<ES>::neighbour_mode, Recon12>(uf, bc, mass));
    } else {
      if constexpr (!precision_compiled<half>) throw not_compiled("precision half (of mixed-half)", compiled_precisions, "KQCD_PRECISIONS");
      else throw not_compiled("reconstruction 12 (of mixed-half)", compiled_reconstructions, "KQCD_RECONSTRUCT");
    }
  } else {
    // Wilson with its links reconstructed from 12 or 8 reals (--recon), on either layout.
    auto with_recon = [&]<class Recon>() {
      visit_layout<ES>(simd, [&]<class Tag>(Tag) {
        by_precision([&] { return EvenOddOperator<WilsonMassTerm<double, ES>, typename Tag::template layout<double, ES, Recon>>(u, bc, mass); },
                     [&] { return EvenOddOperator<WilsonMassTerm<float, ES>, typename Tag::template layout<float, ES, Recon>>(uf, bc, mass); });
      });
    };
    if (o.recon == 12) if_recon_compiled<Recon12>(with_recon);
    else if (o.recon == 8) if_recon_compiled<Recon8>(with_recon);
    else with_recon.template operator()<Recon18>();
  }
  return r;
}
/// A run's process grid in its record: the grid, its ranks, the transport and the route of the faces
/// on the backend's execution space.
void record_grid(nlohmann::json& r, const ProcessGrid& grid, const std::string& backend) {
  r["grid"] = grid.grid();
  r["ranks"] = grid.size();
  r["transport"] = comm::transport_name(grid.transport());
  on_backend(backend, [&]<class ES>() { r["halo_path"] = halo_route_name(halo_route<ES, typename ES::memory_space>(grid.lattice())); });
}
} // namespace

HostGaugeConfig solver_config(const SolverOptions& o) {
  HostGaugeConfig cfg;
  if (o.config.empty()) return cfg;
  cfg = read_gauge(o.config); // verified: checksums, header values, SU(3)
  for (const auto& w : cfg.warnings) std::fprintf(stderr, "kqcd: warning: %s\n", w.c_str());
  return cfg;
}

nlohmann::json run_solver(const SolverOptions& o, double copy_gbytes_per_s) {
  const bool gridded = ProcessGrid::world_size() > 1 || o.grid[0] * o.grid[1] * o.grid[2] * o.grid[3] > 1;
  if (gridded && (o.op == "staggered" || improved_staggered_operator(o.op) || o.op == "shamir" || o.op == "moebius"))
    throw invalid_argument("bench cg --solver " + o.solver + " --operator " + o.op +
                           " runs on one rank; a process grid takes the Wilson-type operators with cg, bicgstab, block-cg or mg");
  if (gridded && !o.config.empty())
    throw invalid_argument("bench cg --config runs on one rank; a process grid solves on a random gauge field (--lattice)");
  // Under mpiexec each rank solves on its part of the lattice (the random fields are keyed by the
  // global site, so the system is the one-rank system; multigrid's aggregates lie within it).
  std::unique_ptr<ProcessGrid> grid;
  SolverOptions local = o;
  if (gridded) {
    grid = std::make_unique<ProcessGrid>(o.lattice, o.grid);
    local.lattice = grid->lattice();
  }
  const std::string backend = backend_or_default(o.backend);
  if (o.solver == "mg") {
    nlohmann::json r = run_multigrid_solver(local, copy_gbytes_per_s);
    if (grid) {
      const auto d = o.lattice.dims();
      r["lattice"] = {d[0], d[1], d[2], d[3]};
      record_grid(r, *grid, backend);
    }
    return r;
  }
  if (o.op == "staggered" || improved_staggered_operator(o.op)) return run_staggered_solver(o, copy_gbytes_per_s);
  if (o.op == "shamir" || o.op == "moebius") return run_domain_wall_solver(o, copy_gbytes_per_s);
  if (o.precision != "double" && o.precision != "single" && o.precision != "mixed" && o.precision != "mixed-half")
    throw invalid_argument("precision '" + o.precision + "': expected double, single, mixed or mixed-half");
  if (o.solver != "cg" && o.solver != "bicgstab" && o.solver != "block-cg")
    throw invalid_argument("solver '" + o.solver + "': expected cg, bicgstab or block-cg");
  if (o.rhs < 1 || o.rhs > 16) throw invalid_argument("--rhs " + std::to_string(o.rhs) + ": expected 1 to 16");
  if (o.rhs > 1 && o.solver == "bicgstab") throw invalid_argument("--rhs > 1 solves with cg or block-cg, not bicgstab");
  if (o.solver == "block-cg" && o.precision != "double") throw invalid_argument("block-cg solves in double precision");
  if (o.rhs > 1 && o.precision == "single") throw invalid_argument("--rhs > 1 solves in double, mixed or mixed-half precision");
  if (o.op != "wilson" && o.op != "clover" && o.op != "twisted" && o.op != "twisted-clover")
    throw invalid_argument("operator '" + o.op + "': expected wilson, clover, twisted, twisted-clover, staggered, improved-staggered, asqtad, "
                           "hisq, shamir or moebius");
  if (o.recon != 18 && o.recon != 12 && o.recon != 8) throw invalid_argument("recon " + std::to_string(o.recon) + ": expected 18, 12 or 8");
  if (o.recon != 18 && (o.op != "wilson" || o.rhs > 1 || o.solver == "block-cg" || o.precision == "mixed-half"))
    throw invalid_argument("--recon " + std::to_string(o.recon) +
                           " solves with --operator wilson, one right-hand side and double, single or mixed precision");
  const HostGaugeConfig cfg = solver_config(o);
  nlohmann::json r;
  on_backend(backend, [&]<class ES>() { r = time_solver<ES>(local, o.config.empty() ? nullptr : &cfg); });
  if (grid) record_grid(r, *grid, backend);
  const auto d = (o.config.empty() ? o.lattice : cfg.lattice).dims();
  r["benchmark"] = o.op + (o.solver == "block-cg" ? "_eo_block_cg_normal"
                           : o.rhs > 1          ? "_eo_cg_normal_multi"
                           : o.solver == "cg"   ? "_eo_cg_normal"
                                                : "_eo_bicgstab");
  r["operator"] = o.op;
  if (o.op != "wilson") r["csw"] = o.csw;
  if (o.op == "twisted" || o.op == "twisted-clover") r["mu"] = o.mu;
  r["lattice"] = {d[0], d[1], d[2], d[3]};
  r["gauge"] = o.config.empty() ? std::string("random (hot start, seed 2024)") : o.config;
  r["precision"] = o.precision;
  r["recon"] = o.recon;
  if (o.precision == "mixed-half" && o.op == "wilson" && o.rhs == 1 && r.value("layout", "") == "scalar") r["sloppy_recon"] = 12;
  r["kappa"] = o.kappa;
  r["tol"] = o.precision == "single" ? std::max(o.tol, 1e-6) : o.tol; // what the solve was asked for
  if (o.precision == "mixed" || o.precision == "mixed-half") r["reliable_delta"] = o.reliable_delta;
  r["flops_note"] = o.op == "wilson"  ? "2688 flops per even site per operator application (QUDA's MatPC count)"
                   : o.op == "twisted" ? "2 x (1320 + 48) flops per even site per operator application"
                                       : "2 x (1320 + 552) flops per even site per operator application (QUDA's clover count)";
  r["copy_gbytes_per_s"] = copy_gbytes_per_s;
  finish_record(r, "solver", backend);
  return r;
}

} // namespace kqcd::bench
