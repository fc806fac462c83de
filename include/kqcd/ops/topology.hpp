// Clover observables (kernels/field_strength.hpp): the action density E from the clover field
// strength and the topological charge Q = sum_x q(x), on the field's execution space.
#pragma once

#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/field_strength.hpp>

namespace kqcd {

struct CloverObservables {
  double energy = 0; ///< E = (1/V) sum_x E(x), E(x) = -sum_{mu<nu} tr F_{mu nu}^2
  double charge = 0; ///< Q = sum_x q(x)
};

template <class GT, class ES> CloverObservables clover_observables(const GaugeField<GT, ES>& u) {
  require_single_rank(u.lattice(), "the clover field strength");
  using View = typename CBGaugeField<GT, ES>::view_type;
  const Lattice& lat = u.lattice();
  const LinkReader<View> reader{{u[0].view(), u[1].view()}, lat};
  CloverObservables r;
  for (int p = 0; p < 2; ++p) {
    double e = 0, q = 0;
    Kokkos::parallel_reduce("kqcd::clover_observables", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                            CloverObservablesFunctor<View>{reader, p}, e, q);
    r.energy += e;
    r.charge += q;
  }
  r.energy /= double(lat.volume());
  return r;
}

template <class GT, class ES> double topological_charge(const GaugeField<GT, ES>& u) { return clover_observables(u).charge; }

} // namespace kqcd
