// Contraction functors (conventions.md, "Contractions"). Site-local kernels write 16 complex
// numbers per site into a density View<complex<double>**> indexed (lexicographic site, component):
//   ColourContractFunctor<open>:          C[mu * 4 + nu](x) = sum_c conj(a(x)_{mu c}) b(x)_{nu c}
//                                         (QUDA's colour contraction, 16 spin pairs)
//   ColourContractFunctor<degrand_rossi>: C[n](x) = sum_c a(x)^dag Gamma(n) b(x)  (Gamma(n) inserted)
//   MesonDensityFunctor:                  C[n](x) = tr[g5 S(x)^dag g5 Gamma(n) S(x) Gamma(n)]
//   PropNormFunctor:                      C[0](x) = sum |S(x)|^2
// TimesliceSumFunctor sums a density over each timeslice with a momentum phase exp(-i p.(x - x0)):
// a TeamPolicy over (timeslice, block of spatial sites), a team reduction, then one atomic add per
// team and component into the result. Everything accumulates in double. Launchers live in
// measure/contraction.hpp.
#pragma once

#include <kqcd/core/gamma_basis.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/propagator.hpp>

#include <Kokkos_Core.hpp>

namespace kqcd {

/// Double-precision complex of the contraction sums.
using cplxd = Kokkos::complex<double>;

/// Spin contraction: open spin indices, or the DeGrand-Rossi gamma insertions.
enum class ContractType { open, degrand_rossi };

/// 16 complex sums: the value type of the team reductions.
struct Sum16 {
  /// Real and imaginary parts of the 16 sums.
  ///@{
  double re[16], im[16];
  ///@}
  KOKKOS_INLINE_FUNCTION Sum16() {
    for (int i = 0; i < 16; ++i) re[i] = im[i] = 0.0;
  }
  /// Adds o's sums.
  KOKKOS_INLINE_FUNCTION Sum16& operator+=(const Sum16& o) {
    for (int i = 0; i < 16; ++i) {
      re[i] += o.re[i];
      im[i] += o.im[i];
    }
    return *this;
  }
};

} // namespace kqcd

/// @cond
// The identity of a Sum16 reduction (zero).
template <> struct Kokkos::reduction_identity<kqcd::Sum16> {
  KOKKOS_FORCEINLINE_FUNCTION static kqcd::Sum16 sum() { return kqcd::Sum16(); }
};
/// @endcond

namespace kqcd {

/// Converts to double-precision complex.
template <class T> KOKKOS_INLINE_FUNCTION cplxd to_cplxd(const Kokkos::complex<T>& z) {
  return {double(z.real()), double(z.imag())};
}

/// Kernel: colour contraction of two propagators into a density at each site.
template <ContractType type, class SpinorView, class DensityView> struct ColourContractFunctor {
  /// The two spinor fields.
  ///@{
  SpinorView a, b; ///< one parity of two spinor fields
  ///@}
  DensityView out; ///< The density, (lexicographic site, component).
  Lattice lat; ///< The lattice.
  int parity; ///< Parity of the sites.
  GammaBasisTable g; ///< The gamma basis.

  /// Contracts site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const auto site = lat.lex_index(lat.cb_coords(s, parity));
    cplxd c[4][4];
    for (int mu = 0; mu < Ns; ++mu)
      for (int nu = 0; nu < Ns; ++nu) {
        cplxd z(0.0, 0.0);
        for (int col = 0; col < Nc; ++col) z = cjmadd(to_cplxd(a(s, col, mu)), to_cplxd(b(s, col, nu)), z);
        c[mu][nu] = z;
      }
    if constexpr (type == ContractType::open) {
      for (int mu = 0; mu < Ns; ++mu)
        for (int nu = 0; nu < Ns; ++nu) out(site, mu * Ns + nu) = c[mu][nu];
    } else {
      for (int n = 0; n < 16; ++n) {
        cplxd z(0.0, 0.0);
        for (int mu = 0; mu < Ns; ++mu) z = cmadd(i_pow<double>(g.code[n][mu]), c[mu][g.perm[n][mu]], z);
        out(site, n) = z;
      }
    }
  }
};

/// S(x) of one parity: columns[k] is the view of propagator column k on that parity.
template <class SpinorView> struct PropagatorSite {
  SpinorView col[SpinColour]; ///< The propagator's columns (spin * Nc + colour), one parity.
};

