// The one registry: an explicit table from balancer name to its kind, family, one-line
// description and params parser. `lbbench list balancers` prints it; unknown names get a
// "did you mean". The build step, from a parsed BalancerConfig to a running balancer, is
// balancers/sdk/factory.hpp: this table links no MPI and no partitioner, so scenarios and
// the harness can validate balancers without them. The table itself is balancers/registry.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "balancers/sdk/config.hpp"
#include "core/config.hpp"

namespace lbbench {

namespace plugin {
struct Declaration;
}

struct BalancerInfo {
  std::string_view name;
  BalancerKind kind;
  Family family;
  std::string_view description;
  // Reads and validates the strategy's params mapping; unknown keys are errors. Null for
  // a plugin's, whose declared params are read instead.
  BalancerParams (*parse)(ConfigNode& params);
  // A strategy loaded from a plugin (balancers/plugins.hpp): its declaration; else null.
  const plugin::Declaration* plugin = nullptr;
};

// Every strategy: the built-in ones in their kinds' order, then the plugins' as loaded.
std::vector<BalancerInfo> balancer_table();

// The built-in strategy named `name`, or null.
const BalancerInfo* find_builtin_balancer(std::string_view name);
// The entry for `name`, built-in or a loaded plugin's; `where` is the node that named it,
// for the error location.
const BalancerInfo& find_balancer(const std::string& name, const ConfigNode& where);
const BalancerInfo& balancer_info(BalancerKind kind);

// Parses a balancer's params node (a mapping, possibly empty or absent).
BalancerConfig parse_balancer_config(const BalancerInfo& info, ConfigNode params);
// The balancer with every param at its default.
BalancerConfig default_balancer_config(const BalancerInfo& info);
BalancerConfig default_balancer_config(BalancerKind kind);

}  // namespace lbbench
