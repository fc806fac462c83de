// PropagatorField: the 12 spin-colour columns of a quark propagator S(x; x0) on the device, one
// full SpinorField per source spin and colour. Column k = spin * 3 + colour holds the solution for
// the source with that spin and colour, so S(x)_{(s a),(s' b)} = column(s', b)[parity(x)](x)(a, s).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>

#include <array>
#include <string>

namespace kqcd {

/// Spin-colour components of a propagator.
inline constexpr int SpinColour = Ns * Nc;

/// A quark propagator: twelve spinor fields, one per source spin and colour.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class PropagatorField {
public:
  /// Kokkos execution space of the field.
  using execution_space = ExecSpace;
  /// Real type.
  using real_type = Real;
  /// Type of one column.
  using field_type = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>;
  /// View of one parity of a column.
  using view_type = typename field_type::cb_type::view_type;

  PropagatorField() = default;
  /// A propagator on lat, zero-initialised.
  explicit PropagatorField(const Lattice& lat, const std::string& label = "propagator") : lattice_(lat) {
    for (int k = 0; k < SpinColour; ++k) columns_[k] = field_type(lat, label + "_" + std::to_string(k));
  }

  /// Column of source spin and colour.
  static constexpr int column_index(int spin, int colour) { return spin * Nc + colour; }
  /// The lattice.
  const Lattice& lattice() const { return lattice_; }
  /// Column k.
  field_type& operator[](int k) { return columns_.at(std::size_t(k)); }
  /// Column k.
  const field_type& operator[](int k) const { return columns_.at(std::size_t(k)); }
  /// Column of source spin and colour.
  field_type& column(int spin, int colour) { return (*this)[column_index(spin, colour)]; }
  /// Column of source spin and colour.
  const field_type& column(int spin, int colour) const { return (*this)[column_index(spin, colour)]; }

private:
  Lattice lattice_;
  std::array<field_type, SpinColour> columns_;
};

} // namespace kqcd
