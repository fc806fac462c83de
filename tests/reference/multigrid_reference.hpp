// A plain host reference for aggregation-based multigrid on the Wilson operator (the groundwork of
// the adaptive multigrid issue), written from its definitions with lexicographic arrays and nothing
// from kqcd: aggregates are lattice blocks; each test vector is split by chirality (P+ and P- parts)
// and block-orthonormalised within each aggregate, giving 2 Nv coarse components per coarse site;
// P (prolongation) and P^dag (restriction); the Galerkin coarse operator D_c = P^dag D P as a
// nearest-neighbour stencil on the coarse lattice,
//   (D_c phi)(c) = X(c) phi(c) + sum_mu sum_{dir = +-1} Y(c, mu, dir) phi(c + dir mu),
// built from the fine operator's structure (the site term and the hops within an aggregate in X, the
// hops between neighbouring aggregates in Y), as QUDA's coarse-operator construction does.
#pragma once

#include "wilson_reference.hpp"

#include <array>
#include <vector>

namespace kqcd::ref {

/// The aggregation of a fine lattice into blocks: coarse extents = fine / block (each at least 2).
struct Aggregation {
  Dims fine, block, coarse;
  /// Throws std::invalid_argument unless block divides fine into at least two blocks per direction.
  Aggregation(const Dims& fine, const Dims& block);
  /// The aggregate (coarse site) of fine site i.
  std::int64_t aggregate(std::int64_t fine_site) const;
};

/// The transfer between a fine spinor field ([site][spin][colour]) and a coarse field of n = 2 Nv
/// components per coarse site ([coarse site][k]): column k < Nv is the P+ part of test vector k,
/// k >= Nv the P- part of test vector k - Nv, block-orthonormalised within each aggregate.
struct Transfer {
  Aggregation agg;
  int nv; ///< test vectors
  /// The 2 Nv columns as fine fields (each supported on one chirality, orthonormal on every aggregate).
  std::vector<std::vector<cd>> columns;
  Transfer(const Aggregation& agg, const std::vector<std::vector<cd>>& test_vectors);
  /// Coarse components per coarse site.
  int n() const { return 2 * nv; }
  /// P phi.
  std::vector<cd> prolong(const std::vector<cd>& coarse) const;
  /// P^dag psi.
  std::vector<cd> restrict_to_coarse(const std::vector<cd>& fine) const;
};

/// A coarse stencil operator: X [coarse site][n][n], Y [(coarse site * 4 + mu) * 2 + (dir < 0)][n][n].
struct CoarseOperator {
  Dims coarse;
  int n;
  std::vector<cd> X, Y;
  /// D_c phi.
  std::vector<cd> apply(const std::vector<cd>& phi) const;
};

/// D_c = P^dag D P of the Wilson operator D = (4 + m) - H/2 (links u, boundary phases b) from its
/// structure: X(c) = V_c^dag [(4 + m) - (1/2) (hops within c)] V_c, Y(c, mu, dir) = -(1/2) V_c^dag
/// (hop in direction dir along mu from aggregate c + dir mu into c) V_{c + dir mu}.
CoarseOperator coarse_wilson(const Dims& d, const std::vector<cd>& u, double mass, const std::array<cd, 4>& b, const Transfer& t);

/// Gamma5 on the coarse field: +1 on the P+ components (k < Nv), -1 on the P- ones.
std::vector<cd> coarse_g5(const std::vector<cd>& phi, int nv);

} // namespace kqcd::ref
