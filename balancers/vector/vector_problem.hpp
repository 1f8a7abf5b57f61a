// What the vector strategies share (Buch, "Vector Load Balancing"): each object's load is
// a vector of d components (the phases of a step, or resources), and the objective is the
// sum over components of the maximum over ranks, Σ_k max_r T_rk, where T_rk is rank r's
// load in component k divided by its speed.
#pragma once

#include <span>
#include <vector>

#include "balancers/sdk/centralized.hpp"

namespace lbbench {

// Components of the problem's load vectors: a scalar problem has one.
int vector_dims(const GlobalProblem& problem);

// A centralized strategy that is handed every object's load vector.
class VectorBalancer : public CentralizedBalancer {
 public:
  [[nodiscard]] bool needs_vectors() const final { return true; }
};

// The problem's load vectors as plain numbers: a scalar problem is one component.
class ObjectVectors {
 public:
  explicit ObjectVectors(const GlobalProblem& problem);
  [[nodiscard]] int dims() const { return dims_; }
  [[nodiscard]] std::size_t size() const { return values_.size() / static_cast<std::size_t>(dims_); }
  [[nodiscard]] std::span<const double> of(std::size_t object) const {
    return {values_.data() + object * static_cast<std::size_t>(dims_), static_cast<std::size_t>(dims_)};
  }
  [[nodiscard]] double at(std::size_t object, int k) const {
    return values_[object * static_cast<std::size_t>(dims_) + static_cast<std::size_t>(k)];
  }
  [[nodiscard]] double largest_component(std::size_t object) const;
  [[nodiscard]] int largest_dimension(std::size_t object) const;

 private:
  int dims_;
  std::vector<double> values_;  // seconds
};

// Each rank's background load per component (objects that never move), rank-major: ranks x
// dims seconds, zeros when there is none. A scalar background fills the first component.
std::vector<double> background_loads(const GlobalProblem& problem, int dims);

// Each rank's time per component (load / speed), background included, rank-major: ranks x dims.
std::vector<double> rank_vector_times(const GlobalProblem& problem, const Assignment& assignment);

// Σ_k max_r T_rk.
double vector_objective(const GlobalProblem& problem, const Assignment& assignment);

// A bound no mapping beats: per component, the larger of the average (total over the
// summed speeds) and the largest single object on the fastest rank, summed.
double vector_lower_bound(const GlobalProblem& problem);

// Σ_k max_r T_rk of given rank-major times.
double objective_of(std::span<const double> times, int dims);

}  // namespace lbbench
