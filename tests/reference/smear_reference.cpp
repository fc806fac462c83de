#include "smear_reference.hpp"
#include "su3_reference.hpp"

#include <cmath>
#include <cstdint>

namespace kqcd::ref {

namespace {
using cd = std::complex<double>;

template <class F> void for_sites(const X& d, F f) {
  X x;
  for (x[3] = 0; x[3] < d[3]; ++x[3])
    for (x[2] = 0; x[2] < d[2]; ++x[2])
      for (x[1] = 0; x[1] < d[1]; ++x[1])
        for (x[0] = 0; x[0] < d[0]; ++x[0]) f(x);
}
} // namespace

std::vector<cd> staple_sums(const std::array<int, 4>& d, const std::vector<cd>& u, bool spatial_only) {
  std::vector<cd> c(u.size(), cd(0));
  const int ndir = spatial_only ? 3 : 4;
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < ndir; ++mu) {
      M sum{};
      for (int nu = 0; nu < ndir; ++nu) {
        if (nu == mu) continue;
        // U_nu(x) U_mu(x+nu) U_nu^dag(x+mu)
        sum = sum + link(u, d, x, nu) * link(u, d, step(d, x, nu, 1), mu) * dagger(link(u, d, step(d, x, mu, 1), nu));
        // U_nu^dag(x-nu) U_mu(x-nu) U_nu(x-nu+mu)
        const X xm = step(d, x, nu, -1);
        sum = sum + dagger(link(u, d, xm, nu)) * link(u, d, xm, mu) * link(u, d, step(d, xm, mu, 1), nu);
      }
      for (int k = 0; k < 9; ++k) c[std::size_t((site_index(d, x) * 4 + mu) * 9 + k)] = sum[k];
    }
  });
  return c;
}

M expm(const M& a) {
  double norm = 0;
  for (const auto& z : a) norm += std::norm(z);
  int squarings = 0;
  for (double n = std::sqrt(norm); n > 0.25; n /= 2) ++squarings;
  M b;
  for (int k = 0; k < 9; ++k) b[k] = a[k] / std::ldexp(1.0, squarings);
  M result{}, term{};
  for (int i = 0; i < 3; ++i) result[i * 4] = term[i * 4] = 1;
  for (int n = 1; n < 30; ++n) {
    term = term * b;
    for (auto& z : term) z /= double(n);
    result = result + term;
  }
  for (int s = 0; s < squarings; ++s) result = result * result;
  return result;
}

std::vector<cd> stout_step(const std::array<int, 4>& d, const std::vector<cd>& u, double rho, bool spatial_only) {
  const auto c = staple_sums(d, u, spatial_only);
  std::vector<cd> out = u;
  const int ndir = spatial_only ? 3 : 4;
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < ndir; ++mu) {
      const std::size_t off = std::size_t((site_index(d, x) * 4 + mu) * 9);
      M cm;
      for (int k = 0; k < 9; ++k) cm[k] = c[off + k];
      const M U = link(u, d, x, mu);
      const M omega = cm * dagger(U);
      // iQ = (1/2)(Omega - Omega^dag) - (1/6) tr(Omega - Omega^dag)
      M iq;
      const M od = dagger(omega);
      for (int k = 0; k < 9; ++k) iq[k] = rho * 0.5 * (omega[k] - od[k]);
      const cd tr = (iq[0] + iq[4] + iq[8]) / 3.0;
      for (int i = 0; i < 3; ++i) iq[i * 4] -= tr;
      const M v = expm(iq) * U;
      for (int k = 0; k < 9; ++k) out[off + k] = v[k];
    }
  });
  return out;
}

std::vector<cd> gauge_transform(const std::array<int, 4>& d, const std::vector<cd>& u, const std::vector<cd>& g) {
  std::vector<cd> out(u.size());
  auto gm = [&](const X& x) {
    M m;
    for (int k = 0; k < 9; ++k) m[k] = g[std::size_t(site_index(d, x) * 9 + k)];
    return m;
  };
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < 4; ++mu) {
      const M v = gm(x) * link(u, d, x, mu) * dagger(gm(step(d, x, mu, 1)));
      for (int k = 0; k < 9; ++k) out[std::size_t((site_index(d, x) * 4 + mu) * 9 + k)] = v[k];
    }
  });
  return out;
}

} // namespace kqcd::ref
