#include "smear_reference.hpp"
#include "su3_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

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
std::int64_t volume(const X& d) { return std::int64_t(d[0]) * d[1] * d[2] * d[3]; }
M scaled(double a, M m) {
  for (auto& z : m) z *= a;
  return m;
}
void put(std::vector<cd>& u, const X& d, const X& x, int mu, const M& m) {
  for (int k = 0; k < 9; ++k) u[std::size_t((site_index(d, x) * 4 + mu) * 9 + k)] = m[k];
}
/// TA(X) = (X - X^dag)/2 - tr(X - X^dag)/6.
M traceless_antihermitian(const M& x) {
  const M xd = dagger(x);
  M r;
  for (int k = 0; k < 9; ++k) r[k] = 0.5 * (x[k] - xd[k]);
  const cd t = trace(r) / 3.0;
  for (int i = 0; i < 3; ++i) r[i * 4] -= t;
  return r;
}
cd det(const M& m) {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
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

M project_su3(const M& v) {
  // One-sided Jacobi SVD: complex rotations B orthogonalise the columns of a = v B, so a = A S.
  M a = v, b{};
  for (int i = 0; i < 3; ++i) b[i * 4] = 1;
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        double alpha = 0, beta = 0;
        cd gamma = 0;
        for (int i = 0; i < 3; ++i) {
          alpha += std::norm(a[i * 3 + p]);
          beta += std::norm(a[i * 3 + q]);
          gamma += std::conj(a[i * 3 + p]) * a[i * 3 + q];
        }
        const double g = std::abs(gamma);
        if (!(g > 1e-15 * std::sqrt(alpha * beta))) continue;
        rotated = true;
        const cd phase = std::conj(gamma / g); // makes the overlap of columns p, q real and positive
        const double zeta = (beta - alpha) / (2 * g);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (M* m : {&a, &b})
          for (int i = 0; i < 3; ++i) {
            const cd mp = (*m)[i * 3 + p], mq = (*m)[i * 3 + q] * phase;
            (*m)[i * 3 + p] = c * mp - s * mq;
            (*m)[i * 3 + q] = s * mp + c * mq;
          }
      }
    if (!rotated) break;
  }
  double sv[3], smax = 0;
  for (int k = 0; k < 3; ++k) {
    double n = 0;
    for (int i = 0; i < 3; ++i) n += std::norm(a[i * 3 + k]);
    sv[k] = std::sqrt(n);
    smax = std::max(smax, sv[k]);
  }
  // A = a S^-1; columns of (numerically) zero singular values completed to an orthonormal basis.
  bool done[3] = {false, false, false};
  for (int k = 0; k < 3; ++k)
    if (sv[k] > 1e-14 * smax) {
      for (int i = 0; i < 3; ++i) a[i * 3 + k] /= sv[k];
      done[k] = true;
    }
  for (int k = 0; k < 3; ++k) {
    if (done[k]) continue;
    sv[k] = 0;
    double best = -1;
    std::array<cd, 3> col{};
    for (int e = 0; e < 3; ++e) {
      std::array<cd, 3> c{};
      c[e] = 1;
      for (int j = 0; j < 3; ++j) {
        if (!done[j]) continue;
        cd o = 0;
        for (int i = 0; i < 3; ++i) o += std::conj(a[i * 3 + j]) * c[i];
        for (int i = 0; i < 3; ++i) c[i] -= o * a[i * 3 + j];
      }
      double n = 0;
      for (const auto& z : c) n += std::norm(z);
      if (n > best) best = n, col = c;
    }
    for (int i = 0; i < 3; ++i) a[i * 3 + k] = col[i] / std::sqrt(best);
    done[k] = true;
  }
  // Maximise g = s0 cos p0 + s1 cos p1 + s2 cos(psi - p0 - p1), psi making det W = 1.
  const double psi = -std::arg(det(a) * std::conj(det(b)));
  auto value = [&](double p0, double p1) { return sv[0] * std::cos(p0) + sv[1] * std::cos(p1) + sv[2] * std::cos(psi - p0 - p1); };
  constexpr int n = 48;
  const double h = 2 * std::numbers::pi / n;
  double c01[n], c2[2 * n];
  for (int i = 0; i < n; ++i) c01[i] = std::cos(i * h);
  for (int k = 0; k < 2 * n; ++k) c2[k] = sv[2] * std::cos(psi - k * h);
  std::array<double, n * n> grid;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) grid[std::size_t(i * n + j)] = sv[0] * c01[i] + sv[1] * c01[j] + c2[i + j];
  double best_p[2] = {0, 0}, best_g = -1e300;
  int seeds = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double gij = grid[std::size_t(i * n + j)];
      bool local_max = true;
      for (int di : {n - 1, 0, 1})
        for (int dj : {n - 1, 0, 1})
          local_max = local_max && !(grid[std::size_t(((i + di) % n) * n + (j + dj) % n)] > gij);
      if (!local_max || ++seeds > 16) continue; // few maxima exist; only a flat landscape (S = 0) has more
      double p[2] = {i * h, j * h};
      const double scale = sv[0] + sv[1] + sv[2];
      for (int it = 0; it < 100 && scale > 0; ++it) {
        const double t2 = psi - p[0] - p[1];
        const double g0 = -sv[0] * std::sin(p[0]) + sv[2] * std::sin(t2), g1 = -sv[1] * std::sin(p[1]) + sv[2] * std::sin(t2);
        const double h01 = -sv[2] * std::cos(t2), h00 = -sv[0] * std::cos(p[0]) + h01, h11 = -sv[1] * std::cos(p[1]) + h01;
        const double dh = h00 * h11 - h01 * h01;
        double step[2];
        const bool newton = h00 < 0 && dh > 0;
        if (newton) { // Newton's step towards the maximum
          step[0] = -(h11 * g0 - h01 * g1) / dh;
          step[1] = -(h00 * g1 - h01 * g0) / dh;
        } else { // not concave here: gradient ascent
          step[0] = g0 / scale;
          step[1] = g1 / scale;
        }
        const double g_now = value(p[0], p[1]);
        double lambda = 1;
        while (lambda > 1e-12 && value(p[0] + lambda * step[0], p[1] + lambda * step[1]) < g_now - 1e-15 * scale) lambda /= 2;
        p[0] += lambda * step[0];
        p[1] += lambda * step[1];
        // A full Newton step this small leaves an error of its square: converged to rounding.
        if (newton && lambda == 1 && std::abs(step[0]) + std::abs(step[1]) < 1e-12) break;
      }
      const double g = value(p[0], p[1]);
      if (g > best_g) best_g = g, best_p[0] = p[0], best_p[1] = p[1];
    }
  const cd ph[3] = {std::polar(1.0, best_p[0]), std::polar(1.0, best_p[1]), std::polar(1.0, psi - best_p[0] - best_p[1])};
  M ad;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) ad[i * 3 + k] = a[i * 3 + k] * ph[k];
  return ad * dagger(b);
}

