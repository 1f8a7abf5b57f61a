// Pearce et al.'s cost model (see cost_model.hpp).
#include "balancers/model/cost_model.hpp"

#include <cmath>
#include <limits>

namespace lbbench {

double data_movement_cost(const Platform& platform, double elements_moved_max, double element_bytes) {
  if (elements_moved_max <= 0) return 0;
  return platform.alpha_s + platform.beta_s_per_byte * elements_moved_max * element_bytes;
}

double balancing_cost(double decision_s, const Platform& platform, double elements_moved_max, double element_bytes) {
  return decision_s + data_movement_cost(platform, elements_moved_max, element_bytes);
}

double elements_moved_global(double elements_max, double l_ave, double l_max) {
  if (l_max <= 0 || l_max <= l_ave) return 0;
  return elements_max * (l_max - l_ave) / l_max;
}

double app_time_none(double l_max, int steps) { return static_cast<double>(steps) * l_max; }

double gain_bound_s(double excess_s, int steps, int calls, int period, bool moving, double largest_trend_s) {
  if (!(excess_s > 0) || steps <= 0) return 0.0;
  const double held = steps * excess_s;
  if (!moving || !(largest_trend_s > 0) || calls <= 0 || period <= 0) return held;
  // The steps after a call while the moving load has not come back: sum over t = 1..n of
  // (excess_s - largest_trend_s x t) where that is positive.
  auto until_back = [&](int n) {
    const double m = std::min(static_cast<double>(n), std::floor(excess_s / largest_trend_s));
    return m * excess_s - largest_trend_s * m * (m + 1) / 2;
  };
  double gain = 0;
  int left = steps;
  for (int c = 0; c < calls && left > 0; ++c) {
    const int n = c + 1 == calls ? left : std::min(left, period);  // the last call's steps run to the end
    gain += until_back(n);
    left -= n;
  }
  return std::min(held, gain);
}

bool loads_move(double trend_sum, double trend_size_sum) {
  return trend_size_sum > 0 && std::abs(trend_sum) < kMovesRatherThanGrows * trend_size_sum;
}

double moving_loads_cap(double trend_sum, double trend_size_sum, double lmax) {
  return loads_move(trend_sum, trend_size_sum) ? lmax : std::numeric_limits<double>::infinity();
}

double app_time_global(double c_global, double l_after, int steps) {
  return c_global + static_cast<double>(steps) * l_after;
}

double app_time_to_end(double first_call_s, double later_call_s, int later_calls, double l_after, int steps) {
  return first_call_s + later_calls * later_call_s + steps * l_after;
}

double app_time_diffusion(const DiffusionSimResult& sim, double decision_s, const Platform& platform,
                          double element_bytes, int steps_per_call) {
  double total = 0;
  for (const auto& s : sim.steps) {
    // A converged diffusion still decides (cheaply) at every call but moves nothing.
    total += balancing_cost(decision_s, platform, s.elements_moved_max, element_bytes) +
             static_cast<double>(steps_per_call) * s.lmax;
  }
  return total;
}

}  // namespace lbbench
