// The exact reference: branch and bound over how many loads of each distinct value each
// core takes, core after core. It is meant for small instances (the paper's example,
// Keller's 32 processes on 3 and 5 per core) and when its node budget runs out returns the
// best plan it found, not proven optimal.
//
// What keeps it small:
//   - equal loads are one value with a count, so the paper's example has 3 values, not
//     64 loads;
//   - bin completion (Korf's, for number partitioning): the next core filled is the one
//     that holds the heaviest load left, so the search branches on the capacity of that
//     core and on its companions. The heaviest loads, where the incumbent binds hardest,
//     are settled first; with the cores ordered by their heaviest load, each partition is
//     met once (cores with the same heaviest value: capacity non-decreasing, and for equal
//     capacities the count vectors lexicographically non-increasing);
//   - the incumbent starts at our heuristic's result, and the search stops as soon as it
//     meets the lower bound;
//   - a window on each core's load: at or above the incumbent is useless, and below what
//     is left minus what the other cores can still take under the incumbent starves them;
//   - at every node, a pigeonhole test: the loads of value ≥ v still to place must fit
//     on the remaining cores, each taking no more of them than keeps it under the
//     incumbent when its other slots hold the lightest loads;
//   - the capacity bound: the k cores with the most slots hold at least what the filled
//     ones among them carry plus the lightest loads left in the others' slots, which must
//     stay under k times the incumbent (the LP relaxation's bound per capacity);
//   - and a table of the states (loads left, cores left) searched in full without a plan
//     under the incumbent, so that a remainder met again after other earlier cores is not
//     searched again.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_set>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {

namespace {

// The states (what is left to place, and on which cores) that were searched in full
// without a plan under the incumbent. The incumbent only falls, so such a state stays
// hopeless and is not searched again when another set of earlier cores leaves it: after
// the 3-slot cores of Keller's machine take their loads, the 5-slot cores meet the same
// few remainders again and again. A state is packed into 128 bits (a count per value and
// per capacity class, each in as many bits as its largest count needs); larger instances
// go without the table, as does any state past its size limit.
class FailedStates {
 public:
  FailedStates(std::span<const int> value_counts, std::span<const int> class_counts) {
    for (int c : value_counts) place(c);
    for (int c : class_counts) place(c);
  }

  struct Key {
    std::array<std::uint64_t, 2> word{};
    bool operator==(const Key&) const = default;
  };

  [[nodiscard]] bool usable() const { return usable_; }

  [[nodiscard]] Key key(std::span<const int> left, std::span<const int> cores_left) const {
    Key key;
    std::size_t field = 0;
    for (auto counts : {left, cores_left}) {
      for (int c : counts) {
        const auto [word, shift] = at_[field++];
        key.word[word] |= static_cast<std::uint64_t>(c) << shift;
      }
    }
    return key;
  }

  [[nodiscard]] bool contains(const Key& key) const { return states_.contains(key); }
  void insert(const Key& key) {
    if (states_.size() < kMaxStates) states_.insert(key);
  }

