// What a candidate's call costs at least, before it has ever run: a floor from the
// machine's network, the call's totals and the migration engine's measured code. It is
// optimistic on purpose: the loop only needs it to rank candidates it has not tried, and
// the bank bounds what trying one may spend (loop.hpp).
#pragma once

#include <string_view>

#include "balancers/model/auto/observation.hpp"
#include "balancers/sdk/balancer.hpp"

namespace lbbench {

// How a candidate decides: centrally, over every object gathered to rank 0, or by a
// protocol of rounds of messages between ranks (DistributedBalancer::expected_rounds).
struct CandidateShape {
  bool centralized = false;
  int rounds = 1;                 // a protocol's rounds of messages
  int reducing_rounds = 0;        // ... of which end in an allreduce
  double solve_s_per_object = 0;  // a centralized one's solve on this host (sampling.hpp)
  double share_removed = 1;       // of the sample's imbalance, by its decision (sampling.hpp)
  double share_cut = 0;           // of the sample's edges within a rank, by its decision (sampling.hpp)
};

// A centralized call gathers every object's id, load and owner to rank 0, solves there
// (timed on a sample at the first point), and scatters the owners back; a distributed one
// runs its protocol's rounds and the allreduces around them. Both move at least the least
// migration that balances (Pearce et al.'s equations 6 and 7) and pay the migration
// engine's collectives and its code per object.
[[nodiscard]] double floor_cost_s(const CandidateShape& shape, const PointObservation& seen, const NetworkFacts& net);

// What any call costs by making every rank wait for the slowest, which `none` never does.
// Left alone, ranks drift apart and a rank's lead is lost only where it is the slowest
// later; a call throws every lead away. The lead that would have been kept is the part of
// the imbalance since the last call that did not persist from step to step: the slowest
// rank's mean load falls short of the step-by-step slowest where the slowest rank changes.
// So, over the W steps since the last call, with L_max the slowest rank's mean load, L̄ the
// mean and S the step-by-step slowest's mean,
//   (1 − persistence) × (L_max − L̄) × W,  persistence = (L_max − L̄) / (S − L̄),
// and 0 where the engine does not measure S.
[[nodiscard]] double synchronization_cost_s(const PointObservation& seen);

// What a call's placement adds to every later step's exchange. Its decision cuts the share
// s of the edges within a rank that it cut on the sample; every cut edge sends edge_bytes
// each way, and spread over the ranks as a placement that ignores the graph spreads them,
// the busiest link carries them at c seconds per byte (NetworkFacts::
// scattered_exchange_s_per_byte). A step hides its messages under its compute (the mean
// load L̄ once balanced) and already pays the exchange X it measures:
//   max(0, 2 × E × edge_bytes × s × c − L̄ − X)  per step, for the rest of the run,
// since no later call of a candidate that ignores the graph gives the edges back. On a
// machine of one node, or where a step's compute hides its exchange, it is 0.
[[nodiscard]] double exchange_growth_s(const CandidateShape& shape, const PointObservation& seen,
                                       const NetworkFacts& net);

// A call of `candidate` as the platform's fitted costs price it (its decision fit, where
// the costs file has one, and the migration fit for the least migration that balances);
// 0 where they price nothing.
[[nodiscard]] double fitted_cost_s(std::string_view candidate, const PointObservation& seen, const FittedCosts& fits);

}  // namespace lbbench
