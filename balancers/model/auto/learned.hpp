// What `auto` has learned of one candidate from the calls it made with it: how much of the
// imbalance its calls removed against what the prediction said, and what its last call
// cost.
#pragma once

#include <algorithm>
#include <optional>

namespace lbbench {

struct Learned {
  double predicted_s = 0;  // Σ over its calls' windows: the gain predicted per step × the window's steps
  double delivered_s = 0;  // Σ over the same: (slowest rank had the call moved nothing − slowest rank) × steps
  int calls = 0;
  std::optional<double> cost_s;  // its last call, decision and migration, as charged
  // What its last call left: the imbalance over the mean load at the first step after it
  // (over the first window after it where the engine does not measure that step), before
  // the workload moved the loads on. A call on loads no more imbalanced than that has
  // nothing to gain.
  double reach = 0;
  // Its first call's cost over its price before it (ClosedLoop::untried_price_s): how far
  // the price fell short of what a call of its shape costs on this machine (0 until called).
  double shortfall = 0;
  // Before any call: the share of the sample's imbalance its decision removed
  // (sampling.hpp). Pearce et al. assume every balancer reaches the mean (1); this departs
  // from them where a candidate stops short of it by its own rules: a tree ends each rank
  // within about one of its units, and diffusion evens out a hot region from its edge
  // inwards. Without it the untried candidates were all valued alike, so the cheapest was
  // tried first.
  double prior = 1;

  // The share of the predicted gain that was delivered; the prior before any call. Never
  // above 1: the prediction is already the whole imbalance.
  [[nodiscard]] double correction() const {
    return predicted_s > 0 ? std::clamp(delivered_s / predicted_s, 0.0, 1.0) : prior;
  }
};

}  // namespace lbbench
