// Greedy LPT (Charm++'s GreedyLB): heaviest object first onto the least-loaded rank.
//
// Objects that weigh nothing (measured at zero, as Pearce et al.'s `omit` error makes some)
// would all land on the one least-loaded rank, since adding nothing leaves it the least
// loaded: they are dealt out last, each to the rank holding the fewest objects, so they
// spread evenly. Among ranks with equal load (time), the one holding fewer objects wins.
// Equal objects are taken in global id order, so the result is deterministic. With rank speeds,
// "least loaded" compares load / speed, as Charm++ does for heterogeneous processors, and
// a rank's load starts at its background (objects that never move), as GreedyLB's does.
#include "balancers/global/greedy.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <span>
#include <tuple>

namespace lbbench {
namespace {

struct Slot {
  double time;  // assigned load / speed
  std::int64_t objects;
  int rank;
  double load;
};

// Each weightless object to the rank holding the fewest objects, then the least loaded.
void deal_out_weightless(std::span<const std::size_t> weightless, std::vector<Slot> slots, Assignment& out) {
  auto more = [](const Slot& a, const Slot& b) {
    return std::tie(a.objects, a.time, a.rank) > std::tie(b.objects, b.time, b.rank);
  };
  std::priority_queue<Slot, std::vector<Slot>, decltype(more)> heap(more, std::move(slots));
  for (const std::size_t i : weightless) {
    Slot s = heap.top();
    heap.pop();
    out[i] = Rank{s.rank};
    ++s.objects;
    heap.push(s);
  }
}

}  // namespace

Assignment GreedyBalancer::solve(const GlobalProblem& problem) const {
  const std::size_t n = problem.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (problem.load[a] != problem.load[b]) return problem.load[a] > problem.load[b];
    return problem.id[a] < problem.id[b];
  });

  auto later = [](const Slot& a, const Slot& b) {
    return std::tie(a.time, a.objects, a.rank) > std::tie(b.time, b.objects, b.rank);
  };
  std::priority_queue<Slot, std::vector<Slot>, decltype(later)> heap(later);
  // A rank starts with its background load (objects that never move).
  for (int r = 0; r < problem.nranks; ++r) {
    const double background = problem.background(r);
    heap.push({background / problem.speed(r), 0, r, background});
  }

  Assignment out(n, Rank{0});
  std::size_t next = 0;  // position in order; the weightless come last
  for (; next < n && problem.load[order[next]].seconds() > 0; ++next) {
    Slot s = heap.top();
    heap.pop();
    out[order[next]] = Rank{s.rank};
    s.load += problem.load[order[next]].seconds();
    s.time = s.load / problem.speed(s.rank);
    ++s.objects;
    heap.push(s);
  }
  std::vector<Slot> slots;
  slots.reserve(static_cast<std::size_t>(problem.nranks));
  for (; !heap.empty(); heap.pop()) slots.push_back(heap.top());
  deal_out_weightless(std::span(order).subspan(next), std::move(slots), out);
  return out;
}

}  // namespace lbbench
