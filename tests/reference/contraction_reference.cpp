#include "contraction_reference.hpp"

#include <cmath>
#include <numbers>

namespace kqcd::ref {

namespace {
std::array<int, 4> coords(const Dims& d, std::int64_t i) {
  std::array<int, 4> c{};
  for (int mu = 0; mu < 4; ++mu) {
    c[std::size_t(mu)] = int(i % d[std::size_t(mu)]);
    i /= d[std::size_t(mu)];
  }
  return c;
}
std::int64_t index(const Dims& d, const std::array<int, 4>& c) {
  return c[0] + std::int64_t(d[0]) * (c[1] + std::int64_t(d[1]) * (c[2] + std::int64_t(d[2]) * c[3]));
}
} // namespace

Mat4 gamma_n(int n) {
  Mat4 r{};
  for (int i = 0; i < 4; ++i) r[i][i] = 1.0;
  for (int mu = 0; mu < 4; ++mu)
    if ((n >> mu) & 1) r = mul4(r, gamma(mu));
  return r;
}

std::vector<cd> colour_contract(const std::vector<cd>& a, const std::vector<cd>& b, bool dr) {
  const std::size_t sites = a.size() / 12;
  std::vector<cd> out(sites * 16);
  for (std::size_t x = 0; x < sites; ++x)
    for (int k = 0; k < 16; ++k) {
      cd sum = 0;
      for (int mu = 0; mu < 4; ++mu)
        for (int nu = 0; nu < 4; ++nu) {
          cd g = dr ? gamma_n(k)[mu][nu] : cd(mu * 4 + nu == k ? 1.0 : 0.0);
          if (g == cd(0)) continue;
          for (int c = 0; c < 3; ++c) sum += std::conj(a[x * 12 + std::size_t(mu * 3 + c)]) * g * b[x * 12 + std::size_t(nu * 3 + c)];
        }
      out[x * 16 + std::size_t(k)] = sum;
    }
  return out;
}

std::vector<std::array<cd, 16>> meson_correlators(const Dims& d, const std::vector<std::vector<cd>>& prop,
                                                  const std::array<int, 4>& x0, const std::array<int, 3>& mom) {
  const Mat4 g5 = gamma(4);
  std::array<Mat4, 16> G;
  for (int n = 0; n < 16; ++n) G[std::size_t(n)] = gamma_n(n);
  std::vector<std::array<cd, 16>> r(std::size_t(d[3]), std::array<cd, 16>{});
  using M12 = std::array<std::array<cd, 12>, 12>;
  auto spin_mat = [](const Mat4& g) { // g (x) 1_colour as a 12x12 matrix
    M12 m{};
    for (int s = 0; s < 4; ++s)
      for (int t = 0; t < 4; ++t)
        for (int c = 0; c < 3; ++c) m[std::size_t(s * 3 + c)][std::size_t(t * 3 + c)] = g[s][t];
    return m;
  };
  auto mul12 = [](const M12& a, const M12& b) {
    M12 m{};
    for (int i = 0; i < 12; ++i)
      for (int k = 0; k < 12; ++k)
        if (a[i][k] != cd(0))
          for (int j = 0; j < 12; ++j) m[i][j] += a[i][k] * b[k][j];
    return m;
  };
  const M12 G5 = spin_mat(g5);
  std::array<M12, 16> G12;
  for (int n = 0; n < 16; ++n) G12[std::size_t(n)] = spin_mat(G[std::size_t(n)]);
  for (std::int64_t x = 0; x < volume(d); ++x) {
    const auto c = coords(d, x);
    M12 S{}, Sd{};
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        S[std::size_t(i)][std::size_t(j)] = prop[std::size_t(j)][std::size_t(x * 12 + i)];
        Sd[std::size_t(j)][std::size_t(i)] = std::conj(S[std::size_t(i)][std::size_t(j)]);
      }
    double phase = 0;
    for (int i = 0; i < 3; ++i) phase -= 2 * std::numbers::pi * mom[std::size_t(i)] * (c[std::size_t(i)] - x0[std::size_t(i)]) / d[std::size_t(i)];
    const cd e = std::polar(1.0, phase);
    const M12 A = mul12(mul12(G5, Sd), G5);
    const int t = (c[3] - x0[3] + d[3]) % d[3];
    for (int n = 0; n < 16; ++n) {
      const M12 B = mul12(mul12(mul12(A, G12[std::size_t(n)]), S), G12[std::size_t(n)]);
      cd tr = 0;
      for (int i = 0; i < 12; ++i) tr += B[std::size_t(i)][std::size_t(i)];
      r[std::size_t(t)][std::size_t(n)] += e * tr;
    }
  }
  return r;
}

std::vector<cd> gaussian_smear(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, double w, int n,
                               const std::array<cd, 3>& b) {
  const double alpha = w * w / (4.0 * n);
  std::vector<cd> cur = psi;
  for (int step = 0; step < n; ++step) {
    std::vector<cd> next(cur.size());
    for (std::int64_t x = 0; x < volume(d); ++x) {
      const auto c = coords(d, x);
      std::array<cd, 12> lap{};
      for (int mu = 0; mu < 3; ++mu) {
        auto f = c, r = c;
        cd pf = 1.0, pb = 1.0;
        if (++f[std::size_t(mu)] == d[std::size_t(mu)]) { f[std::size_t(mu)] = 0; pf = b[std::size_t(mu)]; }
        if (--r[std::size_t(mu)] < 0) { r[std::size_t(mu)] = d[std::size_t(mu)] - 1; pb = std::conj(b[std::size_t(mu)]); }
        const auto xf = index(d, f), xr = index(d, r);
        const cd* uf = &u[std::size_t((x * 4 + mu) * 9)];
        const cd* ur = &u[std::size_t((xr * 4 + mu) * 9)];
        for (int s = 0; s < 4; ++s)
          for (int a = 0; a < 3; ++a)
            for (int bb = 0; bb < 3; ++bb) {
              lap[std::size_t(s * 3 + a)] += pf * uf[a * 3 + bb] * cur[std::size_t(xf * 12 + s * 3 + bb)];
              lap[std::size_t(s * 3 + a)] += pb * std::conj(ur[bb * 3 + a]) * cur[std::size_t(xr * 12 + s * 3 + bb)];
            }
      }
      for (int k = 0; k < 12; ++k) {
        const auto i = std::size_t(x * 12 + k);
        next[i] = cur[i] + alpha * (lap[std::size_t(k)] - 6.0 * cur[i]);
      }
    }
    cur = std::move(next);
  }
  return cur;
}

} // namespace kqcd::ref
