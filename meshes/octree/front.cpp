// The refinement criterion (see front.hpp).
#include "meshes/octree/front.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lbbench {

Front::Front(const FrontSpec& spec, int dim) : spec_(spec), dim_(dim) {
  if (spec_.center.empty()) spec_.center.assign(static_cast<std::size_t>(dim), 0.5);
}

double Front::distance(const Box& box, int step) const {
  const double moved = spec_.speed * step;
  if (spec_.shape == FrontShape::plane) {
    const auto a = static_cast<std::size_t>(spec_.axis);
    const double x = spec_.position + moved;
    if (x < box.lo[a]) return box.lo[a] - x;
    if (x > box.hi[a]) return x - box.hi[a];
    return 0.0;
  }
  const double r = spec_.radius + moved;
  if (r < 0) return std::numeric_limits<double>::infinity();
  // The surface crosses the box when its radius lies between the box's nearest and
  // farthest distance from the center.
  double nearest2 = 0;
  double farthest2 = 0;
  for (std::size_t a = 0; a < static_cast<std::size_t>(dim_); ++a) {
    const double c = spec_.center[a];
    const double gap = std::max({box.lo[a] - c, 0.0, c - box.hi[a]});
    const double reach = std::max(std::abs(c - box.lo[a]), std::abs(box.hi[a] - c));
    nearest2 += gap * gap;
    farthest2 += reach * reach;
  }
  const double nearest = std::sqrt(nearest2);
  const double farthest = std::sqrt(farthest2);
  if (r < nearest) return nearest - r;
  if (r > farthest) return r - farthest;
  return 0.0;
}

bool Front::near(const OctreeGeometry& geometry, const Block& b, int step) const {
  return distance(geometry.box(b), step) <= spec_.buffer * OctreeGeometry::width(b.level);
}

Wish wish_of(const OctreeSpec& spec, const OctreeGeometry& geometry, const Front& front, const Block& b, int step) {
  if (b.level < spec.max_level && front.near(geometry, b, step)) return Wish::refine;
  if (b.level > spec.min_level && !front.near(geometry, OctreeGeometry::parent(b), step)) return Wish::coarsen;
  return Wish::stay;
}

}  // namespace lbbench
