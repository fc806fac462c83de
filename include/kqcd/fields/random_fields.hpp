// Random and unit fields for tests, benchmarks and noise sources. Counters use the global
// lexicographic site index, so the field does not depend on the backend, the thread count or the
// process grid.
#pragma once

#include <kqcd/core/random.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/spinor_access.hpp>

namespace kqcd {

namespace detail {
// Functors rather than KOKKOS_LAMBDAs (see linalg/blas.hpp: nvcc's extended lambdas in templates
// instantiated by several translation units).
template <class View> struct RandomLinks {
  Lattice lat;
  Philox rng;
  int parity;
  View v;
  KOKKOS_FUNCTION void operator()(int s) const {
    using GT = typename View::non_const_value_type;
    const auto site = std::uint32_t(lat.global_lex_index(lat.cb_coords(s, parity)));
    for (int mu = 0; mu < Nd; ++mu) {
      Kokkos::complex<double> m[3][3];
      random_su3(rng, site, std::uint32_t(mu), 0u, m);
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) v(s, mu, a, b) = GT(m[a][b].real(), m[a][b].imag());
    }
  }
};
template <class View> struct UnitLinks {
  View v;
  KOKKOS_FUNCTION void operator()(int s) const {
    using GT = typename View::non_const_value_type;
    for (int mu = 0; mu < Nd; ++mu)
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) v(s, mu, a, b) = GT(a == b ? 1 : 0, 0);
  }
};
template <int nspin, class View> struct GaussianSpinor {
  Lattice lat;
  Philox rng;
  int parity;
  View v;
  KOKKOS_FUNCTION void operator()(int s) const {
    using ST = typename View::non_const_value_type;
    const auto site = std::uint32_t(lat.global_lex_index(lat.cb_coords(s, parity)));
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < nspin; ++sp) {
        const auto z = rng.gaussian_pair(site, std::uint32_t(c * nspin + sp), 0u, 0x5350u);
        v(s, c, sp) = ST(z.real(), z.imag());
      }
  }
};
template <class Dst, class Src> struct ConvertLinks {
  Dst d;
  Src s;
  KOKKOS_FUNCTION void operator()(int i) const {
    using GT = typename Dst::non_const_value_type;
    for (int mu = 0; mu < Nd; ++mu)
      for (int a = 0; a < Nc; ++a)
        for (int b = 0; b < Nc; ++b) d(i, mu, a, b) = GT(s(i, mu, a, b).real(), s(i, mu, a, b).imag());
  }
};
} // namespace detail

/// Every link a Haar-random SU(3) matrix.
template <class GT, class ES> void random_gauge(GaugeField<GT, ES>& u, std::uint64_t seed) {
  const Lattice lat = u.lattice();
  const Philox rng{seed};
  for (int p = 0; p < 2; ++p) {
    auto v = u[p].view();
    Kokkos::parallel_for("kqcd::random_gauge", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                         detail::RandomLinks<decltype(v)>{lat, rng, p, v});
  }
}

/// Every link the unit matrix (the free field).
template <class GT, class ES> void unit_gauge(GaugeField<GT, ES>& u) {
  for (int p = 0; p < 2; ++p) {
    auto v = u[p].view();
    Kokkos::parallel_for("kqcd::unit_gauge", Kokkos::RangePolicy<ES>(0, u.lattice().cb_volume()),
                         detail::UnitLinks<decltype(v)>{v});
  }
}

/// Complex Gaussian noise (unit variance per real component pair) on a spinor's sites.
template <class ST, int nspin, class ES> void random_spinor(CBSpinor<ST, nspin, ES>& psi, std::uint64_t seed) {
  const Lattice lat = psi.lattice();
  const int parity = psi.parity();
  const Philox rng{seed};
  auto v = psi.view();
  Kokkos::parallel_for("kqcd::random_spinor", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                       detail::GaussianSpinor<nspin, decltype(v)>{lat, rng, parity, v});
}

/// Any other single spinor (16-bit, SIMD lanes): the noise of a plain spinor of the same lattice, seed
/// and arithmetic precision, moved by convert_sites (16-bit storage rounds it).
template <class Storage> void random_spinor(Spinor<Storage>& psi, std::uint64_t seed) {
  CBSpinor<Kokkos::complex<typename Storage::real_type>, Storage::n_spin, typename Storage::execution_space> plain(
      psi.lattice(), psi.parity(), "random_spinor");
  random_spinor(plain, seed);
  convert_sites(psi, plain);
}

/// Both parities of a full spinor of any layout, each from the same seed.
template <class CB> void random_spinor(FullSpinor<CB>& psi, std::uint64_t seed) {
  for (int p = 0; p < 2; ++p) random_spinor(psi[p], seed);
}

/// dst = src in another precision or backend's layout (same lattice).
template <class GT1, class ES1, class GT2, class ES2> void convert_gauge(GaugeField<GT1, ES1>& dst, const GaugeField<GT2, ES2>& src) {
  for (int p = 0; p < 2; ++p) {
    auto d = dst[p].view();
    auto s = Kokkos::create_mirror_view_and_copy(typename ES1::memory_space(), src[p].view());
    Kokkos::parallel_for("kqcd::convert_gauge", Kokkos::RangePolicy<ES1>(0, dst.lattice().cb_volume()),
                         detail::ConvertLinks<decltype(d), decltype(s)>{d, s});
  }
}

} // namespace kqcd
