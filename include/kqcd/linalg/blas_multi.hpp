// Linear algebra on blocks of right-hand sides (MultiCBSpinor): one kernel per operation for the
// whole block, with a coefficient per right-hand side, and per-right-hand-side reductions (an
// array reduction, accumulated in double). Blocks of 16-bit spinors (HalfMultiCBSpinor) combine
// and reduce through the accessors, with blas.hpp's 16-bit kernels and a coefficient per row. For block Krylov methods also the n x n matrix of inner
// products between two blocks and the combination out_j = a_j + sum_i x_i c_ij with an n x n matrix.
// The same operations on SIMDBlockSpinor (one right-hand side per SIMD lane) run lane-wise: the
// reductions accumulate one double per lane real, so the loops over lanes vectorise; on 16-bit lane
// blocks a site's lanes load into registers, each lane scaled by its own norm.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/multi_spinor.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/fields/spinor_access.hpp>
#include <kqcd/linalg/blas.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace kqcd::blas {

/// One coefficient per right-hand side, passed to kernels by value.
struct PerRhs {
  double v[MultiCBSpinor<Kokkos::complex<double>>::max_rhs] = {}; ///< The coefficient of each right-hand side.
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

/// The n x n inner products <x_i, y_j> = sum conj(x_i) y_j, as 2 n^2 doubles (re, im; row i, column j).
template <class View> struct BlockInner {
  using value_type = double[];
  using size_type = int;
  int value_count; ///< 2 n^2
  int n;
  View x, y;
  KOKKOS_INLINE_FUNCTION void operator()(int site, value_type acc) const {
    const std::size_t base = std::size_t(site) * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double re = 0.0, im = 0.0;
        for (int c = 0; c < Nc; ++c)
          for (int s = 0; s < Ns; ++s) {
            const auto a = x(base + i, c, s), b = y(base + j, c, s);
            re += double(a.real()) * b.real() + double(a.imag()) * b.imag();
            im += double(a.real()) * b.imag() - double(a.imag()) * b.real();
          }
        acc[2 * (i * n + j)] += re;
        acc[2 * (i * n + j) + 1] += im;
      }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type acc) const {
    for (int k = 0; k < value_count; ++k) acc[k] = 0.0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int k = 0; k < value_count; ++k) dst[k] += src[k];
  }
};

/// out_j = a_j + sum_i x_i c(i, j), one (site, j) per iteration; out may alias a, not x.
template <class View, class CView> struct BlockCombine {
  View out, a, x;
  CView c;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    using ST = typename View::non_const_value_type;
    using R = typename ST::value_type;
    const int j = k % n;
    const std::size_t base = std::size_t(k - j);
    for (int col = 0; col < Nc; ++col)
      for (int s = 0; s < Ns; ++s) {
        ST v = a(k, col, s);
        for (int i = 0; i < n; ++i) v += x(base + i, col, s) * ST(R(c(i, j).real()), R(c(i, j).imag()));
        out(k, col, s) = v;
      }
  }
};
} // namespace detail

