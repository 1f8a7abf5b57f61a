// The params of the gossip strategy, read from a scenario's balancer.params.
#pragma once

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct GossipParams {
  int fanout = 2;
  int rounds = 0;  // 0: ceil(log_fanout(P))
  double target_ratio = 1.05;
  int max_phases = 10;
  // Most entries a gossip message carries; 0: all the sender knows (the paper's and
  // Charm++'s default). Charm++'s DistributedLB calls it kPartialInfoCount.
  int info_limit = 0;

  static GossipParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const {
    return Json{{"fanout", fanout},
                {"rounds", rounds},
                {"target_ratio", target_ratio},
                {"max_phases", max_phases},
                {"info_limit", info_limit}};
  }
};

}  // namespace lbbench
