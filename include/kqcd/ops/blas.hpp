// Linear algebra on checkerboarded spinors, as the solvers need it. Reductions accumulate in
// double whatever the field precision and are summed over the ranks of a distributed lattice.
#pragma once

#include <kqcd/comm/reduce.hpp>
#include <kqcd/core/error.hpp>
#include <kqcd/fields/cb_spinor.hpp>

#include <string>

namespace kqcd::blas {

namespace detail {
template <class A, class B> void check_same_shape(const A& a, const B& b, const char* op) {
  if (a.parity() != b.parity() || !(a.lattice() == b.lattice()))
    throw invalid_argument(std::string("blas::") + op + ": spinors differ in lattice or parity (" + a.lattice().to_string() +
                           " parity " + std::to_string(a.parity()) + " vs " + b.lattice().to_string() + " parity " +
                           std::to_string(b.parity()) + ")");
}
template <class Spinor> auto range(const Spinor& s) {
  return Kokkos::RangePolicy<typename Spinor::execution_space>(0, s.sites());
}
} // namespace detail

/// Apply f(site, colour, spin) to every component of a spinor's sites.
template <class Spinor, class F> void for_each_component(const char* label, const Spinor& s, const F& f) {
  Kokkos::parallel_for(label, detail::range(s), KOKKOS_LAMBDA(int i) {
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Spinor::n_spin; ++sp) f(i, c, sp);
  });
}

template <class Spinor> void zero(Spinor& x) { Kokkos::deep_copy(x.view(), typename Spinor::value_type(0)); }

/// dst = src, converting precision where the two differ.
template <class Dst, class Src> void copy(Dst& dst, const Src& src) {
  detail::check_same_shape(dst, src, "copy");
  using DT = typename Dst::value_type;
  using DR = typename Dst::real_type;
  auto d = dst.view();
  auto s = src.view();
  for_each_component("kqcd::blas::copy", dst, KOKKOS_LAMBDA(int i, int c, int sp) {
    d(i, c, sp) = DT(DR(s(i, c, sp).real()), DR(s(i, c, sp).imag()));
  });
}

/// y = a x + b y (real a, b)
template <class Spinor> void axpby(double a, const Spinor& x, double b, Spinor& y) {
  detail::check_same_shape(x, y, "axpby");
  using R = typename Spinor::real_type;
  const R ar(a), br(b);
  auto xv = x.view();
  auto yv = y.view();
  for_each_component("kqcd::blas::axpby", y, KOKKOS_LAMBDA(int i, int c, int sp) {
    yv(i, c, sp) = ar * xv(i, c, sp) + br * yv(i, c, sp);
  });
}
template <class Spinor> void axpy(double a, const Spinor& x, Spinor& y) { axpby(a, x, 1.0, y); }
template <class Spinor> void scale(double a, Spinor& y) { axpby(0.0, y, a, y); }

/// y = a x + y (complex a)
template <class Spinor> void caxpy(Kokkos::complex<double> a, const Spinor& x, Spinor& y) {
  detail::check_same_shape(x, y, "caxpy");
  using R = typename Spinor::real_type;
  const typename Spinor::value_type ac(R(a.real()), R(a.imag()));
  auto xv = x.view();
  auto yv = y.view();
  for_each_component("kqcd::blas::caxpy", y, KOKKOS_LAMBDA(int i, int c, int sp) { yv(i, c, sp) += ac * xv(i, c, sp); });
}

/// z = x + a y + b w (complex a, b); used by BiCGStab's direction update.
template <class Spinor>
void cxpaypbz(const Spinor& x, Kokkos::complex<double> a, const Spinor& y, Kokkos::complex<double> b, const Spinor& w,
              Spinor& z) {
  detail::check_same_shape(x, z, "cxpaypbz");
  using R = typename Spinor::real_type;
  using T = typename Spinor::value_type;
  const T ac(R(a.real()), R(a.imag())), bc(R(b.real()), R(b.imag()));
  auto xv = x.view();
  auto yv = y.view();
  auto wv = w.view();
  auto zv = z.view();
  for_each_component("kqcd::blas::cxpaypbz", z, KOKKOS_LAMBDA(int i, int c, int sp) {
    zv(i, c, sp) = xv(i, c, sp) + ac * yv(i, c, sp) + bc * wv(i, c, sp);
  });
}

/// |x|^2
template <class Spinor> double norm2(const Spinor& x) {
  auto xv = x.view();
  double sum = 0.0;
  Kokkos::parallel_reduce(
      "kqcd::blas::norm2", detail::range(x),
      KOKKOS_LAMBDA(int i, double& acc) {
        for (int c = 0; c < Nc; ++c)
          for (int sp = 0; sp < Spinor::n_spin; ++sp) {
            const double re = xv(i, c, sp).real(), im = xv(i, c, sp).imag();
            acc += re * re + im * im;
          }
      },
      sum);
  return comm::sum(x.lattice(), sum);
}

/// <x, y> = sum conj(x) y
template <class Spinor> Kokkos::complex<double> cdot(const Spinor& x, const Spinor& y) {
  detail::check_same_shape(x, y, "cdot");
  auto xv = x.view();
  auto yv = y.view();
  Kokkos::complex<double> sum(0.0);
  Kokkos::parallel_reduce(
      "kqcd::blas::cdot", detail::range(x),
      KOKKOS_LAMBDA(int i, Kokkos::complex<double>& acc) {
        for (int c = 0; c < Nc; ++c)
          for (int sp = 0; sp < Spinor::n_spin; ++sp) {
            const double xr = xv(i, c, sp).real(), xi = xv(i, c, sp).imag();
            const double yr = yv(i, c, sp).real(), yi = yv(i, c, sp).imag();
            acc += Kokkos::complex<double>(xr * yr + xi * yi, xr * yi - xi * yr);
          }
      },
      sum);
  return comm::sum(x.lattice(), sum);
}

/// Re <x, y>
template <class Spinor> double rdot(const Spinor& x, const Spinor& y) { return cdot(x, y).real(); }

} // namespace kqcd::blas
