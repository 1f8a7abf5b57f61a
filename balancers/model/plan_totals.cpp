// A plan's totals over the ranks (see plan_totals.hpp).
#include "balancers/model/plan_totals.hpp"

#include <algorithm>
#include <cmath>

namespace lbbench {

double TotalsShape::run_step(int i) const {
  if (steps_left <= kRunSamples) return i;
  // The middle of the i-th of kRunSamples equal blocks of the steps left.
  return (i - 0.5) * steps_left / kRunSamples + 0.5;
}

PlanTotals::PlanTotals(const TotalsShape& shape)
    : shape_(shape),
      max_(static_cast<std::size_t>(shape.horizon + shape.run_samples()) + 1 + kSlots, 0.0),
      sum_(kNodeSums + 2 * static_cast<std::size_t>(std::max(0, shape.nodes)), 0.0) {}

void PlanTotals::add(const RankShare& share, int node, const SharePrices& prices) {
  // A step cannot take less than nothing, however a falling trend goes on.
  max_[0] = std::max(max_[0], share.load_s);
  auto keep_slowest = [&](std::size_t at, double step) {
    max_[at] = std::max(max_[at], std::max(0.0, share.load_s + share.trend_s * (step - shape_.trend_origin)));
  };
  for (int t = 1; t <= shape_.horizon; ++t) keep_slowest(static_cast<std::size_t>(t), t);
  for (int i = 1; i <= shape_.run_samples(); ++i) keep_slowest(run_slot(i), shape_.run_step(i));
  auto keep_max = [&](Slot s, double v) { max_[slot(s)] = std::max(max_[slot(s)], v); };
  keep_max(kArrived, static_cast<double>(share.arrived));
  keep_max(kMoved, share.sent > 0 ? 1.0 : 0.0);
  keep_max(kPack, static_cast<double>(share.sent) * prices.code.pack_s);
  keep_max(kRebuild, static_cast<double>(share.kept) * prices.code.keep_s +
                         static_cast<double>(share.arrived) * prices.code.unpack_s);
  keep_max(kReceiver, share.bytes_in_own_site * prices.s_per_byte_own_site +
                          share.bytes_in_other_sites * prices.s_per_byte_other_sites);
  keep_max(kDrift, std::abs(share.trend_s));
  sum_[kCrossSiteBytes] += share.bytes_out_other_sites;
  if (shape_.nodes <= 0 || node < 0 || node >= shape_.nodes) return;
  sum_[kNodeSums + static_cast<std::size_t>(node)] += share.bytes_out_other_nodes;
  sum_[kNodeSums + static_cast<std::size_t>(shape_.nodes + node)] += share.bytes_in_other_nodes;
}

double PlanTotals::mean_slowest_s(double cap) const {
  double sum = 0;
  for (int t = 1; t <= shape_.horizon; ++t) sum += std::min(max_[static_cast<std::size_t>(t)], cap);
  return shape_.horizon > 0 ? sum / shape_.horizon : max_[0];
}

double PlanTotals::mean_slowest_to_end_s(double cap) const {
  const int n = shape_.run_samples();
  double sum = 0;
  for (int i = 1; i <= n; ++i) sum += std::min(max_[run_slot(i)], cap);
  return n > 0 ? sum / n : 0.0;
}

double PlanTotals::busiest_node_bytes() const {
  return sum_.size() > kNodeSums ? *std::max_element(sum_.begin() + kNodeSums, sum_.end()) : 0.0;
}

}  // namespace lbbench
