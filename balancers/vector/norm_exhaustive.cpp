// Norm by exhaustive scan (see norm_exhaustive.hpp).
#include "balancers/vector/norm_exhaustive.hpp"

namespace lbbench {

Assignment NormExhaustiveBalancer::solve(const GlobalProblem& problem) const {
  const ObjectVectors objects(problem);
  const NormCost cost(params_.p);
  const auto d = static_cast<std::size_t>(objects.dims());
  const std::vector<double> inv = inverse_speeds(problem);
  std::vector<double> load = background_loads(problem, objects.dims());  // objects that never move
  Assignment out(objects.size(), Rank{0});
  for (const std::size_t i : by_decreasing_norm(problem, objects, cost)) {
    const auto x = objects.of(i);
    const int r = best_rank_exhaustive(cost, load, inv, x);
    out[i] = Rank{r};
    for (std::size_t k = 0; k < d; ++k) load[static_cast<std::size_t>(r) * d + k] += x[k];
  }
  return out;
}

}  // namespace lbbench
