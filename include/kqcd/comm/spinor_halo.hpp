// The halo exchange of a spinor or block of right-hand sides in any storage (fields/spinor.hpp,
// fields/multi_spinor.hpp): its halo rows (halo_view()) with the face pack the caller gives
// (comm/halo.hpp; WholeRows by default) and, in 16 bits, its norms beside them, whole.
#pragma once

#include <kqcd/comm/halo.hpp>
#include <kqcd/core/lattice.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace kqcd::detail {

template <class S, class ES> class SpinorHalo {
  using rows_view = std::remove_cvref_t<decltype(std::declval<const S&>().halo_view())>;
  struct NoNormExchange {
    double bytes() const { return 0; }
  };
  using norm_exchange = std::conditional_t<S::has_norm, HaloExchange<typename S::norm_view_type, ES>, NoNormExchange>;

public:
  SpinorHalo() = default;
  /// sites: the lattice whose ghost zone the spinor's rows fill; rows_per_site: a block's right-hand
  /// sides where they are rows of their own (1 otherwise).
  explicit SpinorHalo(const Lattice& sites, int rows_per_site = 1) : rows_per_site_(rows_per_site), rows_(sites, rows_per_site) {
    if constexpr (S::has_norm) norms_ = norm_exchange(sites, rows_per_site, 2 * Nd); // own tags: both are in flight together
  }
  /// Rows per site; 0 before construction from a lattice.
  int rows_per_site() const { return rows_per_site_; }
  /// Sends the faces of `in` (sites of `parity`) packed by `faces` and posts the receives.
  template <class Faces = WholeRows> void start(const S& in, int parity, const Faces& faces = {}) {
    rows_.start(in.halo_view(), parity, faces);
    if constexpr (S::has_norm) norms_.start(in.norm(), parity);
  }
  /// Waits and fills the ghost zone (the face pack of start()).
  template <class Faces = WholeRows> void finish(const S& in, const Faces& faces = {}) { land(in, faces).join(); }
  /// finish() leaving the ghost zone on the stream it landed on (HaloExchange::land): rows and
  /// norms take the same route, so that the norms' stream, later on it, stands for both.
  template <class Faces = WholeRows> SideStream<ES> land(const S& in, const Faces& faces = {}) {
    SideStream<ES> side = rows_.land(in.halo_view(), faces);
    if constexpr (S::has_norm) side = norms_.land(in.norm());
    return side;
  }
  /// Bytes this rank sends per exchange with face pack `faces`.
  template <class Faces = WholeRows> double bytes(const Faces& faces = {}) const { return rows_.bytes(faces) + norms_.bytes(); }
  std::string path() const { return rows_.path(); }

private:
  int rows_per_site_ = 0;
  HaloExchange<rows_view, ES> rows_;
  norm_exchange norms_;
};

} // namespace kqcd::detail
