// The movable part of a graph (see movable_part.hpp).
#include "replay/movable_part.hpp"

#include <algorithm>

namespace lbbench {

MovablePart movable_part(const LocalGraph& g, const std::vector<Load>& vectors, int dims, Rank me) {
  MovablePart out;
  out.whole_size = g.num_local();
  LocalGraph& m = out.graph;
  m = g.facts_only();
  m.global_vertices = g.pinned_from;  // ids stay dense: the pinned ones come last
  const auto d = static_cast<std::size_t>(dims);
  out.background.assign(d, Load{});
  std::vector<VertexId> nbrs;
  std::vector<Rank> owners;
  std::vector<std::int32_t> weights;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto at = static_cast<std::size_t>(v) * d;
    if (g.is_pinned(g.gid[v])) {
      for (std::size_t k = 0; k < d; ++k) out.background[k] += vectors[at + k];
      for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
        const auto i = static_cast<std::size_t>(e);
        if (g.adj_owner[i] != me && !g.is_pinned(g.adj[i])) out.fixed_peers.push_back(g.adj_owner[i].value());
      }
      continue;
    }
    nbrs.clear();
    owners.clear();
    weights.clear();
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const auto i = static_cast<std::size_t>(e);
      nbrs.push_back(g.adj[i]);
      owners.push_back(g.adj_owner[i]);
      if (g.has_edge_weights) weights.push_back(g.adj_weight[i]);
    }
    m.add_vertex(g.gid[v], nbrs, owners, weights, g.coords_of(v), g.vweights_of(v));
    out.full.push_back(v);
    out.vectors.insert(out.vectors.end(), vectors.begin() + static_cast<std::ptrdiff_t>(at),
                       vectors.begin() + static_cast<std::ptrdiff_t>(at + d));
  }
  std::sort(out.fixed_peers.begin(), out.fixed_peers.end());
  out.fixed_peers.erase(std::unique(out.fixed_peers.begin(), out.fixed_peers.end()), out.fixed_peers.end());
  return out;
}

void to_full_indices(const MovablePart& part, MigrationPlan& plan) {
  // An index outside the view stays outside the graph, for the migration engine's
  // collective check of the plan to report.
  for (Move& m : plan.moves) {
    const bool inside = m.vertex >= 0 && static_cast<std::size_t>(m.vertex) < part.full.size();
    m.vertex = inside ? part.full[static_cast<std::size_t>(m.vertex)] : part.whole_size;
  }
}

}  // namespace lbbench
