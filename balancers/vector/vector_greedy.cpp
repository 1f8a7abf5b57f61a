// Naive vector greedy (see vector_greedy.hpp). The slides describe it as converting the
// vector problem into a scalar one that any scalar strategy can then solve; this is that
// conversion followed by our greedy, so a rank's key is the sum of its objects' largest
// components, not the largest component of its summed vector.
#include "balancers/vector/vector_greedy.hpp"

#include "balancers/global/greedy.hpp"

namespace lbbench {

Assignment VectorGreedyBalancer::solve(const GlobalProblem& problem) const {
  const ObjectVectors objects(problem);
  GlobalProblem scalar;
  scalar.nranks = problem.nranks;
  scalar.id = problem.id;
  scalar.owner = problem.owner;
  scalar.rank_speed = problem.rank_speed;
  scalar.load.reserve(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) scalar.load.emplace_back(objects.largest_component(i));
  return GreedyBalancer().solve(scalar);
}

}  // namespace lbbench
