// SIMDComplex<T, N, ISA>: N complex numbers in one vector register, stored interleaved (re, im,
// re, im, ...) as Grid's vComplex. A complex multiply-add c + a b is two FMAs: the real and the
// imaginary part of a broadcast across each pair (dup_re, dup_im) times b and times i b (b with
// real and imaginary parts swapped and one sign flipped).
// The instruction set is chosen by the compiler's own target macros (__AVX512F__, __AVX2__):
//   CPUSIMDComplex<T, N>  the host's native register when it holds N complex T, else portable code;
//   GPUSIMDComplex<T>     one lane per thread, the same interface, callable in device code.
// The ISA policies (simd::AVX512, simd::AVX2, simd::Portable) supply the register operations.
// The guards test the target macros only (not __CUDA_ARCH__) so that nvcc's host and device passes
// see the same declarations; the intrinsic policies are host-only and used by host kernels only.
// Under nvcc (__CUDACC__, both passes) the host kernels use the portable code: nvcc refuses vector
// types in the host-device functions that the one-lane GPU type shares with them.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#if defined(__AVX512F__) && !defined(__CUDACC__)
#define KQCD_SIMD_AVX512 1
#endif
#if defined(__AVX2__) && defined(__FMA__) && !defined(__CUDACC__)
#define KQCD_SIMD_AVX2 1
#endif
#if defined(KQCD_SIMD_AVX512) || defined(KQCD_SIMD_AVX2)
#include <immintrin.h>
#endif

