// The clover field: the site-local matrix A = diag + c_sw (i/4) sum sigma F of both parities
// (the kernel of kernels/clover_term.hpp builds it), packed as two Hermitian 6x6 chiral blocks per site, and
// optionally an inverse in the same format: A^-1, or for twisted clover X = B A and W = mu B,
// B = (A^2 + mu^2)^-1. Block packing (kernels/local_terms.hpp): block b holds spins 2b, 2b + 1
// (in-block index (s & 1) * 3 + colour); its 36 reals are the 6 real diagonal entries, then the 15
// complex entries below the diagonal, row by row ((1,0), (2,0), (2,1), (3,0), ...).
#pragma once

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/build_info.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <Kokkos_Core.hpp>

#include <array>

namespace kqcd {

/// Index layout of packed clover blocks.
namespace clover_pack {
/// Rows of a chiral block.
inline constexpr int block_size = 6;
/// Reals of a packed Hermitian 6x6 block.
inline constexpr int reals_per_block = 36;
/// Offset of the real part of entry (i, j), i > j, of a packed block.
KOKKOS_FORCEINLINE_FUNCTION constexpr int offdiag(int i, int j) { return 6 + 2 * (i * (i - 1) / 2 + j); }
} // namespace clover_pack

/// The clover term's packed Hermitian 6x6 chiral blocks per site.
template <class Real, class ExecSpace = Kokkos::DefaultExecutionSpace> class CloverField {
public:
  using traits = ArchTraits<ExecSpace>; ///< The backend's layouts.
  /// [site][2 chiral blocks][36 reals] of one parity.
  using view_type = Kokkos::View<Real* [2][clover_pack::reals_per_block], typename traits::spinor_layout,
                                 typename traits::memory_space>;
  using const_view_type = ReadOnlyView<view_type>; ///< view_type read through the read-only data cache.
  using gauge_type = GaugeField<Kokkos::complex<Real>, ExecSpace>; ///< The gauge field the term is built from.
  /// What is stored besides A.
  enum class Inverse { none, inverse, twisted };
  /// How the 6x6 blocks are inverted: kqcd's L D L^dag, or Kokkos Kernels' batched LU (only where
  /// kqcd was built with Kokkos Kernels: `kokkos_kernels_available`).
  enum class BlockInverter { ldl, kokkos_kernels };
  static constexpr bool kokkos_kernels_available = KQCD_HAVE_KOKKOS_KERNELS != 0; ///< Whether kqcd was built with Kokkos Kernels.
  /// The name of i in messages.
  static const char* inverse_name(Inverse i) {
    return i == Inverse::none ? "no inverse" : i == Inverse::inverse ? "inverse" : "twisted inverse";
  }

  CloverField() = default;
  /// A = diag + c_sw (i/4) sum sigma F of u; `inverse` selects what else is stored (mu for twisted
  /// only). Defined in stencil/local_operators.hpp, which launches the build kernel of
  /// kernels/clover_term.hpp (compiled once in the library).
  CloverField(const gauge_type& u, double diag, double csw, Inverse inverse, double mu = 0.0,
              BlockInverter inverter = BlockInverter::ldl);
  /// The blocks of lattice lat as given (A; the inverse parts empty where not stored).
  CloverField(const Lattice& lat, const std::array<view_type, 2>& a, const std::array<view_type, 2>& inv = {},
              const std::array<view_type, 2>& twist = {})
      : lattice_(lat), a_(a), inv_(inv), twist_(twist) {}

  /// The lattice.
  const Lattice& lattice() const { return lattice_; }
  /// A on the sites of one parity.
  const view_type& term(int parity) const { return a_[parity]; }
  /// A^-1, or X = B A for twisted clover.
  const view_type& inverse(int parity) const { return inv_[parity]; }
  /// W = mu B for twisted clover (empty otherwise).
  const view_type& inverse_twist(int parity) const { return twist_[parity]; }
  /// Whether an inverse is stored.
  bool has_inverse() const { return inv_[0].size() > 0; }
  /// Device memory held, in bytes.
  double memory_bytes() const {
    const int matrices = 1 + (has_inverse() ? 1 : 0) + (twist_[0].size() > 0 ? 1 : 0);
    return double(sizeof(Real)) * 72.0 * lattice_.volume() * matrices;
  }

private:
  Lattice lattice_;
  std::array<view_type, 2> a_, inv_, twist_;
};

namespace detail {
/// Site i's two packed blocks into 16 bits with a unit per block (HalfHermitianBlocks).
template <class View, class UnitView, class PackedView> struct PackHalfBlocks {
  View d;
  UnitView u;
  PackedView packed;
  KOKKOS_FUNCTION void operator()(int site) const {
    for (int b = 0; b < 2; ++b) {
      float m = 0;
      for (int k = 0; k < clover_pack::reals_per_block; ++k) m = Kokkos::fmax(m, Kokkos::fabs(float(packed(site, b, k))));
      m = m > 0 ? m : 1.0f; // a zero block stores zeros with a finite unit
      u(site, b) = m / half_scale;
      const float inv = 1.0f / m; // to_fixed16 takes magnitudes up to 1
      for (int k = 0; k < clover_pack::reals_per_block; ++k) d(site, b, k) = to_fixed16(float(packed(site, b, k)) * inv);
    }
  }
};
} // namespace detail

/// Packed Hermitian blocks of one parity in 16 bits (the 16-bit operators' clover term and inverses
/// on the plain layout): the [site][2][36] packing as fixed point, each block in units of its
/// largest magnitude (unit() = [site][2], that magnitude / half_scale), built on the device from
/// float or double blocks. 76 bytes per block against 144 in float.
template <class ExecSpace = Kokkos::DefaultExecutionSpace> class HalfHermitianBlocks {
public:
  using traits = ArchTraits<ExecSpace>; ///< The backend's layouts.
  /// [site][2 blocks][36] in 16-bit fixed point.
  using view_type = Kokkos::View<short* [2][clover_pack::reals_per_block], typename traits::spinor_layout, typename traits::memory_space>;
  /// Each block's unit, [site][2 blocks].
  using unit_type = Kokkos::View<float* [2], typename traits::spinor_layout, typename traits::memory_space>;

  HalfHermitianBlocks() = default;
  /// Converts the float or double [site][2][36] blocks packed, on the device.
  template <class PackedView>
  explicit HalfHermitianBlocks(const PackedView& packed)
      : data_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "half_hermitian_blocks"), packed.extent(0)),
        unit_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "half_hermitian_units"), packed.extent(0)) {
    Kokkos::parallel_for("kqcd::HalfHermitianBlocks", Kokkos::RangePolicy<ExecSpace>(0, packed.extent(0)),
                         detail::PackHalfBlocks<view_type, unit_type, PackedView>{data_, unit_, packed});
    Kokkos::fence();
  }
  /// The blocks.
  const view_type& view() const { return data_; }
  /// Each block's unit (its largest magnitude / half_scale).
  const unit_type& unit() const { return unit_; }
  /// Bytes stored.
  double memory_bytes() const { return double(data_.span()) * sizeof(short) + double(unit_.span()) * sizeof(float); }

private:
  view_type data_;
  unit_type unit_;
};

} // namespace kqcd
