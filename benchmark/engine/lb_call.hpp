// Algorithm 3, lines 10-13, at one LB point: tell the balancer the modeled loads, let it
// decide, migrate, and rebuild the step's messages. What only the record needs of the call
// (the plan's score on those loads, the migration's totals, the slowest rank's times) is
// left in the CallLedger, which reduces it over ranks when the run ends.
#pragma once

#include <mpi.h>

#include "balancers/balancer.hpp"
#include "engine/call_ledger.hpp"
#include "engine/migration.hpp"
#include "engine/step_loop.hpp"
#include "record/run_record.hpp"
#include "scenario/scenario.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

class Engine;

// What one rank brings to its LB calls.
struct LbContext {
  const Scenario& scenario;
  const Engine& engine;
  const MachineInfo& machine;
  const WorkloadField& field;
  Balancer& balancer;
  Migrator& migrator;
  MPI_Comm comm;           // the run's, for reductions
  MPI_Comm balancer_comm;  // the balancer's own
  bool verify = false;     // check every owner table after the migration
  CallLedger& ledger;      // where the call leaves what only the record needs
};

// The placement digest (core/hash.hpp) of the ranks' vertices. Collective.
std::uint64_t placement_digest(const LocalGraph& graph, MPI_Comm comm);

// Collective: one reduction of the loads' totals, then the balancer's and the migration's
// own communication. `invocation` counts the calls before this one; `measured_since` is
// the first step of the measured loads' window (the step after the previous call). The
// event holds what the call knows at once (its step, the imbalance of the loads it was
// told, the protocol's counts and `auto`'s prediction, on rank 0); the ledger's settle()
// fills the rest, and the record the measured imbalances from the per-step times.
LbEvent run_lb_call(const LbContext& ctx, LocalGraph& graph, StepLoop& loop, int step, int invocation,
                    int measured_since);

}  // namespace lbbench
