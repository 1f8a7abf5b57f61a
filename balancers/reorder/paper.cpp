// §1.1 of Keller et al.: sort the loads, heaviest first, and deal them round-robin over
// the cores, that is, the i-th heaviest load goes to slot i.
#include <algorithm>
#include <numeric>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {

std::vector<int> ranks_by_load_descending(std::span<const double> loads) {
  std::vector<int> order(loads.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return loads[static_cast<std::size_t>(a)] > loads[static_cast<std::size_t>(b)];
  });
  return order;
}

std::vector<int> plan_paper(std::span<const double> loads, const SlotLayout& /*layout*/) {
  return ranks_by_load_descending(loads);
}

}  // namespace lbbench::reorder