/// An n x n complex matrix on the host (row i, column j), the coefficients of block operations.
using BlockMatrix = Kokkos::View<Kokkos::complex<double>**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// M(i, j) = <x_i, y_j> for the right-hand sides i, j of two blocks.
template <class ST, class ES> BlockMatrix block_inner(const MultiCBSpinor<ST, ES>& x, const MultiCBSpinor<ST, ES>& y) {
  detail::check_same_block(x, y, "block_inner");
  const int n = x.n_rhs();
  std::vector<double> sums(std::size_t(2 * n * n), 0.0);
  using F = detail::BlockInner<typename MultiCBSpinor<ST, ES>::view_type>;
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(sums.data(), sums.size());
  Kokkos::parallel_reduce("kqcd::blas::block_inner", Kokkos::RangePolicy<ES>(0, x.sites()), F{2 * n * n, n, x.view(), y.view()},
                          result);
  comm::sum_in_place(x.lattice(), sums.data(), int(sums.size()));
  BlockMatrix m("kqcd::block_inner", n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m(i, j) = Kokkos::complex<double>(sums[std::size_t(2 * (i * n + j))], sums[std::size_t(2 * (i * n + j) + 1)]);
  return m;
}

/// out_j = a_j + sum_i x_i c(i, j) for every right-hand side j; out may be a, not x.
template <class ST, class ES>
void block_combine(MultiCBSpinor<ST, ES>& out, const MultiCBSpinor<ST, ES>& a, const MultiCBSpinor<ST, ES>& x,
                   const BlockMatrix& c) {
  detail::check_same_block(out, a, "block_combine");
  detail::check_same_block(out, x, "block_combine");
  const int n = out.n_rhs();
  if (int(c.extent(0)) != n || int(c.extent(1)) != n)
    throw invalid_argument("blas::block_combine: a " + std::to_string(c.extent(0)) + " x " + std::to_string(c.extent(1)) +
                           " coefficient matrix for " + std::to_string(n) + " right-hand sides");
  if (out.view().data() == x.view().data())
    throw invalid_argument("blas::block_combine: the output block must not be the combined block x");
  auto dc = Kokkos::create_mirror_view_and_copy(typename ES::memory_space(), c);
  using F = detail::BlockCombine<typename MultiCBSpinor<ST, ES>::view_type, decltype(dc)>;
  Kokkos::parallel_for("kqcd::blas::block_combine", Kokkos::RangePolicy<ES>(0, out.sites() * n),
                       F{out.view(), a.view(), x.view(), dc, n});
}

/// Re <x_r, y_r> for each right-hand side.
template <class ST, class ES> std::vector<double> rdot_each(const MultiCBSpinor<ST, ES>& x, const MultiCBSpinor<ST, ES>& y) {
  detail::check_same_block(x, y, "rdot_each");
  std::vector<double> out(std::size_t(x.n_rhs()), 0.0);
  using F = detail::BlockDot<typename MultiCBSpinor<ST, ES>::view_type>;
  // An array reduction returns into a host view (Kokkos 5 refuses a raw pointer).
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(out.data(), out.size());
  Kokkos::parallel_reduce("kqcd::blas::rdot_each", Kokkos::RangePolicy<ES>(0, x.sites()), F{x.n_rhs(), x.view(), y.view()},
                          result);
  comm::sum_in_place(x.lattice(), out.data(), int(out.size()));
  return out;
}
/// |x_r|^2 of each right-hand side r.
template <class ST, class ES> std::vector<double> norm2_each(const MultiCBSpinor<ST, ES>& x) { return rdot_each(x, x); }

namespace detail {
/// y_r = a_r x_r + b_r y_r at (site, r) = (k / n, k % n) (functors, not KOKKOS_LAMBDAs: see blas.hpp).
template <class View> struct AxpbyEachKernel {
  PerRhs a, b;
  int n;
  View x, y;
  KOKKOS_FUNCTION void operator()(int k) const {
    using R = typename View::non_const_value_type::value_type;
    const int r = k % n;
    const R ar(a.v[r]), br(b.v[r]);
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) y(k, c, s) = ar * x(k, c, s) + br * y(k, c, s);
  }
};
/// y_r = y_r + a_r x_r, then x_r = c_r z_r + b_r x_r at (site, r) = (k / n, k % n).
template <class View> struct AxpyZpbxEachKernel {
  PerRhs a, b, c;
  int n;
  View x, y, z;
  KOKKOS_FUNCTION void operator()(int k) const {
    using R = typename View::non_const_value_type::value_type;
    const int r = k % n;
    const R ar(a.v[r]), br(b.v[r]), cr(c.v[r]);
    for (int col = 0; col < Nc; ++col)
      for (int s = 0; s < Ns; ++s) {
        const auto xk = x(k, col, s);
        y(k, col, s) += ar * xk;
        x(k, col, s) = cr * z(k, col, s) + br * xk;
      }
  }
};
} // namespace detail

/// y_r = a_r x_r + b_r y_r for each right-hand side r.
template <class ST, class ES>
void axpby_each(const std::vector<double>& a, const MultiCBSpinor<ST, ES>& x, const std::vector<double>& b,
                MultiCBSpinor<ST, ES>& y) {
  detail::check_same_block(x, y, "axpby_each");
  if (int(a.size()) != x.n_rhs() || int(b.size()) != x.n_rhs())
    throw invalid_argument("blas::axpby_each: " + std::to_string(a.size()) + " coefficients for " + std::to_string(x.n_rhs()) +
                           " right-hand sides");
  const int n = x.n_rhs();
  using View = std::remove_cvref_t<decltype(y.view())>;
  Kokkos::parallel_for("kqcd::blas::axpby_each", Kokkos::RangePolicy<ES>(0, x.sites() * n),
                       detail::AxpbyEachKernel<View>{detail::per_rhs(a), detail::per_rhs(b), n, x.view(), y.view()});
}

