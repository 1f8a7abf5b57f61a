// Greedy LPT (Charm++'s GreedyLB): heaviest object first onto the least-loaded rank.
#pragma once

#include "balancers/sdk/centralized.hpp"

namespace lbbench {

class GreedyBalancer final : public CentralizedBalancer {
 public:
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
};

}  // namespace lbbench
