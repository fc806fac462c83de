// The Wilson hopping kernel on the virtual-node SIMD layout (fields/simd_fields.hpp): the
// arithmetic of kernels/dslash_wilson.hpp on N sites at once. Per hop: load the neighbour vector
// site, project to a half spinor, exchange lanes if the hop left the sub-lattice in a split
// dimension, multiply by the doubled link (boundary phase folded in), reconstruct and accumulate.
// With rhs_lanes the lanes hold right-hand sides of one site instead (a block of as many
// right-hand sides as the register has lanes): the links are one complex number per element,
// broadcast to every lane, so a block reads each link once; no lane exchanges.
// Host only (the layout exists for host execution spaces), so the functions are plain inline.
#pragma once

#include <kqcd/arch/simd_complex.hpp>
#include <kqcd/core/gamma.hpp>
#include <kqcd/core/site_table.hpp>

#include <cstdint>

namespace kqcd {

template <class V, class ExecSpace> struct SIMDDslashArg {
  using real_type = typename V::real_type;
  static constexpr int reals = 2 * V::lanes;  ///< reals per SIMDComplex
  const real_type* gauge;                     ///< doubled links of the target parity [vsite][8][Nc][Nc] (one lane with rhs_lanes)
  const real_type* in;                        ///< source, parity 1 - target_cb [vsite][Nc][Ns]
  real_type* out;                             ///< result, parity target_cb
  const real_type* x;                         ///< xpay addend, parity target_cb (xpay only)
  SiteTable<NeighbourMode::table, ExecSpace> sites; ///< neighbours on the local (sub-)lattice
  int level[Nd];                              ///< lane-exchange level per direction, -1: not split
  real_type a, b;                             ///< xpay: out = a x + b H in
};

/// a + i^k b with k known at compile time.
template <int k, class V> inline V add_i_pow(const V& a, const V& b) {
  constexpr int c = ((k % 4) + 4) % 4;
  if constexpr (c == 0) return a + b;
  else if constexpr (c == 1) return V::plus_i(a, b);
  else if constexpr (c == 2) return a - b;
  else return V::minus_i(a, b);
}

template <class V, class ExecSpace, int isign, int target_cb, bool xpay, bool rhs_lanes = false> struct SIMDDslashFunctor {
  using Arg = SIMDDslashArg<V, ExecSpace>;
  using real = typename V::real_type;
  static constexpr int R = Arg::reals;
  static constexpr int link_reals = rhs_lanes ? 2 : R; ///< reals per link element
  Arg arg;

  static const real* spinor_at(const real* base, int vs, int c, int s) { return base + ((vs * Nc + c) * Ns + s) * R; }

  // acc += (1 + sigma g_mu) L h(x +- mu), sigma = -isign forward and +isign backward, L the doubled link.
  template <int mu, int dir> inline void hop(int vs, V acc[Nc][Ns]) const {
    constexpr int sigma = dir > 0 ? -isign : isign;
    constexpr int shift = sigma > 0 ? 0 : 2;
    constexpr int p0 = gamma_dr::perm[mu][0], p1 = gamma_dr::perm[mu][1];
    constexpr int p2 = gamma_dr::perm[mu][2], p3 = gamma_dr::perm[mu][3];
    constexpr int k0 = gamma_dr::code[mu][0] + shift, k1 = gamma_dr::code[mu][1] + shift;
    constexpr int k2 = gamma_dr::code[mu][2] + shift, k3 = gamma_dr::code[mu][3] + shift;
    const Neighbour nb = arg.sites.template neighbour<mu, dir>(vs, target_cb);

    // Colour by colour, so that only one colour's half spinor is live next to chi and acc (the
    // 32 zmm registers hold acc, chi, h, i h and a link element without spilling).
    const real* link = arg.gauge + (vs * 2 * Nd + 2 * mu + (dir > 0 ? 0 : 1)) * Nc * Nc * link_reals;
    V chi[Nc][2];
    for (int c = 0; c < Nc; ++c) {
      V h[2] = {add_i_pow<k0>(V::load(spinor_at(arg.in, nb.index, c, 0)), V::load(spinor_at(arg.in, nb.index, c, p0))),
                add_i_pow<k1>(V::load(spinor_at(arg.in, nb.index, c, 1)), V::load(spinor_at(arg.in, nb.index, c, p1)))};
      // Left the sub-lattice in a split dimension: the neighbour is in the other lane of the pair.
      if (nb.crossed && arg.level[mu] >= 0)
        for (int s = 0; s < 2; ++s) h[s] = h[s].swap_blocks(arg.level[mu]);
      const V ih[2] = {h[0].times_i(), h[1].times_i()};
      for (int a = 0; a < Nc; ++a) {
        const real* le = link + (a * Nc + c) * link_reals;
        V lr, li;
        if constexpr (rhs_lanes) {
          lr = V{V::isa::set1(le[0])};
          li = V{V::isa::set1(le[1])};
        } else {
          const V l = V::load(le);
          lr = l.dup_re();
          li = l.dup_im();
        }
        for (int s = 0; s < 2; ++s) chi[a][s] = V::madd(lr, li, h[s], ih[s], c == 0 ? V::zero() : chi[a][s]);
      }
    }

    for (int c = 0; c < Nc; ++c) {
      acc[c][0] += chi[c][0];
      acc[c][1] += chi[c][1];
      acc[c][2] = add_i_pow<k2>(acc[c][2], chi[c][p2]);
      acc[c][3] = add_i_pow<k3>(acc[c][3], chi[c][p3]);
    }
  }

  template <int mu> inline void hops(int vs, V acc[Nc][Ns]) const {
    hop<mu, +1>(vs, acc);
    hop<mu, -1>(vs, acc);
  }

  inline void operator()(int vs) const {
    V acc[Nc][Ns];
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) acc[c][s] = V::zero();
    hops<0>(vs, acc);
    hops<1>(vs, acc);
    hops<2>(vs, acc);
    hops<3>(vs, acc);
    for (int c = 0; c < Nc; ++c)
      for (int s = 0; s < Ns; ++s) {
        real* o = arg.out + ((vs * Nc + c) * Ns + s) * R;
        if constexpr (xpay) V::axpby(arg.a, V::load(spinor_at(arg.x, vs, c, s)), arg.b, acc[c][s]).store(o);
        else acc[c][s].store(o);
      }
  }
};

} // namespace kqcd
