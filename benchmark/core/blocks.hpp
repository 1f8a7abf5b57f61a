// Contiguous blocks: n items split into P nearly equal parts, the first n % P one larger.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lbbench {

// The block that global index i falls in.
inline int block_owner(std::int64_t i, std::int64_t n, int nranks) {
  const std::int64_t q = n / nranks;
  const std::int64_t r = n % nranks;
  const std::int64_t big = r * (q + 1);
  if (i < big) return static_cast<int>(i / (q + 1));
  return static_cast<int>(r + (i - big) / q);
}

// The first index of block `rank`.
inline std::int64_t block_begin(int rank, std::int64_t n, int nranks) {
  const std::int64_t q = n / nranks;
  const std::int64_t r = n % nranks;
  return rank * q + std::min<std::int64_t>(rank, r);
}

}  // namespace lbbench
