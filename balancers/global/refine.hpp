// Refinement in the style of Charm++'s RefineLB: move objects off overloaded ranks onto
// underloaded ones until every rank is within a tolerance of the average, moving as few
// objects as it can.
#pragma once

#include "balancers/global/params.hpp"
#include "balancers/sdk/centralized.hpp"

namespace lbbench {

class RefineBalancer final : public CentralizedBalancer {
 public:
  explicit RefineBalancer(RefineParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;

 private:
  RefineParams params_;
};

}  // namespace lbbench
