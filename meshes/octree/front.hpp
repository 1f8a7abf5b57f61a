// The refinement criterion of a block mesh: a front (a sphere that grows or shrinks, or a
// plane that crosses the box) moving a fixed distance per step. A block within `buffer`
// of its own widths of the front's surface is near it and wants to split, down to the
// deepest level; a block whose parent is not near wants its family to merge, up to the
// coarsest level. Testing the parent, which is twice as wide, keeps a merged block from
// wanting to split again at the next regrid.
#pragma once

#include "core/local_graph.hpp"
#include "meshes/mesh_spec.hpp"
#include "meshes/octree/geometry.hpp"

namespace lbbench {

enum class Wish { coarsen, stay, refine };

class Front {
 public:
  Front(const FrontSpec& spec, int dim);

  // How far the box is from the front's surface at `step` (0 where the surface crosses
  // it); infinite once a shrinking sphere has vanished.
  [[nodiscard]] double distance(const Box& box, int step) const;
  [[nodiscard]] bool near(const OctreeGeometry& geometry, const Block& b, int step) const;

 private:
  FrontSpec spec_;
  int dim_;
};

// What the criterion asks of a block at `step`, before 2:1 balance has its say.
Wish wish_of(const OctreeSpec& spec, const OctreeGeometry& geometry, const Front& front, const Block& b, int step);

}  // namespace lbbench
