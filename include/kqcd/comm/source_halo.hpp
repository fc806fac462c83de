// The source halo of the hopping term: the faces of the spinor a hop reads from other ranks, in
// every storage the hopping term takes (single spinors and blocks of right-hand sides, 16-bit sites
// with their norms), packed as the operator says (its face pack). stencil/wilson_dslash.hpp starts
// it before the interior sweep and lands it (HaloExchange::land) before the exterior's.
#pragma once

#include <kqcd/comm/spinor_halo.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <string>
#include <type_traits>

namespace kqcd::detail {

/// The source halo of a hopping term on spinors S and, where B is a block type (not no_blocks),
/// blocks of right-hand sides B through a second exchange sized for the block. sites: the lattice
/// of the sites the functor sweeps (vector sites on the SIMD layout).
template <class S, class B, class ES> class SourceHalo {
  static constexpr bool has_blocks = !std::is_same_v<B, no_blocks>;
  struct NoBlockHalo {};

public:
  SourceHalo() = default;
  explicit SourceHalo(const Lattice& sites) : sites_(sites), single_(sites) {}
  template <class Faces> void start(const S& in, const Faces& faces) { single_.start(in, in.parity(), faces); }
  template <class Faces> SideStream<ES> land(const S& in, const Faces& faces) { return single_.land(in, faces); }
  template <class Faces>
    requires has_blocks
  void start(const B& in, const Faces& faces) {
    if (block_.rows_per_site() != in.n_rhs()) block_ = SpinorHalo<B, ES>(sites_, in.n_rhs());
    block_.start(in, in.parity(), faces);
  }
  template <class Faces>
    requires has_blocks
  SideStream<ES> land(const B& in, const Faces& faces) {
    return block_.land(in, faces);
  }
  /// Bytes this rank sends per call for `spinors` spinors' worth of rows with face pack `faces`.
  template <class Faces> double bytes(const Faces& faces, int spinors) const { return spinors * single_.bytes(faces); }
  std::string path() const { return single_.path(); }

private:
  Lattice sites_;
  SpinorHalo<S, ES> single_;
  std::conditional_t<has_blocks, SpinorHalo<B, ES>, NoBlockHalo> block_;
};

} // namespace kqcd::detail
