// Naive vector greedy (see vector_greedy.hpp). The slides describe it as converting the
// vector problem into a scalar one that any scalar strategy can then solve; this is that
// conversion followed by our greedy, so a rank's key is the sum of its objects' largest
// components, not the largest component of its summed vector.
#include "balancers/vector/vector_greedy.hpp"

#include <algorithm>

#include "balancers/global/greedy.hpp"

namespace lbbench {

Assignment VectorGreedyBalancer::solve(const GlobalProblem& problem) const {
  const ObjectVectors objects(problem);
  GlobalProblem scalar;
  scalar.nranks = problem.nranks;
  scalar.id = problem.id;
  scalar.owner = problem.owner;
  scalar.rank_speed = problem.rank_speed;
  if (problem.has_background()) {  // a rank's background converts as an object's load does
    const int d = objects.dims();
    const std::vector<double> background = background_loads(problem, d);
    for (int r = 0; r < problem.nranks; ++r) {
      const auto first = background.begin() + static_cast<std::ptrdiff_t>(r) * d;
      scalar.rank_background.emplace_back(*std::max_element(first, first + d));
    }
  }
  scalar.load.reserve(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) scalar.load.emplace_back(objects.largest_component(i));
  return GreedyBalancer().solve(scalar);
}

}  // namespace lbbench
