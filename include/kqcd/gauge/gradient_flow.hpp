// The Wilson (gradient) flow with Luescher's third-order Runge-Kutta integrator
// (kernels/gradient_flow.hpp) and its observables: E(t) from the plaquette,
// E = 2 sum_{mu<nu} Re tr(1 - P_{mu nu}) = 36 (1 - P), and from the clover field strength
// (gauge/topology.hpp), t^2 E(t) for both, and the clover topological charge.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/gauge/gauge_observables.hpp>
#include <kqcd/gauge/topology.hpp>
#include <kqcd/kernels/gradient_flow.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace kqcd {

/// Observables measured along the gradient flow at flow time t.
struct FlowMeasurement {
  /// Flow time t; plaquette; energy density E (plaquette, clover); t^2 E (plaquette, clover); topological charge.
  ///@{
  double t = 0, plaquette = 0, e_plaq = 0, e_clover = 0, t2e_plaq = 0, t2e_clover = 0, charge = 0;
  ///@}
};

/// Measures the flow observables of u at flow time t.
template <class GT, class ES> FlowMeasurement flow_measure(const GaugeField<GT, ES>& u, double t) {
  FlowMeasurement m;
  m.t = t;
  m.plaquette = plaquette(u).total;
  m.e_plaq = 2 * 6 * Nc * (1 - m.plaquette);
  const auto c = clover_observables(u);
  m.e_clover = c.energy;
  m.charge = c.charge;
  m.t2e_plaq = t * t * m.e_plaq;
  m.t2e_clover = t * t * m.e_clover;
  return m;
}

/// Integrates the flow in place; owns the work fields (a second field and the RK generators).
template <class GT, class ES> class WilsonFlow {
public:
  /// On a distributed lattice the flow runs on an extended field of depth 1 whose halo is
  /// refilled before every stage (each stage reaches one link further).
  explicit WilsonFlow(const Lattice& lat)
      : ext_(lat, 1), tmp_(ext_.extended(), "flow_tmp"), acc_(ext_.extended(), "flow_acc") {
    if (lat.distributed()) work_ = GaugeField<GT, ES>(ext_.extended(), "flow_extended");
  }

  /// u <- V_{t+eps}(u): one Runge-Kutta step of size eps.
  void step(GaugeField<GT, ES>& u, double eps) {
    if (!u.lattice().distributed()) return stages(u, eps);
    ext_.copy_interior(u, work_);
    stages(work_, eps);
    ext_.extract(work_, u);
  }

private:
  void stages(GaugeField<GT, ES>& u, double eps) {
    using View = typename CBGaugeField<GT, ES>::view_type;
    constexpr double a[3] = {0.0, -17.0 / 9.0, -1.0}, b[3] = {0.25, 8.0 / 9.0, 0.75};
    // Stages ping-pong between u and tmp_ (u -> tmp_ -> u -> tmp_), then tmp_ is copied back, so u
    // keeps its storage. Each stage reads only the previous stage's field.
    for (int stage = 0; stage < 3; ++stage) {
      GaugeField<GT, ES>& src = stage == 1 ? tmp_ : u;
      GaugeField<GT, ES>& dst = stage == 1 ? u : tmp_;
      ext_.fill_halo(src);
      const LinkReader<View> in{{src[0].view(), src[1].view()}, u.lattice()};
      const FlowStageRule<View> rule{{acc_[0].view(), acc_[1].view()}, u.lattice(), a[stage], b[stage] * eps};
      for (int p = 0; p < 2; ++p)
        Kokkos::parallel_for("kqcd::wilson_flow_stage", Kokkos::RangePolicy<ES>(0, u.lattice().cb_volume()),
                             LinkUpdateFunctor<View, FlowStageRule<View>>{in, dst[p].view(), p, 0xFu, 0xFu, rule});
    }
    for (int p = 0; p < 2; ++p) Kokkos::deep_copy(u[p].view(), tmp_[p].view());
  }

  LatticeExtension ext_;
  GaugeField<GT, ES> tmp_, acc_, work_;
};

/// Flow u in place from t = 0 to tmax in steps of eps (the last step lands on tmax: ceil(tmax/eps)
/// steps of tmax/n), measuring at t = 0 and after every step; `each` (if given) sees each measurement.
template <class GT, class ES, class Callback = std::nullptr_t>
std::vector<FlowMeasurement> wilson_flow(GaugeField<GT, ES>& u, double eps, double tmax, Callback each = nullptr) {
  if (!(eps > 0)) throw invalid_argument("flow step eps must be positive, found " + std::to_string(eps));
  if (!(tmax >= 0)) throw invalid_argument("flow time tmax must be >= 0, found " + std::to_string(tmax));
  const long n = long(std::ceil(tmax / eps - 1e-9));
  if (n > 10000000) throw invalid_argument("flow: tmax / eps gives too many steps (" + std::to_string(n) + ")");
  const double h = n > 0 ? tmax / double(n) : eps;
  WilsonFlow<GT, ES> flow(u.lattice());
  std::vector<FlowMeasurement> out;
  auto record = [&](double t) {
    out.push_back(flow_measure(u, t));
    if constexpr (!std::is_same_v<Callback, std::nullptr_t>) each(out.back());
  };
  record(0);
  for (long i = 1; i <= n; ++i) {
    flow.step(u, h);
    record(double(i) * h);
  }
  return out;
}

} // namespace kqcd
