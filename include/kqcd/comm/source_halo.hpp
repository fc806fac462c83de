// The source halo of the hopping term: the faces of the spinor a hop reads from other ranks, in
// every storage the hopping term takes (single spinors and blocks of right-hand sides, 16-bit sites
// with their norms), packed as the operator says (its face pack). stencil/wilson_dslash.hpp starts
// and finishes it around the interior sweep.
#pragma once

#include <kqcd/comm/spinor_halo.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/core/precision.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <string>

namespace kqcd::detail {

/// The source halo of the hopping term in storage precision P: single spinors, and blocks of
/// right-hand sides through a second exchange sized for the block.
template <class P, class ES> class SourceHalo {
public:
  using spinor_type = cb_spinor_t<P, ES>;
  using block_type = multi_spinor_t<P, ES>;
  SourceHalo() = default;
  explicit SourceHalo(const Lattice& lat) : lat_(lat), single_(lat) {}
  template <class Faces> void start(const spinor_type& in, const Faces& faces) { single_.start(in, in.parity(), faces); }
  template <class Faces> void finish(const spinor_type& in, const Faces& faces) { single_.finish(in, faces); }
  template <class Faces> void start(const block_type& in, const Faces& faces) {
    if (block_.rows_per_site() != in.n_rhs()) block_ = SpinorHalo<block_type, ES>(lat_, in.n_rhs());
    block_.start(in, in.parity(), faces);
  }
  template <class Faces> void finish(const block_type& in, const Faces& faces) { block_.finish(in, faces); }
  /// Bytes this rank sends per call for n_rhs right-hand sides with face pack `faces`.
  template <class Faces> double bytes(const Faces& faces, int n_rhs) const { return n_rhs * single_.bytes(faces); }
  std::string path() const { return single_.path(); }

private:
  Lattice lat_;
  SpinorHalo<spinor_type, ES> single_;
  SpinorHalo<block_type, ES> block_;
};

} // namespace kqcd::detail
