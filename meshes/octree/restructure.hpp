// A regrid carried out on one rank's blocks, once every merging family is whole on the
// rank that gathers it: each block that splits becomes its 2^dim children, in its place
// in the local order; each family becomes its parent, in the place of its first sibling;
// and every block's face neighbours are found again, across levels, among what became of
// its old neighbours. Both sides of every edge find it by the same geometric test, so
// the graph stays symmetric without a message; the owner table keeps each neighbour's
// rank (a block's children and parent stay on its rank).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/local_graph.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/octree/regrid_decision.hpp"

namespace lbbench {

struct Restructured {
  LocalGraph graph;  // the global facts are the old graph's: the caller sums the new ones
  // Per new vertex, the blocks it replaces (a child its parent, a parent its siblings, a
  // block that stays itself), whose measurements it inherits: CSR over the new vertices.
  std::vector<std::int64_t> lineage_begin{0};
  std::vector<VertexId> lineage;
  std::vector<VertexId> created;
  std::vector<VertexId> destroyed;
};

// The fate of a block this rank holds or borders.
using FateOf = std::function<Fate(VertexId)>;

// `g`: the blocks of rank `me`, each merging family whole among them. New blocks take
// generation `generation` in their ids. Throws RunError when a family is not whole.
Restructured restructure(const LocalGraph& g, const OctreeGeometry& geometry, std::int64_t generation, Rank me,
                         const FateOf& fate_of);

}  // namespace lbbench
