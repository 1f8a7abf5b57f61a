// Vector refinement (see vector_refine.hpp).
//
// Loads are measured in units of each component's average time, u_rk, so a rank's
// overload is its largest u_rk and the limit is 1 + tolerance in every component.
//
// Scalar RefineLB moves work from ranks over the limit to ranks under it. With vectors
// that is often impossible: when phases are anti-correlated every rank is over the limit
// in some component, and the cure is an exchange, each side giving what it has too much
// of. So a move is judged by the potential Σ_r ||u_r||², which any exchange of that kind
// lowers: the most overloaded rank offers its objects, largest first in its worst
// component (fewest moves); the receiver is the rank whose ||u||² the object raises least
// (exactly, with the search tree of norm_search.hpp); the move is made when the potential
// drops. The potential falls with every move, so the loop ends; an object refused once
// is not offered again by that donor for the same worst component. A move may raise a
// component's maximum a little while it lowers another's more; should the objective end
// above where it started, the mapping is left as it was.
#include "balancers/vector/vector_refine.hpp"

#include <algorithm>
#include <queue>

#include "balancers/vector/norm.hpp"
#include "balancers/vector/norm_search.hpp"

namespace lbbench {

namespace {

// One donor's objects, largest first in the component it is worst in.
struct DonorQueue {
  int component = -1;
  std::vector<std::size_t> objects;
  std::size_t next = 0;  // those before have been moved or refused
};

}  // namespace

Assignment VectorRefineBalancer::solve(const GlobalProblem& problem) const {
  const ObjectVectors objects(problem);
  const int d = objects.dims();
  const auto du = static_cast<std::size_t>(d);
  const int p = problem.nranks;
  Assignment out = problem.owner;

  // Loads start at each rank's background (objects that never move).
  std::vector<double> load = background_loads(problem, d), average(du, 0.0);
  std::vector<std::vector<std::size_t>> objects_of(static_cast<std::size_t>(p));
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const auto r = static_cast<std::size_t>(out[i].value());
    objects_of[r].push_back(i);
    for (std::size_t k = 0; k < du; ++k) load[r * du + k] += objects.at(i, static_cast<int>(k));
  }
  double speed_sum = 0;
  for (int r = 0; r < p; ++r) speed_sum += problem.speed(r);
  for (std::size_t i = 0; i < load.size(); ++i) average[i % du] += load[i] / speed_sum;
  // A component no object uses cannot be out of balance.
  std::vector<double> per_average(du);
  for (std::size_t k = 0; k < du; ++k) per_average[k] = average[k] > 0 ? 1.0 / average[k] : 0.0;
  const std::vector<double> inv = inverse_speeds(problem);

  const double limit = 1.0 + params_.tolerance;
  const NormCost raise = NormCost::squared_increase(per_average);
  NormSearchTree tree(d, raise, load, inv);
  auto u = [&](int r, int k) {
    return tree.load(r)[static_cast<std::size_t>(k)] * inv[static_cast<std::size_t>(r)] *
           per_average[static_cast<std::size_t>(k)];
  };
  auto worst_component = [&](int r) {
    int worst = 0;
    for (int k = 1; k < d; ++k) {
      if (u(r, k) > u(r, worst)) worst = k;
    }
    return worst;
  };
  auto overload = [&](int r) { return u(r, worst_component(r)); };
  // How much giving x away lowers r's ||u||²: the raise it would cause, taken from r - x.
  std::vector<double> scratch(du);
  auto drop = [&](int r, std::span<const double> x) {
    const auto l = tree.load(r);
    for (std::size_t k = 0; k < du; ++k) scratch[k] = l[k] - x[k];
    return raise(scratch.data(), x, inv[static_cast<std::size_t>(r)]);
  };
  std::priority_queue<std::pair<double, int>> donors;
  for (int r = 0; r < p; ++r) {
    if (overload(r) > limit) donors.emplace(overload(r), r);
  }
  std::vector<DonorQueue> queues(static_cast<std::size_t>(p));
  while (!donors.empty()) {
    // Plain names, not a structured binding: clang before 16 cannot capture one.
    const double excess = donors.top().first;
    const int r = donors.top().second;
    donors.pop();
    if (excess != overload(r)) {  // r has received since: queue it at its current overload
      if (overload(r) > limit) donors.emplace(overload(r), r);
      continue;
    }
    DonorQueue& q = queues[static_cast<std::size_t>(r)];
    const int k = worst_component(r);
    if (q.component != k) {
      // Drop the objects r has given away since its list was last compacted.
      auto& mine = objects_of[static_cast<std::size_t>(r)];
      mine.erase(std::remove_if(mine.begin(), mine.end(), [&](std::size_t o) { return out[o] != Rank{r}; }),
                 mine.end());
      q = DonorQueue{k, mine, 0};
      std::sort(q.objects.begin(), q.objects.end(), [&](std::size_t a, std::size_t b) {
        const double xa = objects.at(a, k), xb = objects.at(b, k);
        return xa != xb ? xa > xb : problem.id[a] < problem.id[b];
      });
    }
    int receiver = -1;  // of the one object r gives away this turn
    for (; q.next < q.objects.size() && receiver < 0; ++q.next) {
      const std::size_t o = q.objects[q.next];
      if (out[o] != Rank{r} || objects.at(o, k) <= 0.0) continue;
      const auto x = objects.of(o);
      const int to = tree.best_rank(x);
      // A relative margin keeps rounding from ever passing for progress.
      if (to == r || !(tree.cost_of(to, x) < drop(r, x) * (1 - 1e-12))) continue;
      tree.add(r, x, -1.0);
      tree.add(to, x);
      out[o] = Rank{to};
      objects_of[static_cast<std::size_t>(to)].push_back(o);
      receiver = to;
    }
    if (receiver < 0) continue;  // nothing of r fits anywhere: r stays as it is
    if (overload(r) > limit) donors.emplace(overload(r), r);
    // A receiver may end over the limit (below where the donor was): it becomes a donor.
    if (overload(receiver) > limit) donors.emplace(overload(receiver), receiver);
  }
  // Lowering the potential almost always lowers the objective; where it did not, moving
  // nothing is the better refinement.
  return vector_objective(problem, out) <= vector_objective(problem, problem.owner) ? out : problem.owner;
}

}  // namespace lbbench
