// The rank reorder's planning (Keller, Majeed & Kessler): layouts, each method, the
// paper's worked example, and the exact solver against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {
namespace {

// The paper's example: 20 processes of load 4, 20 of load 2, 24 of load 1.
std::vector<double> paper_loads(int idle = 0) {
  std::vector<double> loads;
  loads.insert(loads.end(), 20, 4.0);
  loads.insert(loads.end(), 20, 2.0);
  loads.insert(loads.end(), 24, 1.0);
  loads.insert(loads.end(), static_cast<std::size_t>(idle), 0.0);
  return loads;
}

std::vector<int> counts(std::initializer_list<std::pair<int, int>> runs) {  // {processes, cores}
  std::vector<int> out;
  for (auto [processes, cores] : runs) out.insert(out.end(), static_cast<std::size_t>(cores), processes);
  return out;
}

bool is_permutation_of_ranks(const std::vector<int>& plan) {
  std::vector<int> sorted = plan;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int>(i)) return false;
  }
  return true;
}

double max_load_of(Method m, const std::vector<double>& loads, const SlotLayout& layout) {
  const auto plan = make_plan(m, loads, layout);
  EXPECT_TRUE(is_permutation_of_ranks(plan)) << method_name(m);
  return max_core_load(loads, layout, plan);
}

TEST(ReorderLayout, UnequalCoresFollowSection12) {
  // §1.2: 8 cores with 3 processes and 8 with 5. Core 0 holds ranks 0, 16, 32; core 8
  // holds 8, 24, 40, and rank 48 goes to its fourth process.
  const SlotLayout layout = layout_from_counts(counts({{5, 8}, {3, 8}}));
  ASSERT_EQ(layout.slots(), 64);
  ASSERT_EQ(layout.cores(), 16);
  for (int s : {0, 16, 32}) EXPECT_EQ(layout.core_of_slot[static_cast<std::size_t>(s)], 0);
  for (int s : {8, 24, 40, 48, 56}) EXPECT_EQ(layout.core_of_slot[static_cast<std::size_t>(s)], 8);
  EXPECT_EQ(layout.capacity.front(), 3);
  EXPECT_EQ(layout.capacity.back(), 5);
  // "The processes on core 0 will have highest load 10 = 4 + 4 + 2."
  const auto loads = paper_loads();
  const auto sums = core_loads(loads, layout, plan_identity(layout));
  EXPECT_DOUBLE_EQ(sums[0], 10.0);
  EXPECT_DOUBLE_EQ(*std::max_element(sums.begin(), sums.end()), 10.0);
}

TEST(ReorderLayout, CoreKeysRecoverTheRoundRobinOrder) {
  // Processes on three cores, keys scattered; the smallest core comes first, and each
  // core's processes take its slots in process order.
  const std::vector<std::int64_t> keys{70, 5, 70, 9, 5, 70, 9, 70};  // core 5: {1,4}, 9: {3,6}, 70: {0,2,5,7}
  const SlotLayout layout = layout_from_core_keys(keys);
  EXPECT_EQ(layout.capacity, (std::vector<int>{2, 2, 4}));
  EXPECT_EQ(layout.process_of_slot, (std::vector<int>{1, 3, 0, 4, 6, 2, 5, 7}));
  EXPECT_EQ(layout.core_of_slot, (std::vector<int>{0, 1, 2, 0, 1, 2, 2, 2}));
}

TEST(ReorderLayout, CoreLoadsAddTheLoadsPlacedOnEachCore) {
  const SlotLayout layout = layout_from_counts(std::vector<int>{2, 2});  // slots 0,2 on core 0; 1,3 on core 1
  const std::vector<double> loads{1, 10, 100, 1000};
  EXPECT_EQ(core_loads(loads, layout, std::vector<int>{3, 2, 1, 0}), (std::vector<double>{1010, 101}));
}

TEST(ReorderPaperExample, FourPerCore) {
  const auto loads = paper_loads();
  const SlotLayout layout = layout_from_counts(counts({{4, 16}}));
  EXPECT_DOUBLE_EQ(lower_bound(loads, layout), 10.0);  // the paper's pigeonhole argument
  // The ranks come sorted by load, so keeping them is already the round-robin.
  EXPECT_DOUBLE_EQ(max_load_of(Method::identity, loads, layout), 11.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::paper, loads, layout), 11.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::ours, loads, layout), 10.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::exact, loads, layout), 10.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::worst, loads, layout), 16.0);
}

