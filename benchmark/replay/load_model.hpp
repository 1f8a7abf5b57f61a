// The application model (Pearce et al.): what a balancer is told each local vertex costs
// at an LB call. `measured`: its do_work time per step since the last call, carried
// forward by the scenario's forecast (its mean, or its trend); `weights`: its
// weight times unit_seconds plus what its messages cost at α + β·bytes; `weights-no-comm`:
// the weight alone; `counts`: one unit each. The scenario's model_error then scales or
// drops vertices on purpose (Section 7.1).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "core/local_graph.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// One rank's vertices: `vertices` are their positions in `graph` (every local vertex of a
// rank's own graph, or one rank's share of a whole graph), in the rank's local order, and
// per-vertex arrays (weights, phase_time) are indexed by position too.
struct LoadModelInputs {
  const Scenario& scenario;
  const LocalGraph& graph;
  std::span<const std::int64_t> vertices;
  const MachineInfo& machine;
  int rank = 0;
  int dims = 1;
  int invocation = 0;                               // the LB call, 0 first: model_error's noise is drawn anew per call
  const std::vector<std::vector<double>>& weights;  // per component, per local vertex
  const std::vector<std::vector<double>>& phase_time;  // per component, per local vertex, since the last call
  int steps_since_last_call = 1;
  // For `forecast: trend` and for trends (modeled_vertex_trends): phase_time summed as it
  // stood after each step since the last call (StepLoop::phase_time_summed), and the step
  // after which the call runs.
  const std::vector<std::vector<double>>* phase_time_summed = nullptr;
  int step = 0;
};

// Each of the rank's vertices' load vector as the model tells it (dims components,
// vertex-major, in the order of `vertices`).
std::vector<Load> modeled_vertex_loads(const LoadModelInputs& in);

// Whether each vertex's trend can be told (LoadView::vertex_load_trend): loads are
// measured, over two steps or more, and their running sums were kept. Alike on every rank.
bool trends_measured(const LoadModelInputs& in);
// Each vertex's load trend in seconds per step, its components summed (in the order of
// `vertices`), and the step after the call whose loads modeled_vertex_loads shows
// (LoadView::trend_origin). Only where trends_measured.
std::vector<double> modeled_vertex_trends(const LoadModelInputs& in);
double trend_origin(const LoadModelInputs& in);

// 0, 1, ..., n-1: every vertex of a rank's own graph.
std::vector<std::int64_t> all_positions(const LocalGraph& graph);

// Each vertex's vector summed: its whole load.
std::vector<Load> summed_loads(const std::vector<Load>& vectors, int dims);

}  // namespace lbbench
