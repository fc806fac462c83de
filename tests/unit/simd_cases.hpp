// What the SIMD-layout tests share: the configurations whose backend has the layout, lattices
// with every kind of lane split, device gauge fields from host arrays.
#pragma once

#include "test_harness.hpp"

#include <kqcd/arch/arch_traits.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/host_convert.hpp>
#include <kqcd/fields/simd_fields.hpp>

#include <array>
#include <complex>
#include <tuple>
#include <utility>
#include <vector>

namespace kqcd::test {

/// Configs whose execution space has the SIMD layout (never CUDA): decided from the space's type.
template <class Tuple> struct simd_only;
template <class... C> struct simd_only<std::tuple<C...>> {
  using type = decltype(std::tuple_cat(
      std::declval<std::conditional_t<ArchTraits<space_of<C>>::simd_layout, std::tuple<C>, std::tuple<>>>()...));
};
using SIMDConfigs = typename simd_only<Configs>::type;
/// The execution spaces with the SIMD layout (the 16-bit tests: one precision).
template <class Tuple> struct simd_spaces;
template <class... S> struct simd_spaces<std::tuple<S...>> {
  using type = decltype(std::tuple_cat(std::declval<std::conditional_t<ArchTraits<S>::simd_layout, std::tuple<S>, std::tuple<>>>()...));
};
using SIMDSpaces = typename simd_spaces<EnabledExecutionSpaces>::type;
/// The spaces of HalfSpaces with the SIMD layout (the 16-bit tests).
using SIMDHalfSpaces = typename simd_spaces<HalfSpaces>::type;

/// Where no enabled backend has the SIMD layout (CUDA builds), the SIMD-layout test lists are empty:
/// one skipped case per test program says so in the report instead of the cases silently missing.
inline void report_no_simd_backend() { SKIP("no enabled backend has the SIMD layout: its test cases have nothing to run on"); }
[[maybe_unused]] inline const bool no_simd_backend_reported = [] {
  if constexpr (std::tuple_size_v<SIMDSpaces> == 0) {
    static const Catch::AutoReg reg(Catch::makeTestInvoker(&report_no_simd_backend), CATCH_INTERNAL_LINEINFO,
                                    Catch::StringRef(), Catch::NameAndTags{"SIMD layout test cases", "[simd]"});
  }
  return true;
}();

/// One parity's sites in a lexicographic host array (zeros on the other parity).
template <class S> std::vector<std::complex<double>> export_spinor_cb(const S& s) {
  std::vector<std::complex<double>> h;
  export_spinor(s, h);
  return h;
}

/// A plain spinor of the same lattice and parity holding a SIMD-layout one's sites.
template <class V, class ES> CBSpinor<Kokkos::complex<typename V::real_type>, Ns, ES> plain(const SIMDSpinor<V, ES>& s) {
  CBSpinor<Kokkos::complex<typename V::real_type>, Ns, ES> p(s.lattice(), s.parity());
  from_simd(p, s);
  return p;
}

template <class Real, class ES>
GaugeField<Kokkos::complex<Real>, ES> device_gauge(const Lattice& lat, const std::vector<std::complex<double>>& host) {
  GaugeField<Kokkos::complex<Real>, ES> u(lat);
  import_gauge(u, host);
  return u;
}

/// Lattices and lane splits (zeros: automatic) with every kind of split: unequal extents, x split
/// and not, extents 2 after the split (both neighbours in the other lane).
template <int lanes> std::vector<std::pair<Lattice, std::array<int, 4>>> split_cases() {
  std::vector<std::pair<Lattice, std::array<int, 4>>> cases;
  cases.push_back({Lattice({4, 8, 12, 16}), {0, 0, 0, 0}});
  if constexpr (lanes == 8) {
    cases.push_back({Lattice({8, 4, 6, 4}), {2, 2, 1, 2}});
    cases.push_back({Lattice({4, 4, 4, 4}), {2, 2, 2, 1}});
  } else if constexpr (lanes == 4) {
    cases.push_back({Lattice({8, 6, 4, 2}), {2, 1, 2, 1}});
    cases.push_back({Lattice({4, 4, 6, 4}), {1, 2, 1, 2}});
  } else if constexpr (lanes == 2) {
    cases.push_back({Lattice({8, 6, 2, 6}), {2, 1, 1, 1}});
  }
  return cases;
}

} // namespace kqcd::test
