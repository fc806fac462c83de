// Linear algebra on blocks of right-hand sides, with a coefficient and a sum per right-hand side:
// blas.hpp's kernels over the same row accessors, whose slots are the block's right-hand sides (a
// row block's rows, a lane block's lanes: linalg/rows.hpp). For block Krylov methods also the n x n
// matrix of inner products between two blocks and the combination out_j = a_j + sum_i x_i c_ij.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/linalg/blas.hpp>

#include <string>
#include <vector>

namespace kqcd::blas {

/// An n x n complex matrix on the host (row i, column j), the coefficients of block operations.
using BlockMatrix = Kokkos::View<Kokkos::complex<double>**, Kokkos::LayoutRight, Kokkos::HostSpace>;

namespace detail {
template <class Block> void check_coefficients(const Block& x, const std::vector<double>& a, const char* op) {
  if (int(a.size()) != x.n_rhs())
    throw invalid_argument(std::string("blas::") + op + ": " + std::to_string(a.size()) + " coefficients for " +
                           std::to_string(x.n_rhs()) + " right-hand sides");
}
/// The first n_rhs slots of per-slot sums (a lane block's unused lanes dropped).
inline std::vector<double> first(std::vector<double> sums, int n_rhs) {
  sums.resize(std::size_t(n_rhs));
  return sums;
}

/// sum_k conj(a_k) b_k over the components of two loaded row-block rows.
template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void add_dot(const R (&a)[C][W], const R (&b)[C][W], double& re, double& im) {
  for (int k = 0; k < C; ++k) {
    const double ar = a[k][0], ai = a[k][1], br = b[k][0], bi = b[k][1];
    re += ar * br + ai * bi;
    im += ar * bi - ai * br;
  }
}
/// v += x c over the components of two loaded row-block rows.
template <class R, int C, int W, class Z> KOKKOS_FORCEINLINE_FUNCTION void add_mul(R (&v)[C][W], const R (&x)[C][W], const Z& c) {
  const R cr = c.real(), ci = c.imag();
  for (int k = 0; k < C; ++k) {
    const R xr = x[k][0], xi = x[k][1];
    v[k][0] += xr * cr - xi * ci;
    v[k][1] += xr * ci + xi * cr;
  }
}

/// <x_i, y_j> over the right-hand sides of a site, as 2 n^2 doubles (re, im; row i, column j): a
/// lane block's site is one row (lane i at reals 2i, 2i + 1), a row block's n rows.
template <class Rows> struct BlockInner {
  using value_type = double[];
  using size_type = int;
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width;
  int value_count;
  int n;
  Rows x, y;
  KOKKOS_FUNCTION void operator()(int site, value_type acc) const {
    // Each pair's sum in registers first: acc may alias the fields as far as the compiler knows.
    if constexpr (Rows::slots == Slots::by_lane) {
      // Every pair of lanes (the unused ones are zero), in loops the compiler unrolls and vectorises.
      constexpr int L = W / 2;
      double sum[2 * L * L] = {};
      for (int k0 = 0; k0 < Rows::comps; k0 += C) {
        real a[C][W], b[C][W];
        x.load(site, k0, a);
        y.load(site, k0, b);
        for (int k = 0; k < C; ++k)
          for (int i = 0; i < L; ++i) {
            const double ar = a[k][2 * i], ai = a[k][2 * i + 1];
            for (int j = 0; j < L; ++j) {
              const double br = b[k][2 * j], bi = b[k][2 * j + 1];
              sum[2 * (i * L + j)] += ar * br + ai * bi;
              sum[2 * (i * L + j) + 1] += ar * bi - ai * br;
            }
          }
      }
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          acc[2 * (i * n + j)] += sum[2 * (i * L + j)];
          acc[2 * (i * n + j) + 1] += sum[2 * (i * L + j) + 1];
        }
    } else {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double re = 0.0, im = 0.0;
          for (int k0 = 0; k0 < Rows::comps; k0 += C) {
            real a[C][W], b[C][W];
            x.load(site * n + i, k0, a);
            y.load(site * n + j, k0, b);
            add_dot(a, b, re, im);
          }
          acc[2 * (i * n + j)] += re;
          acc[2 * (i * n + j) + 1] += im;
        }
    }
  }
  KOKKOS_FUNCTION void init(value_type acc) const {
    for (int k = 0; k < value_count; ++k) acc[k] = 0.0;
  }
  KOKKOS_FUNCTION void join(value_type dst, const value_type src) const {
    for (int k = 0; k < value_count; ++k) dst[k] += src[k];
  }
};

