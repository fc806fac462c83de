// Linear algebra on checkerboarded spinors, as the solvers need it. Reductions accumulate in
// double whatever the field precision and are summed over the ranks of a distributed lattice.
// 16-bit spinors (HalfCBSpinor, SIMDHalfSpinor) have their own overloads at the end: each site is
// loaded in float, combined and stored back with a new norm.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/simd_fields.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <string>
#include <utility>

/// Linear algebra on spinor fields (axpy, norms, inner products).
namespace kqcd::blas {

namespace detail {
template <class A, class B> void check_same_shape(const A& a, const B& b, const char* op) {
  // A SIMD-layout spinor's view() holds its sites in lane order: only the same layout combines with it.
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
/// Every row of a spinor: its sites, or for a block of right-hand sides (fields/multi_spinor.hpp)
/// each site's rows, so that a whole block combines as one spinor.
template <class Spinor> auto range(const Spinor& s) {
  if constexpr (requires { s.n_rhs(); }) return Kokkos::RangePolicy<typename Spinor::execution_space>(0, s.sites() * s.n_rhs());
  else return Kokkos::RangePolicy<typename Spinor::execution_space>(0, s.sites());
}

/// Whether a spinor view keeps each site's components contiguous (LayoutRight: the host layouts,
/// plain and SIMD), so that one thread walks them in order; otherwise (the GPU's site-fastest
/// layout) a component's neighbours in memory belong to other threads' sites.
template <class View> constexpr bool contiguous_sites = std::is_same_v<typename View::array_layout, Kokkos::LayoutRight>;

/// f(v...) on the components of site i of the views v (spinor views of one shape; f takes them by
/// reference, generically, and may write them; f combines them with real coefficients only): with
/// contiguous sites as the site's 2 Nc n_spin reals, which compilers vectorise (over
/// Kokkos::complex<float> they do not); otherwise as its complex numbers (coalesced across threads).
template <int n_spin, class F, class View, class... Views>
KOKKOS_FORCEINLINE_FUNCTION void for_site_components(int i, const F& f, const View& v, const Views&... vs) {
  if constexpr (contiguous_sites<View>) {
    using R = typename View::value_type::value_type;
    for (int k = 0; k < 2 * Nc * n_spin; ++k) f(reinterpret_cast<R*>(&v(i, 0, 0))[k], reinterpret_cast<R*>(&vs(i, 0, 0))[k]...);
  } else {
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) f(v(i, c, sp), vs(i, c, sp)...);
  }
}

/// The sum over a site's components of term(c, sp). With contiguous sites in four interleaved
/// partial sums, so that a core's reduction waits on one add per site rather than one per
/// component; otherwise in order (a GPU thread's chain is hidden by the other warps).
template <class T, int n_spin, bool contiguous, class Term> KOKKOS_FORCEINLINE_FUNCTION T site_sum(const Term& term) {
  if constexpr (contiguous) {
    T part[4] = {T(0), T(0), T(0), T(0)};
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) part[(c * n_spin + sp) % 4] += term(c, sp);
    return (part[0] + part[1]) + (part[2] + part[3]);
  } else {
    T sum(0);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) sum += term(c, sp);
    return sum;
  }
}
} // namespace detail