namespace detail {
/// y_r = a_r x_r + y_r, summing |y_r|^2 for every right-hand side r; one (site, r) per iteration,
/// as axpby_each (on the GPU neighbouring threads then touch neighbouring rows).
template <class View> struct BlockAxpyNorm {
  using value_type = double[];
  using size_type = int;
  int value_count; ///< right-hand sides
  View x, y;
  PerRhs a;
  KOKKOS_INLINE_FUNCTION void operator()(int k, value_type acc) const {
    using ST = typename View::non_const_value_type;
    using R = typename ST::value_type;
    const int r = k % value_count;
    const R ar(a.v[r]);
    double sum = 0.0;
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) {
        const ST v = ar * x(k, c, s) + y(k, c, s);
        y(k, c, s) = v;
        sum += double(v.real()) * v.real() + double(v.imag()) * v.imag();
      }
    acc[r] += sum;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type acc) const {
    for (int r = 0; r < value_count; ++r) acc[r] = 0.0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int r = 0; r < value_count; ++r) dst[r] += src[r];
  }
};
template <class Block> void check_coefficients(const Block& x, const std::vector<double>& a, const char* op) {
  if (int(a.size()) != x.n_rhs())
    throw invalid_argument(std::string("blas::") + op + ": " + std::to_string(a.size()) + " coefficients for " +
                           std::to_string(x.n_rhs()) + " right-hand sides");
}
} // namespace detail

/// y_r = a_r x_r + y_r for each right-hand side, returning |y_r|^2 (multi-RHS CG's residual update
/// and its norms in one pass).
template <class ST, class ES>
std::vector<double> axpy_norm2_each(const std::vector<double>& a, const MultiCBSpinor<ST, ES>& x, MultiCBSpinor<ST, ES>& y) {
  detail::check_same_block(x, y, "axpy_norm2_each");
  detail::check_coefficients(x, a, "axpy_norm2_each");
  std::vector<double> out(std::size_t(x.n_rhs()), 0.0);
  using F = detail::BlockAxpyNorm<typename MultiCBSpinor<ST, ES>::view_type>;
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(out.data(), out.size());
  Kokkos::parallel_reduce("kqcd::blas::axpy_norm2_each", Kokkos::RangePolicy<ES>(0, x.sites() * x.n_rhs()),
                          F{x.n_rhs(), x.view(), y.view(), detail::per_rhs(a)}, result);
  comm::sum_in_place(x.lattice(), out.data(), int(out.size()));
  return out;
}

/// y_r = y_r + a_r x_r, then x_r = c_r z_r + b_r x_r for each right-hand side (multi-RHS CG's solution
/// and direction updates in one pass).
template <class ST, class ES>
void axpy_zpbx_each(const std::vector<double>& a, MultiCBSpinor<ST, ES>& x, MultiCBSpinor<ST, ES>& y, const std::vector<double>& c,
                    const MultiCBSpinor<ST, ES>& z, const std::vector<double>& b) {
  detail::check_same_block(x, y, "axpy_zpbx_each");
  detail::check_same_block(x, z, "axpy_zpbx_each");
  for (const auto* co : {&a, &b, &c}) detail::check_coefficients(x, *co, "axpy_zpbx_each");
  const int n = x.n_rhs();
  using View = std::remove_cvref_t<decltype(x.view())>;
  Kokkos::parallel_for("kqcd::blas::axpy_zpbx_each", Kokkos::RangePolicy<ES>(0, x.sites() * n),
                       detail::AxpyZpbxEachKernel<View>{detail::per_rhs(a), detail::per_rhs(b), detail::per_rhs(c), n, x.view(),
                                                        y.view(), z.view()});
}

