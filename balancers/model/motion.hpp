// Loads that move through the mesh (beyond the paper): a hot spot drifting with a front, a
// flame or a shock. Under `none` nothing follows them, so each rank's load rises as the
// spot arrives and falls as it leaves, and since a step waits only for the messages of its
// neighbor ranks, the ranks run out of step: the run takes about the slowest rank's own
// sum plus its waits, well under the paper's steps x L_max (equation 11), which prices
// every step at the loads' peak wherever it is. On the first accuracy sweep's drift-3d
// (block) that was 20% high, and there were all the model engine's clearly wrong picks.
//
// So, where the objects have coordinates and the engine measured their trends:
// - fit_motion() finds the one velocity whose motion of the loads best explains the
//   trends: at each object the load's gradient from its neighbors, then
//   trend_i = -velocity . gradient_i in least squares, with the share of the trends it
//   explains (R^2);
// - moved_rank_times() carries the loads along it for the steps ahead, on a coarse grid
//   of the mesh's bounding box (the mean object load per cell, interpolated between cells,
//   what leaves the box at one edge entering at the other), and gives each rank its load
//   now plus the change the motion brings to its objects' cells;
// - critical_path_s() runs those steps as the engines do (Algorithm 3's shape): a rank's
//   messages leave as its step starts, and its step ends after its own compute and once its
//   neighbor ranks' messages of that step are in.
// Loads that grow or shrink in place, or change at random, are not motion: their fit
// explains little of the trends, and `none` keeps the paper's L_max.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "balancers/sdk/centralized.hpp"

namespace lbbench {

struct Motion {
  std::vector<double> velocity;  // coordinate units per step, one per coordinate
  double fit_r2 = 0;             // the share of the trends' sum of squares the motion explains
  std::int64_t objects_fitted = 0;
};

// The uniform motion that best explains the objects' trends, or nothing where the problem
// has no coordinates, trends or graph, or no object has a gradient.
std::optional<Motion> fit_motion(const GlobalProblem& problem);

// Each rank's compute (background included, over its speed) at each of the `steps` steps
// after the call, the objects where they are now and their loads carried along `motion`
// from where problem.load shows them (trend_origin steps after the call). `motion` has
// problem.coord_dims components.
std::vector<std::vector<double>> moved_rank_times(const GlobalProblem& problem, const Motion& motion, int steps);

// The rank graph of the current owners: ranks that share an edge are neighbors, in
// ascending order.
std::vector<std::vector<int>> rank_neighbors(const GlobalProblem& problem);

// The time of those steps where each rank's step ends after its own compute and once the
// messages its neighbor ranks (the rank graph) sent as their step started are in, with the
// network's latency left out (the exchange measured before the call is added per step, as
// for every candidate): the critical path through them.
double critical_path_s(std::span<const std::vector<double>> rank_times_per_step,
                       const std::vector<std::vector<int>>& neighbors);

}  // namespace lbbench
