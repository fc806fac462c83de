// Quark sources for the 12 spin-colour solves of a propagator. Each column (spin s, colour c)
// is eta(x) delta_{spin,s} delta_{colour,c} with
//   point:  eta = 1 at x0, 0 elsewhere
//   wall:   eta = 1 on every site of timeslice t0 (MILC's even-and-odd wall)
//   even_wall:   eta = 1 on the even sites (x+y+z+t even) of timeslice t0
//   corner_wall: eta = 1 on the sites of timeslice t0 with x, y and z even (one corner of each 2^3 cube)
//   z2, z4: eta(x) a random element of Z2 = {+-1} or Z4 = {+-1, +-i} on timeslice t0 (the same
//           noise for all 12 columns: spin-colour dilution), a pure function of (seed, site).
// parse_source reads the text forms point:X,Y,Z,T  wall:T  even_wall:T  corner_wall:T  z2:T[,SEED]
// z4:T[,SEED]. make_source fills a column of a four-spinor field or of a colour-vector field (spin 0).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/random.hpp>
#include <kqcd/fields/cb_spinor.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

namespace kqcd {

/// Source kinds: point, walls, Z2 and Z4 noise.
enum class SourceKind { point, wall, even_wall, corner_wall, z2, z4 };

/// Which source to build, and where.
struct SourceSpec {
  SourceKind kind = SourceKind::point; ///< The source kind.
  Coords origin{{0, 0, 0, 0}}; ///< point: the site; others: only origin.x[3] (the timeslice) matters
  std::uint64_t seed = 1;      ///< noise sources
  std::string text;            ///< as given
};

/// Name of source kind k.
inline const char* to_string(SourceKind k) {
  switch (k) {
  case SourceKind::point: return "point";
  case SourceKind::wall: return "wall";
  case SourceKind::even_wall: return "even_wall";
  case SourceKind::corner_wall: return "corner_wall";
  case SourceKind::z2: return "z2";
  case SourceKind::z4: return "z4";
  }
  return "unknown";
}

namespace detail {
inline bool parse_int_list(const std::string& s, std::vector<long long>& out) {
  out.clear();
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = s.find(',', pos);
    const std::string part = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    long long v = 0;
    const auto* end = part.data() + part.size();
    auto [ptr, ec] = std::from_chars(part.data(), end, v);
    if (part.empty() || ec != std::errc() || ptr != end) return false;
    out.push_back(v);
    if (comma == std::string::npos) return true;
    pos = comma + 1;
  }
}
} // namespace detail

