// The source halo of the hopping term: the faces of the spinor a hop reads from other ranks, in
// every storage the hopping term takes (float and double spin-projected or whole, 16-bit sites with
// their norms, blocks of right-hand sides). ops/wilson_dslash.hpp starts and finishes it around the
// interior sweep.
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/half_spinor.hpp>
#include <kqcd/fields/multi_spinor.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <type_traits>

namespace kqcd::detail {

/// The exchange of a spinor's norms: 16-bit spinors have one per site, other spinors none.
template <class Spinor, class ES> struct NormExchange {
  struct type {
    double bytes() const { return 0; }
  };
};
template <class ES> struct NormExchange<HalfCBSpinor<ES>, ES> {
  using type = HaloExchange<typename HalfCBSpinor<ES>::norm_view_type, ES>;
};

/// The source halo of the hopping term in storage precision P: float and double spinors travel
/// spin-projected for the call's sign (isign != 0) or whole (isign = 0); 16-bit spinors travel
/// whole, with their norms; a block of right-hand sides through a second exchange sized for it.
template <class P, class ES> class SourceHalo {
public:
  static constexpr bool is_half = PrecisionTraits<P>::is_half;
  using spinor_type = cb_spinor_t<P, ES>;
  using block_type = multi_spinor_t<P, ES>;
  SourceHalo() = default;
  explicit SourceHalo(const Lattice& lat) : lat_(lat), sites_(lat) {
    if constexpr (is_half) norms_ = norm_exchange(lat, 1, 2 * Nd); // own tags: both are in flight together
  }
  void start(const spinor_type& in, int isign) { start_on(sites_, norms_, in, isign); }
  void finish(const spinor_type& in) { finish_on(sites_, norms_, in); }
  void start(const block_type& in, int isign) {
    if (block_.rows() != in.n_rhs()) {
      block_ = site_exchange(lat_, in.n_rhs());
      if constexpr (is_half) block_norms_ = norm_exchange(lat_, in.n_rhs(), 2 * Nd);
    }
    start_on(block_, block_norms_, in, isign);
  }
  void finish(const block_type& in) { finish_on(block_, block_norms_, in); }
  /// Bytes this rank sends per call for n_rhs right-hand sides (projected: if asked and possible).
  double bytes(bool projected, int n_rhs) const { return n_rhs * (sites_.bytes(projected) + norms_.bytes()); }
  std::string path() const { return sites_.path(); }

private:
  // A block's rows are a single spinor's sites: the same exchange type, sized for its rows.
  using site_exchange = HaloExchange<typename spinor_type::view_type, ES>;
  using norm_exchange = typename NormExchange<spinor_type, ES>::type;
  static_assert(std::is_same_v<typename spinor_type::view_type, typename block_type::view_type>);
  template <class S> static void start_on(site_exchange& sites, norm_exchange& norms, const S& in, int isign) {
    if constexpr (is_half) {
      sites.start(in.view(), in.parity());
      norms.start(in.norm(), in.parity());
    } else {
      sites.start(in.view(), in.parity(), isign);
    }
  }
  template <class S> static void finish_on(site_exchange& sites, norm_exchange& norms, const S& in) {
    sites.finish(in.view());
    if constexpr (is_half) norms.finish(in.norm());
  }
  Lattice lat_;
  site_exchange sites_, block_;
  norm_exchange norms_, block_norms_;
};

} // namespace kqcd::detail