 private:
  static constexpr std::size_t kMaxStates = 1 << 21;  // about 100 MB of table at most
  struct Hash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>{}(k.word[0] * 0x9E3779B97F4A7C15ULL ^ k.word[1]);
    }
  };
  // Gives a field of the key as many bits as `largest` needs, in the first word with room.
  void place(int largest) {
    const int width = std::bit_width(static_cast<unsigned>(largest));
    if (used_[0] + width <= 64) {
      at_.push_back({0, used_[0]});
      used_[0] += width;
    } else {
      usable_ = usable_ && used_[1] + width <= 64;
      at_.push_back({1, used_[1]});
      used_[1] += width;
    }
  }

  std::vector<std::pair<std::size_t, int>> at_;  // per field, its word and shift
  std::array<int, 2> used_{};
  bool usable_ = true;
  std::unordered_set<Key, Hash> states_;
};

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
    std::map<int, std::vector<int>, std::greater<>> cores_by_capacity;
    for (int core = 0; core < layout.cores(); ++core) cores_by_capacity[capacity(core)].push_back(core);
    for (auto& [cap, cores] : cores_by_capacity) {
      class_capacity_.push_back(cap);
      cores_left_.push_back(static_cast<int>(cores.size()));
      cores_of_class_.push_back(std::move(cores));
    }
    filled_load_.assign(classes(), 0.0);
    filled_cores_.assign(classes(), 0);
    failed_.emplace(left_, cores_left_);
    const auto cores = static_cast<std::size_t>(layout.cores());
    choice_.assign(cores, std::vector<int>(value_.size(), 0));
    class_at_.assign(cores, 0);
    heaviest_at_.assign(cores, 0);
  }

  ExactResult solve() {
    ExactResult result;
    result.plan = plan_ours(loads_, layout_);
    best_ = max_core_load(loads_, layout_, result.plan);
    tolerance_ = 1e-9 * std::max(1.0, best_);
    floor_ = lower_bound(loads_, layout_);
    result.lower_bound = floor_;
    if (best_ <= floor_ + tolerance_ || choice_.empty()) return result;
    const double total = std::accumulate(loads_.begin(), loads_.end(), 0.0);
    search_core(0, total, 0.0);
    if (found_) result.plan = plan_of(best_choice_, best_class_at_);
    result.proven = !out_of_budget_;
    result.nodes = nodes_;
    return result;
  }

 private:
  int capacity(int core) const { return layout_.capacity[static_cast<std::size_t>(core)]; }
  std::size_t classes() const { return class_capacity_.size(); }

  double lightest_left(std::size_t from_value = 0) const {
    for (std::size_t d = value_.size(); d-- > from_value;) {
      if (left_[d] > 0) return value_[d];
    }
    return 0.0;
  }

  std::size_t heaviest_value_left() const {
    std::size_t d = 0;
    while (d < value_.size() && left_[d] == 0) ++d;
    return d;
  }

  // The most that `slots` loads of value index d or later can add.
  double heaviest_fill(std::size_t d, int slots) const {
    double sum = 0;
    for (; d < value_.size() && slots > 0; ++d) {
      const int take = std::min(left_[d], slots);
      sum += take * value_[d];
      slots -= take;
    }
    return sum;
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

  // For the cores of the largest capacities, k of them: their loads together are at least
  // what the filled ones carry plus the lightest loads left in the others' slots, and must
  // stay under k times the incumbent. Checked with and without the filled cores, since a
  // lightly filled core only weakens the average.
  bool capacity_bound_fails() const {
    std::size_t d = value_.size();  // the lightest value not used up yet, from the end
    int used_of_d = 0;
    double lightest_sum = 0, filled_sum = 0;
    long long taken = 0, slots = 0;
    int cores = 0, filled = 0;
    const double limit = best_ - tolerance_;
    for (std::size_t k = 0; k < classes(); ++k) {
      filled_sum += filled_load_[k];
      filled += filled_cores_[k];
      for (int i = 0; i < cores_left_[k]; ++i) {
        slots += class_capacity_[k];
        ++cores;
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
        if (lightest_sum >= limit * cores) return true;
      }
      if (filled > 0 && filled_sum + lightest_sum >= limit * (cores + filled)) return true;
    }
    return false;
  }

  bool pigeonhole_fails() const {
    const double lightest = lightest_left();
    long long heavier = 0;
    for (std::size_t d = 0; d < value_.size(); ++d) {
      heavier += left_[d];
      if (left_[d] == 0) continue;
      long long room = 0;
      for (std::size_t k = 0; k < classes(); ++k) {
        if (cores_left_[k] == 0) continue;
        const int most = most_heavy(class_capacity_[k], value_[d], lightest);
        if (most < 0) return true;
        room += static_cast<long long>(most) * cores_left_[k];
      }
      if (room < heavier) return true;
    }
    return false;
  }

  // The count vector an equal core filled earlier with the same heaviest value bounds this
  // one's from above (lexicographically), or nullptr when there is none.
  const std::vector<int>* equal_core_before(std::size_t pos, std::size_t k, std::size_t heaviest) const {
    for (std::size_t p = pos; p-- > 0;) {
      if (heaviest_at_[p] != heaviest) return nullptr;  // heaviest values only fall along the order
      if (class_at_[p] == k) return &choice_[p];
    }
    return nullptr;
  }

  void search_core(std::size_t pos, double remaining, double heaviest_so_far) {
    // A filled core may weigh as much as the incumbent (a plan found below it made it the
    // incumbent): then this branch cannot improve, and the bounds below, which count on
    // every filled core being under the incumbent, would blame what is left for it, and the
    // table would keep that remainder as hopeless for every other prefix too.
    if (stop_ || heaviest_so_far >= best_ - tolerance_) return;
    if (pos == choice_.size()) {
      best_ = heaviest_so_far;
      best_choice_ = choice_;
      best_class_at_ = class_at_;
      found_ = true;
      ++plans_found_;
      stop_ = best_ <= floor_ + tolerance_;
      return;
    }
    const auto cores_left = static_cast<double>(choice_.size() - pos);
    if (remaining / cores_left >= best_ - tolerance_ || capacity_bound_fails() || pigeonhole_fails()) return;
    // The later cores stay under the incumbent only if this one takes at least what is left
    // beyond what they can hold: a window on this core's load, narrow when the incumbent is
    // close to the average.
    // (The last core takes exactly what is left, so the window's floor is not strict, and
    // it sits a tolerance low for the rounding of sums taken in another order.)
    const double must_reach = remaining - (cores_left - 1) * (best_ - tolerance_) - tolerance_;
    const std::size_t heaviest = heaviest_value_left();
    heaviest_at_[pos] = heaviest;
    // Only a state whose search no earlier core constrains (by the order of cores with the
    // same heaviest value) is the same search wherever it is met.
    const bool free_state = failed_->usable() && (pos == 0 || heaviest_at_[pos - 1] != heaviest);
    FailedStates::Key state;
    if (free_state) {
      state = failed_->key(left_, cores_left_);
      if (failed_->contains(state)) return;
    }
    const std::int64_t plans_before = plans_found_;
    for (std::size_t k = 0; k < classes(); ++k) {
      if (cores_left_[k] == 0) continue;
      // Cores that share their heaviest value come in order of capacity, smallest first.
      if (pos > 0 && heaviest_at_[pos - 1] == heaviest && class_at_[pos - 1] < k) continue;
      class_at_[pos] = k;
      --cores_left_[k];
      const std::vector<int>* above = equal_core_before(pos, k, heaviest);
      choose_counts({pos, must_reach, remaining, heaviest_so_far}, heaviest, class_capacity_[k], 0.0, above);
      ++cores_left_[k];
      if (stop_) return;
    }
    if (free_state && plans_found_ == plans_before) failed_->insert(state);
  }

  struct CoreFill {
    std::size_t pos;
    double must_reach, remaining, heaviest_so_far;
  };

  // Picks how many loads of value d (and then d+1, ...) core `pos` takes; it takes at
  // least one of the heaviest value left. `above`, when given, caps the count vector
  // lexicographically while the counts so far equal it.
  void choose_counts(const CoreFill& core, std::size_t d, int slots_left, double core_load,
                     const std::vector<int>* above) {
    if (stop_) return;
    auto& counts = choice_[core.pos];
    if (slots_left == 0) {
      std::fill(counts.begin() + static_cast<std::ptrdiff_t>(d), counts.end(), 0);
      if (++nodes_ > max_nodes_) {
        out_of_budget_ = stop_ = true;  // the incumbent stands, unproven
        return;
      }
      const std::size_t k = class_at_[core.pos];
      filled_load_[k] += core_load;
      ++filled_cores_[k];
      search_core(core.pos + 1, core.remaining - core_load, std::max(core.heaviest_so_far, core_load));
      filled_load_[k] -= core_load;
      --filled_cores_[k];
      return;
    }
    if (d == value_.size()) return;
    const bool first = d == heaviest_at_[core.pos];
    if (first) std::fill(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(d), 0);
    int most = std::min(left_[d], slots_left);
    if (above != nullptr) most = std::min(most, (*above)[d]);
    const int least = first ? 1 : 0;
    const double lightest_after = lightest_left(d + 1);
    const int available_after = std::accumulate(left_.begin() + static_cast<std::ptrdiff_t>(d) + 1, left_.end(), 0);
    for (int x = most; x >= least; --x) {
      const double load = core_load + x * value_[d];
      const int rest = slots_left - x;
      if (rest > available_after) break;  // fewer x only needs more of the lighter loads
      if (load + rest * lightest_after >= best_ - tolerance_) continue;
      if (load + heaviest_fill(d + 1, rest) < core.must_reach) break;  // and fewer x reach less
      counts[d] = x;
      left_[d] -= x;
      const std::vector<int>* still_above = above != nullptr && x == (*above)[d] ? above : nullptr;
      choose_counts(core, d + 1, rest, load, still_above);
      left_[d] += x;
      if (stop_) return;
    }
  }

  std::vector<int> plan_of(const std::vector<std::vector<int>>& choice,
                           const std::vector<std::size_t>& class_at) const {
    const auto slots_of_core = layout_.slots_by_core();
    std::vector<std::size_t> taken(value_.size(), 0);
    std::vector<std::size_t> cores_taken(classes(), 0);
    std::vector<int> rank_of_slot(static_cast<std::size_t>(layout_.slots()), -1);
    for (std::size_t pos = 0; pos < choice.size(); ++pos) {
      const std::size_t k = class_at[pos];
      const int core = cores_of_class_[k][cores_taken[k]++];
      const auto& slots = slots_of_core[static_cast<std::size_t>(core)];
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
  std::vector<int> class_capacity_;  // distinct capacities, largest first
  std::vector<int> cores_left_;      // per capacity class, cores not filled yet
  std::vector<std::vector<int>> cores_of_class_;
  std::vector<double> filled_load_;  // per capacity class, the load its filled cores carry
  std::vector<int> filled_cores_;
  std::vector<std::vector<int>> choice_;  // per position in the filling order, count per value
  std::vector<std::size_t> class_at_;     // per position, the capacity class of its core
  std::vector<std::size_t> heaviest_at_;  // per position, its core's heaviest value
  std::vector<std::vector<int>> best_choice_;
  std::vector<std::size_t> best_class_at_;
  double best_ = 0, tolerance_ = 0, floor_ = 0;
  std::optional<FailedStates> failed_;
  std::int64_t nodes_ = 0, plans_found_ = 0;
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
