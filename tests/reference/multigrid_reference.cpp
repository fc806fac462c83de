#include "multigrid_reference.hpp"

#include "su3_reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kqcd::ref {

Aggregation::Aggregation(const Dims& f, const Dims& b) : fine(f), block(b), coarse{} {
  for (int mu = 0; mu < 4; ++mu) {
    if (b[mu] < 1 || f[mu] % b[mu] != 0 || f[mu] / b[mu] < 2)
      throw std::invalid_argument("Aggregation: block " + std::to_string(b[mu]) + " does not split extent " + std::to_string(f[mu]) +
                                  " into at least two blocks");
    coarse[mu] = f[mu] / b[mu];
  }
}

std::int64_t Aggregation::aggregate(std::int64_t fine_site) const {
  X x = site_coords(fine, fine_site);
  for (int mu = 0; mu < 4; ++mu) x[mu] /= block[mu];
  return site_index(coarse, x);
}

namespace {
constexpr int site_dof = 12;
/// sum over the fine sites of aggregate c of conj(a) b.
cd block_dot(const std::vector<std::int64_t>& sites, const std::vector<cd>& a, const std::vector<cd>& b) {
  cd s = 0;
  for (const auto i : sites)
    for (int k = 0; k < site_dof; ++k) s += std::conj(a[std::size_t(i * site_dof + k)]) * b[std::size_t(i * site_dof + k)];
  return s;
}
std::vector<std::vector<std::int64_t>> sites_of(const Aggregation& agg) {
  std::vector<std::vector<std::int64_t>> s(std::size_t(volume(agg.coarse)));
  for (std::int64_t i = 0; i < volume(agg.fine); ++i) s[std::size_t(agg.aggregate(i))].push_back(i);
  return s;
}
} // namespace

Transfer::Transfer(const Aggregation& a, const std::vector<std::vector<cd>>& test_vectors) : agg(a), nv(int(test_vectors.size())) {
  // Chirality: P+- v = (v +- g5 v) / 2.
  for (int sign : {+1, -1})
    for (const auto& v : test_vectors) {
      const auto g5v = apply_g5(v);
      std::vector<cd> c(v.size());
      for (std::size_t k = 0; k < v.size(); ++k) c[k] = 0.5 * (v[k] + double(sign) * g5v[k]);
      columns.push_back(c);
    }
  // Gram-Schmidt within each aggregate (twice: orthogonal to rounding).
  for (const auto& sites : sites_of(agg))
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < n(); ++k) {
        auto& ck = columns[std::size_t(k)];
        for (int j = 0; j < k; ++j) {
          const auto& cj = columns[std::size_t(j)];
          const cd p = block_dot(sites, cj, ck);
          for (const auto i : sites)
            for (int e = 0; e < site_dof; ++e) ck[std::size_t(i * site_dof + e)] -= p * cj[std::size_t(i * site_dof + e)];
        }
        const double nrm = std::sqrt(block_dot(sites, ck, ck).real());
        if (!(nrm > 1e-12)) throw std::invalid_argument("Transfer: the test vectors are linearly dependent on an aggregate");
        for (const auto i : sites)
          for (int e = 0; e < site_dof; ++e) ck[std::size_t(i * site_dof + e)] /= nrm;
      }
}

std::vector<cd> Transfer::prolong(const std::vector<cd>& coarse) const {
  const auto V = volume(agg.fine);
  std::vector<cd> out(std::size_t(V * site_dof), 0.0);
  for (std::int64_t i = 0; i < V; ++i) {
    const auto c = agg.aggregate(i);
    for (int k = 0; k < n(); ++k) {
      const cd a = coarse[std::size_t(c * n() + k)];
      for (int e = 0; e < site_dof; ++e) out[std::size_t(i * site_dof + e)] += a * columns[std::size_t(k)][std::size_t(i * site_dof + e)];
    }
  }
  return out;
}

