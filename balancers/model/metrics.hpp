// Load-distribution metrics of Pearce et al. (ICS'12), Section 3 and Figure 1: percent
// imbalance, standard deviation, skewness and kurtosis of per-rank loads, and the rank
// correlation (equation 13) between modeled and measured per-rank loads.
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace lbbench {

struct LoadMoments {
  double mean = 0;
  double max = 0;
  double max_over_avg = 0;   // L_max / L_avg (0 when the mean is 0)
  double imbalance_pct = 0;  // lambda = (L_max / L_avg - 1) x 100, equation 1
  double sigma = 0;          // equation 2, population standard deviation
  // Equations 3 and 4. Undefined (empty) when every load is the same: they divide by sigma.
  std::optional<double> skewness;  // g1
  std::optional<double> kurtosis;  // g2, excess: 0 for a normal distribution
};

LoadMoments load_moments(std::span<const double> loads);

// 1-based ranks of the values in ascending order; tied values share their mean rank.
std::vector<double> average_ranks(std::span<const double> values);

// Equation 13: Pearson's correlation of the two series' average ranks, which is how the
// paper handles ties. Undefined (empty) when either series is constant or they differ in
// length or have fewer than two values.
std::optional<double> rank_correlation(std::span<const double> modeled, std::span<const double> measured);

// Beyond the paper, whose steps are their slowest rank's compute (L_max): how much longer a
// step took, from each rank's mean compute and mean step wall over the same steps. The
// slowest wall less the slowest compute, never below 0: the halo exchange's share of a
// step (its latency and the bytes' time), which every step pays whoever balances.
double step_exchange_s(std::span<const double> compute, std::span<const double> wall);

}  // namespace lbbench
