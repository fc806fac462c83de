// Parsing of lattice sizes and boundary conditions given as text (command line, input files).
#include <kqcd/core/boundary.hpp>
#include <kqcd/comm/process_grid.hpp>
#include <kqcd/core/lattice.hpp>

#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

namespace kqcd {

namespace {
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}
template <class T> bool parse_number(const std::string& s, T& value) {
  if (s.empty()) return false;
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  return ec == std::errc() && ptr == end;
}
} // namespace

Lattice parse_lattice(const std::string& text) {
  const auto parts = split(text, 'x');
  std::array<int, Nd> dims{};
  bool ok = parts.size() == Nd;
  for (int mu = 0; ok && mu < Nd; ++mu) ok = parse_number(parts[mu], dims[mu]) && dims[mu] > 0;
  if (!ok) throw invalid_argument("lattice '" + text + "': expected four positive extents LXxLYxLZxLT, e.g. 16x16x16x32");
  return Lattice(dims);
}

std::array<int, Nd> parse_grid(const std::string& text) {
  if (text.empty() || text == "auto") return {0, 0, 0, 0};
  const auto parts = split(text, 'x');
  std::array<int, Nd> grid{};
  bool ok = parts.size() == Nd;
  for (int mu = 0; ok && mu < Nd; ++mu) ok = parse_number(parts[mu], grid[mu]) && grid[mu] > 0;
  if (!ok) throw invalid_argument("process grid '" + text + "': expected four positive rank counts GXxGYxGZxGT, e.g. 1x1x2x2, or auto");
  return grid;
}

BoundaryPhases parse_boundary_phases(const std::string& text) {
  const auto parts = split(text, ',');
  if (parts.size() != Nd)
    throw invalid_argument("boundary conditions '" + text + "': expected four comma-separated values (p, a, 0 or t:THETA)");
  BoundaryPhases bc;
  for (int mu = 0; mu < Nd; ++mu) {
    const std::string& p = parts[mu];
    double theta = 0;
    if (p == "p") bc.b[mu] = 1.0;
    else if (p == "a") bc.b[mu] = -1.0;
    else if (p == "0") bc.b[mu] = 0.0;
    else if (p.rfind("t:", 0) == 0 && parse_number(p.substr(2), theta) && std::isfinite(theta)) bc.b[mu] = BoundaryPhases::twist(theta);
    else
      throw invalid_argument("boundary condition '" + p + "' in direction " + std::to_string(mu) +
                             ": expected p (periodic), a (antiperiodic), 0 (zero) or t:THETA (twisted)");
  }
  return bc;
}

} // namespace kqcd
