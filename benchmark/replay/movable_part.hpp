// What a balancer is shown of a graph with vertices that never move (a recorded run's
// non-migratable objects): the vertices it may move, with all their edges, and the pinned
// vertices' load as the rank's background. The view's global_vertices counts the movable
// vertices only (ids 0..n-1, the pinned ones come after), so an edge to a pinned vertex is
// a "fixed neighbor" (LocalGraph::is_fixed_neighbor): a rank this vertex talks to, not an
// object a balancer could move. No plan can move a pinned vertex.
#pragma once

#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "core/local_graph.hpp"

namespace lbbench {

struct MovablePart {
  LocalGraph graph;              // the movable vertices, in local order, with their edges
  std::vector<LocalIndex> full;  // each one's local index in the whole graph
  LocalIndex whole_size = 0;     // the whole graph's local vertices
  std::vector<Load> vectors;     // their load vectors (dims each)
  std::vector<Load> background;  // per component: the pinned vertices' loads summed
  std::vector<int> fixed_peers;  // other ranks whose movable vertices have an edge to a pinned one here, sorted
};

// `vectors` holds dims loads per local vertex of `g`, the graph of rank `me`.
MovablePart movable_part(const LocalGraph& g, const std::vector<Load>& vectors, int dims, Rank me);

// A plan on the movable part, in the whole graph's local indices.
void to_full_indices(const MovablePart& part, MigrationPlan& plan);

}  // namespace lbbench
