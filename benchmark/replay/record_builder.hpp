// The end of a run: this rank's times reduced over all ranks, and the record filled from
// them on rank 0 (the reporters in benchmark/app then only read it).
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "record/run_record.hpp"
#include "replay/placement.hpp"
#include "replay/step_loop.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

class Engine;

// Everything the record says that this rank knows at the end.
struct RunEnd {
  const Scenario& scenario;
  const Engine& engine;
  const MachineLayout& machine;
  std::int64_t vertices = 0;
  std::int64_t edges = 0;
  std::vector<std::string> components;  // names of the load components (one for a scalar workload)
  const RankSteps& steps;
  std::vector<LbEvent> events;  // as run_lb_call returned them
  // Where the balancer looks before its calls (Balancer::looks_before_calls): its choice at
  // every LB point, calls or not (Acting::why).
  std::vector<Json> choices;
  CommCensus initial;      // at the start
  CommCensus final;        // at the end
  double elapsed_s = 0;    // this rank's step loop, on the run's clock
  double setup_s = 0;      // from the replay's start to its first step
  double host_wall_s = 0;  // host time of the whole replay
  Provenance provenance;
  // A block mesh that regrids: its regrids (complete on rank 0), and the live blocks and
  // their edges in each step (the same on every rank).
  std::vector<RegridEvent> regrids;
  std::vector<std::int64_t> live_blocks;
  std::vector<std::int64_t> live_edges;
};

// Collective over comm. The record is complete on rank 0; other ranks get an empty one.
RunRecord build_record(RunEnd end, MPI_Comm comm);

// The per-step series over all ranks, as an engine reduced them.
struct StepTotals {
  std::vector<double> compute_max, compute_sum, wall_max, wait_sum;  // per step
  // Vector workloads: per component, per step, the slowest rank's and the summed phase time.
  std::vector<std::vector<double>> phase_max, phase_sum;
  double total_time = 0;        // the slowest rank's step loop
  double compute_mean = 0;      // Σ over steps and ranks of compute, over the ranks
  double compute_max_rank = 0;  // the largest rank's Σ of compute
};

// Everything else the record says, the same on every engine.
struct RecordFacts {
  const Scenario& scenario;
  std::string_view engine;
  int ranks = 0;
  int nodes = 0;
  int sites = 1;
  std::int64_t vertices = 0;
  std::int64_t edges = 0;
  std::vector<std::string> components;
  CommCensus initial;
  CommCensus final;
  std::optional<SimulationInfo> simulation;
  Provenance provenance;
  std::vector<Json> choices;  // see RunEnd
  // A block mesh that regrids (empty otherwise): its regrids, live blocks and edges per step.
  std::vector<RegridEvent> regrids;
  std::vector<std::int64_t> live_blocks;
  std::vector<std::int64_t> live_edges;
};

// The record of a run from its totals and LB calls (no communication).
RunRecord assemble_record(RecordFacts facts, const StepTotals& totals, std::vector<LbEvent> events);

// An LB call whose balancer promised that nothing moves anywhere: the distribution stays,
// so the census after it is the one before, the plan's prediction is the loads as they are
// (the vector objective's too, where `event.vector` has its before), nothing moved, and
// the placement keeps `owners_digest`. Both engines record such a call alike.
void record_kept_distribution(LbEvent& event, std::uint64_t owners_digest);

// max/avg - 1 (0 when the average is 0): the record's imbalance, of loads or of times.
inline double imbalance(double max, double avg) { return avg > 0 ? max / avg - 1.0 : 0.0; }

// Whether `step` is an LB point of the scenario: every `period` steps, never after the last.
bool is_lb_point(const Scenario& s, int step);
// Whether the scenario's block mesh regrids after `step`: every mesh.period steps, never
// after the last.
bool is_regrid_point(const Scenario& s, int step);
// Whether any step of the run is an LB point.
bool has_lb_points(const Scenario& s);
// How many LB points come after `step`.
int lb_points_after(const Scenario& s, int step);

}  // namespace lbbench
