// Linear algebra on spinors, as the solvers need it, written once over the row accessors of
// linalg/rows.hpp: every operation is an update of loaded rows (and, for a reduction, sums of their
// reals in double), whatever the storage (complex sites, 16-bit sites with norms, SIMD lanes) or
// precision. A block of right-hand sides combines as one spinor here; linalg/blas_multi.hpp gives
// its per-right-hand-side forms. Reductions are summed over the ranks of a distributed lattice.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/linalg/rows.hpp>

#include <string>
#include <utility>
#include <vector>

/// Linear algebra on spinor fields (axpy, norms, inner products).
namespace kqcd::blas {

/// Spinors stored in 16-bit fixed point with a norm per site: HalfCBSpinor, SIMDHalfSpinor and
/// their blocks.
template <class S> concept HalfStorage = requires(const S& s) { s.norm(); };

namespace detail {
template <class A, class B> void check_same_shape(const A& a, const B& b, const char* op) {
  // A SIMD-layout spinor's rows are vector sites: only the same layout combines with it.
  constexpr bool lanes_a = requires { a.geometry(); }, lanes_b = requires { b.geometry(); };
  static_assert(lanes_a == lanes_b, "blas: a SIMD-layout spinor with a plain one (convert with to_simd / from_simd)");
  if (a.parity() != b.parity() || !(a.lattice() == b.lattice()))
    throw invalid_argument(std::string("blas::") + op + ": spinors differ in lattice or parity (" + a.lattice().to_string() +
                           " parity " + std::to_string(a.parity()) + " vs " + b.lattice().to_string() + " parity " +
                           std::to_string(b.parity()) + ")");
  if constexpr (requires { a.n_rhs(); b.n_rhs(); })
    if (a.n_rhs() != b.n_rhs())
      throw invalid_argument(std::string("blas::") + op + ": blocks of " + std::to_string(a.n_rhs()) + " and " +
                             std::to_string(b.n_rhs()) + " right-hand sides");
  if constexpr (lanes_a)
    if (!(a.geometry() == b.geometry()))
      throw invalid_argument(std::string("blas::") + op + ": SIMD spinors of different lane layouts (" +
                             std::to_string(a.geometry().lanes()) + " and " + std::to_string(b.geometry().lanes()) + " lanes)");
}

/// n sums in double: the reduction value of a spinor (and of a lane block, a sum per lane).
template <int n> struct Sums {
  double v[n] = {};
  KOKKOS_FORCEINLINE_FUNCTION Sums& operator+=(const Sums& o) {
    for (int k = 0; k < n; ++k) v[k] += o.v[k];
    return *this;
  }
};

/// Adds a row's sums, q per real w of the row (part[q][w]), to the slots of acc (n_sums per slot):
/// all to slot 0, to the row's right-hand side, or each lane to its own.
template <class Rows, int n_sums> KOKKOS_FORCEINLINE_FUNCTION void add_to_slots(int i, int n, const double (&part)[n_sums][Rows::width], double* acc) {
  constexpr int W = Rows::width;
  if constexpr (Rows::slots == Slots::by_lane) {
    for (int q = 0; q < n_sums; ++q)
      for (int l = 0; l < W / 2; ++l) acc[n_sums * l + q] += part[q][2 * l] + part[q][2 * l + 1];
  } else {
    const int base = Rows::slots == Slots::by_row ? n_sums * (i % n) : 0;
    for (int q = 0; q < n_sums; ++q) {
      double t = 0.0;
      for (int w = 0; w < W; ++w) t += part[q][w];
      acc[base + q] += t;
    }
  }
}

/// The kernel of every operation: on row i of its operands (a, b, c, d; any may alias another),
/// loads those Op::reads names (bits 1, 2, 4, 8), lets Op::update change them a chunk at a time,
/// stores those Op::writes names and, for a reduction (Op::n_sums > 0), adds Op::sum over the
/// stored values (reloaded where a store rounds them) to the slots of acc. It holds only the
/// operands it uses. A functor rather than a KOKKOS_LAMBDA: nvcc gives an extended lambda in a
/// template per-translation-unit state, and a program linked from several translation units that
/// instantiate it can call through a null pointer of it.
template <class Rows, class Op> struct RowKernel {
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width, Q = Op::n_sums;
  static constexpr int used = Op::reads | Op::writes;
  static constexpr int n_operands = used >= 8 ? 4 : used >= 4 ? 3 : used >= 2 ? 2 : 1;
  Rows rows[n_operands];
  Op op;
  int n_slots = 1;
  template <int bit> KOKKOS_FORCEINLINE_FUNCTION void load(int i, int k0, real (&v)[C][W]) const {
    if constexpr ((Op::reads & (1 << bit)) != 0) rows[bit].load(i, k0, v);
  }
  template <int bit> KOKKOS_FORCEINLINE_FUNCTION void store(int i, int k0, const real (&v)[C][W]) const {
    if constexpr ((Op::writes & (1 << bit)) != 0) rows[bit].store(i, k0, v);
  }
  KOKKOS_FORCEINLINE_FUNCTION void row(int i, double* acc) const {
    double part[Q > 0 ? Q : 1][W] = {};
    for (int k0 = 0; k0 < Rows::comps; k0 += C) {
      real va[C][W], vb[C][W], vc[C][W], vd[C][W];
      load<0>(i, k0, va);
      load<1>(i, k0, vb);
      load<2>(i, k0, vc);
      load<3>(i, k0, vd);
      op.update(i, va, vb, vc, vd);
      store<3>(i, k0, vd);
      store<2>(i, k0, vc);
      store<1>(i, k0, vb);
      store<0>(i, k0, va);
      if constexpr (Q > 0) {
        if constexpr (Rows::lossy && (Op::writes & 1) != 0) rows[0].load(i, k0, va);
        if constexpr (Rows::lossy && (Op::writes & 2) != 0) rows[1].load(i, k0, vb);
        op.sum(va, vb, part);
      }
    }
    if constexpr (Q > 0) add_to_slots<Rows, Q>(i, n_slots, part, acc);
  }
  KOKKOS_FUNCTION void operator()(int i) const { row(i, nullptr); }
};
/// A reduction of n fixed sums (a spinor's, a lane block's).
template <class K, int n> struct FixedSums {
  using value_type = Sums<n>;
  K k;
  KOKKOS_FUNCTION void operator()(int i, value_type& acc) const { k.row(i, acc.v); }
  KOKKOS_FUNCTION void init(value_type& acc) const { acc = value_type{}; }
  KOKKOS_FUNCTION void join(value_type& dst, const value_type& src) const { dst += src; }
};
/// One sum: a plain double.
template <class K> struct FixedSums<K, 1> {
  using value_type = double;
  K k;
  KOKKOS_FUNCTION void operator()(int i, double& acc) const { k.row(i, &acc); }
};
/// A reduction of value_count sums (a row block's: n_sums per right-hand side).
template <class K> struct SlotSums {
  using value_type = double[];
  using size_type = int;
  int value_count;
  K k;
  KOKKOS_FUNCTION void operator()(int i, value_type acc) const { k.row(i, acc); }
  KOKKOS_FUNCTION void init(value_type acc) const {
    for (int q = 0; q < value_count; ++q) acc[q] = 0.0;
  }
  KOKKOS_FUNCTION void join(value_type dst, const value_type src) const {
    for (int q = 0; q < value_count; ++q) dst[q] += src[q];
  }
};

/// Runs op (kernel label `label`) over the rows of a (b, c, d: operands of a's type and shape),
/// returning its sums, Op::n_sums per slot (summed over the ranks; none for an update).
template <class Op, class S> std::vector<double> run(const char* label, const Op& op, const S& a, const S& b, const S& c, const S& d) {
  using Rows = rows_t<S>;
  RowKernel<Rows, Op> k{};
  const S* operands[4] = {&a, &b, &c, &d};
  for (int q = 0; q < k.n_operands; ++q) k.rows[q] = row_access(*operands[q]);
  k.op = op;
  k.n_slots = slot_count(a);
  const Kokkos::RangePolicy<typename S::execution_space> rows(0, row_count(a));
  if constexpr (Op::n_sums == 0) {
    Kokkos::parallel_for(label, rows, k);
    return {};
  } else {
    constexpr int Q = Op::n_sums;
    std::vector<double> sums;
    if constexpr (Rows::slots == Slots::by_row) {
      sums.assign(std::size_t(Q * k.n_slots), 0.0);
      // An array reduction returns into a host view (Kokkos 5 refuses a raw pointer).
      const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(sums.data(), sums.size());
      Kokkos::parallel_reduce(label, rows, SlotSums<RowKernel<Rows, Op>>{int(sums.size()), k}, result);
    } else {
      constexpr int n = Q * (Rows::slots == Slots::one ? 1 : Rows::width / 2);
      typename FixedSums<RowKernel<Rows, Op>, n>::value_type s{};
      Kokkos::parallel_reduce(label, rows, FixedSums<RowKernel<Rows, Op>, n>{k}, s);
      if constexpr (n == 1) sums.assign(1, s);
      else sums.assign(s.v, s.v + n);
    }
    comm::sum_in_place(a.lattice(), sums.data(), int(sums.size()));
    return sums;
  }
}
/// The same with two distinct operands (b also stands for c and d).
template <class Op, class S> std::vector<double> run(const char* label, const Op& op, const S& a, const S& b) {
  return run(label, op, a, b, b, b);
}
/// The sums of all slots, n_sums per slot: a whole block's as one spinor's.
inline std::vector<double> total(const std::vector<double>& sums, int n_sums) {
  std::vector<double> t(std::size_t(n_sums), 0.0);
  for (std::size_t k = 0; k < sums.size(); ++k) t[k % std::size_t(n_sums)] += sums[k];
  return t;
}

/// Real coefficients of the rows of S.
template <class S> using coefficient_t = RealCoefficient<rows_t<S>>;
/// A complex coefficient (one for every slot).
template <class real> struct Complex {
  real re, im;
  static Complex of(Kokkos::complex<double> z) { return {real(z.real()), real(z.imag())}; }
};

// The operations: reads and writes name the operands (1: a, 2: b, 4: c, 8: d); update works on a
// chunk of components (C of W reals: complex numbers in pairs); sum adds part[q][w] per real w.
/// b = alpha a + beta b (a coefficient per slot).
template <class S> struct Axpby {
  static constexpr int reads = 3, writes = 2, n_sums = 0;
  coefficient_t<S> alpha, beta;
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void update(int i, R (&a)[C][W], R (&b)[C][W], R (&)[C][W], R (&)[C][W]) const {
    const auto x = alpha.row(i), y = beta.row(i);
    for (int k = 0; k < C; ++k)
      for (int w = 0; w < W; ++w) b[k][w] = x[w] * a[k][w] + y[w] * b[k][w];
  }
};
/// b = b + alpha a, then a = gamma c + beta a (a coefficient per slot; QUDA's axpyZpbx).
template <class S> struct AxpyZpbx {
  static constexpr int reads = 7, writes = 3, n_sums = 0;
  coefficient_t<S> alpha, beta, gamma;
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void update(int i, R (&a)[C][W], R (&b)[C][W], R (&c)[C][W], R (&)[C][W]) const {
    const auto x = alpha.row(i), y = beta.row(i), z = gamma.row(i);
    for (int k = 0; k < C; ++k)
      for (int w = 0; w < W; ++w) {
        b[k][w] += x[w] * a[k][w];
        a[k][w] = z[w] * c[k][w] + y[w] * a[k][w];
      }
  }
};
/// part += |b|^2 per real.
template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void add_norm(const R (&b)[C][W], double (&part)[1][W]) {
  for (int k = 0; k < C; ++k)
    for (int w = 0; w < W; ++w) part[0][w] += double(b[k][w]) * double(b[k][w]);
}
/// b = alpha a + b and |b|^2 (a coefficient per slot).
template <class S> struct AxpyNorm2 {
  static constexpr int reads = 3, writes = 2, n_sums = 1;
  coefficient_t<S> alpha;
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void update(int i, R (&a)[C][W], R (&b)[C][W], R (&)[C][W], R (&)[C][W]) const {
    const auto x = alpha.row(i);
    for (int k = 0; k < C; ++k)
      for (int w = 0; w < W; ++w) b[k][w] += x[w] * a[k][w];
  }
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void sum(const R (&)[C][W], const R (&b)[C][W], double (&part)[1][W]) const {
    add_norm(b, part);
  }
};
/// (re, im) += z a for the complex pairs of a chunk.
template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void add_cmul(R (&b)[C][W], R zr, R zi, const R (&a)[C][W]) {
  for (int k = 0; k < C; ++k)
    for (int w = 0; w < W; w += 2) {
      const R ar = a[k][w], ai = a[k][w + 1];
      b[k][w] += zr * ar - zi * ai;
      b[k][w + 1] += zr * ai + zi * ar;
    }
}
/// b = z a + b (complex z), with n_sums = 1 also |b|^2.
template <class S, int with_norm> struct Caxpy {
  static constexpr int reads = 3, writes = 2, n_sums = with_norm;
  Complex<typename rows_t<S>::real> z;
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void update(int, R (&a)[C][W], R (&b)[C][W], R (&)[C][W], R (&)[C][W]) const {
    add_cmul(b, z.re, z.im, a);
  }
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void sum(const R (&)[C][W], const R (&b)[C][W], double (&part)[1][W]) const {
    add_norm(b, part);
  }
};
/// d = a + y b + z c (complex y, z; BiCGStab's direction update; d may be any of a, b, c).
template <class S> struct Cxpaypbz {
  static constexpr int reads = 7, writes = 8, n_sums = 0;
  Complex<typename rows_t<S>::real> y, z;
  template <class R, int C, int W>
  KOKKOS_FORCEINLINE_FUNCTION void update(int, R (&a)[C][W], R (&b)[C][W], R (&c)[C][W], R (&d)[C][W]) const {
    for (int k = 0; k < C; ++k)
      for (int w = 0; w < W; ++w) d[k][w] = a[k][w];
    add_cmul(d, y.re, y.im, b);
    add_cmul(d, z.re, z.im, c);
  }
};
/// Reductions without an update: sum |a|^2; Re <a, b>; <a, b> as (re, im), and with norm also |a|^2.
template <int n, bool reads_b> struct Reduction {
  static constexpr int reads = reads_b ? 3 : 1, writes = 0, n_sums = n;
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void update(int, R (&)[C][W], R (&)[C][W], R (&)[C][W], R (&)[C][W]) const {}
  template <class R, int C, int W> KOKKOS_FORCEINLINE_FUNCTION void sum(const R (&a)[C][W], const R (&b)[C][W], double (&part)[n][W]) const {
    for (int k = 0; k < C; ++k)
      for (int w = 0; w < W; ++w) {
        const double x = a[k][w];
        if constexpr (!reads_b) {
          part[0][w] += x * x;
        } else {
          part[0][w] += x * double(b[k][w]);
          // Im conj(a) b = a_re b_im - a_im b_re: each real times its partner, the imaginary part negated.
          if constexpr (n >= 2) part[1][w] += ((w & 1) != 0 ? -x : x) * double(b[k][w ^ 1]);
          if constexpr (n == 3) part[2][w] += x * x;
        }
      }
  }
};
using Norm2 = Reduction<1, false>;
using RealDot = Reduction<1, true>;
using Dot = Reduction<2, true>;
using DotNorm2 = Reduction<3, true>;

/// Multi-shift CG's solution and direction updates of up to max_shift_batch shifts in one pass, r
/// read once: x_s += a_s p_s, then p_s = z_s r + b_s p_s (QUDA's multi-shift axpyBzpcx).
inline constexpr int max_shift_batch = 8;
template <class Rows> struct ShiftUpdates {
  using real = typename Rows::real;
  static constexpr int C = Rows::chunk, W = Rows::width, N = max_shift_batch;
  Rows r, p[N], x[N];
  real a[N] = {}, b[N] = {}, z[N] = {};
  int n = 0;
  KOKKOS_FUNCTION void operator()(int i) const {
    for (int k0 = 0; k0 < Rows::comps; k0 += C) {
      real vr[C][W];
      r.load(i, k0, vr);
      for (int s = 0; s < n; ++s) {
        real vp[C][W], vx[C][W];
        p[s].load(i, k0, vp);
        x[s].load(i, k0, vx);
        for (int k = 0; k < C; ++k)
          for (int w = 0; w < W; ++w) {
            vx[k][w] += a[s] * vp[k][w];
            vp[k][w] = z[s] * vr[k][w] + b[s] * vp[k][w];
          }
        x[s].store(i, k0, vx);
        p[s].store(i, k0, vp);
      }
    }
  }
};

/// dst = src row by row, converting precision (and, between lane blocks of different widths, lane r
/// to lane r, dst's other lanes zero).
template <class DR, class SR> struct CopyKernel {
  DR d;
  SR s;
  static_assert(DR::comps == SR::comps && DR::slots == SR::slots, "blas::copy: spinors of different shapes");
  static_assert((DR::chunk == 1 || DR::chunk == DR::comps) && (SR::chunk == 1 || SR::chunk == SR::comps));
  static constexpr int K = DR::comps, DW = DR::width, SW = SR::width;
  using DReal = typename DR::real;
  using SReal = typename SR::real;
  KOKKOS_FUNCTION void operator()(int i) const {
    if constexpr (DR::chunk == SR::chunk) {
      for (int k0 = 0; k0 < K; k0 += DR::chunk) {
        SReal in[SR::chunk][SW];
        DReal out[DR::chunk][DW];
        s.load(i, k0, in);
        for (int k = 0; k < DR::chunk; ++k) convert(in[k], out[k]);
        d.store(i, k0, out);
      }
    } else if constexpr (SR::chunk == K) {
      // The source gives its row whole, the destination takes a component at a time.
      SReal in[K][SW];
      s.load(i, 0, in);
      for (int k = 0; k < K; ++k) {
        DReal one[1][DW];
        convert(in[k], one[0]);
        d.store(i, k, one);
      }
    } else {
      // The source gives a component at a time, the destination takes its row whole.
      DReal out[K][DW];
      for (int k = 0; k < K; ++k) {
        SReal one[1][SW];
        s.load(i, k, one);
        convert(one[0], out[k]);
      }
      d.store(i, 0, out);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static void convert(const SReal (&in)[SW], DReal (&out)[DW]) {
    for (int w = 0; w < DW; ++w) out[w] = w < SW ? DReal(in[w]) : DReal(0);
  }
};
/// dst = src row by row; 16-bit sites convert in double, so that a copy rounds as an insert into a
/// block does.
template <class Dst, class Src> void copy_rows(Dst& dst, const Src& src) {
  const auto d = row_access<double>(dst);
  const auto s = row_access<double>(src);
  Kokkos::parallel_for("kqcd::blas::copy", Kokkos::RangePolicy<typename Dst::execution_space>(0, row_count(dst)),
                       CopyKernel<std::remove_cvref_t<decltype(d)>, std::remove_cvref_t<decltype(s)>>{d, s});
}
} // namespace detail

/// x = 0.
template <class Spinor> void zero(Spinor& x) {
  if constexpr (requires { requires Spinor::two_parities; }) { // each parity's part
    zero(x[0]);
    zero(x[1]);
  } else {
    Kokkos::deep_copy(x.view(), typename std::remove_cvref_t<decltype(x.view())>::non_const_value_type{});
    if constexpr (HalfStorage<Spinor>) Kokkos::deep_copy(x.norm(), 0.0f);
  }
}

/// dst = src, converting precision and storage where the two differ; between SIMD layouts of other
/// lanes or splits each site moves to its new lane (convert_layout; a vector of two parts part by part).
template <class Dst, class Src> void copy(Dst& dst, const Src& src) {
  if constexpr (requires { dst[0].geometry(); src[0].geometry(); }) { // two parts in lanes (ParityPair, FullSpinor)
    if (!(dst[0].geometry() == src[0].geometry())) {
      for (int q = 0; q < 2; ++q) copy(dst[q], src[q]);
      return;
    }
  }
  if constexpr (requires { dst.geometry(); src.geometry(); })
    if (!(dst.geometry() == src.geometry())) return convert_layout(dst, src);
  detail::check_same_shape(dst, src, "copy");
  detail::copy_rows(dst, src);
}

/// y = a x + b y (real a, b).
template <class Spinor> void axpby(double a, const Spinor& x, double b, Spinor& y) {
  detail::check_same_shape(x, y, "axpby");
  using C = detail::coefficient_t<Spinor>;
  detail::run("kqcd::blas::axpby", detail::Axpby<Spinor>{C::uniform(a), C::uniform(b)}, x, y);
}
/// y += a x.
template <class Spinor> void axpy(double a, const Spinor& x, Spinor& y) { axpby(a, x, 1.0, y); }
/// y *= a.
template <class Spinor> void scale(double a, Spinor& y) { axpby(0.0, y, a, y); }

/// y = a x + y (complex a).
template <class Spinor> void caxpy(Kokkos::complex<double> a, const Spinor& x, Spinor& y) {
  detail::check_same_shape(x, y, "caxpy");
  using C = detail::Complex<typename detail::rows_t<Spinor>::real>;
  detail::run("kqcd::blas::caxpy", detail::Caxpy<Spinor, 0>{C::of(a)}, x, y);
}

/// z = x + a y + b w (complex a, b); used by BiCGStab's direction update.
template <class Spinor>
void cxpaypbz(const Spinor& x, Kokkos::complex<double> a, const Spinor& y, Kokkos::complex<double> b, const Spinor& w, Spinor& z) {
  detail::check_same_shape(x, z, "cxpaypbz");
  detail::check_same_shape(y, z, "cxpaypbz");
  detail::check_same_shape(w, z, "cxpaypbz");
  using C = detail::Complex<typename detail::rows_t<Spinor>::real>;
  detail::run("kqcd::blas::cxpaypbz", detail::Cxpaypbz<Spinor>{C::of(a), C::of(b)}, x, y, w, z);
}

/// |x|^2.
template <class Spinor> double norm2(const Spinor& x) { return detail::total(detail::run("kqcd::blas::norm2", detail::Norm2{}, x, x), 1)[0]; }

/// <x, y> = sum conj(x) y.
template <class Spinor> Kokkos::complex<double> cdot(const Spinor& x, const Spinor& y) {
  detail::check_same_shape(x, y, "cdot");
  const auto s = detail::total(detail::run("kqcd::blas::cdot", detail::Dot{}, x, y), 2);
  return {s[0], s[1]};
}
/// Re <x, y>.
template <class Spinor> double rdot(const Spinor& x, const Spinor& y) {
  detail::check_same_shape(x, y, "rdot");
  return detail::total(detail::run("kqcd::blas::rdot", detail::RealDot{}, x, y), 1)[0];
}

/// <x, y> and |x|^2 in one pass (BiCGStab's omega = <t, s> / |t|^2).
template <class Spinor> std::pair<Kokkos::complex<double>, double> cdot_norm2(const Spinor& x, const Spinor& y) {
  detail::check_same_shape(x, y, "cdot_norm2");
  const auto s = detail::total(detail::run("kqcd::blas::cdot_norm2", detail::DotNorm2{}, x, y), 3);
  return {{s[0], s[1]}, s[2]};
}

/// y = a x + y (real a), returning |y|^2: CG's residual update and its norm in one pass.
template <class Spinor> double axpy_norm2(double a, const Spinor& x, Spinor& y) {
  detail::check_same_shape(x, y, "axpy_norm2");
  using C = detail::coefficient_t<Spinor>;
  return detail::total(detail::run("kqcd::blas::axpy_norm2", detail::AxpyNorm2<Spinor>{C::uniform(a)}, x, y), 1)[0];
}
/// y = a x + y (complex a), returning |y|^2 (BiCGStab's r = s - omega t and its norm).
template <class Spinor> double caxpy_norm2(Kokkos::complex<double> a, const Spinor& x, Spinor& y) {
  detail::check_same_shape(x, y, "caxpy_norm2");
  using C = detail::Complex<typename detail::rows_t<Spinor>::real>;
  return detail::total(detail::run("kqcd::blas::caxpy_norm2", detail::Caxpy<Spinor, 1>{C::of(a)}, x, y), 1)[0];
}

/// y = y + a x, then x = z + b x (real a, b; QUDA's axpyZpbx): CG's solution and direction updates
/// in one pass.
template <class Spinor> void axpy_zpbx(double a, Spinor& x, Spinor& y, const Spinor& z, double b) {
  detail::check_same_shape(x, y, "axpy_zpbx");
  detail::check_same_shape(x, z, "axpy_zpbx");
  using C = detail::coefficient_t<Spinor>;
  detail::run("kqcd::blas::axpy_zpbx", detail::AxpyZpbx<Spinor>{C::uniform(a), C::uniform(b), C::uniform(1.0)}, x, y, z, z);
}

/// For each shift s: x[s] += a[s] p[s], then p[s] = z[s] r + b[s] p[s] (real coefficients):
/// multi-shift CG's updates of every shift, r read once per max_shift_batch shifts.
template <class Spinor>
void axpy_zpbx_shifts(const std::vector<double>& a, const std::vector<Spinor*>& p, const std::vector<Spinor*>& x, const Spinor& r,
                      const std::vector<double>& b, const std::vector<double>& z) {
  const std::size_t n = p.size();
  if (x.size() != n || a.size() != n || b.size() != n || z.size() != n)
    throw invalid_argument("blas::axpy_zpbx_shifts: " + std::to_string(n) + " directions with " + std::to_string(x.size()) +
                           " solutions and " + std::to_string(a.size()) + ", " + std::to_string(b.size()) + ", " +
                           std::to_string(z.size()) + " coefficients");
  using Rows = detail::rows_t<Spinor>;
  using real = typename Rows::real;
  for (std::size_t s0 = 0; s0 < n; s0 += detail::max_shift_batch) {
    detail::ShiftUpdates<Rows> k{};
    k.r = detail::row_access(r);
    for (std::size_t s = s0; s < n && s < s0 + detail::max_shift_batch; ++s, ++k.n) {
      detail::check_same_shape(*p[s], r, "axpy_zpbx_shifts");
      detail::check_same_shape(*x[s], r, "axpy_zpbx_shifts");
      k.p[k.n] = detail::row_access(*p[s]);
      k.x[k.n] = detail::row_access(*x[s]);
      k.a[k.n] = real(a[s]);
      k.b[k.n] = real(b[s]);
      k.z[k.n] = real(z[s]);
    }
    Kokkos::parallel_for("kqcd::blas::axpy_zpbx_shifts", Kokkos::RangePolicy<typename Spinor::execution_space>(0, detail::row_count(r)), k);
  }
}

} // namespace kqcd::blas