std::vector<cd> Transfer::restrict_to_coarse(const std::vector<cd>& fine) const {
  std::vector<cd> out(std::size_t(volume(agg.coarse) * n()), 0.0);
  for (std::int64_t i = 0; i < volume(agg.fine); ++i) {
    const auto c = agg.aggregate(i);
    for (int k = 0; k < n(); ++k)
      for (int e = 0; e < site_dof; ++e)
        out[std::size_t(c * n() + k)] += std::conj(columns[std::size_t(k)][std::size_t(i * site_dof + e)]) * fine[std::size_t(i * site_dof + e)];
  }
  return out;
}

std::vector<cd> CoarseOperator::apply(const std::vector<cd>& phi) const {
  const auto Vc = volume(coarse);
  std::vector<cd> out(phi.size(), 0.0);
  auto mv = [&](const cd* m, std::int64_t from, std::int64_t to) {
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) out[std::size_t(to * n + j)] += m[j * n + k] * phi[std::size_t(from * n + k)];
  };
  for (std::int64_t c = 0; c < Vc; ++c) {
    mv(&X[std::size_t(c * n * n)], c, c);
    const ref::X x = site_coords(coarse, c);
    for (int mu = 0; mu < 4; ++mu)
      for (int dir : {+1, -1}) {
        ref::X y = x;
        y[mu] = (y[mu] + dir + coarse[mu]) % coarse[mu];
        mv(&Y[std::size_t(((c * 4 + mu) * 2 + (dir < 0)) * n * n)], site_index(coarse, y), c);
      }
  }
  return out;
}

CoarseOperator coarse_wilson(const Dims& d, const std::vector<cd>& u, double mass, const std::array<cd, 4>& b, const Transfer& t) {
  const int n = t.n();
  const auto Vc = volume(t.agg.coarse);
  CoarseOperator op{t.agg.coarse, n, std::vector<cd>(std::size_t(Vc * n * n), 0.0), std::vector<cd>(std::size_t(Vc * 8 * n * n), 0.0)};
  const auto sites = sites_of(t.agg);
  for (std::int64_t cp = 0; cp < Vc; ++cp) {
    const X xc = site_coords(t.agg.coarse, cp);
    for (int k = 0; k < n; ++k) {
      // Column k on aggregate c' alone.
      std::vector<cd> w(t.columns[std::size_t(k)].size(), 0.0);
      for (const auto i : sites[std::size_t(cp)])
        for (int e = 0; e < site_dof; ++e) w[std::size_t(i * site_dof + e)] = t.columns[std::size_t(k)][std::size_t(i * site_dof + e)];
      const auto site_term = t.restrict_to_coarse(w);
      for (int j = 0; j < n; ++j) op.X[std::size_t((cp * n + j) * n + k)] += (4.0 + mass) * site_term[std::size_t(cp * n + j)];
      for (int mu = 0; mu < 4; ++mu)
        for (int dir : {+1, -1}) {
          // The hop reads w at x + dir mu: its output lies in c' (within the aggregate) and in c'' = c' - dir mu.
          const auto r = t.restrict_to_coarse(hop(d, u, w, b, +1, mu, dir));
          X y = xc;
          y[mu] = (y[mu] - dir + t.agg.coarse[mu]) % t.agg.coarse[mu];
          const auto cpp = site_index(t.agg.coarse, y);
          for (int j = 0; j < n; ++j) {
            op.X[std::size_t((cp * n + j) * n + k)] += -0.5 * r[std::size_t(cp * n + j)];
            op.Y[std::size_t((((cpp * 4 + mu) * 2 + (dir < 0)) * n + j) * n + k)] += -0.5 * r[std::size_t(cpp * n + j)];
          }
        }
    }
  }
  return op;
}

std::vector<cd> coarse_g5(const std::vector<cd>& phi, int nv) {
  std::vector<cd> out(phi);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (int(i % std::size_t(2 * nv)) >= nv) out[i] = -out[i];
  return out;
}

} // namespace kqcd::ref