namespace kqcd {
/// Instruction-set policies of SIMDComplex.
namespace simd {

/// Portable fallback: a plain array of 2N reals; loops the compiler may vectorise.
template <class T, int N> struct Portable {
  /// Complex lanes per register.
  static constexpr int lanes = N;
  /// Name of the instruction set.
  static constexpr const char* name = "portable";
  /// The register: 2N reals, interleaved (re, im).
  struct reg {
    T v[2 * N]; ///< re, im of each lane
  };
  /// Loads 2N reals from p (unaligned).
  KOKKOS_FORCEINLINE_FUNCTION static reg load(const T* p) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = p[i];
    return r;
  }
  /// Stores 2N reals to p (unaligned).
  KOKKOS_FORCEINLINE_FUNCTION static void store(T* p, const reg& a) {
    for (int i = 0; i < 2 * N; ++i) p[i] = a.v[i];
  }
  /// All parts zero.
  KOKKOS_FORCEINLINE_FUNCTION static reg zero() {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = T(0);
    return r;
  }
  /// Every part x.
  KOKKOS_FORCEINLINE_FUNCTION static reg set1(T x) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = x;
    return r;
  }
  /// a + b part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg add(const reg& a, const reg& b) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
  }
  /// a - b part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg sub(const reg& a, const reg& b) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = a.v[i] - b.v[i];
    return r;
  }
  /// a / b part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg div(const reg& a, const reg& b) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = a.v[i] / b.v[i];
    return r;
  }
  /// a b part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg mul(const reg& a, const reg& b) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = a.v[i] * b.v[i];
    return r;
  }
  /// sqrt(max(a, 0)) part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg sqrt_nonneg(const reg& a) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = Kokkos::sqrt(a.v[i] > T(0) ? a.v[i] : T(0));
    return r;
  }
  /// a b + c
  KOKKOS_FORCEINLINE_FUNCTION static reg fmadd(const reg& a, const reg& b, const reg& c) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = a.v[i] * b.v[i] + c.v[i];
    return r;
  }
  /// (re, im) -> (re, re)
  KOKKOS_FORCEINLINE_FUNCTION static reg dup_re(const reg& a) {
    reg r;
    for (int i = 0; i < N; ++i) r.v[2 * i] = r.v[2 * i + 1] = a.v[2 * i];
    return r;
  }
  /// (re, im) -> (im, im)
  KOKKOS_FORCEINLINE_FUNCTION static reg dup_im(const reg& a) {
    reg r;
    for (int i = 0; i < N; ++i) r.v[2 * i] = r.v[2 * i + 1] = a.v[2 * i + 1];
    return r;
  }
  /// (re, im) -> (im, re)
  KOKKOS_FORCEINLINE_FUNCTION static reg swap_ri(const reg& a) {
    reg r;
    for (int i = 0; i < N; ++i) {
      r.v[2 * i] = a.v[2 * i + 1];
      r.v[2 * i + 1] = a.v[2 * i];
    }
    return r;
  }
  /// a + s on imaginary parts, a - s on real parts
  KOKKOS_FORCEINLINE_FUNCTION static reg subadd(const reg& a, const reg& s) {
    reg r;
    for (int i = 0; i < N; ++i) {
      r.v[2 * i] = a.v[2 * i] - s.v[2 * i];
      r.v[2 * i + 1] = a.v[2 * i + 1] + s.v[2 * i + 1];
    }
    return r;
  }
  /// a + s on real parts, a - s on imaginary parts
  KOKKOS_FORCEINLINE_FUNCTION static reg addsub(const reg& a, const reg& s) {
    reg r;
    for (int i = 0; i < N; ++i) {
      r.v[2 * i] = a.v[2 * i] + s.v[2 * i];
      r.v[2 * i + 1] = a.v[2 * i + 1] - s.v[2 * i + 1];
    }
    return r;
  }
  /// Exchange blocks of 2^level complex lanes (lane i <-> lane i ^ 2^level).
  KOKKOS_FORCEINLINE_FUNCTION static reg swap_blocks(const reg& a, int level) {
    const int m = 1 << level;
    reg r;
    for (int i = 0; i < N; ++i) {
      r.v[2 * i] = a.v[2 * (i ^ m)];
      r.v[2 * i + 1] = a.v[2 * (i ^ m) + 1];
    }
    return r;
  }
  /// max(a, b) part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg max(const reg& a, const reg& b) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
    return r;
  }
  /// max(|a|, m) part by part.
  KOKKOS_FORCEINLINE_FUNCTION static reg abs_max(const reg& a, const reg& m) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = Kokkos::fabs(a.v[i]) > m.v[i] ? Kokkos::fabs(a.v[i]) : m.v[i];
    return r;
  }
  /// Lane i = (p[i], p[i]): one real per lane in both halves.
  KOKKOS_FORCEINLINE_FUNCTION static reg load_pairs(const T* p) {
    reg r;
    for (int i = 0; i < N; ++i) r.v[2 * i] = r.v[2 * i + 1] = p[i];
    return r;
  }
  /// 2N 16-bit integers as reals, and reals (integral-valued within 16 bits after rounding) back,
  /// rounded to nearest, ties to even (the default rounding mode, as the vector conversions).
  KOKKOS_FORCEINLINE_FUNCTION static reg load_fixed16(const short* p) {
    reg r;
    for (int i = 0; i < 2 * N; ++i) r.v[i] = T(p[i]);
    return r;
  }
  /// Stores the parts rounded to 16-bit integers (see load_fixed16).
  KOKKOS_FORCEINLINE_FUNCTION static void store_fixed16(short* p, const reg& a) {
    for (int i = 0; i < 2 * N; ++i) p[i] = static_cast<short>(Kokkos::nearbyint(a.v[i]));
  }
};

