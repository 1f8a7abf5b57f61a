// Block meshes that regrid: the geometry of octree and quadtree blocks, their ids, their
// curves, the front, and a regrid carried out on one rank's blocks (no MPI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "meshes/octree/front.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/octree/restructure.hpp"

namespace lbbench {
namespace {

// Every block of a uniform level, in Morton order.
std::vector<Block> level_blocks(int dim, int level) {
  std::vector<Block> out;
  const auto n = std::uint64_t{1} << (dim * level);
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto at = morton_split(k, dim);
    out.push_back(Block{
        level, {static_cast<std::int64_t>(at[0]), static_cast<std::int64_t>(at[1]), static_cast<std::int64_t>(at[2])}});
  }
  return out;
}

TEST(OctreeGeometry, AnIdNamesItsBlockAndTheRegridThatMadeIt) {
  for (const int dim : {2, 3}) {
    const OctreeGeometry g(dim, 4);
    std::set<std::int64_t> seen;
    for (int level = 0; level <= 4; ++level) {
      for (const Block& b : level_blocks(dim, level)) {
        for (const std::int64_t generation : {0, 1, 7, 1000}) {
          const VertexId id = g.id_of(b, generation);
          EXPECT_EQ(g.block_of(id), b);
          EXPECT_EQ(g.generation_of(id), generation);
          EXPECT_TRUE(seen.insert(id.value()).second) << "two blocks share id " << id.value();
        }
      }
    }
    // Every block of every level is a slot: the ids of one generation are dense.
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), 4 * g.slots());
  }
}

TEST(OctreeGeometry, ChildrenAndParentsInvertEachOther) {
  const OctreeGeometry g(3, 5);
  const Block b{2, {1, 3, 2}};
  std::set<std::int64_t> children;
  for (int i = 0; i < g.children(); ++i) {
    const Block c = OctreeGeometry::child(b, i);
    EXPECT_EQ(c.level, 3);
    EXPECT_EQ(OctreeGeometry::parent(c), b);
    EXPECT_EQ(g.child_index(c), i);
    children.insert(g.id_of(c, 0).value());
    for (int j = 0; j < g.children(); ++j) {
      EXPECT_EQ(OctreeGeometry::siblings(c, OctreeGeometry::child(b, j)), true);
    }
  }
  EXPECT_EQ(children.size(), 8u);
  EXPECT_FALSE(OctreeGeometry::siblings(OctreeGeometry::child(b, 0), OctreeGeometry::child(Block{2, {1, 3, 3}}, 0)));
}

TEST(OctreeGeometry, FaceNeighboursShareAFaceAcrossLevelsButNotAnEdge) {
  const OctreeGeometry g(2, 4);
  const Block coarse{1, {0, 0, 0}};  // [0, .5)^2
  EXPECT_TRUE(g.face_adjacent(coarse, Block{1, {1, 0, 0}}));
  EXPECT_FALSE(g.face_adjacent(coarse, Block{1, {1, 1, 0}})) << "corners only";
  EXPECT_TRUE(g.face_adjacent(coarse, Block{2, {2, 1, 0}})) << "a finer block against its right face";
  EXPECT_FALSE(g.face_adjacent(coarse, Block{2, {2, 2, 0}})) << "a finer block at its corner";
  EXPECT_FALSE(g.face_adjacent(coarse, Block{2, {1, 1, 0}})) << "inside it, no face";
  EXPECT_FALSE(g.face_adjacent(coarse, coarse));
  EXPECT_TRUE(g.face_adjacent(Block{3, {3, 0, 0}}, Block{1, {1, 0, 0}}));
}

// Both curves visit every cell once, and the Hilbert curve steps from a cell to a face
// neighbour every time, which Morton does not.
TEST(OctreeGeometry, TheHilbertCurveStepsBetweenFaceNeighbours) {
  for (const int dim : {2, 3}) {
    const int level = dim == 2 ? 4 : 3;
    const OctreeGeometry g(dim, level);
    std::map<std::uint64_t, Block> hilbert;
    std::set<std::uint64_t> morton;
    for (const Block& b : level_blocks(dim, level)) {
      hilbert.emplace(g.hilbert_key(b), b);
      morton.insert(g.morton_key(b));
    }
    const auto cells = std::size_t{1} << (dim * level);
    ASSERT_EQ(hilbert.size(), cells);
    ASSERT_EQ(morton.size(), cells);
    EXPECT_EQ(hilbert.rbegin()->first, cells - 1);
    int jumps = 0;
    for (auto it = std::next(hilbert.begin()); it != hilbert.end(); ++it) {
      jumps += g.face_adjacent(std::prev(it)->second, it->second) ? 0 : 1;
    }
    EXPECT_EQ(jumps, 0) << dim << "-D";
  }
}

