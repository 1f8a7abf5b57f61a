// Slot layouts (§1.2 of Keller et al.), core loads, the lower bound, and the method table.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "balancers/reorder/reorder.hpp"
#include "core/suggest.hpp"

namespace lbbench::reorder {

namespace {

// Round-robin over the cores (already in their renumbered order); a core that has
// used up its processes is skipped in later rounds.
std::vector<int> round_robin_cores(const std::vector<int>& capacity) {
  std::vector<int> core_of_slot;
  const int rounds = capacity.empty() ? 0 : *std::max_element(capacity.begin(), capacity.end());
  for (int round = 0; round < rounds; ++round) {
    for (int c = 0; c < static_cast<int>(capacity.size()); ++c) {
      if (capacity[static_cast<std::size_t>(c)] > round) core_of_slot.push_back(c);
    }
  }
  return core_of_slot;
}

}  // namespace

SlotLayout layout_from_counts(std::span<const int> processes_per_core) {
  for (int count : processes_per_core) {
    if (count < 1) throw std::invalid_argument("every core needs at least one process");
  }
  SlotLayout layout;
  layout.capacity.assign(processes_per_core.begin(), processes_per_core.end());
  // §1.2: cores with fewer processes get the lower indices.
  std::stable_sort(layout.capacity.begin(), layout.capacity.end());
  layout.core_of_slot = round_robin_cores(layout.capacity);
  layout.process_of_slot.resize(layout.core_of_slot.size());
  std::iota(layout.process_of_slot.begin(), layout.process_of_slot.end(), 0);
  return layout;
}

SlotLayout layout_from_core_keys(std::span<const std::int64_t> key_of_process) {
  std::map<std::int64_t, std::vector<int>> processes_by_key;  // each list in process order
  for (int p = 0; p < static_cast<int>(key_of_process.size()); ++p) {
    processes_by_key[key_of_process[static_cast<std::size_t>(p)]].push_back(p);
  }
  std::vector<std::vector<int>> cores;
  cores.reserve(processes_by_key.size());
  for (auto& [key, processes] : processes_by_key) cores.push_back(std::move(processes));
  std::sort(cores.begin(), cores.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() < b.size() : a.front() < b.front();
  });
  SlotLayout layout;
  for (const auto& processes : cores) layout.capacity.push_back(static_cast<int>(processes.size()));
  layout.core_of_slot = round_robin_cores(layout.capacity);
  std::vector<std::size_t> next(cores.size(), 0);
  for (int core : layout.core_of_slot) {
    const auto c = static_cast<std::size_t>(core);
    layout.process_of_slot.push_back(cores[c][next[c]++]);
  }
  return layout;
}

std::vector<std::vector<int>> SlotLayout::slots_by_core() const {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(cores()));
  for (int s = 0; s < slots(); ++s)
    out[static_cast<std::size_t>(core_of_slot[static_cast<std::size_t>(s)])].push_back(s);
  return out;
}

std::string_view method_name(Method m) { return kMethodNames[static_cast<std::size_t>(m)]; }

std::span<const std::string_view> method_names() { return kMethodNames; }

Method parse_method(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kMethodNames); ++i) {
    if (kMethodNames[i] == name) return static_cast<Method>(i);
  }
  const std::vector<std::string> names(std::begin(kMethodNames), std::end(kMethodNames));
  throw std::invalid_argument("unknown reorder method '" + std::string(name) + "'." + did_you_mean(name, names) +
                              fmt::format(" Expected one of: {}", fmt::join(names, ", ")));
}

void check_loads(std::span<const double> loads, const SlotLayout& layout) {
  if (static_cast<int>(loads.size()) != layout.slots()) {
    throw std::invalid_argument("there are " + std::to_string(loads.size()) + " loads for " +
                                std::to_string(layout.slots()) + " processes; give one load per process");
  }
  for (std::size_t j = 0; j < loads.size(); ++j) {
    if (!std::isfinite(loads[j]) || loads[j] < 0) {
      throw std::invalid_argument("the load of rank " + std::to_string(j) + " is " + std::to_string(loads[j]) +
                                  "; loads must be finite and non-negative");
    }
  }
}

