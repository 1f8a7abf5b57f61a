// A plugin's strategy as a balancer of its shape (see balancers/sdk/plugin.hpp): lbbench's
// own centralized, protocol or general balancer around it, which gathers, times and runs
// it as a built-in one, and stops the run (RunError, naming the plugin) where it throws or
// breaks an invariant.
#pragma once

#include <memory>

#include "balancers/sdk/balancer.hpp"
#include "balancers/sdk/config.hpp"

namespace lbbench {

std::unique_ptr<Balancer> make_plugin_balancer(const BalancerConfig& config);

}  // namespace lbbench