// ---- blocks of 16-bit spinors (HalfMultiCBSpinor): blas.hpp's 16-bit kernels, coefficients by row ----
namespace detail {
/// y_r = a_r x_r + b_r y_r on row i, of right-hand side i % n.
struct AxpbyEach {
  PerRhs a, b;
  int n;
  KOKKOS_FUNCTION Axpby at(int i) const {
    const int r = i % n;
    return {float(a.v[r]), float(b.v[r])};
  }
};
/// Re conj(x) y.
struct RealDotTerm {
  static constexpr bool reads_y = true;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(float xr, float xi, float yr, float yi, double& acc) const {
    acc += double(xr) * yr + double(xi) * yi;
  }
};
/// Term summed over the rows of 16-bit blocks into one sum per right-hand side (row i: i % n).
template <class Reader, class Term> struct HalfRowSums {
  using value_type = double[];
  using size_type = int;
  int value_count; ///< right-hand sides
  Reader x, y;
  Term term;
  KOKKOS_FUNCTION void operator()(int i, value_type acc) const {
    double row = 0.0;
    HalfReduceKernel<double, Reader, Term>{x, y, term}(i, row);
    acc[i % value_count] += row;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type acc) const {
    for (int r = 0; r < value_count; ++r) acc[r] = 0.0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int r = 0; r < value_count; ++r) dst[r] += src[r];
  }
};
template <class ES, class Term>
std::vector<double> half_row_sums(const char* op, const HalfMultiCBSpinor<ES>& x, const HalfMultiCBSpinor<ES>& y, Term term) {
  check_same_block(x, y, op);
  using A = SpinorAccess<HalfMultiCBSpinor<ES>>;
  const auto xr = A::template read<float>(x), yr = A::template read<float>(y);
  std::vector<double> out(std::size_t(x.n_rhs()), 0.0);
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(out.data(), out.size());
  Kokkos::parallel_reduce(std::string("kqcd::blas::") + op + "_half", range(x), HalfRowSums<decltype(xr), Term>{x.n_rhs(), xr, yr, term},
                          result);
  comm::sum_in_place(x.lattice(), out.data(), int(out.size()));
  return out;
}
} // namespace detail

/// y_r = a_r x_r + b_r y_r for each right-hand side r, in float per row.
template <class ES>
void axpby_each(const std::vector<double>& a, const HalfMultiCBSpinor<ES>& x, const std::vector<double>& b, HalfMultiCBSpinor<ES>& y) {
  detail::check_same_block(x, y, "axpby_each");
  detail::check_coefficients(x, a, "axpby_each");
  detail::check_coefficients(x, b, "axpby_each");
  detail::half_combine<2>("axpby_each", x, y, y, y, detail::AxpbyEach{detail::per_rhs(a), detail::per_rhs(b), x.n_rhs()});
}
/// Re <x_r, y_r> of each right-hand side (16-bit).
template <class ES> std::vector<double> rdot_each(const HalfMultiCBSpinor<ES>& x, const HalfMultiCBSpinor<ES>& y) {
  return detail::half_row_sums("rdot_each", x, y, detail::RealDotTerm{});
}
/// |x_r|^2 of each right-hand side (16-bit).
template <class ES> std::vector<double> norm2_each(const HalfMultiCBSpinor<ES>& x) {
  return detail::half_row_sums("norm2_each", x, x, detail::NormTerm{});
}

