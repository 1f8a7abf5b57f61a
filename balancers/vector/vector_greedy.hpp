// Naive vector greedy (Buch): each object's largest component stands in for its load
// vector, and scalar greedy (LPT) places the objects on those scalars.
#pragma once

#include "balancers/vector/vector_problem.hpp"

namespace lbbench {

class VectorGreedyBalancer final : public VectorBalancer {
 public:
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
};

}  // namespace lbbench
