// The Norm strategy with the exhaustive scan over ranks: Θ(ranks × objects), the
// reference `norm` must match exactly (see norm.hpp).
#pragma once

#include "balancers/vector/norm.hpp"
#include "balancers/vector/params.hpp"

namespace lbbench {

class NormExhaustiveBalancer final : public VectorBalancer {
 public:
  explicit NormExhaustiveBalancer(NormParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;

 private:
  NormParams params_;
};

}  // namespace lbbench
