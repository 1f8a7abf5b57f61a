// The registry's build step: from a parsed BalancerConfig to the balancer that runs it.
// Kept apart from the table (registry.hpp) because building links the strategies, with
// MPI, METIS and Zoltan; only an engine that runs a replay needs it. Defined by
// balancers/factory.cpp, one case per kind.
#pragma once

#include <memory>

#include "balancers/sdk/balancer.hpp"
#include "balancers/sdk/config.hpp"

namespace lbbench {

// Throws InputError for a strategy this build cannot run (zoltan without Zoltan).
std::unique_ptr<Balancer> make_balancer(const BalancerConfig& config);

}  // namespace lbbench
