// Our heuristic: longest-processing-time first under the cardinality constraint, then a
// pairwise-swap local search with plateau exchanges of two loads for two. It keeps the
// better of that and the paper's round-robin after the same local search.
//
// Plain LPT ignores that every core must take exactly its number of processes: it piles
// heavy loads onto cores that must still take several more. Here a load goes to the core
// whose load *plus the least it must still take* (its other free slots, each at least
// the lightest load) is smallest. On the paper's example (20 × 4, 20 × 2, 24 × 1 on 16
// cores of 4) this reaches the optimum 10, where the round-robin gives 11.
#include <algorithm>
#include <limits>
#include <optional>

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

std::size_t heaviest_core(const CoreFill& fill) {
  return static_cast<std::size_t>(std::max_element(fill.load.begin(), fill.load.end()) - fill.load.begin());
}

double tolerance_of(const CoreFill& fill) { return 1e-12 * (1.0 + fill.load[heaviest_core(fill)]); }

// Exchanges the loads at positions a of core x and b of core y.
void exchange(std::span<const double> loads, CoreFill& fill, std::size_t x, std::size_t a, std::size_t y,
              std::size_t b) {
  const double d =
      loads[static_cast<std::size_t>(fill.ranks[x][a])] - loads[static_cast<std::size_t>(fill.ranks[y][b])];
  std::swap(fill.ranks[x][a], fill.ranks[y][b]);
  fill.load[x] -= d;
  fill.load[y] += d;
}

// The swap of a load on the heaviest core with a lighter one elsewhere that lowers the
// heaviest core the most without making the other one as heavy, if there is one.
struct Swap {
  std::size_t top, a, core, b;
};
std::optional<Swap> best_top_swap(std::span<const double> loads, const CoreFill& fill) {
  auto load_of = [&](int rank) { return loads[static_cast<std::size_t>(rank)]; };
  const std::size_t top = heaviest_core(fill);
  const double tolerance = tolerance_of(fill);
  double best_gain = tolerance;
  std::optional<Swap> best;
  for (std::size_t c = 0; c < fill.load.size(); ++c) {
    const double gap = fill.load[top] - fill.load[c];
    if (c == top || gap <= tolerance) continue;
    for (std::size_t a = 0; a < fill.ranks[top].size(); ++a) {
      for (std::size_t b = 0; b < fill.ranks[c].size(); ++b) {
        const double d = load_of(fill.ranks[top][a]) - load_of(fill.ranks[c][b]);
        if (d <= tolerance || d >= gap - tolerance) continue;
        const double gain = fill.load[top] - std::max(fill.load[top] - d, fill.load[c] + d);
        if (gain > best_gain) best_gain = gain, best = Swap{top, a, c, b};
      }
    }
  }
  return best;
}

// Swaps while that lowers the heaviest core. Each swap lowers the sum of squared core
// loads, so this ends.
void improve_by_swaps(std::span<const double> loads, CoreFill& fill) {
  while (const auto s = best_top_swap(loads, fill)) exchange(loads, fill, s->top, s->a, s->core, s->b);
}

// Past a plateau: two loads each exchanged between two cores lighter than the heaviest,
// both staying lighter, when that opens a swap that lowers the heaviest. Keller's example
// with 3 and 5 processes per core needs it: {4,2,2} and {4,2,1,1,1} become {4,4,1} and
// {2,2,2,1,1}, and then the heaviest {4,4,2} trades its 2 for a 1, which takes the
// maximum from 10 to the optimum 9. It looks at every pair of pairs, so only small
// layouts try it.
bool plateau_pair_exchange(std::span<const double> loads, CoreFill& fill) {
  constexpr std::size_t kMaxCores = 64;
  constexpr std::size_t kMaxPerCore = 8;
  const std::size_t cores = fill.load.size();
  if (cores > kMaxCores) return false;
  for (const auto& r : fill.ranks) {
    if (r.size() > kMaxPerCore) return false;
  }
  const std::size_t top = heaviest_core(fill);
  const double ceiling = fill.load[top] - tolerance_of(fill);
  auto load_of = [&](std::size_t core, std::size_t i) { return loads[static_cast<std::size_t>(fill.ranks[core][i])]; };
  for (std::size_t x = 0; x < cores; ++x) {
    for (std::size_t y = x + 1; y < cores; ++y) {
      if (x == top || y == top) continue;
      const std::size_t kx = fill.ranks[x].size(), ky = fill.ranks[y].size();
      for (std::size_t a1 = 0; a1 < kx; ++a1) {
        for (std::size_t a2 = a1 + 1; a2 < kx; ++a2) {
          for (std::size_t b1 = 0; b1 < ky; ++b1) {
            for (std::size_t b2 = b1 + 1; b2 < ky; ++b2) {
              const double d = load_of(x, a1) + load_of(x, a2) - load_of(y, b1) - load_of(y, b2);
              if (d == 0 || std::max(fill.load[x] - d, fill.load[y] + d) >= ceiling) continue;
              exchange(loads, fill, x, a1, y, b1);
              exchange(loads, fill, x, a2, y, b2);
              if (best_top_swap(loads, fill)) return true;
              exchange(loads, fill, x, a2, y, b2);
              exchange(loads, fill, x, a1, y, b1);
            }
          }
        }
      }
    }
  }
  return false;
}

// Swaps, then plateau exchanges each followed by swaps, a bounded number of times.
void local_search(std::span<const double> loads, CoreFill& fill) {
  improve_by_swaps(loads, fill);
  for (std::size_t rounds = 0; rounds < 4 * fill.load.size() && plateau_pair_exchange(loads, fill); ++rounds) {
    improve_by_swaps(loads, fill);
  }
}

double heaviest(const CoreFill& fill) {
  return fill.load.empty() ? 0.0 : *std::max_element(fill.load.begin(), fill.load.end());
}

}  // namespace

std::vector<int> plan_ours(std::span<const double> loads, const SlotLayout& layout) {
  CoreFill lpt = lpt_with_cardinality(loads, layout);
  local_search(loads, lpt);
  CoreFill round_robin = fill_of(loads, layout, plan_paper(loads, layout));
  local_search(loads, round_robin);
  return slots_of(heaviest(round_robin) < heaviest(lpt) ? round_robin : lpt, layout);
}

}  // namespace lbbench::reorder
