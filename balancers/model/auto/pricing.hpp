// What a candidate's call costs at least, before it has ever run: a floor from the
// machine's network and the call's totals. It is optimistic on purpose: the loop only
// needs it to rank candidates it has not tried, and the bank bounds what a floor that
// proves too low can lose (loop.hpp).
#pragma once

#include "balancers/model/auto/observation.hpp"
#include "balancers/sdk/balancer.hpp"

namespace lbbench {

enum class CandidateShape { centralized, distributed };

// A centralized call gathers every object's id, load and owner to rank 0 and scatters the
// owners back; a distributed one runs at least one protocol round and the allreduces
// around it. Both pay the migration engine's collectives, moving something or not.
[[nodiscard]] double floor_cost_s(CandidateShape shape, const PointObservation& seen, const NetworkFacts& net);

}  // namespace lbbench