/// out_j = a_j + sum_i x_i c(i, j) on row r: every right-hand side of a lane block's site (the
/// unused lanes keep a's), or right-hand side j = r % n of a row block's site. out may alias a, not x.
template <class Rows, class CView> struct BlockCombine {
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width;
  Rows out, a, x;
  CView c;
  int n;
  KOKKOS_FUNCTION void operator()(int r) const {
    if constexpr (Rows::slots == Slots::by_lane) {
      // c padded with zeros to every lane, in registers: loops the compiler unrolls and vectorises.
      constexpr int L = W / 2;
      real cr[L][L] = {}, ci[L][L] = {};
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) cr[i][j] = c(i, j).real(), ci[i][j] = c(i, j).imag();
      for (int k0 = 0; k0 < Rows::comps; k0 += C) {
        real v[C][W], xi[C][W];
        a.load(r, k0, v);
        x.load(r, k0, xi);
        for (int k = 0; k < C; ++k)
          for (int i = 0; i < L; ++i) {
            const real xr = xi[k][2 * i], xm = xi[k][2 * i + 1];
            for (int j = 0; j < L; ++j) {
              v[k][2 * j] += xr * cr[i][j] - xm * ci[i][j];
              v[k][2 * j + 1] += xr * ci[i][j] + xm * cr[i][j];
            }
          }
        out.store(r, k0, v);
      }
    } else {
      const int j = r % n;
      for (int k0 = 0; k0 < Rows::comps; k0 += C) {
        real v[C][W], xi[C][W];
        a.load(r, k0, v);
        for (int i = 0; i < n; ++i) {
          x.load(r - j + i, k0, xi);
          add_mul(v, xi, c(i, j));
        }
        out.store(r, k0, v);
      }
    }
  }
};
} // namespace detail

/// M(i, j) = <x_i, y_j> for the right-hand sides i, j of two blocks.
template <class Block> BlockMatrix block_inner(const Block& x, const Block& y) {
  detail::check_same_shape(x, y, "block_inner");
  const int n = x.n_rhs();
  std::vector<double> sums(std::size_t(2 * n * n), 0.0);
  using Rows = detail::rows_t<Block>;
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(sums.data(), sums.size());
  // Sites (vector sites on the SIMD layout) of the block: its rows, n per site where they are rows.
  const int sites = Rows::slots == detail::Slots::by_row ? detail::row_count(x) / n : detail::row_count(x);
  Kokkos::parallel_reduce("kqcd::blas::block_inner", Kokkos::RangePolicy<typename Block::execution_space>(0, sites),
                          detail::BlockInner<Rows>{2 * n * n, n, detail::row_access(x), detail::row_access(y)}, result);
  comm::sum_in_place(x.lattice(), sums.data(), int(sums.size()));
  BlockMatrix m("kqcd::block_inner", n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m(i, j) = Kokkos::complex<double>(sums[std::size_t(2 * (i * n + j))], sums[std::size_t(2 * (i * n + j) + 1)]);
  return m;
}

/// out_j = a_j + sum_i x_i c(i, j) for every right-hand side j; out may be a, not x.
template <class Block> void block_combine(Block& out, const Block& a, const Block& x, const BlockMatrix& c) {
  detail::check_same_shape(out, a, "block_combine");
  detail::check_same_shape(out, x, "block_combine");
  const int n = out.n_rhs();
  if (int(c.extent(0)) != n || int(c.extent(1)) != n)
    throw invalid_argument("blas::block_combine: a " + std::to_string(c.extent(0)) + " x " + std::to_string(c.extent(1)) +
                           " coefficient matrix for " + std::to_string(n) + " right-hand sides");
  if (out.view().data() == x.view().data())
    throw invalid_argument("blas::block_combine: the output block must not be the combined block x");
  using Rows = detail::rows_t<Block>;
  using real = typename Rows::real;
  using ES = typename Block::execution_space;
  Kokkos::View<Kokkos::complex<real>**, Kokkos::LayoutRight, typename ES::memory_space> dc("kqcd::block_combine_c", n, n);
  const auto hc = Kokkos::create_mirror_view(dc);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) hc(i, j) = Kokkos::complex<real>(real(c(i, j).real()), real(c(i, j).imag()));
  Kokkos::deep_copy(dc, hc);
  Kokkos::parallel_for("kqcd::blas::block_combine", Kokkos::RangePolicy<ES>(0, detail::row_count(out)),
                       detail::BlockCombine<Rows, decltype(dc)>{detail::row_access(out), detail::row_access(a), detail::row_access(x), dc, n});
}

