#include "staggered_links_reference.hpp"

#include "stencil_reference.hpp"
#include "su3_reference.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace kqcd::ref {
namespace {
using cvec = std::vector<std::complex<double>>;
std::int64_t volume(const X& d) { return std::int64_t(d[0]) * d[1] * d[2] * d[3]; }
X coords(const X& d, std::int64_t i) {
  X x{};
  for (int mu = 0; mu < 4; ++mu) x[mu] = int(i % d[mu]), i /= d[mu];
  return x;
}
void put(cvec& u, const X& d, const X& x, int mu, const M& m) {
  std::copy(m.begin(), m.end(), u.begin() + std::ptrdiff_t((site_index(d, x) * 4 + mu) * 9));
}
M scaled(M m, std::complex<double> s) {
  for (auto& e : m) e *= s;
  return m;
}
M unit() {
  M m{};
  m[0] = m[4] = m[8] = 1;
  return m;
}
/// Every distinct image of a path under the 24 permutations and 16 reflections of the axes (MILC's
/// "rotations and reflections"), as signed directions: +d forward, -(d+1) backward.
std::vector<std::vector<int>> images(const std::vector<int>& milc_steps) {
  std::vector<int> base;
  for (int s : milc_steps) base.push_back(s < 4 ? s : -(7 - s) - 1);
  std::set<std::vector<int>> out;
  std::array<int, 4> perm{0, 1, 2, 3};
  do {
    for (int flips = 0; flips < 16; ++flips) {
      std::vector<int> p;
      for (int s : base) {
        const int dir = s >= 0 ? s : -s - 1;
        const bool back = (s < 0) != bool(flips >> perm[dir] & 1);
        p.push_back(back ? -perm[dir] - 1 : perm[dir]);
      }
      out.insert(p);
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  return {out.begin(), out.end()};
}
/// Net displacement of a signed-direction path.
std::array<int, 4> displacement(const std::vector<int>& p) {
  std::array<int, 4> n{};
  for (int s : p) s >= 0 ? ++n[s] : --n[-s - 1];
  return n;
}
/// Product of the links along p starting at x.
M walk(const X& d, const cvec& u, X x, const std::vector<int>& p) {
  M m = unit();
  for (int s : p) {
    if (s >= 0) {
      m = m * link(u, d, x, s);
      x = step(d, x, s, 1);
    } else {
      x = step(d, x, -s - 1, -1);
      m = m * dagger(link(u, d, x, -s - 1));
    }
  }
  return m;
}
M inverse(const M& a) {
  M c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      c[i * 3 + j] = a[i1 * 3 + j1] * a[i2 * 3 + j2] - a[i1 * 3 + j2] * a[i2 * 3 + j1];
    }
  const std::complex<double> det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  return scaled(c, 1.0 / det);
}
} // namespace

cvec milc_phased_links(const X& d, const cvec& u, const std::array<std::complex<double>, 4>& b) {
  cvec out(u.size());
  for (std::int64_t i = 0; i < volume(d); ++i) {
    const X x = coords(d, i);
    for (int mu = 0; mu < 4; ++mu) {
      std::complex<double> ph = double(staggered_eta(mu, x));
      if (x[mu] == d[mu] - 1) ph *= b[mu];
      put(out, d, x, mu, scaled(link(u, d, x, mu), ph));
    }
  }
  return out;
}

std::pair<cvec, cvec> milc_smear(const X& d, const cvec& links, const std::vector<MilcPath>& paths, double u0) {
  cvec fat(links.size(), 0.0), lng(links.size(), 0.0);
  for (const auto& bp : paths) {
    const double c = bp.coeff / std::pow(u0, double(bp.steps.size()) - 1);
    for (const auto& p : images(bp.steps)) {
      const auto n = displacement(p);
      int mu = -1, len = 0;
      for (int nu = 0; nu < 4; ++nu)
        if (n[nu] != 0) {
          if (mu >= 0 || n[nu] < 0) mu = 9; // not a forward displacement along one axis
          else mu = nu, len = n[nu];
        }
      if (mu < 0 || mu > 3) continue;
      cvec& out = len == 3 ? lng : fat;
      for (std::int64_t i = 0; i < volume(d); ++i) {
        const X x = coords(d, i);
        put(out, d, x, mu, link(out, d, x, mu) + scaled(walk(d, links, x, p), c));
      }
    }
  }
  return {fat, lng};
}

std::pair<cvec, cvec> milc_asqtad_links(const X& d, const cvec& phased, double u0) {
  // generic_ks/imp_actions/asqtad_action.h (XUP..TUP = 0..3, XDOWN..TDOWN = 7..4)
  const std::vector<MilcPath> paths = {
      {{0}, 1.0 / 8 + 6.0 / 16 + 1.0 / 8}, {{0, 0, 0}, -1.0 / 24},         {{1, 0, 6}, -1.0 / 8 * 0.5},
      {{1, 2, 0, 5, 6}, 1.0 / 8 * 0.25 * 0.5}, {{1, 2, 3, 0, 4, 5, 6}, -1.0 / 8 * 0.125 / 6}, {{1, 1, 0, 6, 6}, -1.0 / 16}};
  return milc_smear(d, phased, paths, u0);
}

std::pair<cvec, cvec> milc_hisq_links(const X& d, const cvec& phased, double eps) {
  // generic_ks/imp_actions/hisq/hisq_u3_action.h
  const std::vector<MilcPath> level1 = {
      {{0}, 1.0 / 8}, {{1, 0, 6}, -1.0 / 8 * 0.5}, {{1, 2, 0, 5, 6}, 1.0 / 8 * 0.25 * 0.5}, {{1, 2, 3, 0, 4, 5, 6}, -1.0 / 8 * 0.125 / 6}};
  cvec w = milc_smear(d, phased, level1, 1.0).first;
  for (std::int64_t i = 0; i < volume(d); ++i)
    for (int mu = 0; mu < 4; ++mu) put(w, d, coords(d, i), mu, u3_projection(link(w, d, coords(d, i), mu)));
  const std::vector<MilcPath> level2 = {{{0}, 1.0 / 8 + 2 * 6.0 / 16 + 1.0 / 8 + eps / 8},
                                        {{0, 0, 0}, -1.0 / 24 * (1 + eps)},
                                        {{1, 0, 6}, -1.0 / 8 * 0.5},
                                        {{1, 2, 0, 5, 6}, 1.0 / 8 * 0.25 * 0.5},
                                        {{1, 2, 3, 0, 4, 5, 6}, -1.0 / 8 * 0.125 / 6},
                                        {{1, 1, 0, 6, 6}, -2.0 / 16}};
  return milc_smear(d, w, level2, 1.0);
}

cvec milc_dslash(const X& d, const cvec& fat, const cvec& lng, const cvec& psi) {
  cvec out(psi.size(), 0.0);
  auto add = [&](const X& x, const M& m, const X& y, double sign) {
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c)
        out[std::size_t(site_index(d, x) * 3 + a)] += sign * m[a * 3 + c] * psi[std::size_t(site_index(d, y) * 3 + c)];
  };
  for (std::int64_t i = 0; i < volume(d); ++i) {
    const X x = coords(d, i);
    for (int mu = 0; mu < 4; ++mu) {
      add(x, link(fat, d, x, mu), step(d, x, mu, 1), 1);
      add(x, dagger(link(fat, d, step(d, x, mu, -1), mu)), step(d, x, mu, -1), -1);
      add(x, link(lng, d, x, mu), step(d, x, mu, 3), 1);
      add(x, dagger(link(lng, d, step(d, x, mu, -3), mu)), step(d, x, mu, -3), -1);
    }
  }
  return out;
}

M u3_projection(const M& v) {
  M x = v;
  for (int it = 0; it < 100; ++it) {
    const M y = scaled(x + dagger(inverse(x)), 0.5);
    double change = 0;
    for (int k = 0; k < 9; ++k) change += std::norm(y[k] - x[k]);
    x = y;
    if (change < 1e-30) break;
  }
  return x;
}

} // namespace kqcd::ref
