// Algorithm 3, lines 10-13, at one LB point: tell the balancer the modeled loads, let it
// decide, score its plan on those loads, migrate, and rebuild the step's messages. What
// the call did is reduced over ranks into the record's LbEvent.
#pragma once

#include <mpi.h>

#include "balancers/balancer.hpp"
#include "engine/migration.hpp"
#include "engine/step_loop.hpp"
#include "mpi/sparse_exchange.hpp"
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
  SparseExchange& prediction_exchange;  // scores the plan: each rank tells its targets what it gives them
  MPI_Comm comm;                        // the run's, for reductions
  MPI_Comm balancer_comm;               // the balancer's own
  bool verify = false;                  // check every owner table after the migration
  std::uint64_t owners_digest = 0;      // the placement's digest as it stands before the call
  // The distribution's communication as it stands before the call: only a migration
  // changes it, so it is the census after the last call that moved (or the run's first).
  CommCensus census;
};

// The placement digest (core/hash.hpp) of the ranks' vertices. Collective.
std::uint64_t placement_digest(const LocalGraph& graph, MPI_Comm comm);

// Collective. `invocation` counts the calls before this one; `measured_since` is the
// first step of the measured loads' window (the step after the previous call). The
// event's metrics and `auto`'s prediction are on rank 0 only; its measured imbalances are
// the record's to fill from the per-step times.
LbEvent run_lb_call(const LbContext& ctx, LocalGraph& graph, StepLoop& loop, int step, int invocation,
                    int measured_since);

}  // namespace lbbench