#if defined(KQCD_SIMD_AVX512)
/// AVX-512: 8 complex float or 4 complex double per zmm register.
template <class T> struct AVX512;
/// AVX-512 policy for float (the register operations of Portable).
template <> struct AVX512<float> {
  /// @cond
  static constexpr int lanes = 8;
  static constexpr const char* name = "avx512";
  using reg = __m512;
  static reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, reg a) { _mm512_storeu_ps(p, a); }
  static reg zero() { return _mm512_setzero_ps(); }
  static reg set1(float x) { return _mm512_set1_ps(x); }
  static reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  static reg div(reg a, reg b) { return _mm512_div_ps(a, b); }
  static reg sqrt_nonneg(reg a) { return _mm512_sqrt_ps(_mm512_max_ps(a, _mm512_setzero_ps())); }
  static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static reg dup_re(reg a) { return _mm512_moveldup_ps(a); }
  static reg dup_im(reg a) { return _mm512_movehdup_ps(a); }
  static reg swap_ri(reg a) { return _mm512_permute_ps(a, 0xB1); }
  static reg subadd(reg a, reg s) { return _mm512_fmaddsub_ps(_mm512_set1_ps(1.0f), a, s); }
  static reg addsub(reg a, reg s) { return _mm512_fmsubadd_ps(_mm512_set1_ps(1.0f), a, s); }
  static reg swap_blocks(reg a, int level) {
    switch (level) {
    case 0: return _mm512_permute_ps(a, 0x4E);        // swap complex pairs inside 128 bits
    case 1: return _mm512_shuffle_f32x4(a, a, 0xB1);  // swap 128-bit lanes inside 256 bits
    default: return _mm512_shuffle_f32x4(a, a, 0x4E); // swap 256-bit halves
    }
  }
  static reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
  static reg abs_max(reg a, reg m) { return _mm512_max_ps(_mm512_abs_ps(a), m); }
  static reg load_pairs(const float* p) {
    const __m512i idx = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    return _mm512_permutexvar_ps(idx, _mm512_castps256_ps512(_mm256_loadu_ps(p)));
  }
  static reg load_fixed16(const short* p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
  }
  static void store_fixed16(short* p, reg a) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(a)));
  }
/// @endcond
};
/// AVX-512 policy for double (the register operations of Portable).
template <> struct AVX512<double> {
  /// @cond
  static constexpr int lanes = 4;
  static constexpr const char* name = "avx512";
  using reg = __m512d;
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg a) { _mm512_storeu_pd(p, a); }
  static reg zero() { return _mm512_setzero_pd(); }
  static reg set1(double x) { return _mm512_set1_pd(x); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg div(reg a, reg b) { return _mm512_div_pd(a, b); }
  static reg sqrt_nonneg(reg a) { return _mm512_sqrt_pd(_mm512_max_pd(a, _mm512_setzero_pd())); }
  static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
  static reg dup_re(reg a) { return _mm512_movedup_pd(a); }
  static reg dup_im(reg a) { return _mm512_permute_pd(a, 0xFF); }
  static reg swap_ri(reg a) { return _mm512_permute_pd(a, 0x55); }
  static reg subadd(reg a, reg s) { return _mm512_fmaddsub_pd(_mm512_set1_pd(1.0), a, s); }
  static reg addsub(reg a, reg s) { return _mm512_fmsubadd_pd(_mm512_set1_pd(1.0), a, s); }
  static reg swap_blocks(reg a, int level) {
    return level == 0 ? _mm512_shuffle_f64x2(a, a, 0xB1) : _mm512_shuffle_f64x2(a, a, 0x4E);
  }
/// @endcond
};
#endif