std::vector<cd> ape_step(const std::array<int, 4>& d, const std::vector<cd>& u, double c, bool spatial_only) {
  const auto staples = staple_sums(d, u, spatial_only);
  std::vector<cd> out = u;
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < (spatial_only ? 3 : 4); ++mu) put(out, d, x, mu, project_su3(scaled(c, link(u, d, x, mu)) + link(staples, d, x, mu)));
  });
  return out;
}

std::vector<cd> hyp_step(const std::array<int, 4>& d, const std::vector<cd>& u, double a1, double a2, double a3) {
  const std::int64_t vol = volume(d);
  // Vbar_{mu; nu rho}(x) at [x][mu][nu][rho] (filled for both orders of nu, rho), Vtil_{mu; nu}(x) at [x][mu][nu].
  std::vector<M> vbar(std::size_t(vol * 64)), vtil(std::size_t(vol * 16));
  auto Vbar = [&](const X& x, int mu, int nu, int rho) -> const M& { return vbar[std::size_t(((site_index(d, x) * 4 + mu) * 4 + nu) * 4 + rho)]; };
  auto Vtil = [&](const X& x, int mu, int nu) -> const M& { return vtil[std::size_t((site_index(d, x) * 4 + mu) * 4 + nu)]; };
  auto U = [&](const X& x, int mu) { return link(u, d, x, mu); };
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = 0; nu < 4; ++nu)
        for (int rho = 0; rho < 4; ++rho) {
          if (nu == mu || rho == mu || rho == nu) continue;
          M sum{};
          for (int eta = 0; eta < 4; ++eta) {
            if (eta == mu || eta == nu || eta == rho) continue;
            const X xm = step(d, x, eta, -1);
            sum = sum + U(x, eta) * U(step(d, x, eta, 1), mu) * dagger(U(step(d, x, mu, 1), eta)) +
                  dagger(U(xm, eta)) * U(xm, mu) * U(step(d, xm, mu, 1), eta);
          }
          vbar[std::size_t(((site_index(d, x) * 4 + mu) * 4 + nu) * 4 + rho)] =
              project_su3(scaled(1 - a3, U(x, mu)) + scaled(a3 / 2, sum));
        }
  });
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = 0; nu < 4; ++nu) {
        if (nu == mu) continue;
        M sum{};
        for (int rho = 0; rho < 4; ++rho) {
          if (rho == mu || rho == nu) continue;
          const X xm = step(d, x, rho, -1);
          sum = sum + Vbar(x, rho, nu, mu) * Vbar(step(d, x, rho, 1), mu, rho, nu) * dagger(Vbar(step(d, x, mu, 1), rho, nu, mu)) +
                dagger(Vbar(xm, rho, nu, mu)) * Vbar(xm, mu, rho, nu) * Vbar(step(d, xm, mu, 1), rho, nu, mu);
        }
        vtil[std::size_t((site_index(d, x) * 4 + mu) * 4 + nu)] = project_su3(scaled(1 - a2, U(x, mu)) + scaled(a2 / 4, sum));
      }
  });
  std::vector<cd> out(u.size());
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < 4; ++mu) {
      M sum{};
      for (int nu = 0; nu < 4; ++nu) {
        if (nu == mu) continue;
        const X xm = step(d, x, nu, -1);
        sum = sum + Vtil(x, nu, mu) * Vtil(step(d, x, nu, 1), mu, nu) * dagger(Vtil(step(d, x, mu, 1), nu, mu)) +
              dagger(Vtil(xm, nu, mu)) * Vtil(xm, mu, nu) * Vtil(step(d, xm, mu, 1), nu, mu);
      }
      put(out, d, x, mu, project_su3(scaled(1 - a1, U(x, mu)) + scaled(a1 / 6, sum)));
    }
  });
  return out;
}

