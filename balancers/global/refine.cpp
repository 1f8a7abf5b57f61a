// Refinement in the style of Charm++'s RefineLB (see refine.hpp).
//
// Each rank's limit is (1 + tolerance) times its fair share (its speed's share of the
// total load). Repeatedly, the rank furthest over its limit gives away its largest object
// that fits under the limit of the rank with the most room; a donor whose objects all
// fit nowhere is left as it is. Taking the largest object that fits moves the fewest
// objects; receivers never exceed their limit, so they never become donors, and objects
// that stay never move. RefineLB scans every (object, receiver) pair of the heaviest
// donor; the rank with the most room admits the largest object any receiver admits, so
// the choice is the same, found with two heaps and a binary search.
#include "balancers/global/refine.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <queue>

namespace lbbench {

namespace {

// One donor's objects, heaviest first, with the ones given away skipped in O(1) amortized.
class DonorObjects {
 public:
  DonorObjects(std::vector<std::size_t> objects, const GlobalProblem& problem) : objects_(std::move(objects)) {
    std::sort(objects_.begin(), objects_.end(), [&](std::size_t a, std::size_t b) {
      return problem.load[a] != problem.load[b] ? problem.load[a] > problem.load[b] : problem.id[a] < problem.id[b];
    });
    next_.resize(objects_.size() + 1);
    std::iota(next_.begin(), next_.end(), std::size_t{0});
  }

  // Position of the heaviest remaining object with load <= room, or kNpos.
  std::size_t largest_fitting(double room, const GlobalProblem& problem) {
    // Loads are sorted descending: skip those larger than room.
    const auto first = std::partition_point(objects_.begin(), objects_.end(),
                                            [&](std::size_t o) { return problem.load[o].seconds() > room; });
    const std::size_t at = find(static_cast<std::size_t>(first - objects_.begin()));
    return at < objects_.size() ? at : kNpos;
  }

  [[nodiscard]] double load_at(std::size_t at, const GlobalProblem& problem) const {
    return problem.load[objects_[at]].seconds();
  }

  std::size_t take(std::size_t at) {
    next_[at] = at + 1;
    return objects_[at];
  }

  static constexpr std::size_t kNpos = static_cast<std::size_t>(-1);

 private:
  // The first position >= i not taken yet (union-find with path halving).
  std::size_t find(std::size_t i) {
    while (next_[i] != i) {
      next_[i] = next_[next_[i]];
      i = next_[i];
    }
    return i;
  }

  std::vector<std::size_t> objects_;
  std::vector<std::size_t> next_;
};

}  // namespace

Assignment RefineBalancer::solve(const GlobalProblem& problem) const {
  const int p = problem.nranks;
  Assignment out = problem.owner;
  // Loads start at each rank's background (objects that never move), which counts toward
  // its limit and toward the total the limits share.
  std::vector<double> load(static_cast<std::size_t>(p), 0.0);
  for (int r = 0; r < p; ++r) load[static_cast<std::size_t>(r)] = problem.background(r);
  std::vector<std::vector<std::size_t>> objects_of(static_cast<std::size_t>(p));
  for (std::size_t i = 0; i < problem.size(); ++i) {
    load[static_cast<std::size_t>(out[i].value())] += problem.load[i].seconds();
    objects_of[static_cast<std::size_t>(out[i].value())].push_back(i);
  }
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  double speed_sum = 0;
  for (int r = 0; r < p; ++r) speed_sum += problem.speed(r);
  std::vector<double> limit(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) limit[r] = (1.0 + params_.tolerance) * total * problem.speed(r) / speed_sum;

  // Donors by how far over their limit they are; receivers by how much room they have.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry> donors, receivers;
  for (int r = 0; r < p; ++r) {
    if (load[r] > limit[r])
      donors.emplace(load[r] - limit[r], r);
    else
      receivers.emplace(limit[r] - load[r], r);
  }
  std::vector<std::unique_ptr<DonorObjects>> donor_objects(static_cast<std::size_t>(p));
  while (!donors.empty() && !receivers.empty()) {
    const auto [excess, d] = donors.top();
    donors.pop();
    if (excess != load[d] - limit[d]) continue;  // stale entry
    const auto [room, rcv] = receivers.top();
    if (room != limit[rcv] - load[rcv]) {
      receivers.pop();
      receivers.emplace(limit[rcv] - load[rcv], rcv);
      donors.emplace(excess, d);
      continue;
    }
    auto& objects = donor_objects[d];
    if (!objects) objects = std::make_unique<DonorObjects>(std::move(objects_of[d]), problem);
    const std::size_t at = objects->largest_fitting(room, problem);
    // Nothing of d fits anywhere, or only weightless objects do: leave d as it is.
    if (at == DonorObjects::kNpos || objects->load_at(at, problem) <= 0.0) continue;
    const std::size_t object = objects->take(at);
    const double w = problem.load[object].seconds();
    out[object] = Rank{rcv};
    load[d] -= w;
    load[rcv] += w;
    receivers.pop();
    receivers.emplace(limit[rcv] - load[rcv], rcv);
    if (load[d] > limit[d]) donors.emplace(load[d] - limit[d], d);
  }
  return out;
}

}  // namespace lbbench