namespace detail {
// The kernels are functors rather than KOKKOS_LAMBDAs: nvcc gives an extended __host__ __device__
// lambda in a template private per-translation-unit helper state, and a program linked from several
// translation units that instantiate the template can call through a null pointer of it (CUDA solves
// crashed so in some builds; ArborX and IPPL met the same).

/// |a|^2 in double precision.
template <class T> KOKKOS_FORCEINLINE_FUNCTION double norm_term(const T& a) {
  const double ar = a.real(), ai = a.imag();
  return ar * ar + ai * ai;
}
/// conj(a) b in double precision.
template <class T> KOKKOS_FORCEINLINE_FUNCTION Kokkos::complex<double> dot_term(const T& a, const T& b) {
  const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  return {ar * br + ai * bi, ar * bi - ai * br};
}

/// The view type of a spinor S.
template <class S> using view_of = std::remove_cvref_t<decltype(std::declval<const S&>().view())>;

/// d = s per component, converting precision.
template <int n_spin, class D, class S> struct CopyKernel {
  D d;
  S s;
  KOKKOS_FUNCTION void operator()(int i) const {
    using T = typename D::non_const_value_type;
    using R = typename T::value_type;
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) d(i, c, sp) = T(R(s(i, c, sp).real()), R(s(i, c, sp).imag()));
  }
};
/// y = a x + b y (real a, b).
template <int n_spin, class R, class View> struct AxpbyKernel {
  R a, b;
  View x, y;
  KOKKOS_FUNCTION void operator()(int i) const {
    for_site_components<n_spin>(i, [&](auto& yk, auto xk) { yk = a * xk + b * yk; }, y, x);
  }
};
/// y = y + a x, then x = z + b x (real a, b).
template <int n_spin, class R, class View> struct AxpyZpbxKernel {
  R a, b;
  View x, y, z;
  KOKKOS_FUNCTION void operator()(int i) const {
    for_site_components<n_spin>(i, [&](auto& xk, auto& yk, auto zk) {
      yk += a * xk;
      xk = zk + b * xk;
    }, x, y, z);
  }
};
/// The complex updates z = f(x, y, w), for complex numbers (CombineKernel; the 16-bit BLAS) and SIMD
/// registers (16-bit lanes) alike; T the coefficients' complex type.
template <class T> struct Caxpy { ///< a x + y
  T a;
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C operator()(const C& x, const C& y, const C&) const { return a * x + y; }
};
template <class T> struct Cxpaypbz { ///< x + a y + b w
  T a, b;
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C operator()(const C& x, const C& y, const C& w) const { return x + a * y + b * w; }
};
template <class T> KOKKOS_INLINE_FUNCTION T to_complex(Kokkos::complex<double> a) {
  using R = typename T::value_type;
  return T(R(a.real()), R(a.imag()));
}
/// z = f(x, y, w) component by component (z may be any of the inputs).
template <int n_spin, class View, class F> struct CombineKernel {
  View x, y, w, z;
  F f;
  KOKKOS_FUNCTION void operator()(int i) const {
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) z(i, c, sp) = f(x(i, c, sp), y(i, c, sp), w(i, c, sp));
  }
};
/// sum |x|^2.
template <int n_spin, class View> struct Norm2Kernel {
  View x;
  KOKKOS_FUNCTION void operator()(int i, double& acc) const {
    acc += site_sum<double, n_spin, contiguous_sites<View>>([&](int c, int sp) { return norm_term(x(i, c, sp)); });
  }
};
/// sum conj(x) y, and with norm also |x|^2.
template <int n_spin, class View> struct CdotKernel {
  View x, y;
  KOKKOS_FUNCTION void operator()(int i, Kokkos::complex<double>& acc) const {
    acc += site_sum<Kokkos::complex<double>, n_spin, contiguous_sites<View>>(
        [&](int c, int sp) { return dot_term(x(i, c, sp), y(i, c, sp)); });
  }
  KOKKOS_FUNCTION void operator()(int i, Kokkos::complex<double>& acc, double& nacc) const {
    (*this)(i, acc);
    nacc += site_sum<double, n_spin, contiguous_sites<View>>([&](int c, int sp) { return norm_term(x(i, c, sp)); });
  }
};
/// y = a x + y, summing |y|^2.
template <int n_spin, class A, class View> struct AxpyNorm2Kernel {
  A a;
  View x, y;
  KOKKOS_FUNCTION void operator()(int i, double& acc) const {
    acc += site_sum<double, n_spin, contiguous_sites<View>>([&](int c, int sp) {
      const auto v = a * x(i, c, sp) + y(i, c, sp);
      y(i, c, sp) = v;
      return norm_term(v);
    });
  }
};

/// dst = src component by component (the same site order in both), converting precision.
template <class Dst, class Src> void copy_components(Dst& dst, const Src& src) {
  Kokkos::parallel_for("kqcd::blas::copy", range(dst), CopyKernel<Dst::n_spin, view_of<Dst>, view_of<Src>>{dst.view(), src.view()});
}
} // namespace detail

/// x = 0.
template <class Spinor> void zero(Spinor& x) { Kokkos::deep_copy(x.view(), typename Spinor::value_type(0)); }

/// dst = src, converting precision where the two differ.
template <class Dst, class Src> void copy(Dst& dst, const Src& src) {
  detail::check_same_shape(dst, src, "copy");
  detail::copy_components(dst, src);
}

/// dst = src between SIMD layouts: a plain copy where the lanes agree, else each site to its new lane.
template <class VD, class VS, class ES> void copy(SIMDSpinor<VD, ES>& dst, const SIMDSpinor<VS, ES>& src) {
  if (dst.geometry() == src.geometry()) detail::copy_components(dst, src);
  else convert_layout(dst, src);
}

