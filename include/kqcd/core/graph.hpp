// Kokkos::Graph capture of kqcd's launchers, to cut launch latency: a launcher appends its
// kernel after a node of a Kokkos::Experimental::Graph with the launch shape it would use now, and the
// caller submits the whole graph as one unit (a CUDA graph on the GPU, the kernels in order on the
// host). Nodes are type-erased so that launchers with run-time choices return one type.
#pragma once

#include <kqcd/core/tune.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>

#include <string>

namespace kqcd {

/// A node of a Kokkos graph on execution space ES.
template <class ES> using GraphNode = Kokkos::Experimental::GraphNodeRef<ES>;

/// f(site) for site in [0, n_sites) with launch shape c, as a graph node after `node`.
template <class ES, class LaunchBounds, class F>
GraphNode<ES> then_launch_sites(const GraphNode<ES>& node, const std::string& label, int n_sites, const LaunchConfig& c, const F& f) {
  if (c.kind == PolicyKind::range) {
    Kokkos::RangePolicy<ES, LaunchBounds, LightWeight> policy(0, n_sites);
    if (c.sites_per_team > 0) policy.set_chunk_size(c.sites_per_team);
    return node.then_parallel_for(label, policy, f);
  }
  const int spt = std::max(1, c.sites_per_team);
  Kokkos::TeamPolicy<ES, LaunchBounds, LightWeight> policy((n_sites + spt - 1) / spt, std::max(1, c.team_size));
  return node.then_parallel_for(label, policy, TeamOverSites<F>{f, n_sites, spt});
}

/// The shape a tunable launch would run now without launching anything: the cached one, else the
/// default (graph capture cannot time candidates).
template <Tunable T> LaunchConfig cached_or_default_config(const T& t) {
  if (tuning_enabled())
    if (auto hit = tune_cache()->find(t.tune_key())) return hit->config;
  return t.default_config();
}

} // namespace kqcd
