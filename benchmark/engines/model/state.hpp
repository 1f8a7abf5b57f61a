// What the model engine holds of a run, once for all ranks: the whole graph (positions
// 0..V-1), each vertex's owner, and each rank's vertices in the order the MPI engines keep
// them on that rank, which is the order balancers see as local indices. Memory is O(V + E
// + P): no per-rank copies of anything P-sized.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/local_graph.hpp"
#include "machine/network.hpp"
#include "meshes/trace/trace.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// What a migration moved, as the MPI engines' migration would have counted it.
struct MigrationTally {
  std::int64_t vertices = 0;             // vertices sent
  std::int64_t bytes = 0;                // wire bytes: adjacency, coordinates, weights, payload
  std::int64_t arrivals_max = 0;         // vertices arriving at the busiest receiver
  double receiver_bytes_max = 0;         // bytes arriving at the busiest receiver (by bytes)
  std::vector<RankFlow> rank_flows;      // bytes from rank to rank, one entry per pair that moves any
  double cross_site_bytes = 0;           // bytes moving between sites
  std::vector<std::int64_t> arrived_at;  // per rank
  std::vector<std::int64_t> sent_from;   // per rank
  std::vector<std::int64_t> kept_at;     // per rank: vertices that stayed
};

class ModelState {
 public:
  // Builds the mesh in this process, lays it out on `nranks` ranks as the MPI engines'
  // builders do, and moves every vertex to its starting rank.
  ModelState(const Scenario& s, int nranks);

  // The whole graph; adj_owner holds each neighbor's current owner.
  [[nodiscard]] const LocalGraph& graph() const { return g_; }
  // The recorded run the mesh was read from; null for every other mesh.
  [[nodiscard]] const std::shared_ptr<const TraceLayout>& trace() const { return trace_; }
  [[nodiscard]] int nranks() const { return nranks_; }
  [[nodiscard]] Rank owner(std::int64_t position) const { return Rank{owner_[static_cast<std::size_t>(position)]}; }
  // A rank's vertices (positions), in its local order.
  [[nodiscard]] std::span<const std::int64_t> vertices_of(int rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return {order_.data() + rank_begin_[r], static_cast<std::size_t>(rank_begin_[r + 1] - rank_begin_[r])};
  }
  // What a rank's part of the graph carries beside its vertices and their neighbors' owners:
  // a protocol reads the edge weights only, a regrid the coordinates and vertex weights.
  enum class PartCarries { edge_weights, geometry };
  // Rank `rank`'s part of the graph as its process holds it: its vertices in local order,
  // each neighbor with its current owner.
  [[nodiscard]] LocalGraph part_of(int rank, PartCarries carries) const;
  [[nodiscard]] std::int64_t position_of(VertexId id) const {
    if (identity_positions_) return id.value();
    if (!g_.sparse_ids) return position_of_id_[static_cast<std::size_t>(id.value())];
    return sparse_position_.at(id.value());
  }
  // Where every vertex is (the placement digest of core/hash.hpp).
  [[nodiscard]] std::uint64_t owners_digest() const;
  // Bytes one vertex occupies in a migration message.
  [[nodiscard]] std::int64_t packed_bytes(std::int64_t position) const;

  // Moves each vertex to target[position], as the migration engine orders a rank's
  // vertices afterwards: the ones it kept, in order, then the arrivals, by sending rank
  // and in the sender's order.
  // `place`, when given, says which site each rank is on, so that the tally can count the
  // bytes that cross sites.
  struct Placement {
    std::function<int(int)> site_of;
  };
  MigrationTally migrate(const std::vector<Rank>& target, const Placement* place = nullptr);

  // After a block mesh's regrid: the whole new graph, whose positions run rank by rank
  // (`rank_begin`, P+1 offsets), each rank's in its local order, with its owner table.
  void replace(LocalGraph graph, std::vector<std::int64_t> rank_begin);

 private:
  void refresh_neighbor_owners();
  // Where each id is among the positions (an id may not index an array where ids are sparse).
  void index_positions();
  // The builders' layout on P ranks before the scenario's distribution: contiguous blocks
  // of ids, each in id order; a block mesh's stretches of the Morton order.
  void lay_out_as_builders(const Scenario& s);

  LocalGraph g_;
  std::shared_ptr<const TraceLayout> trace_;
  int nranks_;
  std::int64_t element_bytes_;
  std::vector<int> owner_;                // per position
  std::vector<std::int64_t> rank_begin_;  // CSR over ranks into order_
  std::vector<std::int64_t> order_;       // positions, rank by rank
  bool identity_positions_ = true;        // position == id (grids, files)
  std::vector<std::int64_t> position_of_id_;
  std::unordered_map<std::int64_t, std::int64_t> sparse_position_;  // a block mesh's
};

}  // namespace lbbench
