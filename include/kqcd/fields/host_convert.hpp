// Conversion between device fields and lexicographic host arrays in the orders applications use,
// so that MILC, QDP++/chroma or plain C++ programs can hand us their data and take it back.
//
// Gauge orders (sites lexicographic, x fastest; each link a row-major 3x3 matrix):
//   HostGaugeOrder::milc   [site][mu][row][col]   (MILC's site-major su3_matrix link[4])
//   HostGaugeOrder::qdp    [mu][site][row][col]   (QDP++'s multi1d<LatticeColorMatrix>, lexicographic)
// Spinor order: [site][spin][colour] (QDP++'s LatticeFermion and MILC's wilson_vector).
// On a distributed lattice the host array is this rank's sub-lattice, lexicographic in its local
// coordinates (io/distributed_gauge.hpp moves whole configurations between ranks).
#pragma once

#include <kqcd/core/error.hpp>
#include <kqcd/core/profile.hpp>
#include <kqcd/fields/cb_spinor.hpp>
#include <kqcd/fields/gauge_field.hpp>
#include <kqcd/fields/spinor_access.hpp>

#include <complex>
#include <optional>
#include <cstddef>
#include <vector>

namespace kqcd {

/// Site and link order of a host gauge array (MILC or QDP).
enum class HostGaugeOrder { milc, qdp };

namespace detail {
inline std::size_t gauge_host_offset(HostGaugeOrder order, std::int64_t volume, std::int64_t site, int mu) {
  return order == HostGaugeOrder::milc ? std::size_t((site * Nd + mu) * Nc * Nc)
                                       : std::size_t((mu * volume + site) * Nc * Nc);
}
inline void check_host_size(std::size_t have, std::size_t want, const char* what) {
  if (have != want)
    throw invalid_argument(std::string(what) + ": host array has " + std::to_string(have) + " complex numbers, expected " +
                           std::to_string(want));
}
} // namespace detail

/// Copies host links (complex doubles in order `order`) into u.
template <class GT, class ES>
void import_gauge(GaugeField<GT, ES>& u, const std::vector<std::complex<double>>& host,
                  HostGaugeOrder order = HostGaugeOrder::milc) {
  const Lattice& lat = u.lattice();
  detail::check_host_size(host.size(), std::size_t(lat.volume()) * Nd * Nc * Nc, "import_gauge");
  ProfileScope prof("kqcd::import_gauge");
  for (int p = 0; p < 2; ++p) {
    auto init = std::optional<ProfileScope::Phase>(std::in_place, prof, ProfilePhase::init); // reordering on the host
    auto h = Kokkos::create_mirror_view(u[p].view());
    for (int s = 0; s < lat.cb_volume(); ++s) {
      const auto site = lat.lex_index(lat.cb_coords(s, p));
      for (int mu = 0; mu < Nd; ++mu) {
        const auto* m = host.data() + detail::gauge_host_offset(order, lat.volume(), site, mu);
        for (int a = 0; a < Nc; ++a)
          for (int b = 0; b < Nc; ++b) h(s, mu, a, b) = GT(m[a * Nc + b].real(), m[a * Nc + b].imag());
      }
    }
    init.reset();
    auto h2d = prof.phase(ProfilePhase::h2d);
    Kokkos::deep_copy(u[p].view(), h);
  }
}

/// u's links as complex doubles on the host, in order `order`.
template <class GT, class ES>
std::vector<std::complex<double>> export_gauge(const GaugeField<GT, ES>& u, HostGaugeOrder order = HostGaugeOrder::milc) {
  const Lattice& lat = u.lattice();
  std::vector<std::complex<double>> host(std::size_t(lat.volume()) * Nd * Nc * Nc);
  ProfileScope prof("kqcd::export_gauge");
  for (int p = 0; p < 2; ++p) {
    auto d2h = std::optional<ProfileScope::Phase>(std::in_place, prof, ProfilePhase::d2h);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u[p].view());
    d2h.reset();
    for (int s = 0; s < lat.cb_volume(); ++s) {
      const auto site = lat.lex_index(lat.cb_coords(s, p));
      for (int mu = 0; mu < Nd; ++mu) {
        auto* m = host.data() + detail::gauge_host_offset(order, lat.volume(), site, mu);
        for (int a = 0; a < Nc; ++a)
          for (int b = 0; b < Nc; ++b) m[a * Nc + b] = {double(h(s, mu, a, b).real()), double(h(s, mu, a, b).imag())};
      }
    }
  }
  return host;
}

