// Shared test helpers: the configurations every test runs over (each enabled execution space with
// float and double, where the build compiles them) and precision-dependent tolerances.
#pragma once

#include <kqcd/core/execution_spaces.hpp>
#include <kqcd/instances/compiled.hpp>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kqcd::test {

/// The precisions among P whose kernels the build compiles (KQCD_PRECISIONS), as a tuple: the tests
/// run in those, so that a build listing fewer compiles fewer tests.
template <class... P>
using CompiledOf = decltype(std::tuple_cat(std::declval<std::conditional_t<precision_compiled<P>, std::tuple<P>, std::tuple<>>>()...));
using Reals = CompiledOf<float, double>;
using Configs = typename CartesianProduct<EnabledExecutionSpaces, Reals>::type;
/// The enabled execution spaces where the build compiles every precision P (the 16-bit and the
/// mixed-precision tests), otherwise none.
template <class... P> using SpacesWith = std::conditional_t<(precision_compiled<P> && ...), EnabledExecutionSpaces, std::tuple<>>;
/// The 16-bit tests (16-bit storage computes in float, checked against double), the double-single
/// tests and the double-only ones (test-case macros take no commas).
///@{
using HalfSpaces = SpacesWith<double, float, half>;
using MixedSpaces = SpacesWith<double, float>;
using DoubleSpaces = SpacesWith<double>;
///@}
/// f.template operator()<P>() for each precision P the build compiles, in order (the double,
/// double-single and double-half variants of a solve).
template <class... P, class F> void for_compiled(F&& f) {
  (
      [&] {
        if constexpr (precision_compiled<P>) f.template operator()<P>();
      }(),
      ...);
}

template <class Config> using space_of = std::tuple_element_t<0, Config>;
template <class Config> using real_of = std::tuple_element_t<1, Config>;

/// Relative tolerance for a computation of moderate depth in Real.
template <class Real> constexpr double tol() { return sizeof(Real) == 4 ? 2e-6 : 1e-13; }

inline std::string shared_data(const std::string& name) { return std::string(KQCD_SHARED_DATA) + "/" + name; }

} // namespace kqcd::test