/// Kernel: the meson correlator density tr[S^dag Gamma S Gamma] at each site.
template <class SpinorView, class DensityView> struct MesonDensityFunctor {
  PropagatorSite<SpinorView> prop; ///< The propagator, one parity.
  DensityView out; ///< The density, (lexicographic site, component).
  Lattice lat; ///< The lattice.
  int parity; ///< Parity of the sites.
  GammaBasisTable g; ///< The gamma basis.

  /// The 16 densities at site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const auto site = lat.lex_index(lat.cb_coords(s, parity));
    // S[sink spin][sink colour][source spin][source colour]
    cplxd S[Ns][Nc][Ns][Nc];
    for (int sp = 0; sp < Ns; ++sp)
      for (int b = 0; b < Nc; ++b)
        for (int a = 0; a < Nc; ++a)
          for (int sk = 0; sk < Ns; ++sk) S[sk][a][sp][b] = to_cplxd(prop.col[sp * Nc + b](s, a, sk));
    // tr[g5 S^dag g5 G S G] = sum_{s, r} g5(P[r]) g5(s) G_{s P[s]} G_{r P[r]}
    //                          sum_{a b} conj(S_{(s a),(P[r] b)}) S_{(P[s] a),(r b)}
    for (int n = 0; n < 16; ++n) {
      cplxd tr(0.0, 0.0);
      for (int sk = 0; sk < Ns; ++sk)
        for (int r = 0; r < Ns; ++r) {
          const int ps = g.perm[n][sk], pr = g.perm[n][r];
          cplxd z(0.0, 0.0);
          for (int a = 0; a < Nc; ++a)
            for (int b = 0; b < Nc; ++b) z = cjmadd(S[sk][a][pr][b], S[ps][a][r][b], z);
          const int sign = gamma_dr::g5_sign(pr) * gamma_dr::g5_sign(sk);
          const cplxd ph = i_pow<double>(g.code[n][sk] + g.code[n][r]);
          tr += double(sign) * cmul(ph, z);
        }
      out(site, n) = tr;
    }
  }
};

/// Kernel: sum over spin and colour of |S|^2 at each site.
template <class SpinorView, class DensityView> struct PropNormFunctor {
  PropagatorSite<SpinorView> prop; ///< The propagator, one parity.
  DensityView out; ///< The density, (lexicographic site, component).
  Lattice lat; ///< The lattice.
  int parity; ///< Parity of the sites.

  /// |S|^2 at site s of the parity.
  KOKKOS_FUNCTION void operator()(int s) const {
    const auto site = lat.lex_index(lat.cb_coords(s, parity));
    double sum = 0.0;
    for (int k = 0; k < SpinColour; ++k)
      for (int a = 0; a < Nc; ++a)
        for (int sk = 0; sk < Ns; ++sk) {
          const auto z = prop.col[k](s, a, sk);
          sum += double(z.real()) * double(z.real()) + double(z.imag()) * double(z.imag());
        }
    out(site, 0) = cplxd(sum, 0.0);
  }
};

/// out(t', n) += sum_{x in timeslice t} exp(-i p.(x - x0)) density(x, n), t' = (t - t0) mod Lt.
/// League index = t * blocks + block; each team sums block_size spatial sites.
template <class DensityView, class OutView, class Member> struct TimesliceSumFunctor {
  DensityView density; ///< The density, (lexicographic site, component).
  OutView out; ///< (t', n, 0 = re / 1 = im)
  Lattice lat; ///< The lattice (this rank's part).
  int ncomp; ///< Components summed.
  int t0; ///< Source timeslice.
  int x0[3]; ///< Source's spatial position.
  double p[3]; ///< momentum components 2 pi n_i / L_i
  int blocks; ///< Blocks of spatial sites per timeslice.
  int block_size; ///< Spatial sites per block.
  int offset[Nd]; ///< the sub-lattice's origin in the global lattice (zero on one rank)

  /// Sums one block of one timeslice into out.
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int t = team.league_rank() / blocks, blk = team.league_rank() % blocks;
    const std::int64_t v3 = lat.spatial_volume();
    const std::int64_t begin = std::int64_t(blk) * block_size;
    const std::int64_t end = begin + block_size < v3 ? begin + block_size : v3;
    Sum16 acc;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, begin, end),
        [&](std::int64_t xs, Sum16& a) {
          const int x = int(xs % lat.dim(0)) + offset[0], y = int((xs / lat.dim(0)) % lat.dim(1)) + offset[1],
                    z = int(xs / (std::int64_t(lat.dim(0)) * lat.dim(1))) + offset[2];
          const double phase = -(p[0] * (x - x0[0]) + p[1] * (y - x0[1]) + p[2] * (z - x0[2]));
          const cplxd e(Kokkos::cos(phase), Kokkos::sin(phase));
          const std::int64_t site = xs + v3 * t;
          for (int n = 0; n < ncomp; ++n) {
            const cplxd w = cmul(e, density(site, n));
            a.re[n] += w.real();
            a.im[n] += w.imag();
          }
        },
        Kokkos::Sum<Sum16>(acc));
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      const int lt = lat.global_dim(3), tt = (t + offset[3] - t0 + lt) % lt;
      for (int n = 0; n < ncomp; ++n) {
        Kokkos::atomic_add(&out(tt, n, 0), acc.re[n]);
        Kokkos::atomic_add(&out(tt, n, 1), acc.im[n]);
      }
    });
  }
};

} // namespace kqcd
