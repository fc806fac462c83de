// Plain host reference of MILC's improved staggered links and Dslash, written the way MILC writes
// them: the staggered phases eta_mu(x) and the boundary phases multiplied into the thin links
// first, every path of a basic path's rotations and reflections (deduplicated) walked link by link
// with MILC's signed coefficients (divided by u0 to the path length minus one), and the Dslash on
// phased links with no further phases. Nothing of kqcd: lexicographic arrays [site][mu][row][col].
#pragma once

#include <array>
#include <complex>
#include <utility>
#include <vector>

namespace kqcd::ref {

/// A path as MILC's path tables write it: directions 0..3 forward, 7 - d backward (MILC's XDOWN = 7).
struct MilcPath {
  std::vector<int> steps; ///< the basic path, displacing +x
  double coeff;           ///< its coefficient (before tadpole factors)
};

/// Thin links with eta_mu(x) and, on the links leaving the last slice of direction mu, b_mu multiplied in.
std::vector<std::complex<double>> milc_phased_links(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& u,
                                                    const std::array<std::complex<double>, 4>& b);
/// sum over every rotation and reflection of each basic path displacing +mu (one site; three for a
/// three-step straight path, which goes to the long links) of coeff / u0^(length-1) times the
/// product of links along it. Returns (fat, long).
std::pair<std::vector<std::complex<double>>, std::vector<std::complex<double>>>
milc_smear(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& links, const std::vector<MilcPath>& paths, double u0);
/// asqtad's fat and long links of phased thin links (asqtad_action.h).
std::pair<std::vector<std::complex<double>>, std::vector<std::complex<double>>>
milc_asqtad_links(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& phased, double u0);
/// HISQ's fat and long links of phased thin links (hisq_u3_action.h: fat7, U(3) projection by an
/// Newton's polar iteration, fat7 + 2 x Lepage + Naik, epsilon terms).
std::pair<std::vector<std::complex<double>>, std::vector<std::complex<double>>>
milc_hisq_links(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& phased, double naik_epsilon);
/// D psi(x) = sum_mu [V_mu(x) psi(x+mu) - V_mu^dag(x-mu) psi(x-mu) + W_mu(x) psi(x+3mu) - W_mu^dag(x-3mu) psi(x-3mu)]
/// on phased links (periodic indices, no other phases); psi one colour vector per site.
std::vector<std::complex<double>> milc_dslash(const std::array<int, 4>& dims, const std::vector<std::complex<double>>& fat,
                                              const std::vector<std::complex<double>>& lng, const std::vector<std::complex<double>>& psi);
/// V (V^dag V)^(-1/2) of a row-major 3x3 matrix: the polar factor by Newton's iteration X <- (X + X^-dag) / 2.
std::array<std::complex<double>, 9> u3_projection(const std::array<std::complex<double>, 9>& v);

} // namespace kqcd::ref