#if defined(KQCD_SIMD_AVX2)
/// AVX2 + FMA: 4 complex float or 2 complex double per ymm register.
template <class T> struct AVX2;
/// AVX2 policy for float (the register operations of Portable).
template <> struct AVX2<float> {
  /// @cond
  static constexpr int lanes = 4;
  static constexpr const char* name = "avx2";
  using reg = __m256;
  static reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, reg a) { _mm256_storeu_ps(p, a); }
  static reg zero() { return _mm256_setzero_ps(); }
  static reg set1(float x) { return _mm256_set1_ps(x); }
  static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  static reg div(reg a, reg b) { return _mm256_div_ps(a, b); }
  static reg sqrt_nonneg(reg a) { return _mm256_sqrt_ps(_mm256_max_ps(a, _mm256_setzero_ps())); }
  static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static reg dup_re(reg a) { return _mm256_moveldup_ps(a); }
  static reg dup_im(reg a) { return _mm256_movehdup_ps(a); }
  static reg swap_ri(reg a) { return _mm256_permute_ps(a, 0xB1); }
  static reg subadd(reg a, reg s) { return _mm256_addsub_ps(a, s); }
  static reg addsub(reg a, reg s) { return _mm256_fmsubadd_ps(_mm256_set1_ps(1.0f), a, s); }
  static reg swap_blocks(reg a, int level) {
    return level == 0 ? _mm256_permute_ps(a, 0x4E) : _mm256_permute2f128_ps(a, a, 0x01);
  }
  static reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
  static reg abs_max(reg a, reg m) { return _mm256_max_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a), m); }
  static reg load_pairs(const float* p) {
    return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm256_set_epi32(3, 3, 2, 2, 1, 1, 0, 0));
  }
  static reg load_fixed16(const short* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static void store_fixed16(short* p, reg a) {
    const __m256i i = _mm256_cvtps_epi32(a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1)));
  }
/// @endcond
};
/// AVX2 policy for double (the register operations of Portable).
template <> struct AVX2<double> {
  /// @cond
  static constexpr int lanes = 2;
  static constexpr const char* name = "avx2";
  using reg = __m256d;
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, reg a) { _mm256_storeu_pd(p, a); }
  static reg zero() { return _mm256_setzero_pd(); }
  static reg set1(double x) { return _mm256_set1_pd(x); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg div(reg a, reg b) { return _mm256_div_pd(a, b); }
  static reg sqrt_nonneg(reg a) { return _mm256_sqrt_pd(_mm256_max_pd(a, _mm256_setzero_pd())); }
  static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  static reg dup_re(reg a) { return _mm256_movedup_pd(a); }
  static reg dup_im(reg a) { return _mm256_permute_pd(a, 0xF); }
  static reg swap_ri(reg a) { return _mm256_permute_pd(a, 0x5); }
  static reg subadd(reg a, reg s) { return _mm256_addsub_pd(a, s); }
  static reg addsub(reg a, reg s) { return _mm256_fmsubadd_pd(_mm256_set1_pd(1.0), a, s); }
  static reg swap_blocks(reg a, int) { return _mm256_permute2f128_pd(a, a, 0x01); }
/// @endcond
};
#endif

/// The host's widest register for T (AVX-512, then AVX2), or two portable lanes.
template <class T> struct Native {
#if defined(KQCD_SIMD_AVX512)
  using type = AVX512<T>; ///< the ISA policy
#elif defined(KQCD_SIMD_AVX2)
  using type = AVX2<T>;
#else
  using type = Portable<T, 2>;
#endif
};

/// The ISA policy for N complex T: the native one when it has N lanes, else portable.
template <class T, int N> struct ForLanes {
  using type = std::conditional_t<Native<T>::type::lanes == N, typename Native<T>::type, Portable<T, N>>; ///< the ISA policy
};

} // namespace simd

