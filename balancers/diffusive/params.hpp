// The params of the diffusive strategy, read from a scenario's balancer.params.
#pragma once

#include <cstdint>
#include <optional>

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

// The load each iteration moves over the edge between ranks i and j, per unit of load
// difference: Pearce et al.'s γ itself when it is given (their Algorithm 2 shifts γ(L_i − L_j)
// over every edge), otherwise Boillat's damping / (1 + max(deg_i, deg_j)), which is stable
// on any graph. On a chain (degree 2) a damping of 0.75 is the paper's γ = 0.25.
double diffusion_alpha(std::optional<double> gamma, double damping, std::int64_t degree_i, std::int64_t degree_j);

struct DiffusionParams {
  std::optional<double> gamma;  // the paper's γ; unset: Boillat's α with `damping`
  double damping = 1.0;
  int iterations = 20;
  double threshold = 0.02;

  static DiffusionParams parse(ConfigNode& node);
  [[nodiscard]] double alpha(std::int64_t degree_i, std::int64_t degree_j) const {
    return diffusion_alpha(gamma, damping, degree_i, degree_j);
  }
  [[nodiscard]] Json to_json() const {
    return Json{{"gamma", gamma ? Json(*gamma) : Json(nullptr)},
                {"damping", damping},
                {"iterations", iterations},
                {"threshold", threshold}};
  }
};

}  // namespace lbbench
