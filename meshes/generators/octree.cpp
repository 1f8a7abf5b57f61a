// The initial block mesh of an octree (3-D) or quadtree (2-D): the unit box cut into the
// uniform blocks of the coarsest level, dealt to the ranks in Morton order, then split
// around the front at step 0, one level per pass and with 2:1 balance kept, by the same
// distributed protocol a regrid uses (meshes/octree/), until no block splits. Every rank
// builds only its own blocks, whose children stay with it, so each rank ends with a
// stretch of the Morton order; the scenario's distribution places them afterwards.
#include <algorithm>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "meshes/build.hpp"
#include "meshes/octree/front.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "meshes/octree/restructure.hpp"

namespace lbbench {

namespace {

// The uniform blocks of the coarsest level, rank `me`'s stretch of the Morton order.
LocalGraph uniform_blocks(const OctreeSpec& spec, const OctreeGeometry& geometry, int me, int nranks) {
  const int dim = spec.dim;
  const std::int64_t side = std::int64_t{1} << spec.min_level;
  const std::int64_t n = std::int64_t{1} << (dim * spec.min_level);
  LocalGraph g;
  g.dim = dim;
  g.sparse_ids = true;
  std::vector<std::pair<VertexId, Rank>> nbrs;
  std::vector<VertexId> ids;
  std::vector<Rank> owners;
  for (std::int64_t k = block_begin(me, n, nranks); k < block_begin(me + 1, n, nranks); ++k) {
    const auto at = morton_split(static_cast<std::uint64_t>(k), dim);
    const Block b{
        spec.min_level,
        {static_cast<std::int64_t>(at[0]), static_cast<std::int64_t>(at[1]), static_cast<std::int64_t>(at[2])}};
    nbrs.clear();
    for (std::size_t a = 0; a < static_cast<std::size_t>(dim); ++a) {
      for (const std::int64_t step : {-1, 1}) {
        Block nb = b;
        nb.at[a] += step;
        if (nb.at[a] < 0 || nb.at[a] >= side) continue;
        const std::array<std::uint64_t, 3> nat{static_cast<std::uint64_t>(nb.at[0]),
                                               static_cast<std::uint64_t>(nb.at[1]),
                                               static_cast<std::uint64_t>(nb.at[2])};
        const auto index = static_cast<std::int64_t>(morton_interleave(nat, dim));
        nbrs.emplace_back(geometry.id_of(nb, 0), Rank{block_owner(index, n, nranks)});
      }
    }
    std::sort(nbrs.begin(), nbrs.end());
    ids.clear();
    owners.clear();
    for (const auto& [id, owner] : nbrs) {
      ids.push_back(id);
      owners.push_back(owner);
    }
    const auto c = geometry.center(b);
    g.add_vertex(geometry.id_of(b, 0), ids, owners, {},
                 std::span<const double>(c.data(), static_cast<std::size_t>(dim)), {});
  }
  return g;
}

}  // namespace

LocalGraph generate_octree(const OctreeSpec& spec, MPI_Comm comm) {
  const int me = comm_rank(comm);
  const OctreeGeometry geometry(spec.dim, spec.max_level);
  const Front front(spec.front, spec.dim);
  LocalGraph g = uniform_blocks(spec, geometry, me, comm_size(comm));
  SparseExchange exchange(comm);
  const RegridContext ctx{.spec = spec, .geometry = geometry, .front = front, .step = 0, .refine_only = true};
  for (int pass = spec.min_level; pass < spec.max_level; ++pass) {
    const std::vector<Rank> owner(static_cast<std::size_t>(g.num_local()), Rank{me});
    const RegridDecision d = decide_regrid(ctx, g, owner, exchange, comm);
    if (allreduce(d.refined, MPI_SUM, comm) == 0) break;
    RegridTraffic traffic;
    const FateBook fates(g, d.fate, exchange, traffic);
    g = restructure(g, geometry, 0, Rank{me}, [&](VertexId id) { return fates.of(id); }).graph;
  }
  finish_graph(g, comm);
  // Positions are normalized to the box the blocks tile, not to their centers' span.
  g.bounds = Box{};
  for (std::size_t a = 0; a < static_cast<std::size_t>(spec.dim); ++a) g.bounds.hi[a] = 1.0;
  return g;
}

}  // namespace lbbench
