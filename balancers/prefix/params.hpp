// The params of the parallel prefix strategy, read from a scenario's balancer.params.
#pragma once

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct PrefixParams {
  bool subtract_min = false;

  static PrefixParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"subtract_min", subtract_min}}; }
};

}  // namespace lbbench
