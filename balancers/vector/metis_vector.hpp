// METIS multi-constraint partitioning (Buch's METISLB): one vertex weight per load
// component (ncon = d) and one allowed imbalance per component (ubvec), on the edgeless
// graph as in the slides or on the full communication graph.
#pragma once

#include "balancers/vector/vector_problem.hpp"
#include "core/config.hpp"

namespace lbbench {

struct MetisVectorParams {
  bool full_graph = false;          // graph: none (objects only) or full (edges weighted by bytes)
  std::vector<double> ubvec{1.05};  // one value for every component, or one per component
  std::int64_t seed = 1;

  static MetisVectorParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
};

class MetisVectorBalancer final : public VectorBalancer {
 public:
  explicit MetisVectorBalancer(MetisVectorParams params) : params_(std::move(params)) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] bool needs_graph() const override { return params_.full_graph; }
  [[nodiscard]] Json params() const override { return params_.to_json(); }
  void check_dims(int dims) const override;

 private:
  MetisVectorParams params_;
};

}  // namespace lbbench
