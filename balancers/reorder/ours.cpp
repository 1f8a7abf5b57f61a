// Our heuristic: longest-processing-time first under the cardinality constraint, then a
// pairwise-swap local search. It keeps the better of that and the paper's round-robin
// after the same local search.
//
// Plain LPT ignores that every core must take exactly its number of processes: it piles
// heavy loads onto cores that must still take several more. Here a load goes to the core
// whose load *plus the least it must still take* (its other free slots, each at least
// the lightest load) is smallest. On the paper's example (20 × 4, 20 × 2, 24 × 1 on 16
// cores of 4) this reaches the optimum 10, where the round-robin gives 11.
#include <algorithm>
#include <limits>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {

namespace {

struct CoreFill {
  std::vector<std::vector<int>> ranks;  // per core
  std::vector<double> load;             // per core
};

CoreFill fill_of(std::span<const double> loads, const SlotLayout& layout, std::span<const int> rank_of_slot) {
  CoreFill fill;
  fill.ranks.resize(static_cast<std::size_t>(layout.cores()));
  fill.load.assign(static_cast<std::size_t>(layout.cores()), 0.0);
  for (int s = 0; s < layout.slots(); ++s) {
    const auto core = static_cast<std::size_t>(layout.core_of_slot[static_cast<std::size_t>(s)]);
    const int rank = rank_of_slot[static_cast<std::size_t>(s)];
    fill.ranks[core].push_back(rank);
    fill.load[core] += loads[static_cast<std::size_t>(rank)];
  }
  return fill;
}

std::vector<int> slots_of(const CoreFill& fill, const SlotLayout& layout) {
  std::vector<std::size_t> next(fill.ranks.size(), 0);
  std::vector<int> rank_of_slot(static_cast<std::size_t>(layout.slots()));
  for (int s = 0; s < layout.slots(); ++s) {
    const auto core = static_cast<std::size_t>(layout.core_of_slot[static_cast<std::size_t>(s)]);
    rank_of_slot[static_cast<std::size_t>(s)] = fill.ranks[core][next[core]++];
  }
  return rank_of_slot;
}

CoreFill lpt_with_cardinality(std::span<const double> loads, const SlotLayout& layout) {
  const std::vector<int> heavy_first = ranks_by_load_descending(loads);
  const double lightest = loads.empty() ? 0.0 : loads[static_cast<std::size_t>(heavy_first.back())];
  CoreFill fill;
  fill.ranks.resize(static_cast<std::size_t>(layout.cores()));
  fill.load.assign(static_cast<std::size_t>(layout.cores()), 0.0);
  std::vector<int> open_slots(layout.capacity);
  for (int rank : heavy_first) {
    std::size_t best = 0;
    double best_key = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < open_slots.size(); ++c) {
      if (open_slots[c] == 0) continue;
      const double key = fill.load[c] + (open_slots[c] - 1) * lightest;
      if (key < best_key) best = c, best_key = key;
    }
    fill.ranks[best].push_back(rank);
    fill.load[best] += loads[static_cast<std::size_t>(rank)];
    --open_slots[best];
  }
  return fill;
}

// Swaps a load on the heaviest core with a lighter one elsewhere while that lowers the
// heaviest core without making the other one as heavy. Each swap lowers the sum of
// squared core loads, so this ends.
void improve_by_swaps(std::span<const double> loads, CoreFill& fill) {
  auto load_of = [&](int rank) { return loads[static_cast<std::size_t>(rank)]; };
  for (;;) {
    const auto top = static_cast<std::size_t>(std::max_element(fill.load.begin(), fill.load.end()) - fill.load.begin());
    const double tolerance = 1e-12 * (1.0 + fill.load[top]);
    double best_gain = tolerance;
    std::size_t best_core = top, best_a = 0, best_b = 0;
    for (std::size_t c = 0; c < fill.load.size(); ++c) {
      const double gap = fill.load[top] - fill.load[c];
      if (c == top || gap <= tolerance) continue;
      for (std::size_t a = 0; a < fill.ranks[top].size(); ++a) {
        for (std::size_t b = 0; b < fill.ranks[c].size(); ++b) {
          const double d = load_of(fill.ranks[top][a]) - load_of(fill.ranks[c][b]);
          if (d <= tolerance || d >= gap - tolerance) continue;
          const double gain = fill.load[top] - std::max(fill.load[top] - d, fill.load[c] + d);
          if (gain > best_gain) best_gain = gain, best_core = c, best_a = a, best_b = b;
        }
      }
    }
    if (best_core == top) return;
    const double d = load_of(fill.ranks[top][best_a]) - load_of(fill.ranks[best_core][best_b]);
    std::swap(fill.ranks[top][best_a], fill.ranks[best_core][best_b]);
    fill.load[top] -= d;
    fill.load[best_core] += d;
  }
}

double heaviest(const CoreFill& fill) {
  return fill.load.empty() ? 0.0 : *std::max_element(fill.load.begin(), fill.load.end());
}

}  // namespace

std::vector<int> plan_ours(std::span<const double> loads, const SlotLayout& layout) {
  CoreFill lpt = lpt_with_cardinality(loads, layout);
  improve_by_swaps(loads, lpt);
  CoreFill round_robin = fill_of(loads, layout, plan_paper(loads, layout));
  improve_by_swaps(loads, round_robin);
  return slots_of(heaviest(round_robin) < heaviest(lpt) ? round_robin : lpt, layout);
}

}  // namespace lbbench::reorder