// A block's cells come one after another on both curves, so a coarse block's key orders
// it among finer ones as its cells are.
TEST(OctreeGeometry, ABlocksCellsAreContiguousOnBothCurves) {
  const OctreeGeometry g(3, 3);
  const Block b{1, {1, 0, 1}};
  std::vector<std::uint64_t> morton;
  std::vector<std::uint64_t> hilbert;
  for (const Block& cell : level_blocks(3, 3)) {
    if (cell.at[0] >> 2 == b.at[0] && cell.at[1] >> 2 == b.at[1] && cell.at[2] >> 2 == b.at[2]) {
      morton.push_back(g.morton_key(cell));
      hilbert.push_back(g.hilbert_key(cell));
    }
  }
  for (auto* keys : {&morton, &hilbert}) {
    std::sort(keys->begin(), keys->end());
    EXPECT_EQ(keys->back() - keys->front() + 1, keys->size());
  }
  EXPECT_EQ(g.morton_key(b), morton.front());
  EXPECT_GE(g.hilbert_key(b), hilbert.front());
  EXPECT_LE(g.hilbert_key(b), hilbert.back());
}

TEST(Front, ASphereIsNearTheBlocksItCrossesAndMoves) {
  FrontSpec spec;
  spec.center = {0.5, 0.5};
  spec.radius = 0.25;
  spec.speed = 0.05;
  spec.buffer = 0;
  const Front front(spec, 2);
  const OctreeGeometry g(2, 4);
  // At step 0 the circle passes x = 0.75 on the middle row; at step 2 it is at 0.85.
  EXPECT_TRUE(front.near(g, Block{3, {6, 3, 0}}, 0));   // [0.75, 0.875)
  EXPECT_FALSE(front.near(g, Block{3, {7, 3, 0}}, 0));  // [0.875, 1)
  EXPECT_TRUE(front.near(g, Block{3, {6, 3, 0}}, 2));
  EXPECT_FALSE(front.near(g, Block{3, {3, 3, 0}}, 0)) << "well inside the circle";
  EXPECT_DOUBLE_EQ(front.distance(g.box(Block{2, {0, 0, 0}}), 0), std::sqrt(2 * 0.25 * 0.25) - 0.25);
  spec.speed = -0.1;
  EXPECT_TRUE(std::isinf(Front(spec, 2).distance(g.box(Block{0, {0, 0, 0}}), 3))) << "shrunk to nothing";
}

TEST(Front, APlaneWishesSplitsAheadAndMergesBehind) {
  OctreeSpec spec;
  spec.dim = 2;
  spec.min_level = 1;
  spec.max_level = 3;
  spec.front.shape = FrontShape::plane;
  spec.front.axis = 0;
  spec.front.position = 0.3;
  spec.front.speed = 0.1;
  spec.front.buffer = 0.5;
  const Front front(spec.front, 2);
  const OctreeGeometry g(2, 3);
  EXPECT_EQ(wish_of(spec, g, front, Block{2, {1, 0, 0}}, 0), Wish::refine);  // [0.25, 0.5) holds x = 0.3
  EXPECT_EQ(wish_of(spec, g, front, Block{3, {2, 0, 0}}, 0), Wish::stay) << "the deepest level";
  EXPECT_EQ(wish_of(spec, g, front, Block{1, {1, 0, 0}}, 5), Wish::refine) << "x = 0.8";
  EXPECT_EQ(wish_of(spec, g, front, Block{3, {0, 0, 0}}, 5), Wish::coarsen) << "far behind";
  EXPECT_EQ(wish_of(spec, g, front, Block{1, {0, 0, 0}}, 5), Wish::stay) << "the coarsest level";
}

