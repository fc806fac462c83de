#include "gauge_reference.hpp"
#include "su3_reference.hpp"

#include <cstdint>

namespace kqcd::ref {

using cd = std::complex<double>;

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
              const M p = link(u, d, x, mu) * link(u, d, step(d, x, mu, 1), nu) * dagger(link(u, d, step(d, x, nu, 1), mu)) *
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
          for (int t = 0; t < d[dir]; ++t, y = step(d, y, dir, 1)) p = p * link(u, d, y, dir);
          sum += trace(p) / 3.0;
          ++lines;
        }
  return sum / double(lines);
}

} // namespace kqcd::ref