/// y = a x + b y (real a, b)
template <class Spinor> void axpby(double a, const Spinor& x, double b, Spinor& y) {
  detail::check_same_shape(x, y, "axpby");
  using R = typename Spinor::real_type;
  using View = detail::view_of<Spinor>;
  Kokkos::parallel_for("kqcd::blas::axpby", detail::range(y), detail::AxpbyKernel<Spinor::n_spin, R, View>{R(a), R(b), x.view(), y.view()});
}
/// y += a x.
template <class Spinor> void axpy(double a, const Spinor& x, Spinor& y) { axpby(a, x, 1.0, y); }
/// y *= a.
template <class Spinor> void scale(double a, Spinor& y) { axpby(0.0, y, a, y); }

/// y = a x + y (complex a)
template <class Spinor> void caxpy(Kokkos::complex<double> a, const Spinor& x, Spinor& y) {
  detail::check_same_shape(x, y, "caxpy");
  using T = typename Spinor::value_type;
  using F = detail::Caxpy<T>;
  Kokkos::parallel_for("kqcd::blas::caxpy", detail::range(y),
                       detail::CombineKernel<Spinor::n_spin, detail::view_of<Spinor>, F>{x.view(), y.view(), y.view(), y.view(),
                                                                                          F{detail::to_complex<T>(a)}});
}

/// z = x + a y + b w (complex a, b); used by BiCGStab's direction update.
template <class Spinor>
void cxpaypbz(const Spinor& x, Kokkos::complex<double> a, const Spinor& y, Kokkos::complex<double> b, const Spinor& w,
              Spinor& z) {
  detail::check_same_shape(x, z, "cxpaypbz");
  detail::check_same_shape(y, z, "cxpaypbz");
  detail::check_same_shape(w, z, "cxpaypbz");
  using T = typename Spinor::value_type;
  using F = detail::Cxpaypbz<T>;
  Kokkos::parallel_for("kqcd::blas::cxpaypbz", detail::range(z),
                       detail::CombineKernel<Spinor::n_spin, detail::view_of<Spinor>, F>{
                           x.view(), y.view(), w.view(), z.view(), F{detail::to_complex<T>(a), detail::to_complex<T>(b)}});
}

/// |x|^2
template <class Spinor> double norm2(const Spinor& x) {
  double sum = 0.0;
  Kokkos::parallel_reduce("kqcd::blas::norm2", detail::range(x), detail::Norm2Kernel<Spinor::n_spin, detail::view_of<Spinor>>{x.view()}, sum);
  return comm::sum(x.lattice(), sum);
}

/// <x, y> = sum conj(x) y
template <class Spinor> Kokkos::complex<double> cdot(const Spinor& x, const Spinor& y) {
  detail::check_same_shape(x, y, "cdot");
  Kokkos::complex<double> sum(0.0);
  Kokkos::parallel_reduce("kqcd::blas::cdot", detail::range(x), detail::CdotKernel<Spinor::n_spin, detail::view_of<Spinor>>{x.view(), y.view()}, sum);
  return comm::sum(x.lattice(), sum);
}

/// <x, y> and |x|^2 in one pass (BiCGStab's omega = <t, s> / |t|^2).
template <class Spinor> std::pair<Kokkos::complex<double>, double> cdot_norm2(const Spinor& x, const Spinor& y) {
  detail::check_same_shape(x, y, "cdot_norm2");
  Kokkos::complex<double> dot(0.0);
  double n2 = 0.0;
  Kokkos::parallel_reduce("kqcd::blas::cdot_norm2", detail::range(x), detail::CdotKernel<Spinor::n_spin, detail::view_of<Spinor>>{x.view(), y.view()},
                          dot, n2);
  return {comm::sum(x.lattice(), dot), comm::sum(x.lattice(), n2)};
}

namespace detail {
/// y = a x + y with a of type A (real or complex in the spinor's precision), returning |y|^2.
template <class A, class Spinor> double axpy_norm2(const char* label, A a, const Spinor& x, Spinor& y) {
  check_same_shape(x, y, label);
  double sum = 0.0;
  Kokkos::parallel_reduce(label, range(y), AxpyNorm2Kernel<Spinor::n_spin, A, view_of<Spinor>>{a, x.view(), y.view()}, sum);
  return comm::sum(y.lattice(), sum);
}
} // namespace detail

