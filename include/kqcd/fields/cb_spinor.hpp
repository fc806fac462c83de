// Checkerboarded spinor: one parity's sites, each 3 colours x nspin spins of complex numbers,
// stored in a Kokkos::View<ST*[3][nspin]> whose layout comes from ArchTraits. On a distributed
// lattice the view has lattice.ghost_sites() more rows after sites(): the halo (comm/halo.hpp).
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/complex.hpp>
#include <kqcd/core/lattice.hpp>

#include <concepts>
#include <string>

namespace kqcd {

template <class ST, int nspin = Ns, class ExecSpace = Kokkos::DefaultExecutionSpace> class CBSpinor {
public:
  using execution_space = ExecSpace;
  using traits = ArchTraits<ExecSpace>;
  using value_type = ST;
  using real_type = typename ST::value_type;
  using view_type = Kokkos::View<ST* [Nc][nspin], typename traits::spinor_layout, typename traits::memory_space>;
  static constexpr int n_spin = nspin;

  CBSpinor() = default;
  CBSpinor(const Lattice& lat, int parity, const std::string& label = "cb_spinor")
      : lattice_(lat), parity_(parity), data_(label, lat.cb_volume() + lat.ghost_sites()) {}

  const Lattice& lattice() const { return lattice_; }
  int parity() const { return parity_; }
  int sites() const { return lattice_.cb_volume(); }
  const view_type& view() const { return data_; }

  /// A spinor of the same shape and parity, zero-initialised.
  CBSpinor like(const std::string& label = "cb_spinor") const { return CBSpinor(lattice_, parity_, label); }

private:
  Lattice lattice_;
  int parity_ = 0;
  view_type data_;
};

/// A full spinor field: both checkerboards, each of type CB (CBSpinor, or SIMDSpinor in the SIMD
/// layout: fields/simd_fields.hpp) built from the lattice or lane layout CB takes.
template <class CB> struct FullSpinor {
  using cb_type = CB;
  CB cb[2];

  FullSpinor() = default;
  template <class Shape>
    requires std::constructible_from<CB, const Shape&, int, const std::string&>
  FullSpinor(const Shape& shape, const std::string& label = "spinor")
      : cb{CB(shape, 0, label + "_even"), CB(shape, 1, label + "_odd")} {}
  const Lattice& lattice() const { return cb[0].lattice(); }
  CB& operator[](int parity) { return cb[parity]; }
  const CB& operator[](int parity) const { return cb[parity]; }
};

template <class ST, int nspin = Ns, class ExecSpace = Kokkos::DefaultExecutionSpace>
using SpinorField = FullSpinor<CBSpinor<ST, nspin, ExecSpace>>;

} // namespace kqcd