// ---- blocks with one right-hand side per SIMD lane (SIMDBlockSpinor; host execution spaces) ----
namespace detail {
/// x(i, c, s, k) y(i, c, s, k) summed over sites and components for each lane real k (2 per lane:
/// real and imaginary parts); Re <x_r, y_r> = acc[2r] + acc[2r + 1].
template <class View, int n_reals> struct LaneDot {
  using value_type = double[];
  using size_type = int;
  int value_count = n_reals;
  View x, y;
  void operator()(int i, value_type acc) const {
    double site[n_reals] = {}; // in registers: acc may alias the fields as far as the compiler knows
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s)
        for (int k = 0; k < n_reals; ++k) site[k] += double(x(i, c, s, k)) * double(y(i, c, s, k));
    for (int k = 0; k < n_reals; ++k) acc[k] += site[k];
  }
  void init(value_type acc) const {
    for (int k = 0; k < n_reals; ++k) acc[k] = 0.0;
  }
  void join(value_type dst, const value_type src) const {
    for (int k = 0; k < n_reals; ++k) dst[k] += src[k];
  }
};
/// <x_i, y_j> over lanes i, j, as 2 n^2 doubles (re, im; row i, column j).
template <class View, int n> struct LaneInner {
  using value_type = double[];
  using size_type = int;
  int value_count = 2 * n * n;
  View x, y;
  void operator()(int i, value_type acc) const {
    double site[2 * n * n] = {}; // local: acc may alias the fields as far as the compiler knows
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s)
        for (int a = 0; a < n; ++a) {
          const double xr = x(i, c, s, 2 * a), xi = x(i, c, s, 2 * a + 1);
          for (int b = 0; b < n; ++b) {
            const double yr = y(i, c, s, 2 * b), yi = y(i, c, s, 2 * b + 1);
            site[2 * (a * n + b)] += xr * yr + xi * yi;
            site[2 * (a * n + b) + 1] += xr * yi - xi * yr;
          }
        }
    for (int k = 0; k < 2 * n * n; ++k) acc[k] += site[k];
  }
  void init(value_type acc) const {
    for (int k = 0; k < 2 * n * n; ++k) acc[k] = 0.0;
  }
  void join(value_type dst, const value_type src) const {
    for (int k = 0; k < 2 * n * n; ++k) dst[k] += src[k];
  }
};
template <class V, class ES, class S> auto lane_range(const SIMDBlockSpinor<V, ES, S>& x) {
  return Kokkos::RangePolicy<ES>(0, x.lattice().cb_volume());
}
/// Per-right-hand-side coefficients spread over the lane reals (both parts of lane r get c[r], the
/// unused lanes 0), after their count is checked.
template <class V> struct LaneCoefficients {
  typename V::real_type v[2 * V::lanes] = {};
};
template <class V, class ES, class S>
LaneCoefficients<V> lane_coefficients(const SIMDBlockSpinor<V, ES, S>& x, const std::vector<double>& c, const char* op) {
  check_coefficients(x, c, op);
  LaneCoefficients<V> l;
  for (int k = 0; k < 2 * x.n_rhs(); ++k) l.v[k] = typename V::real_type(c[std::size_t(k / 2)]);
  return l;
}
/// Per-lane-real sums folded into one sum per right-hand side, summed over the ranks.
template <class V, class ES, class S> std::vector<double> rhs_sums(const SIMDBlockSpinor<V, ES, S>& x, const std::vector<double>& lane_sums) {
  std::vector<double> out(std::size_t(x.n_rhs()), 0.0);
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = lane_sums[2 * r] + lane_sums[2 * r + 1];
  comm::sum_in_place(x.lattice(), out.data(), x.n_rhs());
  return out;
}
} // namespace detail

/// Re <x_r, y_r> for each right-hand side r.
template <class V, class ES> std::vector<double> rdot_each(const SIMDBlockSpinor<V, ES>& x, const SIMDBlockSpinor<V, ES>& y) {
  detail::check_same_block(x, y, "rdot_each");
  constexpr int lanes = V::lanes;
  std::vector<double> acc(2 * lanes, 0.0);
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(acc.data(), acc.size());
  using F = detail::LaneDot<typename SIMDBlockSpinor<V, ES>::view_type, 2 * lanes>;
  Kokkos::parallel_reduce("kqcd::blas::rdot_each_lanes", detail::lane_range(x), F{2 * lanes, x.view(), y.view()}, result);
  return detail::rhs_sums(x, acc);
}
/// |x_r|^2 of each right-hand side.
template <class V, class ES> std::vector<double> norm2_each(const SIMDBlockSpinor<V, ES>& x) { return rdot_each(x, x); }

/// y_r = a_r x_r + b_r y_r for each right-hand side r (the unused lanes stay zero).
template <class V, class ES>
void axpby_each(const std::vector<double>& a, const SIMDBlockSpinor<V, ES>& x, const std::vector<double>& b, SIMDBlockSpinor<V, ES>& y) {
  detail::check_same_block(x, y, "axpby_each");
  constexpr int n = V::lanes;
  using R = typename V::real_type;
  const auto la = detail::lane_coefficients(x, a, "axpby_each"), lb = detail::lane_coefficients(x, b, "axpby_each");
  const auto xv = x.view(), yv = y.view();
  Kokkos::parallel_for("kqcd::blas::axpby_each_lanes", detail::lane_range(x), [=](int i) {
    R ca[2 * n], cb[2 * n]; // locals, which the stores to y cannot alias
    for (int k = 0; k < 2 * n; ++k) {
      ca[k] = la.v[k];
      cb[k] = lb.v[k];
    }
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s)
        for (int k = 0; k < 2 * n; ++k) yv(i, c, s, k) = ca[k] * xv(i, c, s, k) + cb[k] * yv(i, c, s, k);
  });
}

