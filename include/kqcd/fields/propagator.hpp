// PropagatorField: the 12 spin-colour columns of a quark propagator S(x; x0) on the device, one
// full SpinorField per source spin and colour. Column k = spin * 3 + colour holds the solution for
// the source with that spin and colour, so S(x)_{(s a),(s' b)} = column(s', b)[parity(x)](x)(a, s).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>

#include <array>
#include <string>

namespace kqcd {

inline constexpr int SpinColour = Ns * Nc;

template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class PropagatorField {
public:
  using execution_space = ExecSpace;
  using real_type = Real;
  using field_type = SpinorField<Kokkos::complex<Real>, Ns, ExecSpace>;
  using view_type = typename field_type::cb_type::view_type;

  PropagatorField() = default;
  explicit PropagatorField(const Lattice& lat, const std::string& label = "propagator") : lattice_(lat) {
    for (int k = 0; k < SpinColour; ++k) columns_[k] = field_type(lat, label + "_" + std::to_string(k));
  }

  static constexpr int column_index(int spin, int colour) { return spin * Nc + colour; }
  const Lattice& lattice() const { return lattice_; }
  field_type& operator[](int k) { return columns_.at(std::size_t(k)); }
  const field_type& operator[](int k) const { return columns_.at(std::size_t(k)); }
  field_type& column(int spin, int colour) { return (*this)[column_index(spin, colour)]; }
  const field_type& column(int spin, int colour) const { return (*this)[column_index(spin, colour)]; }

private:
  Lattice lattice_;
  std::array<field_type, SpinColour> columns_;
};

} // namespace kqcd
