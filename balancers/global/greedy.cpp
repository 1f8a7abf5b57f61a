// Greedy LPT (Charm++'s GreedyLB): heaviest object first onto the least-loaded rank.
//
// Ties matter at scale: among ranks with equal load (time), the one holding fewer objects
// wins, so zero-load objects are dealt out evenly instead of piling onto rank 0. Equal
// objects are taken in global id order, so the result is deterministic. With rank speeds,
// "least loaded" compares load / speed, as Charm++ does for heterogeneous processors.
#include "balancers/global/greedy.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

namespace lbbench {

Assignment GreedyBalancer::solve(const GlobalProblem& problem) const {
  const std::size_t n = problem.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (problem.load[a] != problem.load[b]) return problem.load[a] > problem.load[b];
    return problem.id[a] < problem.id[b];
  });

  struct Slot {
    double time;  // assigned load / speed
    std::int64_t objects;
    int rank;
    double load;
  };
  auto later = [](const Slot& a, const Slot& b) {
    return std::tie(a.time, a.objects, a.rank) > std::tie(b.time, b.objects, b.rank);
  };
  std::priority_queue<Slot, std::vector<Slot>, decltype(later)> heap(later);
  for (int r = 0; r < problem.nranks; ++r) heap.push({0.0, 0, r, 0.0});

  Assignment out(n, Rank{0});
  for (std::size_t i : order) {
    Slot s = heap.top();
    heap.pop();
    out[i] = Rank{s.rank};
    s.load += problem.load[i].seconds();
    s.time = s.load / problem.speed(s.rank);
    ++s.objects;
    heap.push(s);
  }
  return out;
}

}  // namespace lbbench
