// Refinement in the style of Charm++'s RefineLB: move objects off overloaded ranks onto
// underloaded ones until every rank is within a tolerance of the average, moving as few
// objects as it can.
#pragma once

#include "balancers/centralized.hpp"
#include "core/config.hpp"

namespace lbbench {

struct RefineParams {
  double tolerance = 0.05;  // a rank may carry up to (1 + tolerance) times its fair share

  static RefineParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"tolerance", tolerance}}; }
};

class RefineBalancer final : public CentralizedBalancer {
 public:
  explicit RefineBalancer(RefineParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] Json params() const override { return params_.to_json(); }

 private:
  RefineParams params_;
};

}  // namespace lbbench