// A graph of whole blocks on one rank, its edges found by the geometric test (what the
// generator and the regrid keep).
LocalGraph graph_of(const OctreeGeometry& g, const std::vector<Block>& blocks) {
  LocalGraph out;
  out.dim = g.dim();
  out.sparse_ids = true;
  for (const Block& b : blocks) {
    std::vector<VertexId> nbrs;
    for (const Block& other : blocks) {
      if (g.face_adjacent(b, other)) nbrs.push_back(g.id_of(other, 0));
    }
    std::sort(nbrs.begin(), nbrs.end());
    const std::vector<Rank> owners(nbrs.size(), Rank{0});
    const auto c = g.center(b);
    out.add_vertex(g.id_of(b, 0), nbrs, owners, {}, std::span<const double>(c.data(), 2), {});
  }
  return out;
}

// The new mesh's edges must be the geometric test's among its blocks, both ends alike.
void expect_edges_are_face_neighbours(const OctreeGeometry& g, const LocalGraph& graph) {
  std::set<std::pair<std::int64_t, std::int64_t>> listed;
  for (LocalIndex v = 0; v < graph.num_local(); ++v) {
    for (const VertexId u : graph.neighbors(v)) listed.emplace(graph.gid[v].value(), u.value());
  }
  std::set<std::pair<std::int64_t, std::int64_t>> expected;
  for (const VertexId a : graph.gid) {
    for (const VertexId b : graph.gid) {
      if (g.face_adjacent(g.block_of(a), g.block_of(b))) expected.emplace(a.value(), b.value());
    }
  }
  EXPECT_EQ(listed, expected);
}

TEST(Restructure, SplitsAndMergesInPlaceWithNewIdsAndNeighboursAcrossLevels) {
  const OctreeGeometry g(2, 3);
  // Level 1 everywhere but the lower-left quarter, which is split into four level-2 blocks.
  std::vector<Block> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(OctreeGeometry::child(Block{1, {0, 0, 0}}, i));
  for (const Block& b : {Block{1, {1, 0, 0}}, Block{1, {0, 1, 0}}, Block{1, {1, 1, 0}}}) blocks.push_back(b);
  const LocalGraph before = graph_of(g, blocks);
  // The four small ones merge; the upper-right one splits.
  const VertexId splits = g.id_of(Block{1, {1, 1, 0}}, 0);
  const FateOf fate = [&](VertexId id) {
    if (g.block_of(id).level == 2) return Fate::coarsen;
    return id == splits ? Fate::refine : Fate::stay;
  };
  const Restructured r = restructure(before, g, 5, Rank{0}, fate);
  ASSERT_EQ(r.graph.num_local(), 7);
  EXPECT_EQ(g.block_of(r.graph.gid[0]), (Block{1, {0, 0, 0}})) << "the parent in its first sibling's place";
  EXPECT_EQ(g.generation_of(r.graph.gid[0]), 5);
  for (LocalIndex v = 3; v < 7; ++v) {
    EXPECT_EQ(OctreeGeometry::parent(g.block_of(r.graph.gid[v])), (Block{1, {1, 1, 0}})) << "children in its place";
    EXPECT_EQ(g.generation_of(r.graph.gid[v]), 5);
  }
  EXPECT_EQ(r.graph.gid[1], before.gid[4]) << "a block that stays keeps its id";
  EXPECT_EQ(r.created.size(), 5u);
  EXPECT_EQ(r.destroyed.size(), 5u);
  for (const VertexId id : r.created) {
    EXPECT_EQ(std::count(before.gid.begin(), before.gid.end(), id), 0) << "a new block never takes an old id";
  }
  expect_edges_are_face_neighbours(g, r.graph);
  check_structure(r.graph);
  // The merged block inherits from its four siblings; a child from its parent.
  EXPECT_EQ(r.lineage_begin[1] - r.lineage_begin[0], 4);
  EXPECT_EQ(r.lineage[static_cast<std::size_t>(r.lineage_begin[3])], splits);
}

TEST(Restructure, RefusesAFamilyThatIsNotWhole) {
  const OctreeGeometry g(2, 3);
  std::vector<Block> blocks;
  for (int i = 0; i < 3; ++i) blocks.push_back(OctreeGeometry::child(Block{1, {0, 0, 0}}, i));
  const LocalGraph part = graph_of(g, blocks);
  const FateOf fate = [](VertexId) { return Fate::coarsen; };
  EXPECT_THROW(restructure(part, g, 1, Rank{0}, fate), RunError);
}

}  // namespace
}  // namespace lbbench
