// The exact reference: branch and bound over how many loads of each distinct value each
// core takes. It is meant for small instances (the paper's example, n = 16 on 2 cores)
// and when its node budget runs out returns the best plan it found, not proven optimal.
//
// What keeps it small:
//   - equal loads are one value with a count, so the paper's example has 3 values, not
//     64 loads;
//   - cores of equal capacity are interchangeable, so their count vectors are enumerated
//     in lexicographically non-increasing order;
//   - the incumbent starts at our heuristic's result, and the search stops as soon as it
//     meets the lower bound;
//   - at every node, a pigeonhole test: the loads of value ≥ v still to place must fit
//     on the remaining cores, each taking no more of them than keeps it under the
//     incumbent when its other slots hold the lightest loads;
//   - and the capacity bound on what is left: the k remaining cores with the most slots
//     hold at least that many of the lightest loads left, which must stay under the
//     incumbent (the LP relaxation's bound per capacity; it proves Keller's 32-process
//     cases that the tests above left open).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {

namespace {

class ExactSearch {
 public:
  ExactSearch(std::span<const double> loads, const SlotLayout& layout, std::int64_t max_nodes)
      : loads_(loads), layout_(layout), max_nodes_(max_nodes) {
    std::map<double, std::vector<int>, std::greater<>> by_value;
    for (int j = 0; j < static_cast<int>(loads.size()); ++j) by_value[loads[static_cast<std::size_t>(j)]].push_back(j);
    for (auto& [value, ranks] : by_value) {
      value_.push_back(value);
      left_.push_back(static_cast<int>(ranks.size()));
      ranks_of_value_.push_back(std::move(ranks));
    }
    core_order_.resize(static_cast<std::size_t>(layout.cores()));
    std::iota(core_order_.begin(), core_order_.end(), 0);
    std::stable_sort(core_order_.begin(), core_order_.end(), [&](int a, int b) { return capacity(a) > capacity(b); });
    choice_.assign(core_order_.size(), std::vector<int>(value_.size(), 0));
  }

  ExactResult solve() {
    ExactResult result;
    result.plan = plan_ours(loads_, layout_);
    best_ = max_core_load(loads_, layout_, result.plan);
    tolerance_ = 1e-9 * std::max(1.0, best_);
    floor_ = lower_bound(loads_, layout_);
    result.lower_bound = floor_;
    if (best_ <= floor_ + tolerance_ || core_order_.empty()) return result;
    const double total = std::accumulate(loads_.begin(), loads_.end(), 0.0);
    search_core(0, total, 0.0);
    if (found_) result.plan = plan_of(best_choice_);
    result.proven = !out_of_budget_;
    result.nodes = nodes_;
    return result;
  }

 private:
  int capacity(int core) const { return layout_.capacity[static_cast<std::size_t>(core)]; }
  int capacity_at(std::size_t pos) const { return capacity(core_order_[pos]); }

  double lightest_left(std::size_t from_value = 0) const {
    for (std::size_t d = value_.size(); d-- > from_value;) {
      if (left_[d] > 0) return value_[d];
    }
    return 0.0;
  }

  // The most loads of value ≥ v a core of `cap` slots can take and stay under the
  // incumbent, its other slots holding loads of the lightest value; -1 if even a core of
  // lightest loads would not.
  int most_heavy(int cap, double v, double lightest) const {
    const double room = best_ - tolerance_ - cap * lightest;
    if (room <= 0) return -1;
    if (v <= lightest) return cap;
    const int k = static_cast<int>(std::ceil(room / (v - lightest))) - 1;
    return std::clamp(k, 0, cap);
  }

  bool capacity_bound_fails(std::size_t pos) const {
    std::size_t d = value_.size();  // the lightest value not used up yet, from the end
    int used_of_d = 0;
    double lightest_sum = 0;
    long long taken = 0, slots = 0;
    for (std::size_t p = pos; p < core_order_.size(); ++p) {
      slots += capacity_at(p);
      while (taken < slots) {
        while (d > 0 && used_of_d >= left_[d - 1]) {
          --d;
          used_of_d = 0;
        }
        if (d == 0) return false;  // cannot happen: as many loads are left as slots
        const int more = static_cast<int>(std::min<long long>(left_[d - 1] - used_of_d, slots - taken));
        lightest_sum += more * value_[d - 1];
        used_of_d += more;
        taken += more;
      }
      if (lightest_sum / static_cast<double>(p - pos + 1) >= best_ - tolerance_) return true;
    }
    return false;
  }

