// §2 of Keller et al., MPI_Dist_load_create, as a serial reference: each rank knows only
// its own load. After a MAX and a SUM reduction every rank knows the average l_a and
// builds the paper's vector v of t levels (v[i] = 1 iff its load > 2^(t/2-i)·l_a); one
// SUM reduction of v gives the level counts sv. Round r then fills row r of the
// round-robin slots: it picks the level i with sv[i] at most the slots of rows 0..r, and
// a scan over the ranks places the loads above that level and, in the remaining slots
// of the round, the loads just below it (above level i+1), in rank order.
//
// Departure, stated: the paper spells out the split between sure and contesting loads
// for the first round only; we apply the first round's rule in every round, so a heavier
// unplaced load never loses its place in a round to a lighter one. On the paper's
// example both readings give the same placement, with a maximum core load of 11.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {

std::vector<int> dist_level_bits(double load, double average, int levels) {
  std::vector<int> bits(static_cast<std::size_t>(levels) + 1, 1);  // the sentinel level stays 1
  for (int i = 0; i < levels; ++i) {
    bits[static_cast<std::size_t>(i)] = load > std::ldexp(average, levels / 2 - i) ? 1 : 0;
  }
  return bits;
}

int dist_level_for(std::span<const long long> level_counts, long long target) {
  int level = -1;
  for (int i = 0; i < static_cast<int>(level_counts.size()); ++i) {
    if (level_counts[static_cast<std::size_t>(i)] <= target) level = i;
  }
  return level;
}

int dist_levels_for(double max_load, double average, int levels) {
  while (levels < 64 && max_load > std::ldexp(average, levels / 2)) levels *= 2;
  return std::min(levels, 64);
}

long long dist_round_target(std::span<const int> capacity, int rounds) {
  long long slots = 0;
  for (int cap : capacity) slots += std::min(cap, rounds);
  return slots;
}

DistRole dist_role(bool assigned, std::span<const int> bits, int level) {
  if (assigned) return DistRole::waiting;
  if (level >= 0 && bits[static_cast<std::size_t>(level)]) return DistRole::sure;
  const auto below = static_cast<std::size_t>(level) + 1;
  if (below < bits.size() && bits[below]) return DistRole::contestor;
  return DistRole::waiting;
}

std::vector<int> plan_dist(std::span<const double> loads, const SlotLayout& layout, int levels) {
  if (levels < 2 || levels > 64) throw std::invalid_argument("the number of levels t must be in [2, 64]");
  const auto n = static_cast<long long>(loads.size());
  const double average = n ? std::accumulate(loads.begin(), loads.end(), 0.0) / static_cast<double>(n) : 0.0;
  const double heaviest = n ? *std::max_element(loads.begin(), loads.end()) : 0.0;
  levels = dist_levels_for(heaviest, average, levels);
  std::vector<std::vector<int>> bits;
  std::vector<long long> level_counts(static_cast<std::size_t>(levels) + 1, 0);
  for (double load : loads) {
    bits.push_back(dist_level_bits(load, average, levels));
    for (std::size_t i = 0; i < level_counts.size(); ++i) level_counts[i] += bits.back()[i];
  }
  std::vector<int> slot_of_rank(loads.size(), -1);
  long long placed = 0;
  for (int round = 1; placed < n; ++round) {
    if (round > n + 1) throw std::logic_error("the distributed reorder made no progress");
    const long long target = dist_round_target(layout.capacity, round);
    const int level = dist_level_for(level_counts, target);
    std::vector<int> sure, contestors;  // in rank order: what the scans compute
    for (std::size_t j = 0; j < loads.size(); ++j) {
      const DistRole role = dist_role(slot_of_rank[j] >= 0, bits[j], level);
      if (role == DistRole::sure) sure.push_back(static_cast<int>(j));
      if (role == DistRole::contestor) contestors.push_back(static_cast<int>(j));
    }
    for (int j : sure) slot_of_rank[static_cast<std::size_t>(j)] = static_cast<int>(placed++);
    const long long room = std::max(0LL, target - placed);
    for (std::size_t c = 0; c < contestors.size() && static_cast<long long>(c) < room; ++c) {
      slot_of_rank[static_cast<std::size_t>(contestors[c])] = static_cast<int>(placed++);
    }
  }
  std::vector<int> rank_of_slot(loads.size());
  for (std::size_t j = 0; j < loads.size(); ++j)
    rank_of_slot[static_cast<std::size_t>(slot_of_rank[j])] = static_cast<int>(j);
  return rank_of_slot;
}

}  // namespace lbbench::reorder