/// dst = src between lane blocks of other precisions or storage (mixed-precision multi-RHS solves):
/// right-hand side r stays in lane r, converted through the lane accessors; dst's other lanes are
/// zero. (Two 16-bit blocks of one type copy as any 16-bit spinors: views and norms.)
template <class VD, class SD, class VS, class SS, class ES>
  requires(!std::is_same_v<SD, short> || !std::is_same_v<SIMDBlockSpinor<VD, ES, SD>, SIMDBlockSpinor<VS, ES, SS>>)
void copy(SIMDBlockSpinor<VD, ES, SD>& dst, const SIMDBlockSpinor<VS, ES, SS>& src) {
  if (dst.parity() != src.parity() || !(dst.lattice() == src.lattice()) || dst.n_rhs() != src.n_rhs())
    throw invalid_argument("blas::copy: lane blocks differ in lattice, parity or right-hand sides (" + std::to_string(dst.n_rhs()) +
                           " vs " + std::to_string(src.n_rhs()) + ")");
  const auto r = src.template lane_sites<double>();
  const auto w = dst.template lane_sites<double>();
  const int n = src.n_rhs();
  constexpr int ld = VD::lanes, ls = VS::lanes;
  Kokkos::parallel_for("kqcd::blas::copy_lanes", detail::lane_range(dst), [=](int i) {
    Kokkos::complex<double> v[Nc][Ns];
    for (int l = 0; l < ld; ++l) {
      if (l < n) {
        r.load(i * ls + l, v);
      } else {
        for (int c = 0; c < Nc; ++c)
          for (int sp = 0; sp < Ns; ++sp) v[c][sp] = 0.0;
      }
      w.store(i * ld + l, v);
    }
  });
}

// ---- 16-bit lane blocks (SIMDBlockSpinor<V, ES, short>): a site's lanes as registers, each lane with its own norm ----
namespace detail {
template <class V, class ES> using HalfLaneBlock = SIMDBlockSpinor<V, ES, short>;
/// y_r = a_r x_r + b_r y_r lane by lane: half_combine's update with registers of per-lane coefficients.
template <class V> struct LaneAxpby {
  V a, b;
  V operator()(const V& x, const V& y, const V&) const { return V::scale_lanes(a, x) + V::scale_lanes(b, y); }
};
/// Re <x_r, y_r> per right-hand side: each lane real's products summed in double, folded by rhs_sums.
template <class V, class ES> std::vector<double> half_lane_dot(const char* op, const HalfLaneBlock<V, ES>& x, const HalfLaneBlock<V, ES>& y) {
  check_same_block(x, y, op);
  constexpr int R = 2 * V::lanes;
  using XR = decltype(lane_reader(x));
  struct F {
    using value_type = double[];
    int value_count;
    XR x, y;
    void operator()(int i, value_type acc) const {
      V xv[Nc][Ns], yv[Nc][Ns];
      x.load(i, xv);
      y.load(i, yv);
      float tx[R], ty[R];
      double site[R] = {}; // locals: acc may alias the fields as far as the compiler knows
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) {
          xv[c][sp].store(tx);
          yv[c][sp].store(ty);
          for (int k = 0; k < R; ++k) site[k] += double(tx[k]) * double(ty[k]);
        }
      for (int k = 0; k < R; ++k) acc[k] += site[k];
    }
    void init(value_type acc) const {
      for (int k = 0; k < R; ++k) acc[k] = 0.0;
    }
    void join(value_type dst, const value_type src) const {
      for (int k = 0; k < R; ++k) dst[k] += src[k];
    }
  };
  std::vector<double> acc(R, 0.0);
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(acc.data(), acc.size());
  Kokkos::parallel_reduce(std::string("kqcd::blas::") + op + "_half_lanes", lane_range(x), F{R, lane_reader(x), lane_reader(y)}, result);
  return rhs_sums(x, acc);
}
} // namespace detail

