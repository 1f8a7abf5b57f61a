// Algorithm 3, lines 10-13, at one LB point: tell the balancer the modeled loads, let it
// decide, migrate, and rebuild the step's messages. What only the record needs of the call
// (the plan's score on those loads, the migration's totals, the slowest rank's times) is
// left in the CallLedger, which reduces it over ranks when the run ends.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>

#include "balancers/sdk/balancer.hpp"
#include "record/run_record.hpp"
#include "replay/call_ledger.hpp"
#include "replay/migration.hpp"
#include "replay/step_loop.hpp"
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

// A look at the loads' totals for a balancer that asked for one (Balancer::wants_look()):
// the same totals a call reduces, reduced without waiting from half a period before an LB
// point to the point. A rank waits at the point only for ranks that have not yet reached
// the look's start, where a call's reduction makes every rank wait for the slowest.
class LoadLook {
 public:
  explicit LoadLook(MPI_Comm comm) : comm_(comm) {}
  ~LoadLook();
  LoadLook(const LoadLook&) = delete;
  LoadLook& operator=(const LoadLook&) = delete;

  // Collective, returns at once: this rank's share at `step`, as run_lb_call() would
  // reduce it there.
  void start(const LbContext& ctx, const LocalGraph& graph, const StepLoop& loop, int step, int invocation,
             int measured_since);
  // The same from this rank's loads (its model load, and its mean compute and mean wall
  // per step) and the balancer's objects, the graph's edges over all ranks and the
  // coordinates per object; with the rank's load trend over its speed where the balancer
  // asks for trends (Balancer::needs_trends) and they were measured.
  void start(const std::array<double, 3>& loads, std::int64_t objects, std::int64_t edges, int coord_dims,
             std::optional<double> trend = std::nullopt);
  [[nodiscard]] bool started() const { return requests_[0] != MPI_REQUEST_NULL; }
  // Waits for the look started at the last point and says what it saw, for the LB point
  // of `step` (whose own steps left and later calls it carries).
  CallOutlook finish(const Scenario& s, const MachineInfo& machine, int step);

 private:
  MPI_Comm comm_;
  std::array<MPI_Request, 2> requests_{MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // the sums, then the maxima
  // The sums (the model load, the trend, its size), then the maxima (the model load, the
  // mean compute, the mean wall, the trend's size): a call's trended share.
  std::array<double, 7> share_{};
  std::array<double, 7> totals_{};
  bool trended_ = false;
  std::optional<int> started_at_;  // the step whose loads the look shares, where known
  std::int64_t objects_ = 0;
  std::int64_t edges_ = 0;
  int coord_dims_ = 0;
};

}  // namespace lbbench