std::vector<cd> wilson_flow_step(const std::array<int, 4>& d, const std::vector<cd>& u, double eps) {
  const std::size_t links = u.size() / 9;
  auto at = [](const std::vector<cd>& f, std::size_t l) {
    M m;
    for (int k = 0; k < 9; ++k) m[k] = f[l * 9 + std::size_t(k)];
    return m;
  };
  auto force = [&](const std::vector<cd>& w) { // Z(W) = eps TA(C W^dag) per link
    const auto c = staple_sums(d, w, false);
    std::vector<M> z(links);
    for (std::size_t l = 0; l < links; ++l) z[l] = scaled(eps, traceless_antihermitian(at(c, l) * dagger(at(w, l))));
    return z;
  };
  auto advance = [&](const std::vector<cd>& w, auto generator) { // exp(generator(l)) W per link
    std::vector<cd> out(w.size());
    for (std::size_t l = 0; l < links; ++l) {
      const M v = expm(generator(l)) * at(w, l);
      for (int k = 0; k < 9; ++k) out[l * 9 + std::size_t(k)] = v[k];
    }
    return out;
  };
  const auto z0 = force(u);
  const auto w1 = advance(u, [&](std::size_t l) { return scaled(0.25, z0[l]); });
  const auto z1 = force(w1);
  const auto w2 = advance(w1, [&](std::size_t l) { return scaled(8.0 / 9, z1[l]) + scaled(-17.0 / 36, z0[l]); });
  const auto z2 = force(w2);
  return advance(w2, [&](std::size_t l) { return scaled(0.75, z2[l]) + scaled(-8.0 / 9, z1[l]) + scaled(17.0 / 36, z0[l]); });
}

