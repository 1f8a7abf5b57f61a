// What `auto` has learned of one candidate from the calls it made with it: how much of the
// imbalance its calls removed against what the prediction said, for how many windows
// between LB points the gain lasted, and what its last call cost.
#pragma once

#include <algorithm>
#include <optional>

namespace lbbench {

struct Learned {
  double predicted_s = 0;  // Σ over credited windows: the imbalance at the call × the window's steps
  double delivered_s = 0;  // Σ over the same windows: (imbalance at the call − imbalance seen) × steps
  int calls = 0;
  int windows = 0;               // windows credited to its calls, the first after each call included
  std::optional<double> cost_s;  // its last call, decision and migration, as charged
  // What its last call left: the imbalance over the mean load in the window after it. A
  // call on loads no more imbalanced than that has nothing to gain.
  double reach = 0;

  // The share of the predicted gain that was delivered; 1 before any call, as Pearce et al.
  // assume a balancer reaches the mean. Never above 1: the prediction is already the
  // whole imbalance.
  [[nodiscard]] double correction() const {
    return predicted_s > 0 ? std::clamp(delivered_s / predicted_s, 0.0, 1.0) : 1.0;
  }
  // Windows a call's gain lasted, on average; 1 before any call.
  [[nodiscard]] double persistence() const {
    return calls > 0 ? std::max(1.0, static_cast<double>(windows) / calls) : 1.0;
  }
};

}  // namespace lbbench