std::vector<int> plan_identity(const SlotLayout& layout) { return layout.process_of_slot; }

std::vector<int> make_plan(Method m, std::span<const double> loads, const SlotLayout& layout,
                           const PlanOptions& options) {
  check_loads(loads, layout);
  switch (m) {
    case Method::identity: return plan_identity(layout);
    case Method::paper: return plan_paper(loads, layout);
    case Method::ours: return plan_ours(loads, layout);
    case Method::exact: return plan_exact(loads, layout, options.max_nodes);
    case Method::dist: return plan_dist(loads, layout, options.levels);
    case Method::random: return plan_random(loads, layout, options.seed);
    case Method::worst: return plan_worst(loads, layout);
  }
  throw std::logic_error("unhandled reorder method");
}

std::vector<double> core_loads(std::span<const double> loads, const SlotLayout& layout,
                               std::span<const int> rank_of_slot) {
  std::vector<double> sum(static_cast<std::size_t>(layout.cores()), 0.0);
  for (int s = 0; s < layout.slots(); ++s) {
    const auto slot = static_cast<std::size_t>(s);
    sum[static_cast<std::size_t>(layout.core_of_slot[slot])] += loads[static_cast<std::size_t>(rank_of_slot[slot])];
  }
  return sum;
}

double max_core_load(std::span<const double> loads, const SlotLayout& layout, std::span<const int> rank_of_slot) {
  const auto sums = core_loads(loads, layout, rank_of_slot);
  return sums.empty() ? 0.0 : *std::max_element(sums.begin(), sums.end());
}

double lower_bound(std::span<const double> loads, const SlotLayout& layout) {
  if (loads.empty()) return 0.0;
  std::vector<double> sorted(loads.begin(), loads.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const double total = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  double bound = std::max(total / layout.cores(), sorted.front());
  // suffix[i]: sum of the i lightest loads.
  std::vector<double> lightest(sorted.size() + 1, 0.0);
  for (std::size_t i = 0; i < sorted.size(); ++i) lightest[i + 1] = lightest[i] + sorted[sorted.size() - 1 - i];
  std::vector<double> heaviest(sorted.size() + 1, 0.0);
  for (std::size_t i = 0; i < sorted.size(); ++i) heaviest[i + 1] = heaviest[i] + sorted[i];
  auto places_for = [&](int k) {  // slots the cores offer if none takes more than k
    long long sum = 0;
    for (int cap : layout.capacity) sum += std::min(cap, k);
    return sum;
  };
  // Pigeonhole: the m heaviest loads put at least k of them on one core, which also
  // fills its other slots from the loads outside them.
  int k = 1;
  for (std::size_t m = 1; m <= sorted.size(); ++m) {
    while (places_for(k) < static_cast<long long>(m)) ++k;
    double weakest_core = std::numeric_limits<double>::infinity();
    for (int cap : layout.capacity) {
      if (cap < k) continue;
      const auto rest = static_cast<std::size_t>(cap - k);
      if (rest > sorted.size() - m) continue;
      const double k_lightest_of_top = heaviest[m] - heaviest[m - static_cast<std::size_t>(k)];
      weakest_core = std::min(weakest_core, k_lightest_of_top + lightest[rest]);
    }
    if (std::isfinite(weakest_core)) bound = std::max(bound, weakest_core);
  }
  // Capacity: the k cores with the most slots hold at least that many of the lightest
  // loads between them (the bound of the LP relaxation, per capacity).
  std::vector<int> capacity(layout.capacity.begin(), layout.capacity.end());
  std::sort(capacity.begin(), capacity.end(), std::greater<>());
  std::size_t slots = 0;
  for (std::size_t k = 0; k < capacity.size(); ++k) {
    slots += static_cast<std::size_t>(capacity[k]);
    if (slots > sorted.size()) break;
    bound = std::max(bound, lightest[slots] / static_cast<double>(k + 1));
  }
  return bound;
}

}  // namespace lbbench::reorder
