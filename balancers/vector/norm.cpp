// Norm with the exact pruned search (see norm.hpp and norm_search.hpp).
#include "balancers/vector/norm.hpp"

#include <algorithm>
#include <bit>
#include <boost/sort/spreadsort/integer_sort.hpp>
#include <cstdint>
#include <span>

namespace lbbench {

std::vector<std::size_t> by_decreasing_norm(const GlobalProblem& problem, const ObjectVectors& objects,
                                            const NormCost& cost) {
  // Sorting the keys themselves, not indices into them: at 10^6 objects an indirect
  // comparison misses the cache on nearly every read. The size is a cost, never negative,
  // so its bits order as it does; inverted, they order it largest first, for a radix sort
  // (Boost's spreadsort), quicker than std::sort on the doubles. Equal sizes go by id,
  // through the comparison.
  struct Key {
    std::uint64_t order = 0;  // ~bits(size)
    VertexId id;
    std::size_t object = 0;
  };
  const std::vector<double> zero(static_cast<std::size_t>(objects.dims()), 0.0);
  std::vector<Key> keys(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const double size = cost(zero.data(), objects.of(i), 1.0) + 0.0;  // + 0.0: no -0 bits
    keys[i] = {~std::bit_cast<std::uint64_t>(size), problem.id[i], i};
  }
  boost::sort::spreadsort::integer_sort(
      keys.begin(), keys.end(), [](const Key& k, unsigned offset) { return k.order >> offset; },
      [](const Key& a, const Key& b) { return a.order != b.order ? a.order < b.order : a.id < b.id; });
  std::vector<std::size_t> order(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) order[j] = keys[j].object;
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
  const std::vector<std::size_t> order = by_decreasing_norm(problem, objects, cost);
  // The vectors side by side in the order they are placed, copied in one pass whose
  // reads overlap; read in that order where they lie, nearly every one misses the cache.
  const auto d = static_cast<std::size_t>(objects.dims());
  std::vector<double> queue(order.size() * d);
  for (std::size_t j = 0; j < order.size(); ++j) std::ranges::copy(objects.of(order[j]), queue.begin() + j * d);
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::span<const double> x(queue.data() + j * d, d);
    const int r = tree.best_rank(x);
    out[order[j]] = Rank{r};
    tree.add(r, x);
  }
  if (evaluations) *evaluations = tree.evaluations();
  return out;
}

}  // namespace lbbench
