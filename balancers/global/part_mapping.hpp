// Partitioners return unlabeled parts; this maps them onto ranks so that as few objects
// as possible change rank.
#pragma once

#include <span>
#include <vector>

#include "core/types.hpp"

namespace lbbench {

struct PartMappingInput {
  std::span<const int> part;    // part of each object
  std::span<const Rank> owner;  // current rank of each object
  int nparts = 0;
  std::vector<int> slots;       // parts each rank takes; sums to nparts
  std::vector<int> part_class;  // optional: a part may only go to a rank of its class
  std::vector<int> rank_class;
};

// Rank of each part. Maximizes the number of objects whose part lands on their current
// rank: exactly (Hungarian algorithm over rank slots) up to kExactMappingLimit parts,
// greedily (largest overlap first) above.
std::vector<int> map_parts_to_ranks(const PartMappingInput& in);

inline constexpr int kExactMappingLimit = 300;

}  // namespace lbbench
