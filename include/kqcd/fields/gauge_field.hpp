// Gauge fields: CBGaugeField holds the links U_mu(x), mu = 0..3, of one parity's sites in a
// Kokkos::View<GT*[4][3][3]> (site, direction, row, column); GaugeField holds both parities. On a
// distributed lattice the view has a ghost zone after sites() for the links of off-rank neighbours.
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>

#include <string>

namespace kqcd {

/// Links of one parity: U_mu(x) for the sites x of that parity.
template <class GT, class ExecSpace = Kokkos::DefaultExecutionSpace> class CBGaugeField {
public:
  /// Kokkos execution space of the field.
  using execution_space = ExecSpace;
  /// The backend's layout traits.
  using traits = ArchTraits<ExecSpace>;
  /// Complex type of a link element.
  using value_type = GT;
  /// Real type.
  using real_type = typename GT::value_type;
  /// View of the links, [site][mu][row][column].
  using view_type = Kokkos::View<GT* [Nd][Nc][Nc], typename traits::gauge_layout, typename traits::memory_space>;

  CBGaugeField() = default;
  /// Links of parity `parity` of lat, zero-initialised.
  CBGaugeField(const Lattice& lat, int parity, const std::string& label = "cb_gauge")
      : lattice_(lat), parity_(parity), data_(label, lat.cb_volume() + lat.ghost_sites()) {}

  /// The lattice.
  const Lattice& lattice() const { return lattice_; }
  /// The parity of the sites.
  int parity() const { return parity_; }
  /// Sites of this parity on this rank.
  int sites() const { return lattice_.cb_volume(); }
  /// The links.
  const view_type& view() const { return data_; }

private:
  Lattice lattice_;
  int parity_ = 0;
  view_type data_;
};

/// A gauge field: the links of both parities.
template <class GT, class ExecSpace = Kokkos::DefaultExecutionSpace> struct GaugeField {
  /// Kokkos execution space of the field.
  using execution_space = ExecSpace;
  /// Links of one parity.
  using cb_type = CBGaugeField<GT, ExecSpace>;
  /// Real type.
  using real_type = typename GT::value_type;
  /// Even (0) and odd (1) links.
  cb_type cb[2];

  GaugeField() = default;
  /// A gauge field on lat, zero-initialised.
  explicit GaugeField(const Lattice& lat, const std::string& label = "gauge")
      : cb{cb_type(lat, 0, label + "_even"), cb_type(lat, 1, label + "_odd")} {}
  /// The lattice.
  const Lattice& lattice() const { return cb[0].lattice(); }
  /// Links of one parity.
  cb_type& operator[](int parity) { return cb[parity]; }
  /// Links of one parity.
  const cb_type& operator[](int parity) const { return cb[parity]; }
};

} // namespace kqcd
