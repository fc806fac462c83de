// Linear algebra on blocks of right-hand sides (MultiCBSpinor): one kernel per operation for the
// whole block, with a coefficient per right-hand side, and per-right-hand-side reductions (an
// array reduction, accumulated in double).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/fields/multi_spinor.hpp>

#include <string>
#include <vector>

namespace kqcd::blas {

/// One coefficient per right-hand side, passed to kernels by value.
struct PerRhs {
  double v[MultiCBSpinor<Kokkos::complex<double>>::max_rhs] = {};
};

namespace detail {
template <class M> void check_same_block(const M& a, const M& b, const char* op) {
  if (a.parity() != b.parity() || !(a.lattice() == b.lattice()) || a.n_rhs() != b.n_rhs())
    throw invalid_argument(std::string("blas::") + op + ": blocks differ in lattice, parity or right-hand sides (" +
                           std::to_string(a.n_rhs()) + " vs " + std::to_string(b.n_rhs()) + ")");
}
inline PerRhs per_rhs(const std::vector<double>& c) {
  PerRhs p;
  for (std::size_t r = 0; r < c.size(); ++r) p.v[r] = c[r];
  return p;
}

/// Re <x_r, y_r> for every right-hand side r.
template <class View> struct BlockDot {
  using value_type = double[];
  using size_type = int;
  int value_count; ///< right-hand sides
  View x, y;
  KOKKOS_INLINE_FUNCTION void operator()(int i, value_type acc) const {
    for (int r = 0; r < value_count; ++r) {
      const std::size_t k = std::size_t(i) * value_count + r;
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s)
          acc[r] += double(x(k, c, s).real()) * y(k, c, s).real() + double(x(k, c, s).imag()) * y(k, c, s).imag();
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type acc) const {
    for (int r = 0; r < value_count; ++r) acc[r] = 0.0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int r = 0; r < value_count; ++r) dst[r] += src[r];
  }
};
} // namespace detail

/// Re <x_r, y_r> for each right-hand side.
template <class ST, class ES> std::vector<double> rdot_each(const MultiCBSpinor<ST, ES>& x, const MultiCBSpinor<ST, ES>& y) {
  detail::check_same_block(x, y, "rdot_each");
  std::vector<double> out(std::size_t(x.n_rhs()), 0.0);
  using F = detail::BlockDot<typename MultiCBSpinor<ST, ES>::view_type>;
  // An array reduction returns into a host view (Kokkos 5 refuses a raw pointer).
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(out.data(), out.size());
  Kokkos::parallel_reduce("kqcd::blas::rdot_each", Kokkos::RangePolicy<ES>(0, x.sites()), F{x.n_rhs(), x.view(), y.view()},
                          result);
  return out;
}
template <class ST, class ES> std::vector<double> norm2_each(const MultiCBSpinor<ST, ES>& x) { return rdot_each(x, x); }

/// y_r = a_r x_r + b_r y_r for each right-hand side r.
template <class ST, class ES>
void axpby_each(const std::vector<double>& a, const MultiCBSpinor<ST, ES>& x, const std::vector<double>& b,
                MultiCBSpinor<ST, ES>& y) {
  detail::check_same_block(x, y, "axpby_each");
  if (int(a.size()) != x.n_rhs() || int(b.size()) != x.n_rhs())
    throw invalid_argument("blas::axpby_each: " + std::to_string(a.size()) + " coefficients for " + std::to_string(x.n_rhs()) +
                           " right-hand sides");
  using R = typename ST::value_type;
  const PerRhs pa = detail::per_rhs(a), pb = detail::per_rhs(b);
  const int n = x.n_rhs();
  auto xv = x.view();
  auto yv = y.view();
  Kokkos::parallel_for("kqcd::blas::axpby_each", Kokkos::RangePolicy<ES>(0, x.sites() * n), KOKKOS_LAMBDA(int k) {
    const int r = k % n;
    const R ar(pa.v[r]), br(pb.v[r]);
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) yv(k, c, s) = ar * xv(k, c, s) + br * yv(k, c, s);
  });
}

} // namespace kqcd::blas
