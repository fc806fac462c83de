// Clover observables (kernels/field_strength.hpp): the action density E from the clover field
// strength and the topological charge Q = sum_x q(x), on the field's execution space.
#pragma once

#include <kqcd/comm/extended_field.hpp>
#include <kqcd/comm/reduce.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/field_strength.hpp>

namespace kqcd {

/// Clover-leaf action density and topological charge of a gauge field.
struct CloverObservables {
  double energy = 0; ///< E = (1/V) sum_x E(x), E(x) = -sum_{mu<nu} tr F_{mu nu}^2
  double charge = 0; ///< Q = sum_x q(x)
};

namespace detail {
/// Sums over the local sites of map, read from w on the extended lattice map.ext.
template <class GT, class ES> CloverObservables clover_observables_over(const GaugeField<GT, ES>& w, const InteriorMap& map) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  using F = CloverObservablesFunctor<View>;
  const LinkReader<View> reader{{w[0].view(), w[1].view()}, map.ext};
  double sums[2] = {0, 0}; // energy, charge
  for (int p = 0; p < 2; ++p) {
    double e = 0, q = 0;
    Kokkos::parallel_reduce("kqcd::clover_observables", Kokkos::RangePolicy<ES>(0, map.local.cb_volume()),
                            InteriorReduce<F>{F{reader, map.ext_parity(p)}, map, p}, e, q);
    sums[0] += e;
    sums[1] += q;
  }
  comm::sum_in_place(map.local, sums, 2);
  return {sums[0] / double(map.local.global_volume()), sums[1]};
}
} // namespace detail

/// On a distributed lattice the clover leaves read an extended field of depth 1 (with corners).
template <class GT, class ES> CloverObservables clover_observables(const GaugeField<GT, ES>& u) {
  const LatticeExtension ext(u.lattice(), 1);
  if (u.lattice().distributed()) return detail::clover_observables_over(ext.extend(u), ext.map());
  return detail::clover_observables_over(u, ext.map());
}

/// Clover-leaf topological charge of u.
template <class GT, class ES> double topological_charge(const GaugeField<GT, ES>& u) { return clover_observables(u).charge; }

} // namespace kqcd