double flow_energy_plaq(const std::array<int, 4>& d, const std::vector<cd>& u) {
  double sum = 0;
  for_sites(d, [&](const X& x) {
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = mu + 1; nu < 4; ++nu) {
        const M p = link(u, d, x, mu) * link(u, d, step(d, x, mu, 1), nu) * dagger(link(u, d, step(d, x, nu, 1), mu)) *
                    dagger(link(u, d, x, nu));
        sum += 3 - trace(p).real();
      }
  });
  return 2 * sum / double(volume(d));
}

namespace {
/// F_{mu nu}(x) for all ordered pairs (zero on the diagonal), traceless: [mu * 4 + nu].
std::array<M, 16> clover_field_strength(const X& d, const std::vector<cd>& u, const X& x) {
  auto U = [&](const X& y, int mu) { return link(u, d, y, mu); };
  auto leaves = [&](int mu, int nu) { // Q_{mu nu}(x), conventions.md
    const X xpm = step(d, x, mu, 1), xpn = step(d, x, nu, 1), xmm = step(d, x, mu, -1), xmn = step(d, x, nu, -1);
    const X xmm_pn = step(d, xmm, nu, 1), xmm_mn = step(d, xmm, nu, -1), xmn_pm = step(d, xmn, mu, 1);
    return U(x, mu) * U(xpm, nu) * dagger(U(xpn, mu)) * dagger(U(x, nu)) +
           U(x, nu) * dagger(U(xmm_pn, mu)) * dagger(U(xmm, nu)) * U(xmm, mu) +
           dagger(U(xmm, mu)) * dagger(U(xmm_mn, nu)) * U(xmm_mn, mu) * U(xmn, nu) +
           dagger(U(xmn, nu)) * U(xmn, mu) * U(xmn_pm, nu) * dagger(U(x, mu));
  };
  std::array<M, 16> f{};
  for (int mu = 0; mu < 4; ++mu)
    for (int nu = 0; nu < 4; ++nu) {
      if (mu == nu) continue;
      M m = leaves(mu, nu) + scaled(-1, leaves(nu, mu));
      m = scaled(0.125, m);
      const cd t = trace(m) / 3.0;
      for (int i = 0; i < 3; ++i) m[i * 4] -= t;
      f[std::size_t(mu * 4 + nu)] = m;
    }
  return f;
}
} // namespace

double flow_energy_clover(const std::array<int, 4>& d, const std::vector<cd>& u) {
  double sum = 0;
  for_sites(d, [&](const X& x) {
    const auto f = clover_field_strength(d, u, x);
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = mu + 1; nu < 4; ++nu) sum -= trace(f[std::size_t(mu * 4 + nu)] * f[std::size_t(mu * 4 + nu)]).real();
  });
  return sum / double(volume(d));
}

double topological_charge_clover(const std::array<int, 4>& d, const std::vector<cd>& u) {
  double sum = 0;
  for_sites(d, [&](const X& x) {
    const auto f = clover_field_strength(d, u, x);
    int p[4] = {0, 1, 2, 3};
    do { // eps of the permutation from its number of inversions
      int inversions = 0;
      for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) inversions += p[i] > p[j];
      const double sign = inversions % 2 ? -1 : 1;
      sum += sign * trace(f[std::size_t(p[0] * 4 + p[1])] * f[std::size_t(p[2] * 4 + p[3])]).real();
    } while (std::next_permutation(p, p + 4));
  });
  return -sum / (32 * std::numbers::pi * std::numbers::pi);
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