/// y = a x + y (real a), returning |y|^2: CG's residual update and its norm in one pass.
template <class Spinor> double axpy_norm2(double a, const Spinor& x, Spinor& y) {
  return detail::axpy_norm2("kqcd::blas::axpy_norm2", typename Spinor::real_type(a), x, y);
}
/// y = a x + y (complex a), returning |y|^2 (BiCGStab's r = s - omega t and its norm).
template <class Spinor> double caxpy_norm2(Kokkos::complex<double> a, const Spinor& x, Spinor& y) {
  using R = typename Spinor::real_type;
  return detail::axpy_norm2("kqcd::blas::caxpy_norm2", typename Spinor::value_type(R(a.real()), R(a.imag())), x, y);
}

/// Re <x, y>
template <class Spinor> double rdot(const Spinor& x, const Spinor& y) { return cdot(x, y).real(); }

/// y = y + a x, then x = z + b x (real a, b; QUDA's axpyZpbx): CG's solution and direction updates
/// in one pass.
template <class Spinor> void axpy_zpbx(double a, Spinor& x, Spinor& y, const Spinor& z, double b) {
  detail::check_same_shape(x, y, "axpy_zpbx");
  detail::check_same_shape(x, z, "axpy_zpbx");
  using R = typename Spinor::real_type;
  using View = detail::view_of<Spinor>;
  Kokkos::parallel_for("kqcd::blas::axpy_zpbx", detail::range(x),
                       detail::AxpyZpbxKernel<Spinor::n_spin, R, View>{R(a), R(b), x.view(), y.view(), z.view()});
}

// ---- 16-bit storage: through the site accessors (fields/spinor_access.hpp) ----
/// Spinors stored in 16-bit fixed point with a norm per site: HalfCBSpinor, SIMDHalfSpinor.
template <class S> concept HalfStorage = requires(const S& s) { s.norm(); };

namespace detail {
/// The update of row i: f, or f.at(i) where the coefficients differ by row (a block's right-hand sides).
template <class F> KOKKOS_FORCEINLINE_FUNCTION auto op_at(const F& f, int i) {
  if constexpr (requires { f.at(i); }) return f.at(i);
  else return f;
}
/// Site i of 16-bit spinors through the accessors: z = f(x, y, w) in float (w read where n_inputs = 3).
template <int n_inputs, class Reader, class Writer, class F> struct HalfCombineKernel {
  Reader x, y, w;
  Writer z;
  F f;
  KOKKOS_FUNCTION void operator()(int i) const {
    Kokkos::complex<float> xv[Nc][Ns], yv[Nc][Ns], wv[Nc][Ns];
    x.load(i, xv);
    y.load(i, yv);
    if constexpr (n_inputs == 3) w.load(i, wv);
    const auto op = op_at(f, i);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Ns; ++sp) xv[c][sp] = op(xv[c][sp], yv[c][sp], wv[c][sp]);
    z.store(i, xv);
  }
};
/// Site i of 16-bit spinors through the accessors: acc += term over its components (y read where Term::reads_y).
template <class T, class Reader, class Term> struct HalfReduceKernel {
  Reader x, y;
  Term term;
  KOKKOS_FUNCTION void operator()(int i, T& acc) const {
    Kokkos::complex<float> xv[Nc][Ns], yv[Nc][Ns];
    x.load(i, xv);
    if constexpr (Term::reads_y) y.load(i, yv);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Ns; ++sp) {
        if constexpr (Term::reads_y) term(xv[c][sp].real(), xv[c][sp].imag(), yv[c][sp].real(), yv[c][sp].imag(), acc);
        else term(xv[c][sp].real(), xv[c][sp].imag(), 0.0f, 0.0f, acc);
      }
  }
};

/// dst = src site by site through the accessors, converting whatever the two formats.
template <class Dst, class Src> void copy_sites(Dst& dst, const Src& src) {
  check_same_shape(dst, src, "copy");
  convert_rows(dst, src, range(dst), "kqcd::blas::copy_sites");
}
/// copy_sites, or between SIMD layouts of other lanes or splits convert_layout.
template <class Dst, class Src> void copy_or_convert(Dst& dst, const Src& src) {
  if constexpr (requires { dst.geometry(); src.geometry(); })
    if (!(dst.geometry() == src.geometry())) return convert_layout(dst, src);
  copy_sites(dst, src);
}
} // namespace detail

