// Quenched updates for the Wilson gauge action S = -(beta/3) sum_p Re tr U_p, as rules for
// LinkUpdateFunctor (kernels/staples.hpp) applied in place to the links of one parity and one
// direction (their staples never contain one another, so the update is parallel-safe).
// Cabibbo-Marinari: the link is left-multiplied by an SU(2) matrix in each subgroup (0,1), (1,2),
// (0,2) in turn. With M = U C^dag and the quaternion part of M's (i,j) block = k u (u in SU(2)):
//   heat bath (Kennedy-Pendleton): x = r u drawn from sqrt(1 - x0^2) exp(alpha x0), alpha = 2 beta k / 3;
//   over-relaxation: r = (u^dag)^2, which keeps Re tr(U C^dag) exactly.
// Random numbers are Philox (core/random.hpp) with counter (GLOBAL site lexicographic, 4 mu +
// subgroup, update index, 2 attempt + word), so a seed gives the same field for any backend, thread
// count and process grid.
// Kennedy-Pendleton gives up after 256 rejected attempts (only at alpha << 1) and leaves that
// subgroup unchanged.
#pragma once

#include <kqcd/core/random.hpp>
#include <kqcd/kernels/staples.hpp>

namespace kqcd {

/// Link-update rule: Cabibbo-Marinari heat bath or over-relaxation.
struct HeatbathRule {
  double beta; ///< The inverse coupling beta.
  Philox rng; ///< Counter-based random numbers.
  std::uint32_t update; ///< unique per heat-bath pass (sweep)
  bool overrelax; ///< Over-relaxation instead of the heat bath.
  Lattice local;        ///< this rank's sub-lattice (its origin and global extents key the random numbers)
  int shift[Nd];        ///< the update runs on coordinates x + shift (an extended field), 0 on one rank

  /// An SU(2) matrix drawn from the heat-bath distribution at alpha (Kennedy-Pendleton); -1 after 256 rejections.
  KOKKOS_INLINE_FUNCTION SU2<double> kennedy_pendleton(double alpha, std::uint32_t site, std::uint32_t sub) const {
    constexpr double two_pi = 2 * Kokkos::numbers::pi;
    for (std::uint32_t attempt = 0; attempt < 256; ++attempt) {
      const auto w1 = rng.words(site, sub, update, 2 * attempt), w2 = rng.words(site, sub, update, 2 * attempt + 1);
      const double r1 = Philox::to_unit(w1.v[0], w1.v[1]), r2 = Philox::to_unit(w1.v[2], w1.v[3]);
      const double r3 = Philox::to_unit(w2.v[0], w2.v[1]), r4 = Philox::to_unit(w2.v[2], w2.v[3]);
      const double c = Kokkos::cos(two_pi * r2);
      const double lambda2 = -(Kokkos::log(r1) + c * c * Kokkos::log(r3)) / (2 * alpha);
      if (r4 * r4 > 1 - lambda2) continue;
      const double x0 = 1 - 2 * lambda2;
      const auto w3 = rng.words(site, sub, update, 0xFFFFFFFFu);
      const double cos_t = 2 * Philox::to_unit(w3.v[0], w3.v[1]) - 1, phi = two_pi * Philox::to_unit(w3.v[2], w3.v[3]);
      const double r = Kokkos::sqrt(Kokkos::fmax(0.0, 1 - x0 * x0)), sin_t = Kokkos::sqrt(Kokkos::fmax(0.0, 1 - cos_t * cos_t));
      // x = x0 + i x.sigma as [[x0 + i x3, x2 + i x1], [-x2 + i x1, x0 - i x3]]
      return {Kokkos::complex<double>(x0, r * cos_t), Kokkos::complex<double>(r * sin_t * Kokkos::sin(phi), r * sin_t * Kokkos::cos(phi))};
    }
    return {Kokkos::complex<double>(-1, 0), Kokkos::complex<double>(0, 0)}; // marker: no update
  }

  /// The updated link u from its staple sum, subgroup by subgroup.
  KOKKOS_INLINE_FUNCTION SU3<double> operator()(const SU3<double>& u, const SU3<double>& staple, const Coords& x, int,
                                                int mu) const {
    SU3<double> w = u;
    Coords c = x;
    for (int nu = 0; nu < Nd; ++nu) c.x[nu] -= shift[nu];
    const auto site = std::uint32_t(local.global_lex_index(c));
    for (int sub = 0; sub < 3; ++sub) {
      int i, j;
      su2_subgroup(sub, i, j);
      const SU2<double> a = su2_block(mul_adj(w, staple), i, j);
      const double k = su2_norm(a);
      if (!(k > 1e-300)) continue;
      const SU2<double> ubar{a.p / k, a.q / k};
      SU2<double> r;
      if (overrelax) {
        r = su2_adj(su2_mul(ubar, ubar));
      } else {
        const SU2<double> xq = kennedy_pendleton(2 * beta * k / 3, site, std::uint32_t(4 * mu + sub));
        if (xq.p.real() == -1 && xq.p.imag() == 0 && xq.q.real() == 0 && xq.q.imag() == 0) continue;
        r = su2_mul(xq, su2_adj(ubar));
      }
      su2_left_multiply(r, w, i, j);
    }
    return w;
  }
};

/// Every link of one parity replaced by reunitarise(link) (removes rounding drift).
template <class View> struct ReunitariseFunctor {
  View v; ///< The links of one parity.
  /// Reunitarises the links of site s.
  KOKKOS_FUNCTION void operator()(int s) const {
    for (int mu = 0; mu < Nd; ++mu) store_su3(v, s, mu, reunitarise(load_su3<double>(v, s, mu)));
  }
};

} // namespace kqcd