/// N complex T in one register of instruction set ISA (a policy of namespace simd).
template <class T, int N, class ISA> struct SIMDComplex {
  /// Type of the real and imaginary parts.
  using real_type = T;
  /// The instruction-set policy.
  using isa = ISA;
  /// The policy's register type.
  using reg = typename ISA::reg;
  /// Complex numbers per register.
  static constexpr int lanes = N;
  static_assert(ISA::lanes == N, "the ISA policy must hold N complex lanes");
  reg v; ///< the register

  /// Loads N complex numbers (2N reals) from p.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex load(const T* p) { return {ISA::load(p)}; }
  /// Stores N complex numbers (2N reals) to p.
  KOKKOS_FORCEINLINE_FUNCTION void store(T* p) const { ISA::store(p, v); }
  /// All lanes zero.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex zero() { return {ISA::zero()}; }
  /// The same complex number in every lane.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex broadcast(T re, T im) {
    T t[2 * N];
    for (int i = 0; i < N; ++i) {
      t[2 * i] = re;
      t[2 * i + 1] = im;
    }
    return load(t);
  }

  /// Lane-wise sum.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex operator+(const SIMDComplex& a, const SIMDComplex& b) {
    return {ISA::add(a.v, b.v)};
  }
  /// Lane-wise difference.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex operator-(const SIMDComplex& a, const SIMDComplex& b) {
    return {ISA::sub(a.v, b.v)};
  }
  /// Adds b lane by lane.
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex& operator+=(const SIMDComplex& b) { return *this = *this + b; }
  /// x a (a real scalar)
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex operator*(T x, const SIMDComplex& a) { return {ISA::mul(ISA::set1(x), a.v)}; }
  /// x a + y b (real scalars), the xpay update.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex axpby(T x, const SIMDComplex& a, T y, const SIMDComplex& b) {
    return {ISA::fmadd(ISA::set1(x), a.v, ISA::mul(ISA::set1(y), b.v))};
  }

  /// i a
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex times_i() const { return {ISA::subadd(ISA::zero(), ISA::swap_ri(v))}; }
  /// a + i b and a - i b: one swap, one add-subtract.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex plus_i(const SIMDComplex& a, const SIMDComplex& b) {
    return {ISA::subadd(a.v, ISA::swap_ri(b.v))};
  }
  /// a - i b lane by lane.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex minus_i(const SIMDComplex& a, const SIMDComplex& b) {
    return {ISA::addsub(a.v, ISA::swap_ri(b.v))};
  }
  /// The real and the imaginary part of each lane in both halves of the lane.
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex dup_re() const { return {ISA::dup_re(v)}; }
  /// Every lane's imaginary part in both halves.
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex dup_im() const { return {ISA::dup_im(v)}; }
  /// c + a b from a's broadcast parts (a_re = a.dup_re(), a_im = a.dup_im()) and i b: two FMAs.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex madd(const SIMDComplex& a_re, const SIMDComplex& a_im,
                                                      const SIMDComplex& b, const SIMDComplex& ib, const SIMDComplex& c) {
    return {ISA::fmadd(a_im.v, ib.v, ISA::fmadd(a_re.v, b.v, c.v))};
  }
  /// c + a b
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex cmadd(const SIMDComplex& a, const SIMDComplex& b, const SIMDComplex& c) {
    return madd(a.dup_re(), a.dup_im(), b, b.times_i(), c);
  }
  /// Lane-wise product a b.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex cmul(const SIMDComplex& a, const SIMDComplex& b) {
    return cmadd(a, b, zero());
  }
  /// Lane-wise product a b.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex operator*(const SIMDComplex& a, const SIMDComplex& b) { return cmul(a, b); }
  /// c + conj(a) b = c + a_re b - a_im (i b)
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex cjmadd(const SIMDComplex& a, const SIMDComplex& b, const SIMDComplex& c) {
    return {ISA::sub(ISA::fmadd(ISA::dup_re(a.v), b.v, c.v), ISA::mul(ISA::dup_im(a.v), b.times_i().v))};
  }
  /// b scaled lane by lane by a real number held in both halves of each lane of d (a stored
  /// diagonal matrix element): one multiply.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex scale_lanes(const SIMDComplex& d, const SIMDComplex& b) {
    return {ISA::mul(d.v, b.v)};
  }
  /// |b|^2 of each lane in both halves of the lane (a real scale for scale_lanes).
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex norm_lanes(const SIMDComplex& b) {
    const reg sq = ISA::mul(b.v, b.v);
    return {ISA::add(sq, ISA::swap_ri(sq))};
  }
  /// 1 / d part by part (d a real scale in both halves of each lane).
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex reciprocal_lanes(const SIMDComplex& d) { return {ISA::div(ISA::set1(T(1)), d.v)}; }
  /// sqrt(max(d, 0)) part by part (d a real scale in both halves of each lane).
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex sqrt_lanes(const SIMDComplex& d) { return {ISA::sqrt_nonneg(d.v)}; }
  /// Lane-wise negation.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex operator-(const SIMDComplex& a) { return {ISA::sub(ISA::zero(), a.v)}; }
  /// Subtracts b lane by lane.
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex& operator-=(const SIMDComplex& b) { return *this = *this - b; }
  /// conj(a) b
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex cjmul(const SIMDComplex& a, const SIMDComplex& b) { return cjmadd(a, b, zero()); }
  /// c + z b with z one complex number for every lane (a boundary phase, a link of a block whose
  /// lanes are right-hand sides): its parts broadcast straight into the two FMAs.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex madd_scalar(T z_re, T z_im, const SIMDComplex& b, const SIMDComplex& c) {
    return madd({ISA::set1(z_re)}, {ISA::set1(z_im)}, b, b.times_i(), c);
  }
  /// z b for one complex z and every lane of b.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex cmul(const Kokkos::complex<T>& z, const SIMDComplex& b) {
    return madd_scalar(z.real(), z.imag(), b, zero());
  }
  /// z b for one complex z and every lane of b.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex operator*(const Kokkos::complex<T>& z, const SIMDComplex& b) { return cmul(z, b); }
  /// x a + y b (real scalars), as caxpby of one complex number.
  KOKKOS_FORCEINLINE_FUNCTION friend SIMDComplex caxpby(T x, const SIMDComplex& a, T y, const SIMDComplex& b) {
    return axpby(x, a, y, b);
  }
  /// 16-bit storage (SIMDHalfSpinor, 16-bit SIMD links; single-precision registers): the 2N
  /// integers at p as reals, and the register's reals rounded to integers (to nearest, ties to even).
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex load_fixed16(const short* p) { return {ISA::load_fixed16(p)}; }
  /// Stores the parts rounded to 16-bit integers.
  KOKKOS_FORCEINLINE_FUNCTION void store_fixed16(short* p) const { ISA::store_fixed16(p, v); }
  /// One real per lane, p[i] in both halves of lane i (a scale for scale_lanes).
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex load_pairs(const T* p) { return {ISA::load_pairs(p)}; }
  /// max(|a|, m) part by part, and each lane's larger part in both halves.
  KOKKOS_FORCEINLINE_FUNCTION static SIMDComplex abs_max(const SIMDComplex& a, const SIMDComplex& m) { return {ISA::abs_max(a.v, m.v)}; }
  /// Each lane's larger part in both halves.
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex lane_max() const { return {ISA::max(v, ISA::swap_ri(v))}; }
  /// Lane i takes lane i ^ 2^level: a hop across the sub-lattice boundary of a split dimension.
  KOKKOS_FORCEINLINE_FUNCTION SIMDComplex swap_blocks(int level) const { return {ISA::swap_blocks(v, level)}; }

  /// One lane, for conversions (not for kernels).
  KOKKOS_INLINE_FUNCTION Kokkos::complex<T> lane(int i) const {
    T t[2 * N];
    store(t);
    return {t[2 * i], t[2 * i + 1]};
  }
  /// Sets lane i to z.
  KOKKOS_INLINE_FUNCTION void set_lane(int i, const Kokkos::complex<T>& z) {
    T t[2 * N];
    store(t);
    t[2 * i] = z.real();
    t[2 * i + 1] = z.imag();
    v = ISA::load(t);
  }
};

