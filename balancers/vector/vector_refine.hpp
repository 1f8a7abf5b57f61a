// Vector refinement: from the current mapping, move as few objects as it can until every
// rank is within a tolerance of the average in every component (the refinement strategy
// Buch plans, in the style of Charm++'s RefineLB).
#pragma once

#include "balancers/vector/vector_problem.hpp"
#include "core/config.hpp"

namespace lbbench {

struct VectorRefineParams {
  double tolerance = 0.05;  // a rank may carry up to (1 + tolerance) times the average, per component

  static VectorRefineParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"tolerance", tolerance}}; }
};

class VectorRefineBalancer final : public VectorBalancer {
 public:
  explicit VectorRefineBalancer(VectorRefineParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] Json params() const override { return params_.to_json(); }

 private:
  VectorRefineParams params_;
};

}  // namespace lbbench