  bool pigeonhole_fails(std::size_t pos) const {
    const double lightest = lightest_left();
    long long heavier = 0;
    for (std::size_t d = 0; d < value_.size(); ++d) {
      heavier += left_[d];
      if (left_[d] == 0) continue;
      long long room = 0;
      for (std::size_t p = pos; p < core_order_.size(); ++p) {
        const int k = most_heavy(capacity_at(p), value_[d], lightest);
        if (k < 0) return true;
        room += k;
      }
      if (room < heavier) return true;
    }
    return false;
  }

  void search_core(std::size_t pos, double remaining, double heaviest_so_far) {
    if (stop_) return;
    if (pos == core_order_.size()) {
      best_ = heaviest_so_far;
      best_choice_ = choice_;
      found_ = true;
      stop_ = best_ <= floor_ + tolerance_;
      return;
    }
    const auto cores_left = static_cast<double>(core_order_.size() - pos);
    if (remaining / cores_left >= best_ - tolerance_ || capacity_bound_fails(pos) || pigeonhole_fails(pos)) return;
    const bool tight = pos > 0 && capacity_at(pos) == capacity_at(pos - 1);
    choose_counts(pos, 0, capacity_at(pos), 0.0, tight, remaining, heaviest_so_far);
  }

  // Picks how many loads of value d (and then d+1, ...) core `pos` takes.
  void choose_counts(std::size_t pos, std::size_t d, int slots_left, double core_load, bool tight, double remaining,
                     double heaviest_so_far) {
    if (stop_) return;
    auto& counts = choice_[pos];
    if (slots_left == 0) {
      std::fill(counts.begin() + static_cast<std::ptrdiff_t>(d), counts.end(), 0);
      if (++nodes_ > max_nodes_) {
        out_of_budget_ = stop_ = true;  // the incumbent stands, unproven
        return;
      }
      search_core(pos + 1, remaining - core_load, std::max(heaviest_so_far, core_load));
      return;
    }
    if (d == value_.size()) return;
    int most = std::min(left_[d], slots_left);
    if (tight) most = std::min(most, choice_[pos - 1][d]);
    const double lightest_after = lightest_left(d + 1);
    const int available_after = std::accumulate(left_.begin() + static_cast<std::ptrdiff_t>(d) + 1, left_.end(), 0);
    for (int x = most; x >= 0; --x) {
      const double load = core_load + x * value_[d];
      const int rest = slots_left - x;
      if (rest > available_after) break;  // fewer x only needs more of the lighter loads
      if (load + rest * lightest_after >= best_ - tolerance_) continue;
      counts[d] = x;
      left_[d] -= x;
      const bool still_tight = tight && x == choice_[pos - 1][d];
      choose_counts(pos, d + 1, rest, load, still_tight, remaining, heaviest_so_far);
      left_[d] += x;
      if (stop_) return;
    }
  }

  std::vector<int> plan_of(const std::vector<std::vector<int>>& choice) const {
    const auto slots_of_core = layout_.slots_by_core();
    std::vector<std::size_t> taken(value_.size(), 0);
    std::vector<int> rank_of_slot(static_cast<std::size_t>(layout_.slots()), -1);
    for (std::size_t pos = 0; pos < core_order_.size(); ++pos) {
      const auto& slots = slots_of_core[static_cast<std::size_t>(core_order_[pos])];
      std::size_t next_slot = 0;
      for (std::size_t d = 0; d < value_.size(); ++d) {
        for (int i = 0; i < choice[pos][d]; ++i) {
          rank_of_slot[static_cast<std::size_t>(slots[next_slot++])] = ranks_of_value_[d][taken[d]++];
        }
      }
    }
    return rank_of_slot;
  }

  std::span<const double> loads_;
  const SlotLayout& layout_;
  std::int64_t max_nodes_;
  std::vector<double> value_;  // distinct loads, heaviest first
  std::vector<int> left_;      // how many of each value are not placed yet
  std::vector<std::vector<int>> ranks_of_value_;
  std::vector<int> core_order_;           // cores by capacity, largest first
  std::vector<std::vector<int>> choice_;  // per core position, count per value
  std::vector<std::vector<int>> best_choice_;
  double best_ = 0, tolerance_ = 0, floor_ = 0;
  std::int64_t nodes_ = 0;
  bool found_ = false, stop_ = false, out_of_budget_ = false;
};

}  // namespace

ExactResult search_exact(std::span<const double> loads, const SlotLayout& layout, std::int64_t max_nodes) {
  check_loads(loads, layout);  // one load per slot: the bounds count on it
  return ExactSearch(loads, layout, max_nodes).solve();
}

std::vector<int> plan_exact(std::span<const double> loads, const SlotLayout& layout, std::int64_t max_nodes) {
  return search_exact(loads, layout, max_nodes).plan;
}

}  // namespace lbbench::reorder
