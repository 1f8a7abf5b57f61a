// Pricing a protocol's rounds on the modeled machine (see round_pricer.hpp).
#include "engines/model/round_pricer.hpp"

#include <algorithm>

#include "core/clock.hpp"

namespace lbbench {

RoundPricer::RoundPricer(const NetworkModel& net, double code_time_scale)
    : net_(net),
      scale_(code_time_scale),
      busy_(static_cast<std::size_t>(net.nranks()), 0.0),
      done_(static_cast<std::size_t>(net.nranks()), 0.0) {}

void RoundPricer::stepped(int rank, double cpu_s, const std::vector<Message>& sent) {
  busy_[static_cast<std::size_t>(rank)] = cpu_s * scale_;
  for (const auto& m : sent) sent_.push_back({rank, m.peer, static_cast<double>(m.data.size())});
}

void RoundPricer::started() { driver_start_ = code_cpu_seconds(); }

void RoundPricer::round_done(int reductions) {
  driver_cpu_s_ = code_cpu_seconds() - driver_start_;
  const double barrier = *std::max_element(busy_.begin(), busy_.end()) + net_.barrier_s();
  const double one_by_one = last_receive_s(barrier) - barrier;
  const double received = barrier + std::max(one_by_one, shared_links_s(one_by_one));
  total_s_ += received + net_.allreduce_s(48) + reductions * net_.allreduce_s(8);
  std::fill(busy_.begin(), busy_.end(), 0.0);
  sent_.clear();
}

double RoundPricer::last_receive_s(double barrier) {
  std::fill(done_.begin(), done_.end(), barrier);
  std::stable_sort(sent_.begin(), sent_.end(), [&](const RankFlow& a, const RankFlow& b) {
    return busy_[static_cast<std::size_t>(a.from)] < busy_[static_cast<std::size_t>(b.from)];
  });
  double last = barrier;
  for (const auto& m : sent_) {
    double& done = done_[static_cast<std::size_t>(m.to)];
    const double transfer = net_.transfer_s(m.from, m.to, m.bytes);
    if (m.bytes >= net_.preset().eager_bytes) {
      done += transfer;
    } else {
      done = std::max(done, busy_[static_cast<std::size_t>(m.from)] + transfer) + net_.receive_overhead_s(m.bytes);
    }
    last = std::max(last, done);
  }
  return last;
}

double RoundPricer::shared_links_s(double one_by_one) {
  static constexpr std::size_t kRoundFluidLinks = 50000;
  return net_.bulk_transfer_s(sent_, kRoundFluidLinks, one_by_one / 10);
}

}  // namespace lbbench