/// y_r = a_r x_r + b_r y_r for each right-hand side r, in float (the unused lanes stay zero).
template <class V, class ES>
void axpby_each(const std::vector<double>& a, const SIMDBlockSpinor<V, ES, short>& x, const std::vector<double>& b,
                SIMDBlockSpinor<V, ES, short>& y) {
  detail::check_same_block(x, y, "axpby_each");
  const auto la = detail::lane_coefficients(x, a, "axpby_each"), lb = detail::lane_coefficients(x, b, "axpby_each");
  detail::half_combine<2>("axpby_each", x, y, y, y, detail::LaneAxpby<V>{V::load(la.v), V::load(lb.v)});
}
/// Re <x_r, y_r> of each right-hand side (16-bit).
template <class V, class ES>
std::vector<double> rdot_each(const SIMDBlockSpinor<V, ES, short>& x, const SIMDBlockSpinor<V, ES, short>& y) {
  return detail::half_lane_dot("rdot_each", x, y);
}
/// |x_r|^2 of each right-hand side (16-bit).
template <class V, class ES> std::vector<double> norm2_each(const SIMDBlockSpinor<V, ES, short>& x) {
  return detail::half_lane_dot("norm2_each", x, x);
}
// The fused operations on 16-bit blocks of either layout, in two passes (each row's or lane's norm
// is rewritten on store), as on 16-bit spinors.
/// Blocks of 16-bit right-hand sides: HalfMultiCBSpinor, SIMDBlockSpinor<V, ES, short>.
template <class B> concept HalfBlock = HalfStorage<B> && requires(const B& b) { b.n_rhs(); };
/// y_r += a_r x_r, returning each |y_r|^2 (16-bit).
template <HalfBlock B> std::vector<double> axpy_norm2_each(const std::vector<double>& a, const B& x, B& y) {
  axpby_each(a, x, std::vector<double>(a.size(), 1.0), y);
  return norm2_each(y);
}
/// y_r += a_r x_r, then x_r = c_r z_r + b_r x_r, per right-hand side (16-bit).
template <HalfBlock B>
void axpy_zpbx_each(const std::vector<double>& a, B& x, B& y, const std::vector<double>& c, const B& z, const std::vector<double>& b) {
  axpby_each(a, x, std::vector<double>(a.size(), 1.0), y);
  axpby_each(c, z, b, x);
}