/// x = 0 (16-bit).
template <HalfStorage S> void zero(S& x) {
  Kokkos::deep_copy(x.view(), typename std::remove_cvref_t<decltype(x.view())>::non_const_value_type{});
  Kokkos::deep_copy(x.norm(), 0.0f);
}
/// dst = src, into 16-bit storage.
template <HalfStorage S, class Src> void copy(S& dst, const Src& src) { detail::copy_or_convert(dst, src); }
/// dst = src, from 16-bit storage.
template <class Dst, HalfStorage S> void copy(Dst& dst, const S& src) { detail::copy_or_convert(dst, src); }
/// dst = src, both 16-bit.
template <HalfStorage S> void copy(S& dst, const S& src) {
  detail::check_same_shape(dst, src, "copy");
  Kokkos::deep_copy(dst.view(), src.view());
  Kokkos::deep_copy(dst.norm(), src.norm());
}

namespace detail {
/// 16-bit spinors whose sites are lanes of vector sites (SIMDHalfSpinor; a lane block's right-hand
/// sides): combined and reduced a vector site (a register per component) at a time, each lane with
/// its own norm.
template <class S> constexpr bool lane_sites = requires(const S& s) { lane_reader(s); };
/// The vector sites of such a spinor: its geometry's, or a lane block's sites.
template <class S> int vector_sites(const S& s) {
  if constexpr (requires { s.geometry(); }) return s.geometry().vsites();
  else return s.lattice().cb_volume();
}

/// z = f(x, y, w) component by component, in float, one site (or vector site) per iteration (each
/// site of a 16-bit spinor shares one norm, so it is loaded and stored whole); z may alias any input.
/// f takes complex numbers or registers of them. With n_inputs = 2, f's third argument is
/// unspecified and w is not read (pass any spinor of the shape).
template <int n_inputs, HalfStorage S, class F> void half_combine(const char* op, const S& x, const S& y, const S& w, S& z, F f) {
  check_same_shape(x, z, op);
  check_same_shape(y, z, op);
  check_same_shape(w, z, op);
  const std::string label = std::string("kqcd::blas::") + op + "_half";
  if constexpr (lane_sites<S>) {
    using V = typename S::simd_type;
    const auto xr = lane_reader(x), yr = lane_reader(y), wr = lane_reader(w);
    const auto zw = lane_writer(z);
    Kokkos::parallel_for(label, Kokkos::RangePolicy<typename S::execution_space>(0, vector_sites(z)), [=](int vs) {
      V xv[Nc][Ns], yv[Nc][Ns], wv[Nc][Ns];
      xr.load(vs, xv);
      yr.load(vs, yv);
      if constexpr (n_inputs == 3) wr.load(vs, wv);
      for (int c = 0; c < Nc; ++c)
        for (int sp = 0; sp < Ns; ++sp) xv[c][sp] = f(xv[c][sp], yv[c][sp], n_inputs == 3 ? wv[c][sp] : xv[c][sp]);
      zw.store(vs, xv);
    });
  } else {
    using A = SpinorAccess<S>;
    const auto xr = A::template read<float>(x);
    const auto yr = A::template read<float>(y);
    const auto wr = A::template read<float>(w);
    const auto zw = A::template write<float>(z);
    Kokkos::parallel_for(label, range(z), HalfCombineKernel<n_inputs, decltype(xr), decltype(zw), F>{xr, yr, wr, zw, f});
  }
}

/// a x + b y with real coefficients in float: half_combine's real update (Caxpy and Cxpaypbz above
/// are its complex ones), for complex numbers and registers alike.
struct Axpby {
  float a, b;
  template <class C> KOKKOS_FORCEINLINE_FUNCTION C operator()(const C& x, const C& y, const C&) const { return a * x + b * y; }
};

/// sum over the sites of term(x site, y site) in double: per site from complex numbers, per vector
/// site from each register's reals (term(xr, xi, yr, yi, acc) on one lane's parts; y is read only
/// where Term::reads_y).
template <class T, HalfStorage S, class Term> T half_reduce(const char* op, const S& x, const S& y, Term term) {
  check_same_shape(x, y, op);
  const std::string label = std::string("kqcd::blas::") + op + "_half";
  T sum{};
  if constexpr (lane_sites<S>) {
    using V = typename S::simd_type;
    constexpr int R = 2 * V::lanes;
    const auto xr = lane_reader(x), yr = lane_reader(y);
    Kokkos::parallel_reduce(
        label, Kokkos::RangePolicy<typename S::execution_space>(0, x.geometry().vsites()),
        [=](int vs, T& acc) {
          V xv[Nc][Ns], yv[Nc][Ns];
          xr.load(vs, xv);
          if constexpr (Term::reads_y) yr.load(vs, yv);
          float tx[R], ty[R];
          for (int c = 0; c < Nc; ++c)
            for (int sp = 0; sp < Ns; ++sp) {
              xv[c][sp].store(tx);
              if constexpr (Term::reads_y) yv[c][sp].store(ty);
              for (int l = 0; l < R; l += 2) {
                if constexpr (Term::reads_y) term(tx[l], tx[l + 1], ty[l], ty[l + 1], acc);
                else term(tx[l], tx[l + 1], 0.0f, 0.0f, acc);
              }
            }
        },
        sum);
  } else {
    using A = SpinorAccess<S>;
    const auto xr = A::template read<float>(x);
    const auto yr = A::template read<float>(y);
    Kokkos::parallel_reduce(label, range(x), HalfReduceKernel<T, decltype(xr), Term>{xr, yr, term}, sum);
  }
  return comm::sum(x.lattice(), sum);
}
struct NormTerm {
  static constexpr bool reads_y = false;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(float xr, float xi, float, float, double& acc) const {
    acc += double(xr) * xr + double(xi) * xi;
  }
};
struct DotTerm {
  static constexpr bool reads_y = true;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(float xr, float xi, float yr, float yi, Kokkos::complex<double>& acc) const {
    const double a = xr, b = xi, c = yr, d = yi;
    acc += Kokkos::complex<double>(a * c + b * d, a * d - b * c);
  }
};
} // namespace detail

