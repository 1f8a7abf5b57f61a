// Vector refinement: from the current mapping, move as few objects as it can until every
// rank is within a tolerance of the average in every component (the refinement strategy
// Buch plans, in the style of Charm++'s RefineLB).
#pragma once

#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_problem.hpp"

namespace lbbench {

class VectorRefineBalancer final : public VectorBalancer {
 public:
  explicit VectorRefineBalancer(VectorRefineParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;

 private:
  VectorRefineParams params_;
};

}  // namespace lbbench
