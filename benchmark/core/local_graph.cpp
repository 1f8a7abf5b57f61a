// One rank's part of the distributed graph (see local_graph.hpp).
#include "core/local_graph.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace lbbench {

LocalGraph LocalGraph::facts_only() const {
  LocalGraph out;
  out.global_vertices = global_vertices;
  out.global_edges = global_edges;
  out.dim = dim;
  out.ncon = ncon;
  out.has_edge_weights = has_edge_weights;
  out.bounds = bounds;
  out.pinned_from = pinned_from;
  out.sparse_ids = sparse_ids;
  return out;
}

void LocalGraph::reserve_more(std::int64_t vertices, std::int64_t edges) {
  const auto n = gid.size() + static_cast<std::size_t>(vertices);
  const auto m = adj.size() + static_cast<std::size_t>(edges);
  gid.reserve(n);
  xadj.reserve(n + 1);
  adj.reserve(m);
  adj_owner.reserve(m);
  if (has_edge_weights) adj_weight.reserve(m);
  coords.reserve(n * static_cast<std::size_t>(dim));
  vweights.reserve(n * static_cast<std::size_t>(ncon));
}

void LocalGraph::add_vertex(VertexId id, std::span<const VertexId> nbrs, std::span<const Rank> owners,
                            std::span<const std::int32_t> weights, std::span<const double> xyz,
                            std::span<const double> vw) {
  gid.push_back(id);
  adj.insert(adj.end(), nbrs.begin(), nbrs.end());
  adj_owner.insert(adj_owner.end(), owners.begin(), owners.end());
  if (has_edge_weights) adj_weight.insert(adj_weight.end(), weights.begin(), weights.end());
  coords.insert(coords.end(), xyz.begin(), xyz.end());
  vweights.insert(vweights.end(), vw.begin(), vw.end());
  xadj.push_back(static_cast<std::int64_t>(adj.size()));
}

void check_structure(const LocalGraph& g) {
  const auto n = static_cast<std::size_t>(g.num_local());
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::logic_error(fmt::format("local graph structure broken: {}", what));
  };
  require(g.xadj.size() == n + 1, "xadj has num_local+1 entries");
  require(g.xadj.front() == 0 && static_cast<std::size_t>(g.xadj.back()) == g.adj.size(), "xadj spans adj");
  for (std::size_t i = 0; i < n; ++i) require(g.xadj[i] <= g.xadj[i + 1], "xadj is non-decreasing");
  require(g.adj_owner.size() == g.adj.size(), "an owner for every edge");
  require(!g.has_edge_weights || g.adj_weight.size() == g.adj.size(), "a weight for every edge");
  require(g.coords.size() == n * static_cast<std::size_t>(g.dim), "dim coordinates per vertex");
  require(g.vweights.size() == n * static_cast<std::size_t>(g.ncon), "ncon weights per vertex");
}

}  // namespace lbbench
