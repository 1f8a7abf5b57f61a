// Norm strategies (Buch's NormLB): objects in decreasing order of their load vector's
// p-norm, each onto the rank whose load vector has the smallest p-norm after taking it.
// `norm` finds that rank with an exact pruned search (norm_search.hpp); `norm-exhaustive`
// scans every rank, the Θ(ranks × objects) reference. Both give the same mapping.
#pragma once

#include "balancers/vector/norm_search.hpp"
#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_problem.hpp"

namespace lbbench {

// Objects in the order Norm places them: decreasing p-norm, then increasing id.
std::vector<std::size_t> by_decreasing_norm(const GlobalProblem& problem, const ObjectVectors& objects,
                                            const NormCost& cost);
// 1 / speed of every rank.
std::vector<double> inverse_speeds(const GlobalProblem& problem);

class NormBalancer final : public VectorBalancer {
 public:
  explicit NormBalancer(NormParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  // The same, counting how many rank costs the search evaluated.
  Assignment solve_counting(const GlobalProblem& problem, std::int64_t* evaluations) const;

 private:
  NormParams params_;
};

}  // namespace lbbench
