// METIS multi-constraint partitioning (Buch's METISLB): one vertex weight per load
// component (ncon = d) and one allowed imbalance per component (ubvec), on the edgeless
// graph as in the slides or on the full communication graph.
#pragma once

#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_problem.hpp"

namespace lbbench {

class MetisVectorBalancer final : public VectorBalancer {
 public:
  explicit MetisVectorBalancer(MetisVectorParams params) : params_(std::move(params)) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] bool needs_graph() const override { return params_.full_graph; }

 private:
  MetisVectorParams params_;
};

}  // namespace lbbench
