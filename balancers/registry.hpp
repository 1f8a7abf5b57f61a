// The one registry: an explicit table from balancer name to family, description and
// factory. `lbbench list balancers` prints it; unknown names get a "did you mean".
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "balancers/balancer.hpp"
#include "core/config.hpp"

namespace lbbench {

struct BalancerInfo {
  std::string_view name;
  Family family;
  std::string_view description;
  // Reads and validates the strategy's params (unknown keys are errors) and builds it.
  std::unique_ptr<Balancer> (*make)(ConfigNode& params);
};

std::span<const BalancerInfo> balancer_table();

// The entry for `name`; `where` is the node that named it, for the error location.
const BalancerInfo& find_balancer(const std::string& name, const ConfigNode& where);

// Builds a balancer from its params node (a mapping, possibly empty).
std::unique_ptr<Balancer> make_balancer(const BalancerInfo& info, ConfigNode params);

}  // namespace lbbench