TEST(ReorderPaperExample, DistributedVariantBehavesAsInFigure3) {
  // Round 1 places 16 of the 20 loads of 4, one per core; round 2 the other four and 12
  // loads of 2; so four cores end with 4 + 4 + 2 + 1 = 11, as in the paper's Fig. 3.
  const auto loads = paper_loads();
  const SlotLayout layout = layout_from_counts(counts({{4, 16}}));
  const auto plan = plan_dist(loads, layout, 6);
  ASSERT_TRUE(is_permutation_of_ranks(plan));
  for (int s = 0; s < 16; ++s) EXPECT_EQ(loads[static_cast<std::size_t>(plan[static_cast<std::size_t>(s)])], 4.0) << s;
  EXPECT_DOUBLE_EQ(max_core_load(loads, layout, plan), 11.0);
  EXPECT_EQ(plan_dist(loads, layout, 16), plan);  // finer levels split nothing more here
}

TEST(ReorderPaperExample, DistributedLevelsMatchThePaper) {
  // t = 6, l_a = 2.25: loads 4, 2, 1 give (0,0,0,1,1,1), (0,0,0,0,1,1), (0,0,0,0,0,1).
  EXPECT_EQ(dist_level_bits(4, 2.25, 6), (std::vector<int>{0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(dist_level_bits(2, 2.25, 6), (std::vector<int>{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(dist_level_bits(1, 2.25, 6), (std::vector<int>{0, 0, 0, 0, 0, 1, 1}));
  const std::vector<long long> sv{0, 0, 0, 20, 40, 64, 64};
  EXPECT_EQ(dist_level_for(sv, 16), 2);
  EXPECT_EQ(dist_level_for(sv, 32), 3);
  EXPECT_EQ(dist_level_for(sv, 64), 6);
  EXPECT_EQ(dist_level_for(std::vector<long long>{20, 64}, 16), -1);
  EXPECT_EQ(dist_levels_for(4, 2.25, 6), 6);
  EXPECT_EQ(dist_levels_for(100, 1, 6), 24);  // 100 > 2^3: doubled until 2^12 > 100
}

TEST(ReorderPaperExample, ThreeAndFivePerCore) {
  // §3, third experiment: the paper calls the heuristic's 10 optimal here, but 9 is
  // reachable: 3-process cores take 4+4+1, four 5-process cores 4+2+1+1+1, and four
  // 2+2+2+2+1. The exact solver finds it, and ours with its plateau exchanges (its swaps
  // alone stopped at 10, with {4,4,2} cores next to {4,2,2} ones); the paper's stops at 10.
  const auto loads = paper_loads();
  const SlotLayout layout = layout_from_counts(counts({{3, 8}, {5, 8}}));
  EXPECT_DOUBLE_EQ(max_load_of(Method::paper, loads, layout), 10.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::exact, loads, layout), 9.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::ours, loads, layout), 9.0);
  EXPECT_DOUBLE_EQ(max_load_of(Method::worst, loads, layout), 20.0);  // core 15 with five loads of 4
}

TEST(ReorderPaperExample, IdleProcessesLetTheOptimumReachTheAverage) {
  // §1.3: three idle processes (load 0) per core let an optimal balancer reach 144/16 = 9.
  const auto loads = paper_loads(48);
  const SlotLayout layout = layout_from_counts(counts({{7, 16}}));
  EXPECT_DOUBLE_EQ(max_load_of(Method::exact, loads, layout), 9.0);
  // ...and the anomaly: one idle process per core on the 3/5 machine gives the
  // round-robin 11, as with 4 per core, where it had 10 without them.
  const SlotLayout padded = layout_from_counts(counts({{4, 8}, {6, 8}}));
  EXPECT_DOUBLE_EQ(max_load_of(Method::paper, paper_loads(16), padded), 11.0);
}

double brute_force_optimum(const std::vector<double>& loads, const SlotLayout& layout) {
  std::vector<int> plan(loads.size());
  std::iota(plan.begin(), plan.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    best = std::min(best, max_core_load(loads, layout, plan));
  } while (std::next_permutation(plan.begin(), plan.end()));
  return best;
}

TEST(ReorderExact, MatchesBruteForceOnSmallInstances) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int cores = 2 + trial % 3;
    std::vector<int> per_core(static_cast<std::size_t>(cores));
    for (auto& c : per_core) c = 1 + static_cast<int>(rng() % 3);
    const SlotLayout layout = layout_from_counts(per_core);
    if (layout.slots() > 8) continue;
    std::vector<double> loads(static_cast<std::size_t>(layout.slots()));
    for (auto& x : loads)
      x = trial % 2 ? static_cast<double>(1 + rng() % 4) : std::uniform_real_distribution<>(0, 5)(rng);
    const double optimum = brute_force_optimum(loads, layout);
    EXPECT_NEAR(max_load_of(Method::exact, loads, layout), optimum, 1e-9) << "trial " << trial;
    EXPECT_LE(lower_bound(loads, layout), optimum + 1e-9) << "trial " << trial;
  }
}

// The optimum by dynamic programming over subsets: best[mask] is the least maximum core
// load with the loads in mask on the first k cores, where k is fixed by mask's size.
// Exponential in the loads, not factorial, so it checks instances brute force cannot.
double subset_optimum(const std::vector<double>& loads, const SlotLayout& layout) {
  const std::size_t n = loads.size();
  const std::uint32_t all = (1U << n) - 1;
  std::vector<double> sum_of(std::size_t{1} << n, 0.0);
  for (std::uint32_t mask = 1; mask <= all; ++mask) {
    const int low = std::countr_zero(mask);
    sum_of[mask] = sum_of[mask & (mask - 1)] + loads[static_cast<std::size_t>(low)];
  }
  const double unreached = std::numeric_limits<double>::infinity();
  std::vector<double> best(sum_of.size(), unreached);
  best[0] = 0;
  int placed = 0;
  for (int cap : layout.capacity) {
    std::vector<double> next(sum_of.size(), unreached);
    for (std::uint32_t mask = 0; mask <= all; ++mask) {
      if (best[mask] == unreached || std::popcount(mask) != placed) continue;
      const std::uint32_t free = all & ~mask;
      for (std::uint32_t sub = free; sub != 0; sub = (sub - 1) & free) {  // this core's loads
        if (std::popcount(sub) != cap) continue;
        next[mask | sub] = std::min(next[mask | sub], std::max(best[mask], sum_of[sub]));
      }
    }
    best = std::move(next);
    placed += cap;
  }
  return best[all];
}

// Bin completion, its symmetry breaking and its windows against an independent optimum,
// on instances with repeated values (where the count vectors and the order of equal cores
// matter) and with distinct ones (where the windows do).
TEST(ReorderExact, MatchesASubsetDynamicProgramOnMediumInstances) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<int> per_core(static_cast<std::size_t>(3 + trial % 3));
    for (auto& c : per_core) c = 1 + static_cast<int>(rng() % 5);
    const SlotLayout layout = layout_from_counts(per_core);
    if (layout.slots() > 13 || layout.slots() < 8) continue;
    std::vector<double> loads(static_cast<std::size_t>(layout.slots()));
    std::lognormal_distribution<> lognormal(0, 1);
    for (auto& x : loads) x = trial % 2 ? static_cast<double>(1 + rng() % 3) : lognormal(rng);
    const ExactResult r = search_exact(loads, layout, 100'000'000);
    EXPECT_TRUE(r.proven) << "trial " << trial;
    EXPECT_NEAR(max_core_load(loads, layout, r.plan), subset_optimum(loads, layout), 1e-9) << "trial " << trial;
  }
}