/// M(i, j) = <x_i, y_j> for the right-hand sides i, j of two blocks.
template <class V, class ES> BlockMatrix block_inner(const SIMDBlockSpinor<V, ES>& x, const SIMDBlockSpinor<V, ES>& y) {
  detail::check_same_block(x, y, "block_inner");
  constexpr int lanes = V::lanes;
  std::vector<double> sums(std::size_t(2 * lanes * lanes), 0.0);
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(sums.data(), sums.size());
  using F = detail::LaneInner<typename SIMDBlockSpinor<V, ES>::view_type, lanes>;
  Kokkos::parallel_reduce("kqcd::blas::block_inner_lanes", detail::lane_range(x), F{2 * lanes * lanes, x.view(), y.view()},
                          result);
  comm::sum_in_place(x.lattice(), sums.data(), int(sums.size()));
  const int n = x.n_rhs();
  BlockMatrix m("kqcd::block_inner", n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      m(i, j) = Kokkos::complex<double>(sums[std::size_t(2 * (i * lanes + j))], sums[std::size_t(2 * (i * lanes + j) + 1)]);
  return m;
}

/// out_j = a_j + sum_i x_i c(i, j) for every lane j; out may be a, not x.
template <class V, class ES>
void block_combine(SIMDBlockSpinor<V, ES>& out, const SIMDBlockSpinor<V, ES>& a, const SIMDBlockSpinor<V, ES>& x, const BlockMatrix& c) {
  detail::check_same_block(out, a, "block_combine");
  detail::check_same_block(out, x, "block_combine");
  constexpr int n = V::lanes;
  const int used = out.n_rhs();
  if (int(c.extent(0)) != used || int(c.extent(1)) != used)
    throw invalid_argument("blas::block_combine: a " + std::to_string(c.extent(0)) + " x " + std::to_string(c.extent(1)) +
                           " coefficient matrix for " + std::to_string(used) + " right-hand sides");
  if (out.view().data() == x.view().data())
    throw invalid_argument("blas::block_combine: the output block must not be the combined block x");
  using R = typename V::real_type;
  struct Coefficients {
    R re[n][n] = {}, im[n][n] = {}; ///< zero beyond the right-hand sides in use
  } co;
  for (int i = 0; i < used; ++i)
    for (int j = 0; j < used; ++j) {
      co.re[i][j] = R(c(i, j).real());
      co.im[i][j] = R(c(i, j).imag());
    }
  const auto ov = out.view(), av = a.view(), xv = x.view();
  Kokkos::parallel_for("kqcd::blas::block_combine_lanes", detail::lane_range(out), [=](int site) {
    for (int col = 0; col < Nc; ++col)
      for (int s = 0; s < Ns; ++s) {
        R re[n], im[n];
        for (int j = 0; j < n; ++j) {
          re[j] = av(site, col, s, 2 * j);
          im[j] = av(site, col, s, 2 * j + 1);
        }
        for (int i = 0; i < n; ++i) {
          const R xr = xv(site, col, s, 2 * i), xi = xv(site, col, s, 2 * i + 1);
          for (int j = 0; j < n; ++j) {
            re[j] += xr * co.re[i][j] - xi * co.im[i][j];
            im[j] += xr * co.im[i][j] + xi * co.re[i][j];
          }
        }
        for (int j = 0; j < n; ++j) {
          ov(site, col, s, 2 * j) = re[j];
          ov(site, col, s, 2 * j + 1) = im[j];
        }
      }
  });
}

/// y_r = a_r x_r + y_r for each right-hand side, returning |y_r|^2.
template <class V, class ES>
std::vector<double> axpy_norm2_each(const std::vector<double>& a, const SIMDBlockSpinor<V, ES>& x, SIMDBlockSpinor<V, ES>& y) {
  detail::check_same_block(x, y, "axpy_norm2_each");
  constexpr int n = V::lanes;
  using R = typename V::real_type;
  const auto la = detail::lane_coefficients(x, a, "axpy_norm2_each");
  const auto xv = x.view(), yv = y.view();
  struct F {
    using value_type = double[];
    int value_count;
    typename SIMDBlockSpinor<V, ES>::view_type x, y;
    detail::LaneCoefficients<V> a;
    void operator()(int i, value_type acc) const {
      R ca[2 * n];
      double site[2 * n] = {}; // locals: the stores to y cannot alias them
      for (int k = 0; k < 2 * n; ++k) ca[k] = a.v[k];
      for (int c = 0; c < Nc; ++c)
        for (int s = 0; s < Ns; ++s)
          for (int k = 0; k < 2 * n; ++k) {
            const R v = ca[k] * x(i, c, s, k) + y(i, c, s, k);
            y(i, c, s, k) = v;
            site[k] += double(v) * double(v);
          }
      for (int k = 0; k < 2 * n; ++k) acc[k] += site[k];
    }
    void init(value_type acc) const {
      for (int k = 0; k < 2 * n; ++k) acc[k] = 0.0;
    }
    void join(value_type dst, const value_type src) const {
      for (int k = 0; k < 2 * n; ++k) dst[k] += src[k];
    }
  };
  std::vector<double> acc(2 * n, 0.0);
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(acc.data(), acc.size());
  Kokkos::parallel_reduce("kqcd::blas::axpy_norm2_each_lanes", detail::lane_range(x), F{2 * n, xv, yv, la}, result);
  return detail::rhs_sums(x, acc);
}

/// y_r = y_r + a_r x_r, then x_r = c_r z_r + b_r x_r for each right-hand side (the unused lanes stay zero).
template <class V, class ES>
void axpy_zpbx_each(const std::vector<double>& a, SIMDBlockSpinor<V, ES>& x, SIMDBlockSpinor<V, ES>& y, const std::vector<double>& c,
                    const SIMDBlockSpinor<V, ES>& z, const std::vector<double>& b) {
  detail::check_same_block(x, y, "axpy_zpbx_each");
  detail::check_same_block(x, z, "axpy_zpbx_each");
  constexpr int n = V::lanes;
  using R = typename V::real_type;
  const auto la = detail::lane_coefficients(x, a, "axpy_zpbx_each"), lb = detail::lane_coefficients(x, b, "axpy_zpbx_each"),
             lc = detail::lane_coefficients(x, c, "axpy_zpbx_each");
  const auto xv = x.view(), yv = y.view(), zv = z.view();
  Kokkos::parallel_for("kqcd::blas::axpy_zpbx_each_lanes", detail::lane_range(x), [=](int i) {
    R ca[2 * n], cb[2 * n], cc[2 * n]; // locals, which the stores cannot alias
    for (int k = 0; k < 2 * n; ++k) {
      ca[k] = la.v[k];
      cb[k] = lb.v[k];
      cc[k] = lc.v[k];
    }
    for (int col = 0; col < Nc; ++col)
      for (int s = 0; s < Ns; ++s)
        for (int k = 0; k < 2 * n; ++k) {
          const R xk = xv(i, col, s, k);
          yv(i, col, s, k) += ca[k] * xk;
          xv(i, col, s, k) = cc[k] * zv(i, col, s, k) + cb[k] * xk;
        }
  });
}

} // namespace kqcd::blas
