// Norm with the exact pruned search (see norm.hpp and norm_search.hpp).
#include "balancers/vector/norm.hpp"

#include <algorithm>
#include <numeric>

namespace lbbench {

std::vector<std::size_t> by_decreasing_norm(const GlobalProblem& problem, const ObjectVectors& objects,
                                            const NormCost& cost) {
  const std::vector<double> zero(static_cast<std::size_t>(objects.dims()), 0.0);
  std::vector<double> size(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) size[i] = cost(zero.data(), objects.of(i), 1.0);
  std::vector<std::size_t> order(objects.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return size[a] != size[b] ? size[a] > size[b] : problem.id[a] < problem.id[b];
  });
  return order;
}

std::vector<double> inverse_speeds(const GlobalProblem& problem) {
  std::vector<double> inv(static_cast<std::size_t>(problem.nranks));
  for (int r = 0; r < problem.nranks; ++r) inv[static_cast<std::size_t>(r)] = 1.0 / problem.speed(r);
  return inv;
}

Assignment NormBalancer::solve(const GlobalProblem& problem) const { return solve_counting(problem, nullptr); }

Assignment NormBalancer::solve_counting(const GlobalProblem& problem, std::int64_t* evaluations) const {
  const ObjectVectors objects(problem);
  const NormCost cost(params_.p);
  NormSearchTree tree(objects.dims(), cost, background_loads(problem, objects.dims()), inverse_speeds(problem));
  Assignment out(objects.size(), Rank{0});
  for (const std::size_t i : by_decreasing_norm(problem, objects, cost)) {
    const int r = tree.best_rank(objects.of(i));
    out[i] = Rank{r};
    tree.add(r, objects.of(i));
  }
  if (evaluations) *evaluations = tree.evaluations();
  return out;
}

}  // namespace lbbench