/// a + i^k b with k known at compile time (a spin projection or reconstruction).
template <int k, class T, int N, class ISA>
KOKKOS_FORCEINLINE_FUNCTION SIMDComplex<T, N, ISA> add_i_pow(const SIMDComplex<T, N, ISA>& a, const SIMDComplex<T, N, ISA>& b) {
  using V = SIMDComplex<T, N, ISA>;
  constexpr int c = ((k % 4) + 4) % 4;
  if constexpr (c == 0) return a + b;
  else if constexpr (c == 1) return V::plus_i(a, b);
  else if constexpr (c == 2) return a - b;
  else return V::minus_i(a, b);
}

/// i^k b with k known at compile time (a 16-bit hop's scaled reconstruction).
template <int k, class T, int N, class ISA>
KOKKOS_FORCEINLINE_FUNCTION SIMDComplex<T, N, ISA> mul_i_pow(const SIMDComplex<T, N, ISA>& b) {
  constexpr int c = ((k % 4) + 4) % 4;
  if constexpr (c == 0) return b;
  else if constexpr (c == 1) return b.times_i();
  else if constexpr (c == 2) return -b;
  else return -b.times_i();
}

namespace detail {
/// The complex conjugate of every lane (fields/packed_gauge.hpp's conjc for lanes).
template <class T, int N, class ISA> KOKKOS_FORCEINLINE_FUNCTION SIMDComplex<T, N, ISA> conjc(const SIMDComplex<T, N, ISA>& z) {
  return {ISA::addsub(ISA::zero(), z.v)};
}
/// Real numbers beside complex ones, written once for both site vectors (the L D L^dag factorisation
/// of clover blocks, the reconstruction of compressed links): T beside one complex number, or a SIMD
/// register holding each lane's real number in both halves of the lane (SIMDComplex::scale_lanes).
template <class T> KOKKOS_FORCEINLINE_FUNCTION T rmul(T a, T b) requires std::is_floating_point_v<T> { return a * b; }
template <class T> KOKKOS_FORCEINLINE_FUNCTION T reciprocal(T a) requires std::is_floating_point_v<T> { return T(1) / a; }
template <class T> KOKKOS_FORCEINLINE_FUNCTION T norm_of(const Kokkos::complex<T>& z) { return z.real() * z.real() + z.imag() * z.imag(); }
template <class T> KOKKOS_FORCEINLINE_FUNCTION Kokkos::complex<T> rscale(T r, const Kokkos::complex<T>& z) { return Kokkos::complex<T>(z.real() * r, z.imag() * r); }
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>>
KOKKOS_FORCEINLINE_FUNCTION V rmul(const SIMDComplex<T, N, ISA>& a, const SIMDComplex<T, N, ISA>& b) {
  return V::scale_lanes(a, b);
}
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>>
KOKKOS_FORCEINLINE_FUNCTION V reciprocal(const SIMDComplex<T, N, ISA>& a) {
  return V::reciprocal_lanes(a);
}
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>> KOKKOS_FORCEINLINE_FUNCTION V norm_of(const SIMDComplex<T, N, ISA>& z) {
  return V::norm_lanes(z);
}
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>>
KOKKOS_FORCEINLINE_FUNCTION V rscale(const SIMDComplex<T, N, ISA>& r, const SIMDComplex<T, N, ISA>& z) {
  return V::scale_lanes(r, z);
}

template <class T> KOKKOS_FORCEINLINE_FUNCTION T sqrt_nonneg(T a) requires std::is_floating_point_v<T> {
  return Kokkos::sqrt(Kokkos::fmax(a, T(0)));
}
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>>
KOKKOS_FORCEINLINE_FUNCTION V sqrt_nonneg(const SIMDComplex<T, N, ISA>& a) {
  return V::sqrt_lanes(a);
}
template <class T> KOKKOS_FORCEINLINE_FUNCTION T one_minus(T a) requires std::is_floating_point_v<T> { return T(1) - a; }
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>>
KOKKOS_FORCEINLINE_FUNCTION V one_minus(const SIMDComplex<T, N, ISA>& a) {
  return V::broadcast(T(1), T(1)) - a;
}
/// The real and the imaginary part of z as such reals.
template <class T> KOKKOS_FORCEINLINE_FUNCTION T real_part(const Kokkos::complex<T>& z) { return z.real(); }
template <class T> KOKKOS_FORCEINLINE_FUNCTION T imag_part(const Kokkos::complex<T>& z) { return z.imag(); }
template <class T, int N, class ISA> KOKKOS_FORCEINLINE_FUNCTION SIMDComplex<T, N, ISA> real_part(const SIMDComplex<T, N, ISA>& z) {
  return z.dup_re();
}
template <class T, int N, class ISA> KOKKOS_FORCEINLINE_FUNCTION SIMDComplex<T, N, ISA> imag_part(const SIMDComplex<T, N, ISA>& z) {
  return z.dup_im();
}
/// e^{i theta} lane by lane for |theta| <= pi (theta in both halves of each lane), with multiplies
/// and adds only: the Taylor series of cos and sin at theta / 8 (|theta / 8| <= 0.393, truncation
/// below 1e-16), squared three times.
template <class T, int N, class ISA, class V = SIMDComplex<T, N, ISA>>
KOKKOS_FORCEINLINE_FUNCTION V unit_phase(const SIMDComplex<T, N, ISA>& theta) {
  const V y = T(0.125) * theta, y2 = V::scale_lanes(y, y);
  auto series = [&](const T (&c)[7]) {
    V p = V::broadcast(c[6], c[6]);
    for (int k = 5; k >= 0; --k) p = V::scale_lanes(p, y2) + V::broadcast(c[k], c[k]);
    return p;
  };
  // cos y = sum (-1)^k y^2k / (2k)!, sin y / y = sum (-1)^k y^2k / (2k + 1)!.
  constexpr T cos_c[7] = {T(1), T(-1.0 / 2), T(1.0 / 24), T(-1.0 / 720), T(1.0 / 40320), T(-1.0 / 3628800), T(1.0 / 479001600)};
  constexpr T sin_c[7] = {T(1), T(-1.0 / 6), T(1.0 / 120), T(-1.0 / 5040), T(1.0 / 362880), T(-1.0 / 39916800), T(1.0 / 6227020800)};
  // (cos y, sin y) in each lane: the cosine into real parts, the sine into imaginary parts.
  V z = V::scale_lanes(series(cos_c), V::broadcast(T(1), T(0))) +
        V::scale_lanes(V::scale_lanes(y, series(sin_c)), V::broadcast(T(0), T(1)));
  for (int k = 0; k < 3; ++k) z = cmul(z, z);
  return z;
}
} // namespace detail

