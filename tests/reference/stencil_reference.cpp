#include "stencil_reference.hpp"

#include <cmath>
#include <numbers>

namespace kqcd::ref {
namespace {
using X = std::array<int, 4>;
long long index_of(const Dims& d, const X& x) { return x[0] + d[0] * (x[1] + (long long)d[1] * (x[2] + (long long)d[2] * x[3])); }
X coords_of(const Dims& d, long long i) {
  X x{};
  for (int mu = 0; mu < 4; ++mu) {
    x[mu] = int(i % d[mu]);
    i /= d[mu];
  }
  return x;
}
long long volume_of(const Dims& d) { return (long long)d[0] * d[1] * d[2] * d[3]; }
/// The site k sites along mu from x, and the boundary phase the hop picks up.
X hop(const Dims& d, X x, int mu, int k, const std::array<cd, 4>& b, cd& phase) {
  phase = 1.0;
  x[mu] += k;
  while (x[mu] >= d[mu]) x[mu] -= d[mu], phase *= b[mu];
  while (x[mu] < 0) x[mu] += d[mu], phase *= std::conj(b[mu]);
  return x;
}
cd link(const std::vector<cd>& u, const Dims& d, const X& x, int mu, int a, int c) {
  return u[std::size_t(((index_of(d, x) * 4 + mu) * 3 + a) * 3 + c)];
}
/// out(x) += coef * M psi(y), M = U_mu(x) (forward) or U_mu(y)^dag (backward), every spin component.
void add_hop(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, int n_spin, const X& x, int mu, int k,
             const std::array<cd, 4>& b, cd coef, std::vector<cd>& out) {
  cd phase;
  const X y = hop(d, x, mu, k, b, phase);
  const long long xs = index_of(d, x), ys = index_of(d, y);
  for (int s = 0; s < n_spin; ++s)
    for (int a = 0; a < 3; ++a) {
      cd t = 0;
      for (int c = 0; c < 3; ++c) {
        const cd m = k > 0 ? link(u, d, x, mu, a, c) : std::conj(link(u, d, y, mu, c, a));
        t += m * psi[std::size_t((ys * n_spin + s) * 3 + c)];
      }
      out[std::size_t((xs * n_spin + s) * 3 + a)] += coef * phase * t;
    }
}
} // namespace

int staggered_eta(int mu, const std::array<int, 4>& x) {
  int e = 0;
  if (mu == 0) e = x[3];
  else if (mu == 1) e = x[3] + x[0];
  else if (mu == 2) e = x[3] + x[0] + x[1];
  return (e % 2) ? -1 : 1;
}

std::vector<cd> staggered_dslash(const Dims& d, const std::vector<cd>& v, const std::vector<cd>& w, const std::vector<cd>& psi,
                                 const std::array<cd, 4>& b) {
  std::vector<cd> out(psi.size(), 0.0);
  for (long long i = 0; i < volume_of(d); ++i) {
    const X x = coords_of(d, i);
    for (int mu = 0; mu < 4; ++mu) {
      const double eta = staggered_eta(mu, x);
      add_hop(d, v, psi, 1, x, mu, +1, b, eta, out);
      add_hop(d, v, psi, 1, x, mu, -1, b, -eta, out);
      if (!w.empty()) {
        add_hop(d, w, psi, 1, x, mu, +3, b, eta, out);
        add_hop(d, w, psi, 1, x, mu, -3, b, -eta, out);
      }
    }
  }
  return out;
}

std::vector<cd> laplacian(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, int n_spin, int ndim,
                          const std::array<cd, 4>& b) {
  std::vector<cd> out(psi.size());
  for (std::size_t k = 0; k < psi.size(); ++k) out[k] = -2.0 * ndim * psi[k];
  for (long long i = 0; i < volume_of(d); ++i) {
    const X x = coords_of(d, i);
    for (int mu = 0; mu < ndim; ++mu) {
      add_hop(d, u, psi, n_spin, x, mu, +1, b, 1.0, out);
      add_hop(d, u, psi, n_spin, x, mu, -1, b, 1.0, out);
    }
  }
  return out;
}

std::vector<cd> covariant_derivative(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& psi, int n_spin, int mu, int dir,
                                     const std::array<cd, 4>& b) {
  std::vector<cd> out(psi.size(), 0.0);
  for (long long i = 0; i < volume_of(d); ++i) add_hop(d, u, psi, n_spin, coords_of(d, i), mu, dir, b, 1.0, out);
  return out;
}

std::vector<cd> transform_field(const std::vector<cd>& psi, const std::vector<cd>& g, int n_spin) {
  std::vector<cd> out(psi.size(), 0.0);
  const std::size_t sites = psi.size() / std::size_t(3 * n_spin);
  for (std::size_t x = 0; x < sites; ++x)
    for (int s = 0; s < n_spin; ++s)
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) out[(x * n_spin + s) * 3 + a] += g[(x * 3 + a) * 3 + c] * psi[(x * n_spin + s) * 3 + c];
  return out;
}

std::vector<cd> free_staggered_propagator(const Dims& d, double mass, const std::array<double, 4>& theta, const std::array<int, 4>& x0,
                                          double c1, double c3) {
  const long long V = volume_of(d);
  // g on one period, y in [0, L): the momentum sum for each site.
  std::vector<cd> period(static_cast<std::size_t>(V));
  for (long long i = 0; i < V; ++i) {
    const X y = coords_of(d, i);
    cd sum = 0;
    for (long long k = 0; k < V; ++k) {
      const X n = coords_of(d, k);
      double denom = 4 * mass * mass, phase = 0;
      for (int mu = 0; mu < 4; ++mu) {
        const double p = (2 * std::numbers::pi * n[mu] + theta[mu]) / d[mu];
        const double kk = c1 * std::sin(p) + c3 * std::sin(3 * p);
        denom += 4 * kk * kk;
        phase += p * y[mu];
      }
      sum += std::polar(1.0, phase) / denom;
    }
    period[std::size_t(i)] = sum / double(V);
  }
  // g at any displacement: its plane waves give g(y + w L) = e^{i theta w} g(y) (twisted periodicity).
  auto g = [&](X y) {
    double phase = 0;
    for (int mu = 0; mu < 4; ++mu) {
      const int w = (y[mu] >= 0 ? y[mu] : y[mu] - d[mu] + 1) / d[mu];
      y[mu] -= w * d[mu];
      phase += theta[mu] * w;
    }
    return std::polar(1.0, phase) * period[std::size_t(index_of(d, y))];
  };
  std::vector<cd> out(static_cast<std::size_t>(V));
  for (long long i = 0; i < V; ++i) {
    const X x = coords_of(d, i);
    X y{};
    for (int mu = 0; mu < 4; ++mu) y[mu] = x[mu] - x0[mu];
    cd v = 2 * mass * g(y);
    for (int mu = 0; mu < 4; ++mu) {
      X f = y, r = y, f3 = y, r3 = y;
      ++f[mu];
      --r[mu];
      f3[mu] += 3;
      r3[mu] -= 3;
      // (D g)(x) with x +- mu and x +- 3 mu taken without wrapping: g's plane waves carry the phases.
      v -= double(staggered_eta(mu, x)) * (c1 * (g(f) - g(r)) + (c3 != 0.0 ? c3 * (g(f3) - g(r3)) : cd(0)));
    }
    out[std::size_t(i)] = v;
  }
  return out;
}

} // namespace kqcd::ref
