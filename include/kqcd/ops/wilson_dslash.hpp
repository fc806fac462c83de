// WilsonDslash: launches the Wilson hopping kernel. It maps the run-time sign and target parity to
// the functor's template arguments, owns the launch shape (sites per team) and reports the work
// done per call (flops(), bytes()) by the conventions' counting.
#pragma once

#include <kqcd/core/boundary.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/core/site_table.hpp>
#include <kqcd/core/tune.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/dslash_wilson.hpp>

namespace kqcd {

template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace,
          NeighbourMode mode = ArchTraits<ExecSpace>::neighbour_mode>
class WilsonDslash {
public:
  using real_type = Real;
  using complex_type = Kokkos::complex<Real>;
  using execution_space = ExecSpace;
  using traits = ArchTraits<ExecSpace>;
  using gauge_type = GaugeField<complex_type, ExecSpace>;
  using spinor_type = CBSpinor<complex_type, Ns, ExecSpace>;
  using site_table_type = SiteTable<mode, ExecSpace>;

  static constexpr double flops_per_site = 1320.0;
  static constexpr double xpay_flops_per_site = 48.0;

  WilsonDslash(const gauge_type& u, const BoundaryPhases& bc) : u_(u), sites_(u.lattice(), bc) {}

  const Lattice& lattice() const { return u_.lattice(); }
  const gauge_type& gauge() const { return u_; }

  /// out = H in, out on parity target_cb, in on the other parity; isign = +1 (D) or -1 (D^dag).
  void apply(spinor_type& out, const spinor_type& in, int isign, int target_cb) const {
    launch<StoreHopping>(out, in, isign, target_cb, spinor_type(), {});
  }
  /// out = a x + b H in (x on parity target_cb; out may alias x).
  void apply_xpay(spinor_type& out, const spinor_type& in, int isign, int target_cb, Real a, const spinor_type& x,
                  Real b) const {
    check_parity(x, target_cb, "xpay addend");
    launch<XpayHopping>(out, in, isign, target_cb, x, {a, b});
  }

  /// out = Local(x) + b H in, Local a site-local policy of parity target_cb (kernels/local_terms.hpp).
  template <class Local>
  void apply_local_xpay(spinor_type& out, const spinor_type& in, int isign, int target_cb, const Local& local,
                        const spinor_type& x, Real b) const {
    check_parity(x, target_cb, "local xpay addend");
    launch<LocalXpay<Local>>(out, in, isign, target_cb, x, {local, b});
  }
  /// out = Local(b H in) (x == nullptr), or Local(a x + b H in).
  template <class Local>
  void apply_local_after(spinor_type& out, const spinor_type& in, int isign, int target_cb, const Local& local, Real b,
                         const spinor_type* x = nullptr, Real a = Real(0)) const {
    if (x) check_parity(*x, target_cb, "local addend");
    launch<LocalAfter<Local>>(out, in, isign, target_cb, x ? *x : spinor_type(), {local, x ? a : Real(0), b});
  }

  /// Sites per team of the untuned launch (a value set here also switches tuning off).
  int sites_per_team() const { return sites_per_team_ > 0 ? sites_per_team_ : traits::sites_per_team; }
  void set_sites_per_team(int n) {
    if (n < 1) throw invalid_argument("sites_per_team must be positive, found " + std::to_string(n));
    sites_per_team_ = n;
  }
  /// The launch shape of the latest call (tuned, cached, or fixed by set_sites_per_team()).
  LaunchConfig last_launch_config() const { return last_config_; }

  /// Work per call on one parity: 1320 flops per site (+48 with xpay).
  double flops(bool xpay = false) const {
    return lattice().cb_volume() * (flops_per_site + (xpay ? xpay_flops_per_site : 0.0));
  }
  /// Bytes per call on one parity in the no-reuse model (conventions.md): 8 links x 18 reals +
  /// 8 neighbour spinors x 24 reals + 24 reals written (+24 read with xpay).
  double bytes(bool xpay = false) const {
    return lattice().cb_volume() * double(sizeof(Real)) * (8 * 18 + 8 * 24 + 24 + (xpay ? 24 : 0));
  }

private:
  void check_parity(const spinor_type& s, int parity, const char* what) const {
    if (s.parity() != parity || !(s.lattice() == lattice()))
      throw invalid_argument(std::string("WilsonDslash: ") + what + " is on parity " + std::to_string(s.parity()) +
                             " of a " + s.lattice().to_string() + " lattice, expected parity " + std::to_string(parity) +
                             " of " + lattice().to_string());
  }

  template <class Epilogue>
  void launch(spinor_type& out, const spinor_type& in, int isign, int target_cb, const spinor_type& x,
              typename Epilogue::template Arg<Real> ep) const {
    if (isign != 1 && isign != -1) throw invalid_argument("WilsonDslash: isign must be +1 or -1, found " + std::to_string(isign));
    if (target_cb != 0 && target_cb != 1)
      throw invalid_argument("WilsonDslash: target parity must be 0 or 1, found " + std::to_string(target_cb));
    check_parity(out, target_cb, "output");
    check_parity(in, 1 - target_cb, "input");
    using Arg = WilsonDslashArg<typename gauge_type::cb_type::view_type, typename spinor_type::view_type, site_table_type,
                                Epilogue>;
    Arg arg{{u_[0].view(), u_[1].view()}, in.view(), out.view(), x.view(), sites_, ep, lattice().cb_volume(),
            sites_per_team()};
    if (isign > 0) target_cb == 0 ? run<Arg, 1, 0, Epilogue>(arg) : run<Arg, 1, 1, Epilogue>(arg);
    else target_cb == 0 ? run<Arg, -1, 0, Epilogue>(arg) : run<Arg, -1, 1, Epilogue>(arg);
  }

  // Launch shape from the autotuner (core/tune.hpp); trial runs restore out, which may alias x.
  template <class Arg, int isign, int target_cb, class Epilogue> void run(const Arg& arg) const {
    using F = SiteKernelOf<DslashFunctor<Arg, isign, target_cb, Epilogue>>;
    const LaunchConfig fixed{PolicyKind::team, std::min(traits::max_team_size, arg.sites_per_team), arg.sites_per_team};
    SiteKernelLaunch<ExecSpace, typename traits::template launch_bounds_for<Real>, F> l(
        "kqcd::WilsonDslash",
        make_tune_key("kqcd::WilsonDslash", type_name<Epilogue>() + (mode == NeighbourMode::table ? ", table" : ", on the fly"),
                      lattice().to_string(), precision_name<Real>(),
                      ExecSpace::name()),
        arg.n_sites, F{{arg}}, fixed);
    l.overwrites(arg.out);
    if (sites_per_team_ > 0) {
      l.launch(fixed);
      last_config_ = fixed;
    } else {
      last_config_ = tuned_launch(l);
    }
  }

  gauge_type u_;
  site_table_type sites_;
  int sites_per_team_ = 0; ///< 0: tuned
  mutable LaunchConfig last_config_{};
};

} // namespace kqcd