TEST(ReorderMethods, EveryPlanIsAPermutationAndRespectsTheBounds) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int> per_core(static_cast<std::size_t>(2 + trial % 5));
    for (auto& c : per_core) c = 2 + static_cast<int>(rng() % 4);
    const SlotLayout layout = layout_from_counts(per_core);
    std::vector<double> loads(static_cast<std::size_t>(layout.slots()));
    std::lognormal_distribution<> lognormal(0, 1);
    for (auto& x : loads) x = lognormal(rng);
    const double floor = lower_bound(loads, layout);
    const double exact = max_load_of(Method::exact, loads, layout);
    for (Method m : {Method::identity, Method::paper, Method::ours, Method::dist, Method::random, Method::worst}) {
      EXPECT_GE(max_load_of(m, loads, layout), exact - 1e-9) << method_name(m) << " trial " << trial;
    }
    EXPECT_GE(exact, floor - 1e-9);
    // Ours keeps the better of its LPT and the paper's round-robin, both improved.
    EXPECT_LE(max_load_of(Method::ours, loads, layout), max_load_of(Method::paper, loads, layout) + 1e-9);
    EXPECT_GE(max_load_of(Method::worst, loads, layout), max_load_of(Method::identity, loads, layout) - 1e-9);
  }
}

TEST(ReorderMethods, RandomDependsOnTheSeedOnly) {
  const auto loads = paper_loads();
  const SlotLayout layout = layout_from_counts(counts({{4, 16}}));
  PlanOptions a, b;
  b.seed = 2;
  EXPECT_EQ(make_plan(Method::random, loads, layout, a), make_plan(Method::random, loads, layout, a));
  EXPECT_NE(make_plan(Method::random, loads, layout, a), make_plan(Method::random, loads, layout, b));
}