/// Re <x_r, y_r> for each right-hand side r.
template <class Block> std::vector<double> rdot_each(const Block& x, const Block& y) {
  detail::check_same_shape(x, y, "rdot_each");
  return detail::first(detail::run("kqcd::blas::rdot_each", detail::RealDot{}, x, y), x.n_rhs());
}
/// |x_r|^2 of each right-hand side r.
template <class Block> std::vector<double> norm2_each(const Block& x) {
  return detail::first(detail::run("kqcd::blas::norm2_each", detail::Norm2{}, x, x), x.n_rhs());
}

/// y_r = a_r x_r + b_r y_r for each right-hand side r (a lane block's unused lanes stay zero).
template <class Block> void axpby_each(const std::vector<double>& a, const Block& x, const std::vector<double>& b, Block& y) {
  detail::check_same_shape(x, y, "axpby_each");
  detail::check_coefficients(x, a, "axpby_each");
  detail::check_coefficients(x, b, "axpby_each");
  using C = detail::coefficient_t<Block>;
  detail::run("kqcd::blas::axpby_each", detail::Axpby<Block>{C::per_slot(a), C::per_slot(b)}, x, y);
}

/// y_r = a_r x_r + y_r for each right-hand side, returning |y_r|^2 (multi-RHS CG's residual update
/// and its norms in one pass).
template <class Block> std::vector<double> axpy_norm2_each(const std::vector<double>& a, const Block& x, Block& y) {
  detail::check_same_shape(x, y, "axpy_norm2_each");
  detail::check_coefficients(x, a, "axpy_norm2_each");
  using C = detail::coefficient_t<Block>;
  return detail::first(detail::run("kqcd::blas::axpy_norm2_each", detail::AxpyNorm2<Block>{C::per_slot(a)}, x, y), x.n_rhs());
}

/// y_r = y_r + a_r x_r, then x_r = c_r z_r + b_r x_r for each right-hand side (multi-RHS CG's solution
/// and direction updates in one pass).
template <class Block>
void axpy_zpbx_each(const std::vector<double>& a, Block& x, Block& y, const std::vector<double>& c, const Block& z, const std::vector<double>& b) {
  detail::check_same_shape(x, y, "axpy_zpbx_each");
  detail::check_same_shape(x, z, "axpy_zpbx_each");
  for (const auto* co : {&a, &b, &c}) detail::check_coefficients(x, *co, "axpy_zpbx_each");
  using C = detail::coefficient_t<Block>;
  detail::run("kqcd::blas::axpy_zpbx_each", detail::AxpyZpbx<Block>{C::per_slot(a), C::per_slot(b), C::per_slot(c)}, x, y, z, z);
}

} // namespace kqcd::blas
