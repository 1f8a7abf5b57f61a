// The params of the tree strategy, read from a scenario's balancer.params.
#pragma once

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct TreeParams {
  int branching = 4;
  bool count_units = false;  // `units: count` treats every vertex as one unit

  static TreeParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const {
    return Json{{"branching", branching}, {"units", count_units ? "count" : "load"}};
  }
};

}  // namespace lbbench
