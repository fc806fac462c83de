#include "wilson_reference.hpp"

#include <cmath>
#include <numbers>

namespace kqcd::ref {

std::int64_t volume(const Dims& d) { return std::int64_t(d[0]) * d[1] * d[2] * d[3]; }

const Mat4& gamma(int mu) {
  static const cd I(0, 1), O(0, 0), P(1, 0);
  static const std::array<std::array<std::array<cd, 4>, 4>, 5> g = {{
      {{{O, O, O, I}, {O, O, I, O}, {O, -I, O, O}, {-I, O, O, O}}},   // g1
      {{{O, O, O, -P}, {O, O, P, O}, {O, P, O, O}, {-P, O, O, O}}},   // g2
      {{{O, O, I, O}, {O, O, O, -I}, {-I, O, O, O}, {O, I, O, O}}},   // g3
      {{{O, O, P, O}, {O, O, O, P}, {P, O, O, O}, {O, P, O, O}}},     // g4
      {{{P, O, O, O}, {O, P, O, O}, {O, O, -P, O}, {O, O, O, -P}}},   // g5
  }};
  return g[mu];
}

Mat4 mul4(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}

namespace {
std::int64_t index(const Dims& d, const std::array<int, 4>& x) {
  return x[0] + std::int64_t(d[0]) * (x[1] + std::int64_t(d[1]) * (x[2] + std::int64_t(d[2]) * x[3]));
}
std::array<int, 4> coords(const Dims& d, std::int64_t i) {
  std::array<int, 4> x{};
  for (int mu = 0; mu < 4; ++mu) {
    x[mu] = int(i % d[mu]);
    i /= d[mu];
  }
  return x;
}
const cd* link(const std::vector<cd>& u, std::int64_t site, int mu) { return &u[std::size_t((site * 4 + mu) * 9)]; }
} // namespace

std::vector<cd> hop(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, const std::array<cd, 4>& b, int s, int mu,
                    int dir) {
  const auto V = volume(d);
  std::vector<cd> out(psi.size(), cd(0));
  const auto& g = gamma(mu);
  for (std::int64_t i = 0; i < V; ++i) {
    const auto x = coords(d, i);
    auto y = x;
    y[mu] += dir;
    cd phase(1);
    if (y[mu] == d[mu]) { y[mu] = 0; phase = b[mu]; }
    if (y[mu] < 0) { y[mu] = d[mu] - 1; phase = std::conj(b[mu]); }
    const auto j = index(d, y);
    // U psi(y): forward U_mu(x), backward U_mu(y)^dag
    cd upsi[4][3];
    for (int sp = 0; sp < 4; ++sp)
      for (int a = 0; a < 3; ++a) {
        cd acc(0);
        for (int c = 0; c < 3; ++c) {
          const cd uac = dir > 0 ? link(u, i, mu)[a * 3 + c] : std::conj(link(u, j, mu)[c * 3 + a]);
          acc += uac * psi[std::size_t((j * 4 + sp) * 3 + c)];
        }
        upsi[sp][a] = phase * acc;
      }
    // (1 -+ s g_mu): forward sign -s, backward +s
    const double sg = dir > 0 ? -s : s;
    for (int sp = 0; sp < 4; ++sp)
      for (int a = 0; a < 3; ++a) {
        cd acc = upsi[sp][a];
        for (int t = 0; t < 4; ++t) acc += sg * g[sp][t] * upsi[t][a];
        out[std::size_t((i * 4 + sp) * 3 + a)] += acc;
      }
  }
  return out;
}

std::vector<cd> hopping(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, const std::array<cd, 4>& b,
                        int s) {
  std::vector<cd> out(psi.size(), cd(0));
  for (int mu = 0; mu < 4; ++mu)
    for (int dir : {+1, -1}) {
      const auto h = hop(d, u, psi, b, s, mu, dir);
      for (std::size_t k = 0; k < out.size(); ++k) out[k] += h[k];
    }
  return out;
}

std::vector<cd> wilson(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, double mass,
                       const std::array<cd, 4>& b, int s) {
  auto h = hopping(d, u, psi, b, s);
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = (4.0 + mass) * psi[k] - 0.5 * h[k];
  return h;
}

std::vector<cd> apply_g5(const std::vector<cd>& psi) {
  auto out = psi;
  for (std::size_t k = 0; k < out.size(); ++k)
    if ((k / 3) % 4 >= 2) out[k] = -out[k];
  return out;
}

std::vector<cd> transform_gauge(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& g) {
  const auto V = volume(d);
  std::vector<cd> out(u.size());
  for (std::int64_t i = 0; i < V; ++i) {
    const auto x = coords(d, i);
    for (int mu = 0; mu < 4; ++mu) {
      auto y = x;
      y[mu] = (y[mu] + 1) % d[mu];
      const auto j = index(d, y);
      const cd* gx = &g[std::size_t(i * 9)];
      const cd* gy = &g[std::size_t(j * 9)];
      const cd* U = link(u, i, mu);
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
          cd acc(0);
          for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l) acc += gx[a * 3 + k] * U[k * 3 + l] * std::conj(gy[c * 3 + l]);
          out[std::size_t((i * 4 + mu) * 9 + a * 3 + c)] = acc;
        }
    }
  }
  return out;
}

