// Half-precision checkerboarded spinor in QUDA's format: each site's 24 reals as 16-bit fixed point
// relative to a per-site float norm (the largest |real| of the site), so a site keeps ~4.5 decimal
// digits relative to its own magnitude. The four spins of one colour are packed together (QUDA's
// short8 order: one 16-byte load per colour, three per site, where one 16-bit pair per load took
// twelve). Kernels read and write it through HalfSpinorAccessor (fields/spinor_access.hpp) and
// compute in float. On a distributed lattice both views have the ghost zone's sites after the
// local ones (comm/halo.hpp).
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>

#include <string>

namespace kqcd {

template <class ExecSpace = Kokkos::DefaultExecutionSpace> class HalfCBSpinor {
public:
  using execution_space = ExecSpace;
  using traits = ArchTraits<ExecSpace>;
  /// The four spins of one colour of one site.
  using value_type = Packed<short2_t, Ns>;
  using real_type = float; ///< arithmetic precision
  using view_type = Kokkos::View<value_type* [Nc], typename traits::spinor_layout, typename traits::memory_space>;
  using norm_view_type = Kokkos::View<float*, typename traits::memory_space>;
  static constexpr int n_spin = Ns;

  HalfCBSpinor() = default;
  HalfCBSpinor(const Lattice& lat, int parity, const std::string& label = "half_spinor")
      : lattice_(lat), parity_(parity), data_(label, lat.cb_volume() + lat.ghost_sites()),
        norm_(label + "_norm", lat.cb_volume() + lat.ghost_sites()) {}

  const Lattice& lattice() const { return lattice_; }
  int parity() const { return parity_; }
  int sites() const { return lattice_.cb_volume(); }
  const view_type& view() const { return data_; }
  const norm_view_type& norm() const { return norm_; }
  HalfCBSpinor like(const std::string& label = "half_spinor") const { return HalfCBSpinor(lattice_, parity_, label); }

private:
  Lattice lattice_;
  int parity_ = 0;
  view_type data_;
  norm_view_type norm_;
};

} // namespace kqcd
