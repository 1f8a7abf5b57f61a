// MultiGreedy (see multi_greedy.hpp). The slides keep objects in a max-heap; sorting them
// once by their largest component gives the same order. A placement raises the rank's
// load in every component the object has, so each of the d heaps is indexed and the
// rank sifts down in each where its key grew. Keys are time (load / speed); ties go to
// the lowest rank.
#include "balancers/vector/multi_greedy.hpp"

#include <algorithm>
#include <numeric>

namespace lbbench {

namespace {

// A binary min-heap of ranks by (key, rank) whose keys only grow.
class RankHeap {
 public:
  explicit RankHeap(int ranks)
      : heap_(static_cast<std::size_t>(ranks)),
        at_(static_cast<std::size_t>(ranks)),
        key_(static_cast<std::size_t>(ranks), 0.0) {
    std::iota(heap_.begin(), heap_.end(), 0);
    std::iota(at_.begin(), at_.end(), std::size_t{0});
  }
  [[nodiscard]] int top() const { return heap_.front(); }
  void raise(int rank, double key) {
    key_[static_cast<std::size_t>(rank)] = key;
    sift_down(at_[static_cast<std::size_t>(rank)]);
  }

 private:
  [[nodiscard]] bool before(int a, int b) const {
    const double ka = key_[static_cast<std::size_t>(a)], kb = key_[static_cast<std::size_t>(b)];
    return ka < kb || (ka == kb && a < b);
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t smallest = i;
      for (const std::size_t c : {2 * i + 1, 2 * i + 2}) {
        if (c < n && before(heap_[c], heap_[smallest])) smallest = c;
      }
      if (smallest == i) return;
      std::swap(heap_[i], heap_[smallest]);
      at_[static_cast<std::size_t>(heap_[i])] = i;
      at_[static_cast<std::size_t>(heap_[smallest])] = smallest;
      i = smallest;
    }
  }
  std::vector<int> heap_;
  std::vector<std::size_t> at_;
  std::vector<double> key_;
};

}  // namespace

Assignment MultiGreedyBalancer::solve(const GlobalProblem& problem) const {
  const ObjectVectors objects(problem);
  const int d = objects.dims();
  const int p = problem.nranks;
  std::vector<std::size_t> order(objects.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<double> largest(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) largest[i] = objects.largest_component(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return largest[a] != largest[b] ? largest[a] > largest[b] : problem.id[a] < problem.id[b];
  });
  std::vector<RankHeap> heaps(static_cast<std::size_t>(d), RankHeap(p));
  std::vector<double> load = background_loads(problem, d);  // objects that never move
  for (int r = 0; r < p; ++r) {
    for (int j = 0; j < d; ++j) {
      const double l = load[static_cast<std::size_t>(r) * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)];
      if (l > 0) heaps[static_cast<std::size_t>(j)].raise(r, l / problem.speed(r));
    }
  }
  Assignment out(objects.size(), Rank{0});
  for (const std::size_t i : order) {
    const int k = objects.largest_dimension(i);
    const int r = heaps[static_cast<std::size_t>(k)].top();
    out[i] = Rank{r};
    for (int j = 0; j < d; ++j) {
      const double x = objects.at(i, j);
      if (x == 0.0) continue;
      double& l = load[static_cast<std::size_t>(r) * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)];
      l += x;
      heaps[static_cast<std::size_t>(j)].raise(r, l / problem.speed(r));
    }
  }
  return out;
}

}  // namespace lbbench
