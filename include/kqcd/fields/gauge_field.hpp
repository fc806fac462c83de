// Gauge fields: CBGaugeField holds the links U_mu(x), mu = 0..3, of one parity's sites in a
// Kokkos::View<GT*[4][3][3]> (site, direction, row, column); GaugeField holds both parities. On a
// distributed lattice the view has a ghost zone after sites() for the links of off-rank neighbours.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>

#include <string>

namespace kqcd {

template <class GT, class ExecSpace = Kokkos::DefaultExecutionSpace> class CBGaugeField {
public:
  using execution_space = ExecSpace;
  using traits = ArchTraits<ExecSpace>;
  using value_type = GT;
  using real_type = typename GT::value_type;
  using view_type = Kokkos::View<GT* [Nd][Nc][Nc], typename traits::gauge_layout, typename traits::memory_space>;

  CBGaugeField() = default;
  CBGaugeField(const Lattice& lat, int parity, const std::string& label = "cb_gauge")
      : lattice_(lat), parity_(parity), data_(label, lat.cb_volume() + lat.ghost_sites()) {}

  const Lattice& lattice() const { return lattice_; }
  int parity() const { return parity_; }
  int sites() const { return lattice_.cb_volume(); }
  const view_type& view() const { return data_; }

private:
  Lattice lattice_;
  int parity_ = 0;
  view_type data_;
};

template <class GT, class ExecSpace = Kokkos::DefaultExecutionSpace> struct GaugeField {
  using execution_space = ExecSpace;
  using cb_type = CBGaugeField<GT, ExecSpace>;
  using real_type = typename GT::value_type;
  cb_type cb[2];

  GaugeField() = default;
  explicit GaugeField(const Lattice& lat, const std::string& label = "gauge")
      : cb{cb_type(lat, 0, label + "_even"), cb_type(lat, 1, label + "_odd")} {}
  const Lattice& lattice() const { return cb[0].lattice(); }
  cb_type& operator[](int parity) { return cb[parity]; }
  const cb_type& operator[](int parity) const { return cb[parity]; }
};

} // namespace kqcd
