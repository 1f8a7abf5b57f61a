// What a candidate's call costs at least, before it has ever run: a floor from the
// machine's network, the call's totals and the migration engine's measured code. It is
// optimistic on purpose: the loop only needs it to rank candidates it has not tried, and
// the bank bounds what trying one may spend (loop.hpp).
#pragma once

#include <string_view>

#include "balancers/model/auto/observation.hpp"
#include "balancers/sdk/balancer.hpp"

namespace lbbench {

enum class CandidateShape { centralized, distributed };

// A centralized call gathers every object's id, load and owner to rank 0 and scatters the
// owners back; a distributed one runs at least one protocol round and the allreduces
// around it. Both pay the migration engine's collectives, and the least migration that
// balances (Pearce et al.'s equations 6 and 7, with the engine's code per object).
[[nodiscard]] double floor_cost_s(CandidateShape shape, const PointObservation& seen, const NetworkFacts& net);

// A call of `candidate` as the platform's fitted costs price it (its decision fit, where
// the costs file has one, and the migration fit for the least migration that balances);
// 0 where they price nothing.
[[nodiscard]] double fitted_cost_s(std::string_view candidate, const PointObservation& seen, const FittedCosts& fits);

}  // namespace lbbench
