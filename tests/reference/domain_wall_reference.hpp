// A plain host reference for the five-dimensional Shamir / Moebius domain-wall operator, written
// from conventions.md ("Domain-wall fermions") on wilson_reference's Wilson operator: a 5D field is
// Ls 4D spinor fields psi[s] ([site][spin][colour], lexicographic sites); and the free 4D quark
// propagator from momentum space, each 4-momentum's 4 Ls x 4 Ls system (spin x s) solved directly.
// Nothing from kqcd.
#pragma once

#include "wilson_reference.hpp"

#include <array>
#include <vector>

namespace kqcd::ref {

/// The parameters of D5: Ls slices, domain-wall height M5, Moebius b5 and c5 (Shamir: 1, 0), quark mass m_f.
struct DomainWall {
  int Ls;
  double M5, b5, c5, mf;
};
/// A five-dimensional field: Ls four-dimensional spinor fields.
using Field5 = std::vector<std::vector<cd>>;

/// P+ psi (sign +1) or P- psi (sign -1) of a 4D spinor field, P+- = (1 +- g5) / 2.
std::vector<cd> chiral(const std::vector<cd>& psi, int sign);
/// D5 psi (dagger: D5^dag psi, each term's adjoint written out) on links u with boundary phases b:
/// (D5 psi)(s) = (b5 D_W(-M5) + 1) psi(s) + (c5 D_W(-M5) - 1) [P- psi(s+1) + P+ psi(s-1)],
/// P- psi(Ls) = -m_f P- psi(0), P+ psi(-1) = -m_f P+ psi(Ls-1).
Field5 domain_wall(const Dims& d, const std::vector<cd>& u, const Field5& psi, const DomainWall& p, const std::array<cd, 4>& b,
                   bool dagger = false);
/// Gamma5 R5 psi: g5 on every slice and s -> Ls - 1 - s.
Field5 g5_r5(const Field5& psi);
/// The 5D source of a 4D source eta: B(s) = D-[delta_{s,0} P+ eta + delta_{s,Ls-1} P- eta], D- = 1 - c5 D_W(-M5).
Field5 domain_wall_source(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& eta, const DomainWall& p,
                          const std::array<cd, 4>& b);
/// The 4D quark field of a 5D solution: q = P- Psi(0) + P+ Psi(Ls-1).
std::vector<cd> domain_wall_quark(const Field5& psi);
/// The free 4D propagator S(x; 0) on a unit gauge field with boundary phases e^{i theta_mu}, from
/// momentum space: [site][sink spin][source spin] (colour-diagonal).
std::vector<cd> free_domain_wall_propagator(const Dims& d, const DomainWall& p, const std::array<double, 4>& theta);

} // namespace kqcd::ref
