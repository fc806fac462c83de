#include "clover_reference.hpp"

namespace kqcd::ref {

namespace {
using M3 = std::array<cd, 9>;
std::int64_t lex(const Dims& d, std::array<int, 4> x) {
  for (int mu = 0; mu < 4; ++mu) x[mu] = ((x[mu] % d[mu]) + d[mu]) % d[mu];
  return x[0] + std::int64_t(d[0]) * (x[1] + std::int64_t(d[1]) * (x[2] + std::int64_t(d[2]) * x[3]));
}
M3 mul(const M3& a, const M3& b) {
  M3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return r;
}
M3 dag(const M3& a) {
  M3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[i * 3 + j] = std::conj(a[j * 3 + i]);
  return r;
}
} // namespace

std::vector<cd> clover_site_matrices(const Dims& d, const std::vector<cd>& u, double mass, double csw, double mu) {
  const auto V = volume(d);
  auto U = [&](std::array<int, 4> x, int dir) {
    M3 r;
    const auto i = lex(d, x);
    for (int k = 0; k < 9; ++k) r[std::size_t(k)] = u[std::size_t((i * 4 + dir) * 9 + k)];
    return r;
  };
  auto shift = [](std::array<int, 4> x, int dir, int by) {
    x[dir] += by;
    return x;
  };
  // Q_{mu nu}(x): the four leaves of conventions.md, written out literally.
  auto Q = [&](const std::array<int, 4>& x, int m, int n) {
    const auto xm = shift(x, m, 1), xn = shift(x, n, 1), xmm = shift(x, m, -1), xmn = shift(x, n, -1);
    M3 q = mul(mul(mul(U(x, m), U(xm, n)), dag(U(xn, m))), dag(U(x, n)));
    const M3 l2 = mul(mul(mul(U(x, n), dag(U(shift(xmm, n, 1), m))), dag(U(xmm, n))), U(xmm, m));
    const M3 l3 = mul(mul(mul(dag(U(xmm, m)), dag(U(shift(xmm, n, -1), n))), U(shift(xmm, n, -1), m)), U(xmn, n));
    const M3 l4 = mul(mul(mul(dag(U(xmn, n)), U(xmn, m)), U(shift(xmn, m, 1), n)), dag(U(x, m)));
    for (int k = 0; k < 9; ++k) q[std::size_t(k)] += l2[std::size_t(k)] + l3[std::size_t(k)] + l4[std::size_t(k)];
    return q;
  };
  const cd I(0, 1);
  std::vector<cd> a(std::size_t(V) * 144, cd(0));
  for (std::int64_t site = 0; site < V; ++site) {
    std::array<int, 4> x{};
    auto r = site;
    for (int k = 0; k < 4; ++k) {
      x[k] = int(r % d[k]);
      r /= d[k];
    }
    cd* A = &a[std::size_t(site) * 144];
    for (int k = 0; k < 12; ++k) A[k * 13] = 4.0 + mass;
    for (int sp = 0; sp < 4; ++sp)
      for (int c = 0; c < 3; ++c) A[(sp * 3 + c) * 13] += I * mu * gamma(4)[std::size_t(sp)][std::size_t(sp)];
    for (int m = 0; m < 4; ++m)
      for (int n = 0; n < 4; ++n) {
        if (m == n) continue;
        const M3 qmn = Q(x, m, n), qnm = Q(x, n, m);
        M3 F;
        for (int k = 0; k < 9; ++k) F[std::size_t(k)] = (qmn[std::size_t(k)] - qnm[std::size_t(k)]) / 8.0;
        const Mat4 gg = mul4(gamma(m), gamma(n)), hh = mul4(gamma(n), gamma(m));
        for (int s = 0; s < 4; ++s)
          for (int t = 0; t < 4; ++t) {
            const cd sigma = I / 2.0 * (gg[std::size_t(s)][std::size_t(t)] - hh[std::size_t(s)][std::size_t(t)]);
            if (sigma == cd(0)) continue;
            for (int ca = 0; ca < 3; ++ca)
              for (int cb = 0; cb < 3; ++cb) A[(s * 3 + ca) * 12 + t * 3 + cb] += csw * I / 4.0 * sigma * F[std::size_t(ca * 3 + cb)];
          }
      }
  }
  return a;
}

std::vector<cd> apply_site_matrices(const std::vector<cd>& a, const std::vector<cd>& psi, bool dagger) {
  std::vector<cd> out(psi.size(), cd(0));
  const std::size_t V = psi.size() / 12;
  for (std::size_t i = 0; i < V; ++i) {
    const cd* A = &a[i * 144];
    for (int r = 0; r < 12; ++r) {
      cd acc(0);
      for (int c = 0; c < 12; ++c) acc += (dagger ? std::conj(A[c * 12 + r]) : A[r * 12 + c]) * psi[i * 12 + std::size_t(c)];
      out[i * 12 + std::size_t(r)] = acc;
    }
  }
  return out;
}

std::vector<cd> clover_wilson(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, double mass, double csw,
                              double mu, const std::array<cd, 4>& b, int s) {
  const auto a = clover_site_matrices(d, u, mass, csw, mu);
  auto out = apply_site_matrices(a, psi, s < 0);
  const auto h = hopping(d, u, psi, b, s);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] -= 0.5 * h[k];
  return out;
}

} // namespace kqcd::ref
