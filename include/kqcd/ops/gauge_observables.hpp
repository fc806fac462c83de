// Gauge observables as Kokkos reductions on the field's execution space, normalised as in
// conventions.md: plaquette (total, spatial, temporal) = Re tr / 3 averaged (unit field: 1), link
// trace = Re tr U / 3 averaged, Polyakov loop in any direction = tr of the line / 3 averaged.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/kernels/gauge_observables.hpp>

#include <string>

namespace kqcd {

struct PlaquetteValues {
  double total = 0, spatial = 0, temporal = 0;
};

template <class GT, class ES> PlaquetteValues plaquette(const GaugeField<GT, ES>& u) {
  require_single_rank(u.lattice(), "the plaquette");
  using View = typename CBGaugeField<GT, ES>::view_type;
  const Lattice& lat = u.lattice();
  double spatial = 0, temporal = 0;
  for (int p = 0; p < 2; ++p) {
    double s = 0, t = 0;
    Kokkos::parallel_reduce("kqcd::plaquette", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                            PlaquetteFunctor<View>{{u[0].view(), u[1].view()}, lat, p}, s, t);
    spatial += s;
    temporal += t;
  }
  const double per_plane = double(lat.volume()) * Nc;
  return {(spatial + temporal) / (6 * per_plane), spatial / (3 * per_plane), temporal / (3 * per_plane)};
}

template <class GT, class ES> double link_trace(const GaugeField<GT, ES>& u) {
  using View = typename CBGaugeField<GT, ES>::view_type;
  double sum = 0;
  for (int p = 0; p < 2; ++p) {
    double s = 0;
    Kokkos::parallel_reduce("kqcd::link_trace", Kokkos::RangePolicy<ES>(0, u.lattice().cb_volume()),
                            LinkTraceFunctor<View>{u[p].view()}, s);
    sum += s;
  }
  return comm::sum(u.lattice(), sum) / (double(u.lattice().global_volume()) * Nd * Nc);
}

/// Polyakov loop in direction dir (3 = t): average over the lines of tr prod U_dir / 3.
template <class GT, class ES> Kokkos::complex<double> polyakov_loop(const GaugeField<GT, ES>& u, int dir = Nd - 1) {
  require_single_rank(u.lattice(), "the Polyakov loop");
  if (dir < 0 || dir >= Nd) throw invalid_argument("Polyakov loop direction must be 0..3, found " + std::to_string(dir));
  using View = typename CBGaugeField<GT, ES>::view_type;
  const Lattice& lat = u.lattice();
  const int lines = int(lat.volume() / lat.dim(dir));
  double re = 0, im = 0;
  Kokkos::parallel_reduce("kqcd::polyakov_loop", Kokkos::RangePolicy<ES>(0, lines),
                          PolyakovFunctor<View>{{u[0].view(), u[1].view()}, lat, dir}, re, im);
  return {re / (double(lines) * Nc), im / (double(lines) * Nc)};
}

} // namespace kqcd
