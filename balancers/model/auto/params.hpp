// The params of `auto`, read from a scenario's balancer.params. Its candidates are
// balancers with their own typed params.
#pragma once

#include <string>
#include <vector>

#include "balancers/sdk/config.hpp"
#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct AutoParams {
  // The balancers `auto` chooses from, each with its validated params. `parse` fills in
  // kDefaultCandidates when the scenario names none.
  std::vector<BalancerConfig> candidates;
  // B, the share of `none`'s predicted time from the first LB point to the end that `auto`
  // may lose finding out what its candidates deliver, before it has gained anything
  // (balancers/model/README.md). 0: a call only once a gain has paid for it.
  double budget = 0.02;

  static const std::vector<std::string> kDefaultCandidates;

  static AutoParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
  // Throws InputError when a candidate's params do not fit load vectors of `dims`
  // components.
  void check_dims(int dims) const;
};

}  // namespace lbbench
