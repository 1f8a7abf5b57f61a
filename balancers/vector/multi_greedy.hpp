// MultiGreedy (Buch): one min-heap of ranks per component; the object with the largest
// single component goes to the rank with the least load in that component.
#pragma once

#include "balancers/vector/vector_problem.hpp"

namespace lbbench {

class MultiGreedyBalancer final : public VectorBalancer {
 public:
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
};

}  // namespace lbbench
