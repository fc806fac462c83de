#include "domain_wall_reference.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace kqcd::ref {

namespace {
/// chi(s) = P_up psi(s+1) + P_down psi(s-1), psi(Ls) := -m_f psi(0) and psi(-1) := -m_f psi(Ls-1):
/// the slice coupling of D5 (up = -1, down = +1) and of its adjoint (up = +1, down = -1).
Field5 couple_slices(const Field5& psi, double mf, int up, int down) {
  const int Ls = int(psi.size());
  Field5 chi(psi.size(), std::vector<cd>(psi[0].size(), cd(0)));
  for (int s = 0; s < Ls; ++s) {
    const double wu = s + 1 < Ls ? 1.0 : -mf, wd = s > 0 ? 1.0 : -mf;
    const auto a = chiral(psi[std::size_t((s + 1) % Ls)], up), c = chiral(psi[std::size_t((s + Ls - 1) % Ls)], down);
    for (std::size_t k = 0; k < chi[0].size(); ++k) chi[std::size_t(s)][k] = wu * a[k] + wd * c[k];
  }
  return chi;
}
std::vector<cd> axpy(cd a, const std::vector<cd>& x, const std::vector<cd>& y) {
  std::vector<cd> r(y);
  for (std::size_t k = 0; k < r.size(); ++k) r[k] += a * x[k];
  return r;
}
/// Solves A x = b in place (n x n, row-major, Gaussian elimination with partial pivoting).
std::vector<cd> solve(std::vector<cd> A, std::vector<cd> b) {
  const int n = int(b.size());
  for (int k = 0; k < n; ++k) {
    int piv = k;
    for (int i = k + 1; i < n; ++i)
      if (std::abs(A[std::size_t(i * n + k)]) > std::abs(A[std::size_t(piv * n + k)])) piv = i;
    if (std::abs(A[std::size_t(piv * n + k)]) == 0.0) throw std::runtime_error("free_domain_wall_propagator: singular system");
    if (piv != k) {
      for (int j = 0; j < n; ++j) std::swap(A[std::size_t(k * n + j)], A[std::size_t(piv * n + j)]);
      std::swap(b[std::size_t(k)], b[std::size_t(piv)]);
    }
    for (int i = k + 1; i < n; ++i) {
      const cd f = A[std::size_t(i * n + k)] / A[std::size_t(k * n + k)];
      for (int j = k; j < n; ++j) A[std::size_t(i * n + j)] -= f * A[std::size_t(k * n + j)];
      b[std::size_t(i)] -= f * b[std::size_t(k)];
    }
  }
  std::vector<cd> x(b.size());
  for (int i = n - 1; i >= 0; --i) {
    cd acc = b[std::size_t(i)];
    for (int j = i + 1; j < n; ++j) acc -= A[std::size_t(i * n + j)] * x[std::size_t(j)];
    x[std::size_t(i)] = acc / A[std::size_t(i * n + i)];
  }
  return x;
}
Mat4 identity4() {
  Mat4 m{};
  for (int a = 0; a < 4; ++a) m[a][a] = 1.0;
  return m;
}
/// P+- as 4x4 matrices.
Mat4 projector(int sign) {
  Mat4 m{};
  const auto& g5 = gamma(4);
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 4; ++c) m[a][c] = 0.5 * ((a == c ? 1.0 : 0.0) + double(sign) * g5[a][c]);
  return m;
}
Mat4 combine(cd a, const Mat4& x, cd b, const Mat4& y) {
  Mat4 m{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) m[i][j] = a * x[i][j] + b * y[i][j];
  return m;
}
} // namespace

std::vector<cd> chiral(const std::vector<cd>& psi, int sign) {
  const auto g5psi = apply_g5(psi);
  std::vector<cd> r(psi.size());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = 0.5 * (psi[k] + double(sign) * g5psi[k]);
  return r;
}

Field5 domain_wall(const Dims& d, const std::vector<cd>& u, const Field5& psi, const DomainWall& p, const std::array<cd, 4>& b,
                   bool dagger) {
  if (p.Ls < 2 || int(psi.size()) != p.Ls) throw std::invalid_argument("domain_wall: Ls >= 2 slices expected");
  const int s = dagger ? -1 : 1;
  auto dw = [&](const std::vector<cd>& f) { return wilson(d, u, f, -p.M5, b, s); };
  Field5 out(psi.size());
  if (!dagger) {
    // (b5 D_W + 1) psi + (c5 D_W - 1) chi, chi = P- psi(s+1) + P+ psi(s-1)
    const Field5 chi = couple_slices(psi, p.mf, -1, +1);
    for (std::size_t k = 0; k < psi.size(); ++k) {
      auto t = axpy(p.b5, dw(psi[k]), psi[k]);
      t = axpy(p.c5, dw(chi[k]), t);
      out[k] = axpy(-1.0, chi[k], t);
    }
  } else {
    // (b5 D_W^dag + 1) psi + S^dag (c5 D_W^dag - 1) psi, S^dag swapping the projectors
    Field5 w(psi.size());
    for (std::size_t k = 0; k < psi.size(); ++k) {
      auto v = dw(psi[k]);
      for (auto& z : v) z *= p.c5;
      w[k] = axpy(-1.0, psi[k], v);
    }
    const Field5 chi = couple_slices(w, p.mf, +1, -1);
    for (std::size_t k = 0; k < psi.size(); ++k) out[k] = axpy(1.0, chi[k], axpy(p.b5, dw(psi[k]), psi[k]));
  }
  return out;
}