/// Copy one parity of a lexicographic [site][spin][colour] host array into a CBSpinor.
template <class ST, int nspin, class ES>
void import_spinor(CBSpinor<ST, nspin, ES>& psi, const std::vector<std::complex<double>>& host) {
  const Lattice& lat = psi.lattice();
  detail::check_host_size(host.size(), std::size_t(lat.volume()) * nspin * Nc, "import_spinor");
  auto h = Kokkos::create_mirror_view(psi.view());
  for (int s = 0; s < lat.cb_volume(); ++s) {
    const auto site = lat.lex_index(lat.cb_coords(s, psi.parity()));
    for (int sp = 0; sp < nspin; ++sp)
      for (int c = 0; c < Nc; ++c) {
        const auto z = host[std::size_t((site * nspin + sp) * Nc + c)];
        h(s, c, sp) = ST(z.real(), z.imag());
      }
  }
  Kokkos::deep_copy(psi.view(), h);
}

/// Copy a CBSpinor into its parity's sites of a lexicographic [site][spin][colour] host array
/// (sites of the other parity are left as they are).
template <class ST, int nspin, class ES>
void export_spinor(const CBSpinor<ST, nspin, ES>& psi, std::vector<std::complex<double>>& host) {
  const Lattice& lat = psi.lattice();
  host.resize(std::size_t(lat.volume()) * nspin * Nc);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), psi.view());
  for (int s = 0; s < lat.cb_volume(); ++s) {
    const auto site = lat.lex_index(lat.cb_coords(s, psi.parity()));
    for (int sp = 0; sp < nspin; ++sp)
      for (int c = 0; c < Nc; ++c) host[std::size_t((site * nspin + sp) * Nc + c)] = {double(h(s, c, sp).real()), double(h(s, c, sp).imag())};
  }
}

/// Any other single spinor (16-bit, SIMD lanes) from and into the same host arrays, through a double
/// spinor of the plain layout on the same sites (convert_sites moves them).
template <class Storage> void import_spinor(Spinor<Storage>& psi, const std::vector<std::complex<double>>& host) {
  CBSpinor<Kokkos::complex<double>, Storage::n_spin, typename Storage::execution_space> plain(psi.lattice(), psi.parity(), "import_spinor");
  import_spinor(plain, host);
  convert_sites(psi, plain);
}
/// Copies psi into a host array of complex doubles, [site][colour][spin].
template <class Storage> void export_spinor(const Spinor<Storage>& psi, std::vector<std::complex<double>>& host) {
  CBSpinor<Kokkos::complex<double>, Storage::n_spin, typename Storage::execution_space> plain(psi.lattice(), psi.parity(), "export_spinor");
  convert_sites(plain, psi);
  export_spinor(plain, host);
}

/// Both parities of a full spinor of any layout.
template <class CB> void import_spinor(FullSpinor<CB>& psi, const std::vector<std::complex<double>>& host) {
  for (int p = 0; p < 2; ++p) import_spinor(psi[p], host);
}
/// A full spinor as complex doubles on the host, even sites then odd.
template <class CB> std::vector<std::complex<double>> export_spinor(const FullSpinor<CB>& psi) {
  std::vector<std::complex<double>> host;
  for (int p = 0; p < 2; ++p) export_spinor(psi[p], host);
  return host;
}

} // namespace kqcd
