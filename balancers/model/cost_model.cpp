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

double app_time_global(double c_global, double l_after, int steps) {
  return c_global + static_cast<double>(steps) * l_after;
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
