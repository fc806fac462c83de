// Comparisons the tests under mpiexec share: each is reduced over the ranks before it is
// checked, so every rank takes the same path (a one-sided failure cannot deadlock a collective).
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <kqcd/comm/process_grid.hpp>
#include <kqcd/core/lattice.hpp>
#include <kqcd/fields/random_fields.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace kqcd::test {

inline double global_max(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

/// True on every rank if the condition holds on every rank.
inline bool all_ranks(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return v != 0;
}

/// True on every rank if s is the same text on every rank.
inline bool same_on_all_ranks(const std::string& s) {
  std::string root = s;
  int n = int(root.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  root.resize(std::size_t(n));
  MPI_Bcast(root.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return all_ranks(root == s);
}

/// max over the links of `a` of |a - global| at the global site global_of(coordinates), over
/// the ranks.
template <class Gauge, class Map> double link_diff(const Gauge& a, const Gauge& global, Map global_of) {
  const Lattice& la = a.lattice();
  const Lattice& gl = global.lattice();
  double diff = 0;
  for (int p = 0; p < 2; ++p) {
    auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[p].view());
    auto g0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global[0].view());
    auto g1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global[1].view());
    for (int s = 0; s < la.cb_volume(); ++s) {
      const Coords g = global_of(la.cb_coords(s, p));
      const auto& gh = Lattice::parity(g) == 0 ? g0 : g1;
      const int gs = gl.cb_index(g);
      for (int mu = 0; mu < Nd; ++mu)
        for (int i = 0; i < Nc; ++i)
          for (int j = 0; j < Nc; ++j) diff = std::max(diff, double(Kokkos::abs(ah(s, mu, i, j) - gh(gs, mu, i, j))));
    }
  }
  return global_max(diff);
}

/// max |local - global| over the links of this rank's sub-lattice, over the ranks.
template <class Gauge> double gauge_diff(const Gauge& local, const Gauge& global) {
  const Lattice& ll = local.lattice();
  return link_diff(local, global, [&](Coords c) {
    for (int mu = 0; mu < Nd; ++mu) c.x[mu] += ll.origin(mu);
    return c;
  });
}

/// The process grids tried on the running number of ranks ({0,0,0,0}: chosen automatically).
inline std::vector<std::array<int, Nd>> process_grids() {
  switch (ProcessGrid::world_size()) {
  case 1: return {{1, 1, 1, 1}};
  case 2: return {{1, 1, 1, 2}, {2, 1, 1, 1}, {1, 2, 1, 1}, {1, 1, 2, 1}, {0, 0, 0, 0}};
  case 4: return {{1, 1, 2, 2}, {2, 1, 1, 2}, {1, 1, 1, 4}, {2, 2, 1, 1}, {0, 0, 0, 0}};
  default: return {{0, 0, 0, 0}};
  }
}

/// max |local - global| over this rank's sites, relative to the largest |global| component,
/// maximised over the ranks.
template <class Spinor> double rel_diff(const Spinor& local, const Spinor& global) {
  const Lattice& ll = local.lattice();
  const Lattice& gl = global.lattice();
  auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.view());
  auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), global.view());
  constexpr int n_spin = int(decltype(l)::static_extent(2));
  double diff = 0, scale = 0;
  for (int s = 0; s < gl.cb_volume(); ++s)
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) scale = std::max(scale, double(Kokkos::abs(g(s, c, sp))));
  for (int s = 0; s < ll.cb_volume(); ++s) {
    Coords x = ll.cb_coords(s, local.parity());
    for (int mu = 0; mu < Nd; ++mu) x.x[mu] += ll.origin(mu);
    const int gs = gl.cb_index(x);
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < n_spin; ++sp) diff = std::max(diff, double(Kokkos::abs(l(s, c, sp) - g(gs, c, sp))));
  }
  return global_max(diff / scale);
}

/// A block of `count` rows of parity `parity` on lat, row r a random Single from seed + r (random
/// fields are keyed by the global site: the same global field on every process grid).
template <class Block, class Single> Block random_block(const Lattice& lat, int parity, unsigned seed, int count) {
  Block b(lat, parity, count);
  for (int r = 0; r < count; ++r) {
    Single s(lat, parity);
    random_spinor(s, seed + unsigned(r));
    b.insert(r, s);
  }
  return b;
}

/// A distributed domain-wall operator ol against the single-process og: D_hat and its adjoint on
/// the even fields, D5 and its adjoint on (even, odd); diff(local, global) compares two vectors.
template <class OL, class OG, class VL, class VG, class Diff>
void check_domain_wall_apply(const OL& ol, const OG& og, const VL& el, const VG& eg, const VL& xl, const VG& xg, const Diff& diff,
                             double tol) {
  for (int isign : {1, -1}) {
    CAPTURE(isign);
    VL al = ol.create_vector(), bl = ol.create_spinor(1);
    VG ag = og.create_vector(), bg = og.create_spinor(1);
    ol.apply(al, el, isign);
    og.apply(ag, eg, isign);
    CHECK(diff(al, ag) < tol);
    ol.apply_full(al, bl, el, xl, isign);
    og.apply_full(ag, bg, eg, xg, isign);
    CHECK(diff(al, ag) < tol);
    CHECK(diff(bl, bg) < tol);
  }
}

/// The largest rel_diff over the rows of two blocks (each row extracted as a Single).
template <class Single, class Block> double block_rel_diff(const Block& local, const Block& global) {
  double d = 0;
  for (int r = 0; r < local.n_rhs(); ++r) {
    Single l(local.lattice(), local.parity()), g(global.lattice(), global.parity());
    local.extract(r, l);
    global.extract(r, g);
    d = std::max(d, rel_diff(l, g));
  }
  return d;
}

/// rel_diff over both parities of full fields.
template <class Field> double rel_diff_field(const Field& local, const Field& global) {
  return std::max(rel_diff(local[0], global[0]), rel_diff(local[1], global[1]));
}

/// max |a - b| over the sites of two fields on the same (local) lattice, maximised over the ranks.
template <class Spinor> double max_abs_diff(const Spinor& a, const Spinor& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.view());
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.view());
  double diff = 0;
  for (int s = 0; s < a.lattice().cb_volume(); ++s)
    for (int c = 0; c < Nc; ++c)
      for (int sp = 0; sp < Ns; ++sp) diff = std::max(diff, double(Kokkos::abs(ha(s, c, sp) - hb(s, c, sp))));
  return global_max(diff);
}

} // namespace kqcd::test
