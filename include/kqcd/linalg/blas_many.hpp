// The BLAS of Gram-Schmidt over a set of vectors, each operation one pass (QUDA's multi-BLAS
// cDotProduct and caxpy over vector sets): the inner products of several vectors with one, and one
// vector updated by a combination of several. GCR orthogonalises a new direction against all
// earlier ones in two kernels this way instead of three per earlier direction. Written over the
// row accessors of linalg/rows.hpp, as blas.hpp.
#pragma once

#include <kqcd/linalg/blas.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace kqcd::blas {

namespace detail {
/// Vectors one pass takes (more go in several passes).
inline constexpr int max_many = 16;

/// <x_j, y> for j < n, as (re, im) pairs summed over the whole vector (a kernel of SlotSums).
template <class Rows> struct ManyDot {
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width;
  Rows y, x[max_many];
  int n = 0;
  KOKKOS_FORCEINLINE_FUNCTION void row(int i, double* acc) const {
    for (int k0 = 0; k0 < Rows::comps; k0 += C) {
      real vy[C][W];
      y.load(i, k0, vy);
      for (int j = 0; j < n; ++j) {
        real vx[C][W];
        x[j].load(i, k0, vx);
        double re = 0.0, im = 0.0;
        for (int k = 0; k < C; ++k)
          for (int w = 0; w < W; w += 2) {
            const double ar = vx[k][w], ai = vx[k][w + 1], br = vy[k][w], bi = vy[k][w + 1];
            re += ar * br + ai * bi;
            im += ar * bi - ai * br;
          }
        acc[2 * j] += re;
        acc[2 * j + 1] += im;
      }
    }
  }
};

/// y += sum_j a_j x_j (complex a_j), and with with_norm |y|^2 after.
template <class Rows, bool with_norm> struct ManyCaxpy {
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width;
  Rows y, x[max_many];
  real re[max_many] = {}, im[max_many] = {};
  int n = 0;
  KOKKOS_FORCEINLINE_FUNCTION void row(int i, double* acc) const {
    double part = 0.0;
    for (int k0 = 0; k0 < Rows::comps; k0 += C) {
      real vy[C][W];
      y.load(i, k0, vy);
      for (int j = 0; j < n; ++j) {
        real vx[C][W];
        x[j].load(i, k0, vx);
        add_cmul(vy, re[j], im[j], vx);
      }
      y.store(i, k0, vy);
      if constexpr (with_norm) {
        if constexpr (Rows::lossy) y.load(i, k0, vy);
        for (int k = 0; k < C; ++k)
          for (int w = 0; w < W; ++w) part += double(vy[k][w]) * double(vy[k][w]);
      }
    }
    if constexpr (with_norm) *acc += part;
  }
  KOKKOS_FUNCTION void operator()(int i) const { row(i, nullptr); }
};

template <class Spinor> void check_many(std::size_t n_coefficients, std::span<const Spinor> x, const Spinor& y, const char* op) {
  if (n_coefficients != x.size())
    throw invalid_argument(std::string("blas::") + op + ": " + std::to_string(n_coefficients) + " coefficients for " +
                           std::to_string(x.size()) + " vectors");
  for (const Spinor& v : x) check_same_shape(v, y, op);
}

/// y += sum_j a_j x_j in passes of max_many vectors; returns |y|^2 if with_norm.
template <bool with_norm, class Spinor>
double caxpy_many(std::span<const Kokkos::complex<double>> a, std::span<const Spinor> x, Spinor& y, const char* label) {
  check_many(a.size(), x, y, label);
  using Rows = rows_t<Spinor>;
  using real = typename Rows::real;
  const Kokkos::RangePolicy<typename Spinor::execution_space> rows(0, row_count(y));
  double norm = 0.0;
  const std::size_t n = x.size();
  for (std::size_t start = 0; start < n || (with_norm && start == 0); start += max_many) {
    const bool last = start + max_many >= n;
    const int count = int(std::min<std::size_t>(max_many, n - start));
    auto fill = [&](auto& k) {
      k.y = row_access(y);
      k.n = count;
      for (int j = 0; j < count; ++j) {
        k.x[j] = row_access(x[start + std::size_t(j)]);
        k.re[j] = real(a[start + std::size_t(j)].real());
        k.im[j] = real(a[start + std::size_t(j)].imag());
      }
    };
    if (with_norm && last) { // the norm of the final y only
      ManyCaxpy<Rows, true> k{};
      fill(k);
      Kokkos::parallel_reduce(label, rows, FixedSums<ManyCaxpy<Rows, true>, 1>{k}, norm);
      comm::sum_in_place(y.lattice(), &norm, 1);
    } else {
      ManyCaxpy<Rows, false> k{};
      fill(k);
      Kokkos::parallel_for(label, rows, k);
    }
  }
  return norm;
}
} // namespace detail

/// <x_j, y> = sum conj(x_j) y for every x_j, in one pass per max_many vectors.
template <class Spinor> std::vector<Kokkos::complex<double>> cdot_many(std::span<const Spinor> x, const Spinor& y) {
  detail::check_many(x.size(), x, y, "cdot_many");
  using Rows = detail::rows_t<Spinor>;
  std::vector<Kokkos::complex<double>> out;
  out.reserve(x.size());
  for (std::size_t start = 0; start < x.size(); start += detail::max_many) {
    detail::ManyDot<Rows> k{};
    const int n = int(std::min<std::size_t>(detail::max_many, x.size() - start));
    k.n = n;
    k.y = detail::row_access(y);
    for (int j = 0; j < n; ++j) k.x[j] = detail::row_access(x[start + std::size_t(j)]);
    std::vector<double> sums(std::size_t(2 * n), 0.0);
    const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(sums.data(), sums.size());
    Kokkos::parallel_reduce("kqcd::blas::cdot_many", Kokkos::RangePolicy<typename Spinor::execution_space>(0, detail::row_count(y)),
                            detail::SlotSums<detail::ManyDot<Rows>>{2 * n, k}, result);
    comm::sum_in_place(y.lattice(), sums.data(), int(sums.size()));
    for (int j = 0; j < n; ++j) out.emplace_back(sums[std::size_t(2 * j)], sums[std::size_t(2 * j + 1)]);
  }
  return out;
}

/// y += sum_j a_j x_j (complex a_j).
template <class Spinor> void caxpy_many(std::span<const Kokkos::complex<double>> a, std::span<const Spinor> x, Spinor& y) {
  detail::caxpy_many<false>(a, x, y, "kqcd::blas::caxpy_many");
}
/// y += sum_j a_j x_j (complex a_j), returning |y|^2.
template <class Spinor> double caxpy_many_norm2(std::span<const Kokkos::complex<double>> a, std::span<const Spinor> x, Spinor& y) {
  return detail::caxpy_many<true>(a, x, y, "kqcd::blas::caxpy_many_norm2");
}

} // namespace kqcd::blas