Field5 g5_r5(const Field5& psi) {
  Field5 out(psi.size());
  for (std::size_t s = 0; s < psi.size(); ++s) out[psi.size() - 1 - s] = apply_g5(psi[s]);
  return out;
}

Field5 domain_wall_source(const Dims& d, const std::vector<cd>& u, const std::vector<cd>& eta, const DomainWall& p,
                          const std::array<cd, 4>& b) {
  Field5 B(std::size_t(p.Ls), std::vector<cd>(eta.size(), cd(0)));
  auto dminus = [&](const std::vector<cd>& f) { return axpy(-p.c5, wilson(d, u, f, -p.M5, b, 1), f); };
  B[0] = dminus(chiral(eta, +1));
  B[std::size_t(p.Ls - 1)] = dminus(chiral(eta, -1));
  return B;
}

std::vector<cd> domain_wall_quark(const Field5& psi) { return axpy(1.0, chiral(psi.front(), -1), chiral(psi.back(), +1)); }

std::vector<cd> free_domain_wall_propagator(const Dims& d, const DomainWall& p, const std::array<double, 4>& theta) {
  const int Ls = p.Ls, n = 4 * Ls;
  const auto V = volume(d);
  const Mat4 one = identity4(), Pp = projector(+1), Pm = projector(-1);
  std::vector<cd> S(std::size_t(V) * 16, cd(0));
  std::array<int, 4> k{};
  for (k[3] = 0; k[3] < d[3]; ++k[3])
    for (k[2] = 0; k[2] < d[2]; ++k[2])
      for (k[1] = 0; k[1] < d[1]; ++k[1])
        for (k[0] = 0; k[0] < d[0]; ++k[0]) {
          std::array<double, 4> pm{};
          for (int mu = 0; mu < 4; ++mu) pm[mu] = (2 * std::numbers::pi * k[mu] + theta[mu]) / d[mu];
          // D_W(p) = (4 - M5 - sum cos p) + i sum gamma_mu sin p_mu
          double diag = 4 - p.M5;
          for (int mu = 0; mu < 4; ++mu) diag -= std::cos(pm[mu]);
          Mat4 dw = combine(diag, one, 0.0, one);
          for (int mu = 0; mu < 4; ++mu) dw = combine(1.0, dw, cd(0, std::sin(pm[mu])), gamma(mu));
          const Mat4 diag_block = combine(p.b5, dw, 1.0, one), hop = combine(p.c5, dw, -1.0, one);
          const Mat4 up = mul4(hop, Pm), down = mul4(hop, Pp), dminus = combine(1.0, one, -p.c5, dw);
          std::vector<cd> A(std::size_t(n * n), cd(0));
          auto add = [&](int s, int t, const Mat4& m, double w) {
            for (int a = 0; a < 4; ++a)
              for (int c = 0; c < 4; ++c) A[std::size_t((4 * s + a) * n + 4 * t + c)] += w * m[a][c];
          };
          for (int s = 0; s < Ls; ++s) {
            add(s, s, diag_block, 1.0);
            add(s, (s + 1) % Ls, up, s + 1 < Ls ? 1.0 : -p.mf);
            add(s, (s + Ls - 1) % Ls, down, s > 0 ? 1.0 : -p.mf);
          }
          const Mat4 src0 = mul4(dminus, Pp), src1 = mul4(dminus, Pm);
          for (int sigma = 0; sigma < 4; ++sigma) {
            std::vector<cd> B(std::size_t(n), cd(0));
            for (int a = 0; a < 4; ++a) {
              B[std::size_t(a)] += src0[a][sigma];
              B[std::size_t(4 * (Ls - 1) + a)] += src1[a][sigma];
            }
            const auto x = solve(A, B);
            // q = P- Psi(0) + P+ Psi(Ls-1), spread over the sites with e^{i p x} / V
            cd q[4];
            for (int a = 0; a < 4; ++a) {
              q[a] = 0;
              for (int c = 0; c < 4; ++c) q[a] += Pm[a][c] * x[std::size_t(c)] + Pp[a][c] * x[std::size_t(4 * (Ls - 1) + c)];
            }
            for (std::int64_t i = 0; i < V; ++i) {
              std::int64_t r = i;
              double phase = 0;
              for (int mu = 0; mu < 4; ++mu) {
                phase += pm[mu] * double(r % d[mu]);
                r /= d[mu];
              }
              const cd e = std::exp(cd(0, phase)) / double(V);
              for (int a = 0; a < 4; ++a) S[std::size_t((i * 4 + a) * 4 + sigma)] += e * q[a];
            }
          }
        }
  return S;
}

} // namespace kqcd::ref
