// What a centralized candidate's decision code costs per object on this host, timed once
// before the run on a sample problem. A centralized call's code (its solve) is most of
// what it costs and cannot be priced from the network alone: METIS's solve takes ten
// times greedy's on the same objects. The loop prices a first call with it (pricing.hpp).
#pragma once

#include "balancers/sdk/centralized.hpp"

namespace lbbench {

// The solve's code time over the sample's objects: a 2-D grid of objects with log-normal
// loads and coordinates, dealt out in blocks over a fixed number of ranks, so that
// partitioners, geometric and load-only strategies all have what they ask for. The
// fastest of a few runs, by the clock the engines charge code by (core/clock.hpp).
[[nodiscard]] double solve_seconds_per_object(const CentralizedBalancer& candidate);

}  // namespace lbbench
