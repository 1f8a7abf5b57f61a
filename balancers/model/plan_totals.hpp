// What a candidate's plan leaves every rank, reduced over the ranks: all that `auto`'s cost
// model reads of a plan to price its call and the steps after it, with no object gathered
// anywhere (auto.hpp: weighing by the plans' totals, for thousands of ranks). Each rank
// adds its own share; an MPI engine then reduces the two parts (one allreduce of maxima,
// one of sums), and a serial caller adds every rank's share itself: both come to the same
// totals.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "balancers/sdk/balancer.hpp"

namespace lbbench {

// One rank after a plan, as the rank itself knows it once the plan's senders have told it
// what arrives.
struct RankShare {
  double load_s = 0;   // its compute per step, over its speed, as of the trends' origin (rank_times)
  double trend_s = 0;  // how that moves per step, over its speed (0: no trends)
  std::int64_t sent = 0;
  std::int64_t kept = 0;
  std::int64_t arrived = 0;
  double bytes_in_own_site = 0;  // arriving payload from ranks of its own site
  double bytes_in_other_sites = 0;
  double bytes_out_other_sites = 0;
  double bytes_out_other_nodes = 0;
  double bytes_in_other_nodes = 0;
};

// How the totals are laid out: the steps after the call whose slowest rank they keep, and
// the machine's nodes.
struct TotalsShape {
  int horizon = 1;
  double trend_origin = 0;  // the step the loads are as of (GlobalProblem::trend_origin)
  int nodes = 0;            // 0: nodes not known
  // Steps left to the end of the run (0: not known), over which the slowest rank is also
  // kept with the plan's placement held: at every step where they are few, else at
  // kRunSamples steps spread evenly.
  int steps_left = 0;
  static constexpr int kRunSamples = 64;
  [[nodiscard]] int run_samples() const { return std::min(steps_left, kRunSamples); }
  // The step after the call that run sample `i` stands for (1-based).
  [[nodiscard]] double run_step(int i) const;
};

// What a rank's arriving bytes cost at the busiest receiver, and what its share of a
// migration's code takes: the prices a share is reduced at.
struct SharePrices {
  double s_per_byte_own_site = 0;
  double s_per_byte_other_sites = 0;
  MigrationCode code;  // host seconds per object
};

class PlanTotals {
 public:
  explicit PlanTotals(const TotalsShape& shape);
  // Combines one rank's share, on `node` (ignored where nodes are not known).
  void add(const RankShare& share, int node, const SharePrices& prices);

  [[nodiscard]] const TotalsShape& shape() const { return shape_; }
  // The flat parts an MPI engine reduces: maxima (MPI_MAX), sums (MPI_SUM).
  [[nodiscard]] std::vector<double>& maxima() { return max_; }
  [[nodiscard]] std::vector<double>& sums() { return sum_; }

  // The slowest rank's load as of the trends' origin (L_max after the plan).
  [[nodiscard]] double lmax_s() const { return max_[0]; }
  // The slowest rank averaged over the horizon's steps, every rank along its trend, no
  // step past `cap` (moving_loads_cap in cost_model.hpp).
  [[nodiscard]] double mean_slowest_s(double cap) const;
  // ... over the steps left to the end of the run, the plan's placement held (0 where
  // they are not known).
  [[nodiscard]] double mean_slowest_to_end_s(double cap) const;
  [[nodiscard]] double arrived_max() const { return max_[slot(kArrived)]; }
  [[nodiscard]] bool any_moved() const { return max_[slot(kMoved)] > 0; }
  // The busiest rank's packing plus the busiest rank's rebuilding, host seconds
  // (MigrationCode::busiest_s).
  [[nodiscard]] double code_host_s() const { return max_[slot(kPack)] + max_[slot(kRebuild)]; }
  // The busiest receiver's arriving bytes at their prices (equation 6 across sites).
  [[nodiscard]] double busiest_receiver_s() const { return max_[slot(kReceiver)]; }
  [[nodiscard]] double cross_site_bytes() const { return sum_[kCrossSiteBytes]; }
  // The fastest any rank's load moves along its trend (seconds per step, either way).
  [[nodiscard]] double largest_trend_s() const { return max_[slot(kDrift)]; }
  // The most bytes through one node's links, in or out (0 where nodes are not known).
  [[nodiscard]] double busiest_node_bytes() const;

 private:
  // After the horizon's slots (the load as of the origin, then each step after the call)
  // and the run's samples:
  enum Slot { kArrived, kMoved, kPack, kRebuild, kReceiver, kDrift, kSlots };
  [[nodiscard]] std::size_t run_slot(int i) const { return static_cast<std::size_t>(shape_.horizon + i); }
  [[nodiscard]] std::size_t slot(Slot s) const {
    return static_cast<std::size_t>(shape_.horizon + shape_.run_samples()) + 1 + s;
  }

  // The sums: cross-site bytes, then each node's bytes out, then in.
  static constexpr std::size_t kCrossSiteBytes = 0;
  static constexpr std::size_t kNodeSums = 1;

  TotalsShape shape_;
  std::vector<double> max_;
  std::vector<double> sum_;
};

}  // namespace lbbench
