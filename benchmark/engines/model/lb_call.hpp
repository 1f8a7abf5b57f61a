// An LB call in the model engine: the balancer's real decision on the modeled loads of
// every rank (a centralized strategy's solve, a distributed one's protocol through the
// serial driver), its plan carried out on the model state, and what it all costs on the
// machine. The decision's own code is timed by code_cpu_seconds (core/clock.hpp) and scaled to the
// machine's core, as SMPI charges code; or, where the scenario names a costs file, taken
// from its fits.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "engines/model/state.hpp"
#include "machine/network.hpp"
#include "record/run_record.hpp"
#include "replay/record_builder.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct ModelLbContext {
  const Scenario& scenario;
  const NetworkModel& net;
  const MachineInfo& machine;
  Balancer& balancer;
  int dims = 1;
  // Machine seconds per host second of the decision's own code; 0 when code is free
  // (--code-charge none).
  double code_scale = 1.0;
};

// What the loop knows at the call.
struct ModelLbInputs {
  int step = 0;
  int invocation = 0;
  const std::vector<std::vector<double>>& weights;     // per component, by position
  const std::vector<std::vector<double>>& phase_time;  // per component, by position, since the last call
  int steps_since_last_call = 1;
  // phase_time summed as it stood after each step since the last call (for the trend
  // forecast; empty otherwise).
  const std::vector<std::vector<double>>& phase_time_summed;
  const std::vector<double>& measured_rank_load;  // per rank: compute per step since the last call
  const std::vector<double>& measured_rank_wall;  // per rank: a whole step, likewise
  double stepwise_max_load = 0;                   // the slowest rank's compute at each step, likewise
  std::pair<double, double> first_step_load;      // the slowest and the mean compute, first of those steps
  CommCensus before;
  double last_call_s = 0;  // the previous point's call, decision and migration, as charged
  // By position, each vertex's rank before the last call (empty before the first): what
  // `auto` replays the loads since it on (CallOutlook::unmoved_max_load_s).
  std::span<const int> owner_before_call;
};

struct ModelLbCall {
  LbEvent event;          // measured imbalances are filled from the steps later
  double duration_s = 0;  // from the call's start (the slowest rank's step end) to the next step
};

// Decides, migrates `state` and says what it cost. `census_after` gives the census of the
// new distribution (the caller owns the halo).
template <class CensusAfter>
ModelLbCall model_lb_call(const ModelLbContext& ctx, ModelState& state, const ModelLbInputs& in,
                          CensusAfter census_after);

// The parts, for the template above.
struct ModelDecision {
  std::vector<Rank> target;  // by position
  LbEvent event;             // everything but the migration and the census after
  double decision_s = 0;
};
ModelDecision model_decide(const ModelLbContext& ctx, const ModelState& state, const ModelLbInputs& in);
// What the migration engine's moving `tally` costs the machine: its code, its two sparse
// exchanges and its checks. `code_scale` as ModelLbContext's.
double model_migration_s(const NetworkModel& net, const MachineInfo& machine, double code_scale,
                         const MigrationTally& tally);
// The one collective the engines add to an LB call, around its decision and migration:
// the loads' totals (replay/lb_call.cpp). What the record needs besides is reduced when
// the run ends (replay/call_ledger.hpp), after the clock has stopped.
double model_lb_overhead_s(const NetworkModel& net);
// What a look (Balancer::looks_before_calls) started at `in.step` reduces: the loads'
// totals as a call there would see them, with the last call's cost. Its steps left are the
// step's; the engine sets the point's where it reads the look.
CallOutlook model_outlook(const ModelLbContext& ctx, const ModelState& state, const ModelLbInputs& in);

template <class CensusAfter>
ModelLbCall model_lb_call(const ModelLbContext& ctx, ModelState& state, const ModelLbInputs& in,
                          CensusAfter census_after) {
  ModelDecision d = model_decide(ctx, state, in);
  if (ctx.balancer.promised_nothing_moves()) {
    ModelLbCall out;
    out.event = std::move(d.event);
    record_kept_distribution(out.event, state.owners_digest());
    out.duration_s = out.event.decision_s + model_lb_overhead_s(ctx.net);
    return out;
  }
  const ModelState::Placement place{[&](int r) { return ctx.net.site_of(r); }};
  const MigrationTally tally = state.migrate(d.target, &place);
  ModelLbCall out;
  out.event = std::move(d.event);
  out.event.after = census_after();
  out.event.migrations = tally.vertices;
  out.event.migrated_bytes = tally.bytes;
  out.event.elements_moved_max = tally.arrivals_max;
  out.event.owners_digest = state.owners_digest();
  out.event.migration_s = model_migration_s(ctx.net, ctx.machine, ctx.code_scale, tally);
  out.duration_s = out.event.decision_s + out.event.migration_s + model_lb_overhead_s(ctx.net);
  return out;
}

}  // namespace lbbench
