// One rank's part of the distributed graph: the vertices it owns in CSR form, with global
// neighbor ids and, for every edge, the rank that owns the neighbor (the owner table).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/types.hpp"

namespace lbbench {

// Axis-aligned bounds of the mesh coordinates, over all ranks.
struct Box {
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> hi{0, 0, 0};
};

struct LocalGraph {
  // --- global facts, the same on every rank ------------------------------------------------
  std::int64_t global_vertices = 0;
  std::int64_t global_edges = 0;  // undirected
  int dim = 0;                    // coordinates per vertex; 0 when the mesh has none
  int ncon = 0;                   // file vertex weights per vertex; 0 when none
  bool has_edge_weights = false;  // edge weights from the file (message size multipliers)
  Box bounds;
  // Vertices with ids from here on never move: a recorded run's non-migratable objects,
  // numbered after its migratable ones. kNonePinned where the mesh has none.
  static constexpr std::int64_t kNonePinned = std::numeric_limits<std::int64_t>::max();
  std::int64_t pinned_from = kNonePinned;
  // Ids are not 0..global_vertices-1: a mesh that regrids (an octree) gives every block it
  // creates an id never used before, so the ids of the live blocks are sparse and grow.
  // No array may then be indexed by id.
  bool sparse_ids = false;

  // --- local vertices ------------------------------------------------------------------------
  std::vector<VertexId> gid;             // local index -> global id
  std::vector<std::int64_t> xadj{0};     // CSR offsets into adj, size num_local()+1
  std::vector<VertexId> adj;             // neighbor global ids
  std::vector<Rank> adj_owner;           // owner of each neighbor (the owner table)
  std::vector<std::int32_t> adj_weight;  // per edge, only when has_edge_weights
  std::vector<double> coords;            // dim per vertex
  std::vector<double> vweights;          // ncon per vertex

  [[nodiscard]] LocalIndex num_local() const { return static_cast<LocalIndex>(gid.size()); }
  [[nodiscard]] std::int64_t num_local_edges() const { return static_cast<std::int64_t>(adj.size()); }
  [[nodiscard]] std::int64_t degree(LocalIndex v) const { return xadj[v + 1] - xadj[v]; }
  [[nodiscard]] std::span<const VertexId> neighbors(LocalIndex v) const {
    return {adj.data() + xadj[v], static_cast<std::size_t>(degree(v))};
  }
  [[nodiscard]] std::span<const Rank> neighbor_owners(LocalIndex v) const {
    return {adj_owner.data() + xadj[v], static_cast<std::size_t>(degree(v))};
  }
  [[nodiscard]] std::span<const double> coords_of(LocalIndex v) const {
    return {coords.data() + static_cast<std::size_t>(v) * dim, static_cast<std::size_t>(dim)};
  }
  [[nodiscard]] std::span<const double> vweights_of(LocalIndex v) const {
    return {vweights.data() + static_cast<std::size_t>(v) * ncon, static_cast<std::size_t>(ncon)};
  }
  // A vertex that never moves (a recorded run's non-migratable object).
  [[nodiscard]] bool is_pinned(VertexId v) const { return v.value() >= pinned_from; }
  // The mesh has vertices that never move (the same answer on every rank).
  [[nodiscard]] bool has_pinned() const { return pinned_from != kNonePinned; }
  // An edge to a vertex outside this graph's own (ids at or above global_vertices): in a
  // balancer's view of a recorded run, a pinned vertex, on its rank for good.
  [[nodiscard]] bool is_fixed_neighbor(std::int64_t e) const {
    return has_pinned() && adj[static_cast<std::size_t>(e)].value() >= global_vertices;
  }
  // Message-size multiplier of an edge (1 unless the file gave edge weights).
  [[nodiscard]] std::int64_t edge_weight(std::int64_t e) const { return has_edge_weights ? adj_weight[e] : 1; }

  // A graph with this one's global facts and no vertex.
  [[nodiscard]] LocalGraph facts_only() const;

  // Room for `vertices` more vertices with `edges` more edges in all, so that appending
  // them allocates nothing.
  void reserve_more(std::int64_t vertices, std::int64_t edges);
  // Appends a vertex; the caller supplies neighbors with their owners.
  void add_vertex(VertexId id, std::span<const VertexId> nbrs, std::span<const Rank> owners,
                  std::span<const std::int32_t> weights, std::span<const double> xyz, std::span<const double> vw);
};

// Throws std::logic_error naming the first broken structural invariant (sizes, CSR offsets).
void check_structure(const LocalGraph& g);

}  // namespace lbbench
