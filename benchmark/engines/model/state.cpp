// What the model engine holds of a run (see state.hpp).
#include "engines/model/state.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "core/blocks.hpp"
#include "core/hash.hpp"
#include "meshes/build.hpp"
#include "meshes/octree/geometry.hpp"
#include "replay/distribution.hpp"
#include "replay/migration.hpp"

namespace lbbench {

namespace {

// Ids the builders give out are dense (0..V-1); grids and files give them in order.
bool positions_are_ids(const LocalGraph& g) {
  for (std::size_t i = 0; i < g.gid.size(); ++i) {
    if (g.gid[i].value() != static_cast<std::int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

ModelState::ModelState(const Scenario& s, int nranks) : nranks_(nranks), element_bytes_(s.workload.element_bytes) {
  Mesh mesh = build_mesh(s.mesh, s.seed, MPI_COMM_SELF);
  g_ = std::move(mesh.graph);
  trace_ = std::move(mesh.trace);
  const auto n = static_cast<std::size_t>(g_.num_local());
  index_positions();
  lay_out_as_builders(s);
  // Then the scenario's starting ranks, as a migration that counts nothing.
  std::vector<Rank> start(n);
  if (places_in_key_order(s.distribution, g_)) {
    start = cut_in_key_order_serial(placement_keys(s.distribution, s.mesh, g_), nranks);
  } else if (s.distribution.kind == DistributionKind::file) {
    const std::vector<Rank> by_id = read_partition_file(s.distribution.file_resolved, g_.global_vertices, nranks);
    for (std::size_t i = 0; i < n; ++i) start[i] = by_id[static_cast<std::size_t>(g_.gid[i].value())];
    start = pin_recorded(g_, trace_.get(), std::move(start), nranks);
  } else {
    check_distribution(s.distribution, g_);
    for (std::size_t i = 0; i < n; ++i) {
      start[i] = starting_rank(s.distribution, g_, trace_.get(), static_cast<LocalIndex>(i), nranks, s.seed);
    }
  }
  migrate(start);
}

LocalGraph ModelState::part_of(int rank, PartCarries carries) const {
  const bool geometry = carries == PartCarries::geometry;
  LocalGraph part = g_.facts_only();
  if (!geometry) {
    part.dim = 0;
    part.ncon = 0;
  }
  const auto local = vertices_of(rank);
  std::int64_t edges = 0;
  for (const std::int64_t pos : local) edges += g_.degree(static_cast<LocalIndex>(pos));
  part.reserve_more(static_cast<std::int64_t>(local.size()), edges);
  for (const std::int64_t pos : local) {
    const auto v = static_cast<LocalIndex>(pos);
    const std::span<const std::int32_t> weights =
        !geometry && g_.has_edge_weights
            ? std::span<const std::int32_t>(g_.adj_weight)
                  .subspan(static_cast<std::size_t>(g_.xadj[v]), static_cast<std::size_t>(g_.degree(v)))
            : std::span<const std::int32_t>{};
    part.add_vertex(g_.gid[static_cast<std::size_t>(pos)], g_.neighbors(v), g_.neighbor_owners(v), weights,
                    geometry ? g_.coords_of(v) : std::span<const double>{},
                    geometry ? g_.vweights_of(v) : std::span<const double>{});
  }
  return part;
}

void ModelState::index_positions() {
  const auto n = static_cast<std::size_t>(g_.num_local());
  identity_positions_ = !g_.sparse_ids && positions_are_ids(g_);
  position_of_id_.clear();
  sparse_position_.clear();
  if (identity_positions_) return;
  if (g_.sparse_ids) {
    sparse_position_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) sparse_position_.emplace(g_.gid[i].value(), static_cast<std::int64_t>(i));
    return;
  }
  position_of_id_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    position_of_id_[static_cast<std::size_t>(g_.gid[i].value())] = static_cast<std::int64_t>(i);
}

void ModelState::lay_out_as_builders(const Scenario& s) {
  const auto n = static_cast<std::size_t>(g_.num_local());
  const auto* tree = std::get_if<OctreeSpec>(&s.mesh);
  std::optional<OctreeGeometry> geometry;
  if (tree) geometry.emplace(tree->dim, tree->max_level);
  // A block mesh's builder deals the coarsest level's blocks out in Morton order, and every
  // block stays with the rank of its ancestor there (meshes/generators/octree.cpp).
  const auto builder_rank = [&](std::size_t pos) {
    if (!tree) return block_owner(g_.gid[pos].value(), g_.global_vertices, nranks_);
    Block b = geometry->block_of(g_.gid[pos]);
    const int up = b.level - tree->min_level;
    std::array<std::uint64_t, 3> at{};
    for (std::size_t a = 0; a < 3; ++a) at[a] = static_cast<std::uint64_t>(b.at[a]) >> up;
    const std::int64_t coarse = std::int64_t{1} << (tree->dim * tree->min_level);
    return block_owner(static_cast<std::int64_t>(morton_interleave(at, tree->dim)), coarse, nranks_);
  };
  owner_.resize(n);
  rank_begin_.assign(static_cast<std::size_t>(nranks_) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    owner_[i] = builder_rank(i);
    ++rank_begin_[static_cast<std::size_t>(owner_[i]) + 1];
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(nranks_); ++r) rank_begin_[r + 1] += rank_begin_[r];
  order_.resize(n);
  std::vector<std::int64_t> fill(rank_begin_.begin(), rank_begin_.end() - 1);
  const auto place = [&](std::int64_t pos) {
    order_[static_cast<std::size_t>(fill[static_cast<std::size_t>(owner_[static_cast<std::size_t>(pos)])]++)] = pos;
  };
  // Each rank's in id order; a block mesh's builder holds its blocks in Morton order, the
  // order the one-process build gave the positions.
  if (tree) {
    for (std::size_t pos = 0; pos < n; ++pos) place(static_cast<std::int64_t>(pos));
  } else {
    for (std::int64_t id = 0; id < g_.global_vertices; ++id) place(position_of(VertexId{id}));
  }
}

void ModelState::replace(LocalGraph graph, std::vector<std::int64_t> rank_begin) {
  g_ = std::move(graph);
  rank_begin_ = std::move(rank_begin);
  const auto n = static_cast<std::size_t>(g_.num_local());
  owner_.resize(n);
  order_.resize(n);
  for (std::size_t r = 0; r + 1 < rank_begin_.size(); ++r) {
    for (auto pos = rank_begin_[r]; pos < rank_begin_[r + 1]; ++pos) {
      owner_[static_cast<std::size_t>(pos)] = static_cast<int>(r);
      order_[static_cast<std::size_t>(pos)] = pos;
    }
  }
  index_positions();
}

std::uint64_t ModelState::owners_digest() const {
  std::uint64_t digest = 0;
  for (std::size_t pos = 0; pos < owner_.size(); ++pos) digest += placement_term(g_.gid[pos].value(), owner_[pos]);
  return digest;
}

std::int64_t ModelState::packed_bytes(std::int64_t position) const {
  return packed_vertex_bytes(g_.degree(static_cast<LocalIndex>(position)), g_, element_bytes_);
}

MigrationTally ModelState::migrate(const std::vector<Rank>& target, const Placement* place) {
  const auto p = static_cast<std::size_t>(nranks_);
  MigrationTally tally;
  tally.arrived_at.assign(p, 0);
  tally.sent_from.assign(p, 0);
  tally.kept_at.assign(p, 0);
  std::vector<double> bytes_in(p, 0.0);
  // What each pair of ranks exchanges (one message, one flow on the network), keyed by
  // from << 32 | to.
  std::unordered_map<std::uint64_t, double> rank_pairs;
  std::vector<std::int64_t> begin(p + 1, 0);
  for (std::size_t pos = 0; pos < owner_.size(); ++pos) {
    const auto to = static_cast<std::size_t>(target[pos].value());
    ++begin[to + 1];
    if (static_cast<int>(to) == owner_[pos]) {
      ++tally.kept_at[to];
      continue;
    }
    ++tally.vertices;
    ++tally.sent_from[static_cast<std::size_t>(owner_[pos])];
    ++tally.arrived_at[to];
    const std::int64_t b = packed_bytes(static_cast<std::int64_t>(pos));
    tally.bytes += b;
    bytes_in[to] += static_cast<double>(b);
    rank_pairs[static_cast<std::uint64_t>(owner_[pos]) << 32 | static_cast<std::uint32_t>(to)] +=
        static_cast<double>(b);
    if (place && place->site_of(static_cast<int>(to)) != place->site_of(owner_[pos]))
      tally.cross_site_bytes += static_cast<double>(b);
  }
  for (std::size_t r = 0; r < p; ++r) begin[r + 1] += begin[r];
  std::vector<std::int64_t> order(order_.size());
  std::vector<std::int64_t> fill(begin.begin(), begin.end() - 1);
  // What each rank keeps, in its order; then the arrivals, by sending rank.
  for (std::size_t r = 0; r < p; ++r) {
    for (const std::int64_t pos : vertices_of(static_cast<int>(r))) {
      if (target[static_cast<std::size_t>(pos)].value() == static_cast<int>(r))
        order[static_cast<std::size_t>(fill[r]++)] = pos;
    }
  }
  for (std::size_t r = 0; r < p; ++r) {
    for (const std::int64_t pos : vertices_of(static_cast<int>(r))) {
      const auto to = static_cast<std::size_t>(target[static_cast<std::size_t>(pos)].value());
      if (to != r) order[static_cast<std::size_t>(fill[to]++)] = pos;
    }
  }
  order_ = std::move(order);
  rank_begin_ = std::move(begin);
  for (std::size_t pos = 0; pos < owner_.size(); ++pos) owner_[pos] = target[pos].value();
  refresh_neighbor_owners();
  tally.arrivals_max = *std::max_element(tally.arrived_at.begin(), tally.arrived_at.end());
  tally.receiver_bytes_max = *std::max_element(bytes_in.begin(), bytes_in.end());
  tally.rank_flows.reserve(rank_pairs.size());
  for (const auto& [pair, bytes] : rank_pairs) {
    tally.rank_flows.push_back({static_cast<int>(pair >> 32), static_cast<int>(pair & 0xffffffffU), bytes});
  }
  return tally;
}

void ModelState::refresh_neighbor_owners() {
  for (std::size_t e = 0; e < g_.adj.size(); ++e) {
    g_.adj_owner[e] = Rank{owner_[static_cast<std::size_t>(position_of(g_.adj[e]))]};
  }
}

}  // namespace lbbench
