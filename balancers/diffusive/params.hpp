// The params of the diffusive strategy, read from a scenario's balancer.params.
#pragma once

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct DiffusionParams {
  double gamma = 1.0;
  int iterations = 20;
  double threshold = 0.02;

  static DiffusionParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const {
    return Json{{"gamma", gamma}, {"iterations", iterations}, {"threshold", threshold}};
  }
};

}  // namespace lbbench
