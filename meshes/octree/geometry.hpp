// Blocks of an octree (3-D) or quadtree (2-D) over the unit box: their integer
// coordinates, the ids that name them with the regrid that made them, their face
// neighbours across levels, and their places on the Morton and Hilbert curves.
//
// A block's id is generation x slots + slot: its slot numbers every block the tree can
// hold (level by level, each level in Morton order), and its generation is the regrid that
// created it (0 for the initial mesh). A block made again later (a family that merged and
// split again) gets the new generation, so no id is ever used twice, and any rank reads a
// block's place from its id alone.
#pragma once

#include <array>
#include <cstdint>

#include "core/local_graph.hpp"
#include "core/types.hpp"

namespace lbbench {

struct Block {
  int level = 0;
  std::array<std::int64_t, 3> at{0, 0, 0};  // integer coordinates at its level: 0 .. 2^level - 1
  friend bool operator==(const Block&, const Block&) = default;
};

class OctreeGeometry {
 public:
  OctreeGeometry(int dim, int max_level);

  [[nodiscard]] int dim() const { return dim_; }
  [[nodiscard]] int max_level() const { return max_level_; }
  [[nodiscard]] int children() const { return 1 << dim_; }
  // Ids one generation spans: every block of every level.
  [[nodiscard]] std::int64_t slots() const { return slots_; }
  // Generations whose ids all fit in 63 bits.
  [[nodiscard]] std::int64_t max_generations() const;

  [[nodiscard]] VertexId id_of(const Block& b, std::int64_t generation) const;
  [[nodiscard]] Block block_of(VertexId id) const;
  [[nodiscard]] std::int64_t generation_of(VertexId id) const { return id.value() / slots_; }

  [[nodiscard]] static Block parent(const Block& b);
  // Child i: bit a of i is its offset along axis a (Morton order within the parent).
  [[nodiscard]] static Block child(const Block& b, int i);
  [[nodiscard]] int child_index(const Block& b) const;
  // Same level and same parent.
  [[nodiscard]] static bool siblings(const Block& a, const Block& b);

  [[nodiscard]] static double width(int level);
  [[nodiscard]] std::array<double, 3> center(const Block& b) const;
  [[nodiscard]] Box box(const Block& b) const;
  // The boxes share a face of positive area (across levels too).
  [[nodiscard]] bool face_adjacent(const Block& a, const Block& b) const;

  // Places on the curves through the cells of the deepest level: any cell of a block has
  // the block's place, since both curves visit each block's cells one after another.
  [[nodiscard]] std::uint64_t morton_key(const Block& b) const;
  [[nodiscard]] std::uint64_t hilbert_key(const Block& b) const;

 private:
  // The block's lowest corner in cells of the deepest level.
  [[nodiscard]] std::array<std::uint64_t, 3> corner(const Block& b) const;
  [[nodiscard]] std::int64_t level_offset(int level) const;

  int dim_;
  int max_level_;
  std::int64_t slots_;
};

// Interleaves coordinates bit by bit (x lowest): the Morton index of a cell.
std::uint64_t morton_interleave(const std::array<std::uint64_t, 3>& x, int dim);
std::array<std::uint64_t, 3> morton_split(std::uint64_t key, int dim);
// The index of a cell of a 2^bits-per-axis grid along the Hilbert curve, by Skilling's
// transpose ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004).
std::uint64_t hilbert_index(std::array<std::uint64_t, 3> x, int dim, int bits);

}  // namespace lbbench