/// Whether C is a SIMDComplex.
template <class C> inline constexpr bool is_simd_complex_v = false;
/// @cond
template <class T, int N, class ISA> inline constexpr bool is_simd_complex_v<SIMDComplex<T, N, ISA>> = true;
/// @endcond
/// Zero of a site register: a complex number (value_type its real) or a SIMDComplex.
template <class C> KOKKOS_FORCEINLINE_FUNCTION C complex_zero() {
  if constexpr (is_simd_complex_v<C>) return C::zero();
  else return C(typename C::value_type(0), typename C::value_type(0));
}

/// N complex lanes on the host: the native register when it holds N, portable code otherwise.
template <class T, int N> using CPUSIMDComplex = SIMDComplex<T, N, typename simd::ForLanes<T, N>::type>;
/// The host's native width for T.
template <class T> using NativeSIMDComplex = SIMDComplex<T, simd::Native<T>::type::lanes, typename simd::Native<T>::type>;
/// One lane per GPU thread with the same interface (portable code is device-callable).
template <class T> using GPUSIMDComplex = SIMDComplex<T, 1, simd::Portable<T, 1>>;

/// The instruction set this translation unit's SIMD kernels are compiled for (ISA a template
/// argument: translation units compiled for different instruction sets do not share one copy).
template <class ISA = typename simd::Native<float>::type> std::string simd_isa_name() { return ISA::name; }

} // namespace kqcd