TEST(ReorderMethods, BadInputIsNamed) {
  const SlotLayout layout = layout_from_counts(std::vector<int>{2, 2});
  EXPECT_THROW(make_plan(Method::paper, std::vector<double>{1, 2, 3}, layout), std::invalid_argument);
  EXPECT_THROW(make_plan(Method::paper, std::vector<double>{1, 2, -3, 4}, layout), std::invalid_argument);
  try {
    parse_method("exakt");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Did you mean 'exact'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_method("dist"), Method::dist);
}

// 1 + sqrt(i) on 3 and 5 processes per core: the cores of five slots hold at least the 20
// lightest loads, a quarter each, 3% above the average; with that bound the search proves
// its plan (it ran out of its 200M-node budget after 76 s before).
TEST(ReorderExact, TheCapacityBoundProvesTheSquareRootCase) {
  std::vector<double> loads;
  for (int i = 0; i < 32; ++i) loads.push_back(1 + std::sqrt(i));
  const SlotLayout layout = layout_from_counts(counts({{3, 4}, {5, 4}}));
  std::vector<double> sorted = loads;
  std::sort(sorted.begin(), sorted.end());
  const double twenty_lightest = std::accumulate(sorted.begin(), sorted.begin() + 20, 0.0);
  EXPECT_DOUBLE_EQ(lower_bound(loads, layout), twenty_lightest / 4);
  const ExactResult r = search_exact(loads, layout, 10'000'000);
  EXPECT_TRUE(r.proven);
  EXPECT_LT(r.nodes, 10'000'000);
  EXPECT_LT(max_core_load(loads, layout, r.plan), 19.303);
  EXPECT_GE(max_core_load(loads, layout, r.plan), r.lower_bound);
}

// Issue: 32 log-normal loads on 3 and 5 processes per core used to exhaust a 200M-node
// budget in half the seeds, where no load dominates and the bound is the mean. Bin
// completion with the failed-state table proves every seed here within 1M nodes.
TEST(ReorderExact, ThirtyTwoLogNormalLoadsOnThreeAndFivePerCoreAreProven) {
  const SlotLayout layout = layout_from_counts(counts({{3, 4}, {5, 4}}));
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    std::lognormal_distribution<> lognormal(0, 1);
    std::vector<double> loads(32);
    for (auto& x : loads) x = lognormal(rng);
    const ExactResult r = search_exact(loads, layout, 1'000'000);
    EXPECT_TRUE(r.proven) << "seed " << seed << " after " << r.nodes << " nodes";
    const double found = max_core_load(loads, layout, r.plan);
    EXPECT_GE(found, r.lower_bound - 1e-9) << "seed " << seed;
    EXPECT_LE(found, max_core_load(loads, layout, plan_ours(loads, layout)) + 1e-9) << "seed " << seed;
  }
}

TEST(ReorderMethods, AnExhaustedExactSearchKeepsItsBestPlanAndSaysSo) {
  // 1 + sqrt(i) on 3 and 5 processes per core, with too small a budget.
  std::vector<double> loads;
  for (int i = 0; i < 32; ++i) loads.push_back(1 + std::sqrt(i));
  const SlotLayout layout = layout_from_counts(counts({{3, 4}, {5, 4}}));
  const ExactResult r = search_exact(loads, layout, 1000);
  EXPECT_FALSE(r.proven);
  EXPECT_GT(r.nodes, 1000);
  std::vector<int> ranks = r.plan;
  std::sort(ranks.begin(), ranks.end());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(ranks[static_cast<std::size_t>(i)], i) << "a permutation";
  const double found = max_core_load(loads, layout, r.plan);
  EXPECT_GE(found, r.lower_bound);
  EXPECT_LE(found, max_core_load(loads, layout, plan_ours(loads, layout)));
  EXPECT_TRUE(search_exact(paper_loads(), layout_from_counts(counts({{3, 8}, {5, 8}})), 1000).proven);
}

}  // namespace
}  // namespace lbbench::reorder
