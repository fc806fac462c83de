// The execution spaces this build of Kokkos enables, as a type list. Selection follows Kokkos'
// own backend macros only, so tests and tools run on every enabled backend.
#pragma once

#include <Kokkos_Core.hpp>

#include <cctype>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace kqcd {

namespace detail {
template <class... Ts> struct tuple_cat_type { using type = decltype(std::tuple_cat(std::declval<Ts>()...)); };
} // namespace detail

/// std::tuple of the execution spaces Kokkos was built with.
using EnabledExecutionSpaces = typename detail::tuple_cat_type<
#if defined(KOKKOS_ENABLE_CUDA)
    std::tuple<Kokkos::Cuda>,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    std::tuple<Kokkos::OpenMP>,
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    std::tuple<Kokkos::Serial>,
#endif
    std::tuple<>>::type;

/// Every pair (execution space, real type) of a list of spaces and a list of reals: the
/// configurations a test runs over.
template <class Spaces, class Reals> struct CartesianProduct;
/// @cond
template <class... Spaces, class... Reals>
struct CartesianProduct<std::tuple<Spaces...>, std::tuple<Reals...>> {
  template <class S> using row = std::tuple<std::tuple<S, Reals>...>;
  using type = decltype(std::tuple_cat(std::declval<row<Spaces>>()...));
};
/// @endcond

/// An instance of ES that work may run on beside the compute stream (the default instance), and
/// join(), which makes the compute stream wait for what was queued there. By default the compute
/// stream itself, with nothing to join.
template <class ES> struct SideStream {
  ES space{};                           ///< where the work runs
  std::function<void()> wait_for_it{}; ///< makes the compute stream wait for `space` (empty: nothing to wait for)
  /// The compute stream waits for the work queued on `space` so far.
  void join() const {
    if (wait_for_it) wait_for_it();
  }
};

/// Name of execution space ExecSpace.
template <class ExecSpace> std::string backend_name() { return ExecSpace::name(); }

} // namespace kqcd

namespace kqcd {

/// Call `f.template operator()<ExecSpace>()` for the enabled execution space named `name`
/// (case-insensitive, as Kokkos names it: "OpenMP", "Serial", "Cuda"); returns false if none is.
template <class F> bool with_execution_space(const std::string& name, F&& f) {
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  bool found = false;
  [&]<class... Spaces>(std::tuple<Spaces...>*) {
    ((!found && lower(Spaces::name()) == lower(name) ? (f.template operator()<Spaces>(), found = true) : false), ...);
  }(static_cast<EnabledExecutionSpaces*>(nullptr));
  return found;
}

/// Names of the enabled execution spaces, first the default one.
inline std::vector<std::string> enabled_backend_names() {
  std::vector<std::string> names{Kokkos::DefaultExecutionSpace::name()};
  [&]<class... Spaces>(std::tuple<Spaces...>*) {
    ((std::string(Spaces::name()) != names.front() ? names.push_back(Spaces::name()) : void()), ...);
  }(static_cast<EnabledExecutionSpaces*>(nullptr));
  return names;
}

} // namespace kqcd