/// y = a x + b y, computed in float per site.
template <HalfStorage S> void axpby(double a, const S& x, double b, S& y) {
  detail::half_combine<2>("axpby", x, y, y, y, detail::Axpby{float(a), float(b)});
}
/// y = a x + y (complex a), in float per site.
template <HalfStorage S> void caxpy(Kokkos::complex<double> a, const S& x, S& y) {
  detail::half_combine<2>("caxpy", x, y, y, y, detail::Caxpy<Kokkos::complex<float>>{detail::to_complex<Kokkos::complex<float>>(a)});
}
/// z = x + a y + b w (complex a, b), in float per site.
template <HalfStorage S>
void cxpaypbz(const S& x, Kokkos::complex<double> a, const S& y, Kokkos::complex<double> b, const S& w, S& z) {
  detail::half_combine<3>("cxpaypbz", x, y, w, z,
                          detail::Cxpaypbz<Kokkos::complex<float>>{detail::to_complex<Kokkos::complex<float>>(a),
                                                                   detail::to_complex<Kokkos::complex<float>>(b)});
}

/// y += a x (16-bit).
template <HalfStorage S> void axpy(double a, const S& x, S& y) { axpby(a, x, 1.0, y); }
/// y *= a (16-bit).
template <HalfStorage S> void scale(double a, S& y) { axpby(0.0, y, a, y); }

/// |x|^2 (16-bit).
template <HalfStorage S> double norm2(const S& x) { return detail::half_reduce<double>("norm2", x, x, detail::NormTerm{}); }
/// <x, y> (16-bit).
template <HalfStorage S> Kokkos::complex<double> cdot(const S& x, const S& y) {
  return detail::half_reduce<Kokkos::complex<double>>("cdot", x, y, detail::DotTerm{});
}
/// Re <x, y> (16-bit).
template <HalfStorage S> double rdot(const S& x, const S& y) { return cdot(x, y).real(); }
// The fused operations on 16-bit spinors: the two passes (each site's norm is rewritten on store).
/// <x, y> and |x|^2 in one pass (16-bit).
template <HalfStorage S> std::pair<Kokkos::complex<double>, double> cdot_norm2(const S& x, const S& y) {
  return {cdot(x, y), norm2(x)};
}
/// y += a x, returning |y|^2 (16-bit).
template <HalfStorage S> double axpy_norm2(double a, const S& x, S& y) {
  axpy(a, x, y);
  return norm2(y);
}
/// y += a x, then x = z + b x (16-bit).
template <HalfStorage S>
void axpy_zpbx(double a, S& x, S& y, const S& z, double b) {
  axpy(a, x, y);
  axpby(1.0, z, b, x);
}
/// y += a x for complex a, returning |y|^2 (16-bit).
template <HalfStorage S> double caxpy_norm2(Kokkos::complex<double> a, const S& x, S& y) {
  caxpy(a, x, y);
  return norm2(y);
}

} // namespace kqcd::blas
