// Algorithm 3, lines 10-13, at one LB point: tell the balancer the modeled loads, let it
// decide, migrate, and rebuild the step's messages. What only the record needs of the call
// (the plan's score on those loads, the migration's totals, the slowest rank's times) is
// left in the CallLedger, which reduces it over ranks when the run ends.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "record/run_record.hpp"
#include "replay/call_ledger.hpp"
#include "replay/migration.hpp"
#include "replay/step_loop.hpp"
#include "replay/unmoved_loads.hpp"
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
  MPI_Comm comm = MPI_COMM_NULL;           // the run's, for reductions
  MPI_Comm balancer_comm = MPI_COMM_NULL;  // the balancer's own
  bool verify = false;                     // check every owner table after the migration
  CallLedger& ledger;                      // where the call leaves what only the record needs
  PlacementBefore& before;                 // where the vertices were before the last call
};

// The placement digest (core/hash.hpp) of the ranks' vertices. Collective.
std::uint64_t placement_digest(const LocalGraph& graph, MPI_Comm comm);

// Where an LB call is: `invocation` counts the calls before this one; `measured_since` is
// the first step of the measured loads' window (the step after the previous call).
struct LbPoint {
  int step = 0;
  int invocation = 0;
  int measured_since = 0;
};

// Collective: one reduction of the loads' totals (with the slowest rank's share of the last
// call, `last_call_s` on this rank, which this call's share then replaces), then the
// balancer's and the migration's own communication. The event holds what the call knows
// at once (its step, the imbalance of the loads it was told, the protocol's counts and
// `auto`'s choice, on rank 0); the ledger's settle() fills the rest, and the record the
// measured imbalances from the per-step times.
LbEvent run_lb_call(const LbContext& ctx, LocalGraph& graph, StepLoop& loop, const LbPoint& at, double& last_call_s);

// The same totals as a call reduces, reduced without waiting, for a balancer that looks
// before its calls (Balancer::looks_before_calls): started a few steps before an LB point
// and read at it, so that a rank waits there only for ranks that have not yet reached the
// look's start, where a call's reduction makes every rank wait for the slowest.
class LoadLook {
 public:
  explicit LoadLook(MPI_Comm comm) : comm_(comm) {}
  ~LoadLook();
  LoadLook(const LoadLook&) = delete;
  LoadLook& operator=(const LoadLook&) = delete;

  // Collective, returns at once: this rank's share of the loads measured since
  // `at.measured_since`, and of the last call.
  void start(const LbContext& ctx, const LocalGraph& graph, const StepLoop& loop, const LbPoint& at,
             double last_call_s);
  [[nodiscard]] bool started() const { return requests_[0] != MPI_REQUEST_NULL; }
  // Waits for the look and says what it saw, for the LB point of `step`.
  CallOutlook finish(const Scenario& s, const MachineInfo& machine, int step);

 private:
  MPI_Comm comm_;
  std::array<MPI_Request, 2> requests_{MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // the sums, then the maxima
  std::array<double, 3> sums_{};  // the model load; the objects; the compute at the window's first step
  std::int64_t edges_ = 0;
  // The model load; the mean wall; the last call; the load had it moved nothing; then the
  // compute at each step of the window.
  std::vector<double> maxima_;
  std::array<double, 3> sum_share_{};
  std::vector<double> max_share_;
  bool unmoved_known_ = false;
};

}  // namespace lbbench