/// Parse a source description; throws invalid_argument naming the text. With a lattice, the
/// coordinates are also checked against its extents.
inline SourceSpec parse_source(const std::string& text, const Lattice* lat = nullptr) {
  const auto fail = [&](const std::string& why) {
    return invalid_argument("source '" + text + "': " + why +
                            " (expected point:X,Y,Z,T, wall:T, even_wall:T, corner_wall:T, z2:T[,SEED] or z4:T[,SEED])");
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw fail("no ':' after the source kind");
  const std::string kind = text.substr(0, colon);
  std::vector<long long> v;
  if (!detail::parse_int_list(text.substr(colon + 1), v)) throw fail("'" + text.substr(colon + 1) + "' is not a list of integers");
  SourceSpec s;
  s.text = text;
  if (kind == "point") {
    if (v.size() != 4) throw fail("a point source needs four coordinates");
    s.kind = SourceKind::point;
    for (int mu = 0; mu < Nd; ++mu) s.origin.x[mu] = int(v[std::size_t(mu)]);
  } else if (kind == "wall" || kind == "even_wall" || kind == "corner_wall" || kind == "z2" || kind == "z4") {
    const bool noise = kind == "z2" || kind == "z4";
    s.kind = kind == "wall"        ? SourceKind::wall
             : kind == "even_wall" ? SourceKind::even_wall
             : kind == "corner_wall" ? SourceKind::corner_wall
             : kind == "z2"        ? SourceKind::z2
                                   : SourceKind::z4;
    if (v.size() != 1 && !(noise && v.size() == 2))
      throw fail(noise ? "a noise source needs a timeslice and optionally a seed" : "a wall source needs one timeslice");
    s.origin.x[3] = int(v[0]);
    if (v.size() == 2) {
      if (v[1] < 0) throw fail("the seed must be non-negative");
      s.seed = std::uint64_t(v[1]);
    }
  } else {
    throw fail("unknown source kind '" + kind + "'");
  }
  for (int mu = 0; mu < Nd; ++mu)
    if (s.origin.x[mu] < 0 || (lat && s.origin.x[mu] >= lat->global_dim(mu)))
      throw fail("coordinate " + std::to_string(s.origin.x[mu]) + " in direction " + std::to_string(mu) +
                 (lat ? " is outside the lattice " + Lattice(lat->global_dims()).to_string() : std::string(" is negative")));
  return s;
}

namespace detail {
/// The source column (spin, colour) on the sites of one parity (a functor rather than a
/// KOKKOS_LAMBDA: see linalg/blas.hpp).
template <class View> struct SourceColumn {
  Lattice lat;
  int parity, spin, colour;
  SourceKind kind;
  Coords x0;
  Philox rng;
  View v;
  KOKKOS_FUNCTION void operator()(int s) const {
    using ST = typename View::non_const_value_type;
    Coords c = lat.cb_coords(s, parity);
    const std::int64_t key = lat.global_lex_index(c); // the noise is keyed by the global site
    for (int mu = 0; mu < Nd; ++mu) c.x[mu] += lat.origin(mu);
    if (c.x[3] != x0.x[3]) return;
    double re = 0, im = 0;
    switch (kind) {
    case SourceKind::point:
      if (c.x[0] == x0.x[0] && c.x[1] == x0.x[1] && c.x[2] == x0.x[2]) re = 1;
      break;
    case SourceKind::wall: re = 1; break;
    case SourceKind::even_wall: re = ((c.x[0] + c.x[1] + c.x[2] + c.x[3]) & 1) ? 0 : 1; break;
    case SourceKind::corner_wall: re = ((c.x[0] | c.x[1] | c.x[2]) & 1) ? 0 : 1; break;
    case SourceKind::z2:
    case SourceKind::z4: {
      const auto w = rng.words(std::uint32_t(key), 0x4e4f4953u, 0u, 0u).v[0];
      if (kind == SourceKind::z2) re = (w & 1u) ? -1 : 1;
      else {
        const int k = int(w & 3u);
        re = k == 0 ? 1 : k == 2 ? -1 : 0;
        im = k == 1 ? 1 : k == 3 ? -1 : 0;
      }
    } break;
    }
    v(s, colour, spin) = ST(re, im);
  }
};
} // namespace detail

/// Fill b with the source column (spin, colour) of `spec` (zero elsewhere), on the device; a
/// colour-vector field (NS = 1) takes spin 0.
template <class ST, int NS, class ES> void make_source(SpinorField<ST, NS, ES>& b, const SourceSpec& spec, int spin, int colour) {
  // The origin is a global site; on a distributed lattice each rank fills its own sites.
  const Lattice lat = b.lattice();
  for (int d = 0; d < Nd; ++d)
    if (spec.origin.x[d] < 0 || spec.origin.x[d] >= lat.global_dim(d))
      throw invalid_argument("source '" + spec.text + "': outside the lattice " + Lattice(lat.global_dims()).to_string());
  if (spin < 0 || spin >= NS || colour < 0 || colour >= Nc)
    throw invalid_argument("make_source: spin " + std::to_string(spin) + " / colour " + std::to_string(colour) + " out of range");
  const SourceKind kind = spec.kind;
  const Coords x0 = spec.origin;
  const Philox rng{spec.seed};
  for (int p = 0; p < 2; ++p) {
    auto v = b[p].view();
    Kokkos::deep_copy(v, ST(0, 0));
    Kokkos::parallel_for("kqcd::make_source", Kokkos::RangePolicy<ES>(0, lat.cb_volume()),
                         detail::SourceColumn<decltype(v)>{lat, p, spin, colour, kind, x0, rng, v});
  }
}

} // namespace kqcd
