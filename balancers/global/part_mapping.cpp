// Mapping unlabeled parts onto ranks (see part_mapping.hpp).
#include "balancers/global/part_mapping.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace lbbench {

namespace {

using Overlap = std::unordered_map<std::uint64_t, std::int64_t>;  // (part, rank) -> objects

std::uint64_t key(int part, int rank) {
  return (static_cast<std::uint64_t>(part) << 32) | static_cast<std::uint32_t>(rank);
}

Overlap count_overlap(const PartMappingInput& in) {
  Overlap overlap;
  for (std::size_t i = 0; i < in.part.size(); ++i) ++overlap[key(in.part[i], in.owner[i].value())];
  return overlap;
}

bool allowed(const PartMappingInput& in, int part, int rank) {
  return in.part_class.empty() ||
         in.part_class[static_cast<std::size_t>(part)] == in.rank_class[static_cast<std::size_t>(rank)];
}

// Min-cost perfect assignment on a square matrix (Hungarian algorithm with potentials,
// O(n^3)). Returns the column of each row.
std::vector<int> hungarian(const std::vector<std::vector<double>>& cost) {
  const int n = static_cast<int>(cost.size());
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0), v(n + 1, 0);
  std::vector<int> p(n + 1, 0), way(n + 1, 0);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::vector<double> minv(n + 1, inf);
    std::vector<bool> used(n + 1, false);
    do {
      used[j0] = true;
      const int i0 = p[j0];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (int j = 0; j <= n; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const int j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> column(n, -1);
  for (int j = 1; j <= n; ++j) column[p[j] - 1] = j - 1;
  return column;
}

std::vector<int> exact(const PartMappingInput& in, const Overlap& overlap) {
  // One column per rank slot; a forbidden (part, rank) pair costs more than any overlap.
  std::vector<int> slot_rank;
  for (int r = 0; r < static_cast<int>(in.slots.size()); ++r) slot_rank.insert(slot_rank.end(), in.slots[r], r);
  const double forbidden = static_cast<double>(in.part.size()) + 1.0;
  std::vector<std::vector<double>> cost(static_cast<std::size_t>(in.nparts),
                                        std::vector<double>(slot_rank.size(), 0.0));
  for (int p = 0; p < in.nparts; ++p) {
    for (std::size_t s = 0; s < slot_rank.size(); ++s) {
      const int r = slot_rank[s];
      if (!allowed(in, p, r)) {
        cost[p][s] = forbidden;
      } else if (auto it = overlap.find(key(p, r)); it != overlap.end()) {
        cost[p][s] = -static_cast<double>(it->second);
      }
    }
  }
  const std::vector<int> column = hungarian(cost);
  std::vector<int> rank(static_cast<std::size_t>(in.nparts));
  for (int p = 0; p < in.nparts; ++p) rank[p] = slot_rank[static_cast<std::size_t>(column[p])];
  return rank;
}

std::vector<int> greedy(const PartMappingInput& in, const Overlap& overlap) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> pairs;
  pairs.reserve(overlap.size());
  for (const auto& [k, count] : overlap) pairs.emplace_back(count, k);
  std::sort(pairs.begin(), pairs.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<int> rank(static_cast<std::size_t>(in.nparts), -1);
  std::vector<int> free_slots = in.slots;
  for (const auto& [count, k] : pairs) {
    const int p = static_cast<int>(k >> 32);
    const int r = static_cast<int>(k & 0xFFFFFFFFu);
    if (rank[p] >= 0 || free_slots[r] == 0 || !allowed(in, p, r)) continue;
    rank[p] = r;
    --free_slots[r];
  }
  // Parts that overlap no free rank take the remaining slots of their class.
  for (int p = 0; p < in.nparts; ++p) {
    if (rank[p] >= 0) continue;
    for (int r = 0; r < static_cast<int>(free_slots.size()); ++r) {
      if (free_slots[r] > 0 && allowed(in, p, r)) {
        rank[p] = r;
        --free_slots[r];
        break;
      }
    }
    if (rank[p] < 0) throw std::logic_error("part mapping: no rank slot left for a part of its class");
  }
  return rank;
}

}  // namespace

std::vector<int> map_parts_to_ranks(const PartMappingInput& in) {
  if (std::accumulate(in.slots.begin(), in.slots.end(), 0) != in.nparts) {
    throw std::logic_error("part mapping: rank slots must add up to the number of parts");
  }
  const Overlap overlap = count_overlap(in);
  return in.nparts <= kExactMappingLimit ? exact(in, overlap) : greedy(in, overlap);
}

}  // namespace lbbench