std::vector<cd> transform_spinor(const std::vector<cd>& psi, const std::vector<cd>& g) {
  std::vector<cd> out(psi.size());
  const std::size_t V = psi.size() / 12;
  for (std::size_t i = 0; i < V; ++i)
    for (int sp = 0; sp < 4; ++sp)
      for (int a = 0; a < 3; ++a) {
        cd acc(0);
        for (int c = 0; c < 3; ++c) acc += g[i * 9 + a * 3 + c] * psi[(i * 4 + sp) * 3 + c];
        out[(i * 4 + sp) * 3 + a] = acc;
      }
  return out;
}

double norm2(const std::vector<cd>& v) {
  double s = 0;
  for (const auto& z : v) s += std::norm(z);
  return s;
}
cd dot(const std::vector<cd>& a, const std::vector<cd>& b) {
  cd s(0);
  for (std::size_t k = 0; k < a.size(); ++k) s += std::conj(a[k]) * b[k];
  return s;
}
double rel_diff(const std::vector<cd>& a, const std::vector<cd>& b) {
  double diff = 0;
  for (std::size_t k = 0; k < a.size(); ++k) diff += std::norm(a[k] - b[k]);
  return std::sqrt(diff / norm2(b));
}

std::vector<double> free_pion_correlator(const Dims& d, double mass, const std::array<double, 3>& theta) {
  using std::numbers::pi;
  const int T = d[3];
  const double V3 = double(d[0]) * d[1] * d[2];
  std::vector<double> c(std::size_t(T), 0.0);
  for (int n0 = 0; n0 < d[0]; ++n0)
    for (int n1 = 0; n1 < d[1]; ++n1)
      for (int n2 = 0; n2 < d[2]; ++n2) {
        const double p[3] = {(2 * pi * n0 + theta[0]) / d[0], (2 * pi * n1 + theta[1]) / d[1], (2 * pi * n2 + theta[2]) / d[2]};
        for (int t = 0; t < T; ++t) {
          cd A(0), B[4] = {cd(0), cd(0), cd(0), cd(0)};
          for (int n4 = 0; n4 < T; ++n4) {
            const double p4 = 2 * pi * n4 / T;
            const double pm[4] = {p[0], p[1], p[2], p4};
            double M = mass, den = 0;
            for (int mu = 0; mu < 4; ++mu) M += 1 - std::cos(pm[mu]);
            den = M * M;
            for (int mu = 0; mu < 4; ++mu) den += std::sin(pm[mu]) * std::sin(pm[mu]);
            const cd e = std::exp(cd(0, p4 * t)) / double(T);
            A += e * M / den;
            for (int mu = 0; mu < 4; ++mu) B[mu] += e * std::sin(pm[mu]) / den;
          }
          double s = std::norm(A);
          for (auto& bm : B) s += std::norm(bm);
          c[std::size_t(t)] += 12.0 / V3 * s;
        }
      }
  return c;
}

} // namespace kqcd::ref
