// Octree and quadtree blocks (see geometry.hpp).
#include "meshes/octree/geometry.hpp"

#include <bit>
#include <stdexcept>

#include "meshes/mesh_spec.hpp"

namespace lbbench {

namespace {

// Spreads the low bits of x so that bit k lands at bit k * dim (magic-number bit tricks).
std::uint64_t spread(std::uint64_t x, int dim) {
  if (dim == 2) {
    x &= 0xffffffffULL;
    x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    return (x | (x << 1)) & 0x5555555555555555ULL;
  }
  x &= 0x1fffffULL;
  x = (x | (x << 32)) & 0x1f00000000ffffULL;
  x = (x | (x << 16)) & 0x1f0000ff0000ffULL;
  x = (x | (x << 8)) & 0x100f00f00f00f00fULL;
  x = (x | (x << 4)) & 0x10c30c30c30c30c3ULL;
  return (x | (x << 2)) & 0x1249249249249249ULL;
}

// The inverse of spread.
std::uint64_t compact(std::uint64_t x, int dim) {
  if (dim == 2) {
    x &= 0x5555555555555555ULL;
    x = (x ^ (x >> 1)) & 0x3333333333333333ULL;
    x = (x ^ (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x ^ (x >> 4)) & 0x00ff00ff00ff00ffULL;
    x = (x ^ (x >> 8)) & 0x0000ffff0000ffffULL;
    return (x ^ (x >> 16)) & 0xffffffffULL;
  }
  x &= 0x1249249249249249ULL;
  x = (x ^ (x >> 2)) & 0x10c30c30c30c30c3ULL;
  x = (x ^ (x >> 4)) & 0x100f00f00f00f00fULL;
  x = (x ^ (x >> 8)) & 0x1f0000ff0000ffULL;
  x = (x ^ (x >> 16)) & 0x1f00000000ffffULL;
  return (x ^ (x >> 32)) & 0x1fffffULL;
}

}  // namespace

std::uint64_t morton_interleave(const std::array<std::uint64_t, 3>& x, int dim) {
  std::uint64_t key = 0;
  for (int a = 0; a < dim; ++a) key |= spread(x[static_cast<std::size_t>(a)], dim) << a;
  return key;
}

std::array<std::uint64_t, 3> morton_split(std::uint64_t key, int dim) {
  std::array<std::uint64_t, 3> x{0, 0, 0};
  for (int a = 0; a < dim; ++a) x[static_cast<std::size_t>(a)] = compact(key >> a, dim);
  return x;
}

std::uint64_t hilbert_index(std::array<std::uint64_t, 3> x, int dim, int bits) {
  if (bits == 0) return 0;
  const auto n = static_cast<std::size_t>(dim);
  const std::uint64_t top = std::uint64_t{1} << (bits - 1);
  // Skilling's AxestoTranspose: undo the curve's rotations and reflections level by
  // level, then Gray-encode.
  for (std::uint64_t q = top; q > 1; q >>= 1) {
    const std::uint64_t p = q - 1;
    for (std::size_t i = 0; i < n; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const std::uint64_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (std::size_t i = 1; i < n; ++i) x[i] ^= x[i - 1];
  std::uint64_t t = 0;
  for (std::uint64_t q = top; q > 1; q >>= 1) {
    if (x[n - 1] & q) t ^= q - 1;
  }
  for (std::size_t i = 0; i < n; ++i) x[i] ^= t;
  // The transposed form holds the index's bits spread over the axes, x[0] the highest of
  // each group.
  std::uint64_t h = 0;
  for (int b = bits - 1; b >= 0; --b) {
    for (std::size_t i = 0; i < n; ++i) h = (h << 1) | ((x[i] >> b) & 1U);
  }
  return h;
}

OctreeGeometry::OctreeGeometry(int dim, int max_level) : dim_(dim), max_level_(max_level) {
  if ((dim != 2 && dim != 3) || max_level < 0 || max_level > octree_deepest_level(dim)) {
    throw std::invalid_argument("OctreeGeometry: dim must be 2 or 3 and max_level within the curve keys' 48 bits");
  }
  slots_ = octree_id_slots(dim, max_level);
}

std::int64_t OctreeGeometry::level_offset(int level) const {
  // Blocks on the levels above: (2^(dim*level) - 1) / (2^dim - 1).
  return static_cast<std::int64_t>(((std::uint64_t{1} << (dim_ * level)) - 1) / ((std::uint64_t{1} << dim_) - 1));
}

std::int64_t OctreeGeometry::max_generations() const {
  return static_cast<std::int64_t>((std::uint64_t{1} << 63) / static_cast<std::uint64_t>(slots_));
}

VertexId OctreeGeometry::id_of(const Block& b, std::int64_t generation) const {
  const std::array<std::uint64_t, 3> at{static_cast<std::uint64_t>(b.at[0]), static_cast<std::uint64_t>(b.at[1]),
                                        static_cast<std::uint64_t>(b.at[2])};
  return VertexId{generation * slots_ + level_offset(b.level) + static_cast<std::int64_t>(morton_interleave(at, dim_))};
}

Block OctreeGeometry::block_of(VertexId id) const {
  const auto slot = static_cast<std::uint64_t>(id.value() % slots_);
  const std::uint64_t scaled = slot * ((std::uint64_t{1} << dim_) - 1) + 1;
  Block b;
  b.level = (std::bit_width(scaled) - 1) / dim_;
  const auto at = morton_split(slot - static_cast<std::uint64_t>(level_offset(b.level)), dim_);
  for (std::size_t a = 0; a < 3; ++a) b.at[a] = static_cast<std::int64_t>(at[a]);
  return b;
}

Block OctreeGeometry::parent(const Block& b) {
  Block p{b.level - 1, {b.at[0] >> 1, b.at[1] >> 1, b.at[2] >> 1}};
  return p;
}

Block OctreeGeometry::child(const Block& b, int i) {
  Block c{b.level + 1, {2 * b.at[0] + (i & 1), 2 * b.at[1] + ((i >> 1) & 1), 2 * b.at[2] + ((i >> 2) & 1)}};
  return c;
}

int OctreeGeometry::child_index(const Block& b) const {
  int i = 0;
  for (int a = 0; a < dim_; ++a) i |= static_cast<int>(b.at[static_cast<std::size_t>(a)] & 1) << a;
  return i;
}

bool OctreeGeometry::siblings(const Block& a, const Block& b) {
  return a.level == b.level && a.level > 0 && parent(a) == parent(b);
}

double OctreeGeometry::width(int level) { return 1.0 / static_cast<double>(std::int64_t{1} << level); }

std::array<double, 3> OctreeGeometry::center(const Block& b) const {
  const double w = width(b.level);
  std::array<double, 3> c{0, 0, 0};
  for (int a = 0; a < dim_; ++a) {
    const auto i = static_cast<std::size_t>(a);
    c[i] = (static_cast<double>(b.at[i]) + 0.5) * w;
  }
  return c;
}

Box OctreeGeometry::box(const Block& b) const {
  const double w = width(b.level);
  Box out;
  for (int a = 0; a < dim_; ++a) {
    const auto i = static_cast<std::size_t>(a);
    out.lo[i] = static_cast<double>(b.at[i]) * w;
    out.hi[i] = static_cast<double>(b.at[i] + 1) * w;
  }
  return out;
}

std::array<std::uint64_t, 3> OctreeGeometry::corner(const Block& b) const {
  const int shift = max_level_ - b.level;
  return {static_cast<std::uint64_t>(b.at[0]) << shift, static_cast<std::uint64_t>(b.at[1]) << shift,
          static_cast<std::uint64_t>(b.at[2]) << shift};
}

bool OctreeGeometry::face_adjacent(const Block& a, const Block& b) const {
  const auto lo_a = corner(a);
  const auto lo_b = corner(b);
  const std::uint64_t wa = std::uint64_t{1} << (max_level_ - a.level);
  const std::uint64_t wb = std::uint64_t{1} << (max_level_ - b.level);
  int touching = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(dim_); ++i) {
    const std::uint64_t hi_a = lo_a[i] + wa;
    const std::uint64_t hi_b = lo_b[i] + wb;
    if (hi_a == lo_b[i] || hi_b == lo_a[i]) {
      ++touching;
    } else if (std::max(lo_a[i], lo_b[i]) >= std::min(hi_a, hi_b)) {
      return false;  // apart along this axis
    }
  }
  return touching == 1;
}

std::uint64_t OctreeGeometry::morton_key(const Block& b) const { return morton_interleave(corner(b), dim_); }

std::uint64_t OctreeGeometry::hilbert_key(const Block& b) const { return hilbert_index(corner(b), dim_, max_level_); }

}  // namespace lbbench
