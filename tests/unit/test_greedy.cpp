// Greedy LPT: invariants, the classic bounds, and optimality against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "balancers/global/greedy.hpp"
#include "core/hash.hpp"

namespace lbbench {
namespace {

GlobalProblem problem(const std::vector<double>& loads, int ranks, std::vector<double> speeds = {}) {
  GlobalProblem p;
  p.nranks = ranks;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    p.id.push_back(VertexId{static_cast<std::int64_t>(i)});
    p.load.push_back(Load(loads[i]));
    p.owner.push_back(Rank{0});
  }
  p.rank_speed = std::move(speeds);
  return p;
}

std::vector<double> random_loads(std::size_t n, std::uint64_t seed) {
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(0.1 + 10 * uniform01({seed, i}));
  return out;
}

TEST(Greedy, AssignsEveryObjectToAnExistingRankDeterministically) {
  const auto p = problem(random_loads(1000, 1), 7);
  const Assignment a = GreedyBalancer().solve(p);
  ASSERT_EQ(a.size(), 1000u);
  for (auto r : a) {
    EXPECT_GE(r.value(), 0);
    EXPECT_LT(r.value(), 7);
  }
  EXPECT_EQ(GreedyBalancer().solve(p), a);
}

TEST(Greedy, MeetsTheListSchedulingBounds) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto loads = random_loads(200 + seed * 37, seed);
    const int m = 2 + static_cast<int>(seed % 9);
    const auto p = problem(loads, m);
    const auto times = rank_times(p, GreedyBalancer().solve(p));
    const double makespan = *std::max_element(times.begin(), times.end());
    const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
    const double biggest = *std::max_element(loads.begin(), loads.end());
    EXPECT_NEAR(std::accumulate(times.begin(), times.end(), 0.0), total, 1e-9 * total) << "load is conserved";
    EXPECT_GE(makespan, std::max(total / m, biggest) - 1e-9);
    EXPECT_LE(makespan, total / m + (1.0 - 1.0 / m) * biggest + 1e-9);
  }
}

double optimal_makespan(const std::vector<double>& loads, int m) {
  std::vector<double> bins(static_cast<std::size_t>(m), 0.0);
  double best = 1e300;
  std::function<void(std::size_t)> go = [&](std::size_t i) {
    const double current = *std::max_element(bins.begin(), bins.end());
    if (current >= best) return;
    if (i == loads.size()) {
      best = current;
      return;
    }
    for (auto& b : bins) {
      b += loads[i];
      go(i + 1);
      b -= loads[i];
    }
  };
  go(0);
  return best;
}

TEST(Greedy, IsWithinGrahamsLptBoundOfTheOptimum) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    const auto loads = random_loads(9, 100 + seed);
    const int m = 2 + static_cast<int>(seed % 3);
    const auto p = problem(loads, m);
    const auto times = rank_times(p, GreedyBalancer().solve(p));
    const double lpt = *std::max_element(times.begin(), times.end());
    const double opt = optimal_makespan(loads, m);
    EXPECT_LE(lpt, (4.0 / 3.0 - 1.0 / (3.0 * m)) * opt + 1e-9) << "seed " << seed;
  }
}

TEST(Greedy, EqualObjectsBalancePerfectlyAndZeroLoadsSpreadEvenly) {
  const auto p = problem(std::vector<double>(60, 1.0), 4);
  const auto times = rank_times(p, GreedyBalancer().solve(p));
  for (double t : times) EXPECT_DOUBLE_EQ(t, 15.0);
  const auto zeros = problem(std::vector<double>(10, 0.0), 4);
  const Assignment a = GreedyBalancer().solve(zeros);
  std::vector<int> count(4, 0);
  for (auto r : a) ++count[static_cast<std::size_t>(r.value())];
  EXPECT_LE(*std::max_element(count.begin(), count.end()) - *std::min_element(count.begin(), count.end()), 1);
}

TEST(Greedy, AFasterRankTakesProportionallyMore) {
  const auto p = problem(std::vector<double>(300, 1.0), 2, {2.0, 1.0});
  const Assignment a = GreedyBalancer().solve(p);
  const auto on_fast = std::count(a.begin(), a.end(), Rank{0});
  EXPECT_NEAR(static_cast<double>(on_fast), 200.0, 1.0);
}

}  // namespace
}  // namespace lbbench
