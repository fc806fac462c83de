// Lattice geometry and checkerboard indexing (conventions.md): lexicographic index with x
// fastest and t slowest, parity (x+y+z+t) mod 2, checkerboard index = lexicographic index / 2.
#pragma once

#include <kqcd/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace kqcd {

inline constexpr int Nd = 4;
inline constexpr int Nc = 3;
inline constexpr int Ns = 4;

struct Coords {
  int x[Nd];
};

class Lattice {
public:
  Lattice() = default;
  explicit Lattice(std::array<int, Nd> dims) {
    for (int mu = 0; mu < Nd; ++mu) {
      if (dims[mu] < 1)
        throw invalid_argument("lattice extent in direction " + std::to_string(mu) + " must be positive, found " +
                               std::to_string(dims[mu]));
      dims_[mu] = dims[mu];
    }
    if (dims_[0] % 2 != 0)
      throw invalid_argument("lattice extent Lx must be even for checkerboarding, found " + std::to_string(dims_[0]));
    volume_ = std::int64_t(dims_[0]) * dims_[1] * dims_[2] * dims_[3];
    if (volume_ > (std::int64_t(1) << 30))
      throw invalid_argument("lattice volume " + std::to_string(volume_) + " exceeds the 2^30 sites one rank supports");
  }

  KOKKOS_INLINE_FUNCTION int dim(int mu) const { return dims_[mu]; }
  std::array<int, Nd> dims() const { return {dims_[0], dims_[1], dims_[2], dims_[3]}; }
  KOKKOS_INLINE_FUNCTION std::int64_t volume() const { return volume_; }
  KOKKOS_INLINE_FUNCTION int cb_volume() const { return int(volume_ / 2); }
  KOKKOS_INLINE_FUNCTION std::int64_t spatial_volume() const { return std::int64_t(dims_[0]) * dims_[1] * dims_[2]; }

  KOKKOS_INLINE_FUNCTION std::int64_t lex_index(const Coords& c) const {
    return c.x[0] + std::int64_t(dims_[0]) * (c.x[1] + std::int64_t(dims_[1]) * (c.x[2] + std::int64_t(dims_[2]) * c.x[3]));
  }
  KOKKOS_INLINE_FUNCTION Coords lex_coords(std::int64_t i) const {
    Coords c;
    for (int mu = 0; mu < Nd; ++mu) {
      c.x[mu] = int(i % dims_[mu]);
      i /= dims_[mu];
    }
    return c;
  }
  KOKKOS_INLINE_FUNCTION static int parity(const Coords& c) { return (c.x[0] + c.x[1] + c.x[2] + c.x[3]) & 1; }
  KOKKOS_INLINE_FUNCTION int cb_index(const Coords& c) const { return int(lex_index(c) / 2); }

  /// Coordinates of checkerboard site cb_site on checkerboard parity.
  KOKKOS_INLINE_FUNCTION Coords cb_coords(int cb_site, int parity) const {
    Coords c;
    int j = cb_site;
    const int half_x = dims_[0] / 2;
    const int xh = j % half_x;
    j /= half_x;
    c.x[1] = j % dims_[1];
    j /= dims_[1];
    c.x[2] = j % dims_[2];
    c.x[3] = j / dims_[2];
    c.x[0] = 2 * xh + ((c.x[1] + c.x[2] + c.x[3] + parity) & 1);
    return c;
  }

  bool operator==(const Lattice& o) const {
    return dims_[0] == o.dims_[0] && dims_[1] == o.dims_[1] && dims_[2] == o.dims_[2] && dims_[3] == o.dims_[3];
  }
  std::string to_string() const {
    return std::to_string(dims_[0]) + "x" + std::to_string(dims_[1]) + "x" + std::to_string(dims_[2]) + "x" +
           std::to_string(dims_[3]);
  }

private:
  int dims_[Nd] = {0, 0, 0, 0};
  std::int64_t volume_ = 0;
};

/// Parse "LXxLYxLZxLT" (e.g. "16x16x16x32"); throws invalid_argument naming the text.
Lattice parse_lattice(const std::string& text);

} // namespace kqcd
