// Shared test helpers: the configurations every test runs over (each enabled execution space
// with float and double) and precision-dependent tolerances.
#pragma once

#include <kqcd/core/execution_spaces.hpp>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <string>

namespace kqcd::test {

using Reals = std::tuple<float, double>;
using Configs = typename CartesianProduct<EnabledExecutionSpaces, Reals>::type;

template <class Config> using space_of = std::tuple_element_t<0, Config>;
template <class Config> using real_of = std::tuple_element_t<1, Config>;

/// Relative tolerance for a computation of moderate depth in Real.
template <class Real> constexpr double tol() { return sizeof(Real) == 4 ? 2e-6 : 1e-13; }

inline std::string shared_data(const std::string& name) { return std::string(KQCD_SHARED_DATA) + "/" + name; }

} // namespace kqcd::test
