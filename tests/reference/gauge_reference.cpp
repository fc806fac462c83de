#include "gauge_reference.hpp"

#include <cstdint>

namespace kqcd::ref {

namespace {
using cd = std::complex<double>;
using M = std::array<cd, 9>;
using X = std::array<int, 4>;

std::int64_t site_index(const X& d, const X& x) {
  return x[0] + std::int64_t(d[0]) * (x[1] + std::int64_t(d[1]) * (x[2] + std::int64_t(d[2]) * x[3]));
}
M link(const std::vector<cd>& u, const X& d, const X& x, int mu) {
  M m;
  const auto* p = &u[std::size_t((site_index(d, x) * 4 + mu) * 9)];
  for (int k = 0; k < 9; ++k) m[k] = p[k];
  return m;
}
M operator*(const M& a, const M& b) {
  M c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return c;
}
M dagger(const M& a) {
  M c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i * 3 + j] = std::conj(a[j * 3 + i]);
  return c;
}
cd trace(const M& a) { return a[0] + a[4] + a[8]; }
X shift(const X& d, X x, int mu) {
  x[mu] = (x[mu] + 1) % d[mu];
  return x;
}
} // namespace

GaugeObservables gauge_observables(const std::array<int, 4>& d, const std::vector<cd>& u) {
  double spatial = 0, temporal = 0, tr = 0;
  const std::int64_t volume = std::int64_t(d[0]) * d[1] * d[2] * d[3];
  X x;
  for (x[3] = 0; x[3] < d[3]; ++x[3])
    for (x[2] = 0; x[2] < d[2]; ++x[2])
      for (x[1] = 0; x[1] < d[1]; ++x[1])
        for (x[0] = 0; x[0] < d[0]; ++x[0])
          for (int mu = 0; mu < 4; ++mu) {
            tr += trace(link(u, d, x, mu)).real();
            for (int nu = mu + 1; nu < 4; ++nu) {
              const M p = link(u, d, x, mu) * link(u, d, shift(d, x, mu), nu) * dagger(link(u, d, shift(d, x, nu), mu)) *
                          dagger(link(u, d, x, nu));
              (nu == 3 ? temporal : spatial) += trace(p).real() / 3;
            }
          }
  return {(spatial + temporal) / (6.0 * volume), spatial / (3.0 * volume), temporal / (3.0 * volume), tr / (12.0 * volume)};
}

std::complex<double> polyakov_loop(const std::array<int, 4>& d, const std::vector<cd>& u, int dir) {
  cd sum = 0;
  std::int64_t lines = 0;
  X x;
  for (x[3] = 0; x[3] < (dir == 3 ? 1 : d[3]); ++x[3])
    for (x[2] = 0; x[2] < (dir == 2 ? 1 : d[2]); ++x[2])
      for (x[1] = 0; x[1] < (dir == 1 ? 1 : d[1]); ++x[1])
        for (x[0] = 0; x[0] < (dir == 0 ? 1 : d[0]); ++x[0]) {
          M p{1, 0, 0, 0, 1, 0, 0, 0, 1};
          X y = x;
          for (int t = 0; t < d[dir]; ++t, y = shift(d, y, dir)) p = p * link(u, d, y, dir);
          sum += trace(p) / 3.0;
          ++lines;
        }
  return sum / double(lines);
}

} // namespace kqcd::ref
