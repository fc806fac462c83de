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

/// The operands of a many-vector kernel: y and x_j for j < n.
template <class Rows> struct ManyRows {
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width;
  Rows y, x[max_many];
  int n = 0;
  /// Loads components k0 .. k0 + C of row i of y into vy, then calls f(j, those of x_j) for every j.
  template <class F> KOKKOS_FORCEINLINE_FUNCTION void each_x(int i, int k0, real (&vy)[C][W], const F& f) const {
    y.load(i, k0, vy);
    for (int j = 0; j < n; ++j) {
      real vx[C][W];
      x[j].load(i, k0, vx);
      f(j, vx);
    }
  }
  /// The accessors of y and of the count vectors of xs from start.
  template <class Spinor> void set(const Spinor& ys, std::span<const Spinor> xs, std::size_t start, int count) {
    y = row_access(ys);
    n = count;
    for (int j = 0; j < count; ++j) x[j] = row_access(xs[start + std::size_t(j)]);
  }
};

/// <x_j, y> for j < n, as (re, im) pairs summed over the whole vector (a kernel of SlotSums).
template <class Rows> struct ManyDot : ManyRows<Rows> {
  using typename ManyRows<Rows>::real;
  using ManyRows<Rows>::C, ManyRows<Rows>::W;
  KOKKOS_FORCEINLINE_FUNCTION void row(int i, double* acc) const {
    for (int k0 = 0; k0 < Rows::comps; k0 += C) {
      real vy[C][W];
      this->each_x(i, k0, vy, [&](int j, const real(&vx)[C][W]) {
        double part[2][W] = {};
        Dot{}.sum(vx, vy, part);
        for (int w = 0; w < W; ++w) {
          acc[2 * j] += part[0][w];
          acc[2 * j + 1] += part[1][w];
        }
      });
    }
  }
};

/// y += sum_j a_j x_j (complex a_j), and with with_norm |y|^2 after.
template <class Rows, bool with_norm> struct ManyCaxpy : ManyRows<Rows> {
  using typename ManyRows<Rows>::real;
  using ManyRows<Rows>::C, ManyRows<Rows>::W;
  real re[max_many] = {}, im[max_many] = {};
  KOKKOS_FORCEINLINE_FUNCTION void row(int i, double* acc) const {
    double part[1][W] = {};
    for (int k0 = 0; k0 < Rows::comps; k0 += C) {
      real vy[C][W];
      this->each_x(i, k0, vy, [&](int j, const real(&vx)[C][W]) { add_cmul(vy, re[j], im[j], vx); });
      this->y.store(i, k0, vy);
      if constexpr (with_norm) {
        if constexpr (Rows::lossy) this->y.load(i, k0, vy);
        add_norm(vy, part);
      }
    }
    if constexpr (with_norm)
      for (int w = 0; w < W; ++w) *acc += part[0][w];
  }
  KOKKOS_FUNCTION void operator()(int i) const
    requires(!with_norm)
  {
    row(i, nullptr);
  }
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
      k.set(y, x, start, count);
      for (int j = 0; j < count; ++j) {
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
    k.set(y, x, start, n);
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
