// What `auto`'s closed loop sees at an LB point: the totals every engine has reduced before
// any balancer runs, alike on every rank, and what the previous call cost as the engine
// charged it. Nothing here is gathered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace lbbench {

struct PointObservation {
  int nranks = 1;
  std::int64_t objects = 0;  // the balancer's objects over all ranks
  std::int64_t edges = 0;    // the graph's edges (undirected)
  // The slowest rank's step (its load, or its measured step where longer) and the ranks'
  // mean load, per step over the steps since the last call.
  double max_load_s = 0;
  double mean_load_s = 0;
  double max_rank_load_s = 0;     // the largest rank load alone, waiting aside
  double unmoved_max_load_s = 0;  // ... had the last call not been made (0: not known)
  // The slowest rank's load taken step by step, whichever rank it is (0: not known), and
  // the steps since the last call these means are over.
  double stepwise_max_load_s = 0;
  int steps_measured = 0;
  // The slowest rank's compute and the mean at the first of those steps (0: not measured).
  double first_step_max_load_s = 0;
  double first_step_mean_load_s = 0;
  int steps_to_next = 0;  // steps until the next LB point, or to the end of the run
  int steps_left = 0;     // steps to the end of the run
  // The previous point's call, decision and migration on its slowest rank, as the engine
  // charged it; unset where the previous point made no call.
  std::optional<double> last_call_cost_s;
  std::int64_t edge_bytes = 0;  // per message of a unit-weight edge, each way
  // What moving an object costs: its payload, and the migration engine's code per object
  // that moves (packed and unpacked) and per object that stays (the local graph rebuilt),
  // as measured on this host and charged on the machine.
  std::int64_t element_bytes = 0;
  double moved_code_s = 0;
  double kept_code_s = 0;
  double code_time_scale = 1;  // machine seconds per host second of code

  // What the step's exchange adds beyond any load: the slowest rank's step over the slowest
  // load (taken step by step, where measured).
  [[nodiscard]] double exchange_s() const {
    return std::max(0.0, max_load_s - std::max(max_rank_load_s, stepwise_max_load_s));
  }
  // What a step loses to imbalance and waiting: the slowest rank's step over the mean load.
  [[nodiscard]] double imbalance_s() const { return std::max(0.0, max_load_s - mean_load_s); }
  // The largest rank load over the mean, waiting aside, over the steps measured.
  [[nodiscard]] double rank_imbalance_s() const { return std::max(0.0, max_rank_load_s - mean_load_s); }
  // What the last call left at once: the slowest rank over the mean at the first step
  // after it, less 1. Unset where the engine does not measure it.
  [[nodiscard]] std::optional<double> first_step_imbalance() const {
    if (first_step_mean_load_s <= 0) return std::nullopt;
    return std::max(0.0, first_step_max_load_s / first_step_mean_load_s - 1);
  }
  // The share of the step-by-step imbalance that persisted over the steps measured: 1 where
  // the same rank was the slowest at every step, less where the slowest rank changed and
  // the ranks' loads averaged out. 1 where the engine does not measure it.
  [[nodiscard]] double persistence() const {
    const double stepwise = stepwise_max_load_s - mean_load_s;
    const double kept = rank_imbalance_s();
    return stepwise > kept ? kept / stepwise : 1.0;
  }
};

}  // namespace lbbench
