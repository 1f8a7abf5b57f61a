// The reference points of the paper's Table 1: a pseudo-random permutation (its "average
// scenario") and the worst case (its cores holding processes of equal load).
#include <algorithm>
#include <numeric>

#include "balancers/reorder/reorder.hpp"
#include "core/hash.hpp"

namespace lbbench::reorder {

// Fisher-Yates driven by counter-based hashes, so the permutation depends on the seed
// alone and not on the standard library's shuffle.
std::vector<int> plan_random(std::span<const double> loads, const SlotLayout& /*layout*/, std::uint64_t seed) {
  std::vector<int> ranks(loads.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  for (std::size_t i = ranks.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(hash_of({seed, 0x7265'6f72'6465'72ULL, i}) % i);
    std::swap(ranks[i - 1], ranks[j]);
  }
  return ranks;
}

// The heaviest loads fill the largest core, the next heaviest the next largest, and so
// on: no plan has a heavier core, since a core of c slots carries at most the c heaviest.
std::vector<int> plan_worst(std::span<const double> loads, const SlotLayout& layout) {
  std::vector<int> cores(static_cast<std::size_t>(layout.cores()));
  std::iota(cores.begin(), cores.end(), 0);
  std::stable_sort(cores.begin(), cores.end(), [&](int a, int b) {
    return layout.capacity[static_cast<std::size_t>(a)] > layout.capacity[static_cast<std::size_t>(b)];
  });
  const auto slots_of_core = layout.slots_by_core();
  const std::vector<int> heavy_first = ranks_by_load_descending(loads);
  std::vector<int> rank_of_slot(loads.size());
  std::size_t next = 0;
  for (int core : cores) {
    for (int slot : slots_of_core[static_cast<std::size_t>(core)])
      rank_of_slot[static_cast<std::size_t>(slot)] = heavy_first[next++];
  }
  return rank_of_slot;
}

}  // namespace lbbench::reorder
