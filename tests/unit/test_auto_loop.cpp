// auto's closed loop (balancers/model/auto/loop.hpp) against small worlds whose calls
// deliver and cost what the test says.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/global/greedy.hpp"
#include "balancers/global/metis.hpp"
#include "balancers/model/auto/loop.hpp"
#include "balancers/model/auto/pricing.hpp"
#include "balancers/model/auto/sampling.hpp"
#include "balancers/tree/tree.hpp"

namespace lbbench {
namespace {

NetworkFacts test_network() {
  NetworkFacts net;
  net.link_latency_s = 2e-6;
  net.link_bandwidth_Bps = 2e9;
  net.far_message_s = 5e-6;
  net.allreduce_s = 2e-5;
  net.receive_overhead_s = 1e-6;
  net.call_collectives = 12;
  return net;
}

// A point whose loads since the last call have `imbalance_s`, and `unmoved_s` where they
// stay on the ranks that held them before it.
PointObservation point(double imbalance_s, int steps_left, std::optional<double> last_cost = std::nullopt,
                       std::optional<double> unmoved_s = std::nullopt) {
  return {.nranks = 64,
          .objects = 64 * 500,
          .max_load_s = 0.020 + imbalance_s,
          .mean_load_s = 0.020,
          .max_rank_load_s = 0.020 + imbalance_s,
          .unmoved_max_load_s = unmoved_s ? 0.020 + *unmoved_s : 0.0,
          .steps_to_next = 10,
          .steps_left = steps_left,
          .last_call_cost_s = last_cost};
}

// A world of `points` LB points 10 steps apart. Each point sees the mean imbalance of the
// windows since the last call, as the engines show it, and what it would have been without
// that call. Without a call the next window's imbalance is `drift(last)`; a call turns that
// into what `respond(candidate, it)` leaves, at its cost.
struct World {
  double start_imbalance_s = 0.010;
  std::function<std::pair<double, double>(std::size_t, double)> respond;
  std::function<double(double)> drift = [](double i) { return i; };
};

struct Played {
  std::vector<std::optional<std::size_t>> choices;
  double spent_s = 0;      // every call's cost
  double none_loss_s = 0;  // what imbalance cost under none, window by window
  double auto_loss_s = 0;  // what it cost under the choices
  double largest_cost_s = 0;
};

Played play(ClosedLoop& loop, const World& w, int points) {
  Played p;
  double actual = w.start_imbalance_s;   // the last window's imbalance
  double unmoved = w.start_imbalance_s;  // ... had the last call not been made
  double with_none = w.start_imbalance_s;
  double actual_sum = 10 * actual;  // over the windows since the last call (or the start)
  double unmoved_sum = 10 * unmoved;
  int steps = 10;
  bool called = false;
  std::optional<double> last_cost;
  for (int k = 0; k < points;) {
    const LoopChoice c = loop.decide(point(actual_sum / steps, 10 * (points - k), last_cost,
                                           called ? std::optional<double>(unmoved_sum / steps) : std::nullopt),
                                     test_network());
    p.choices.push_back(c.candidate);
    last_cost.reset();
    double next = w.drift(actual);
    double next_unmoved = c.candidate ? next : w.drift(unmoved);
    if (c.candidate) {
      const auto [left, cost] = w.respond(*c.candidate, next);
      next = left;
      last_cost = cost;
      p.spent_s += cost;
      p.largest_cost_s = std::max(p.largest_cost_s, cost);
      called = true;
      actual_sum = unmoved_sum = 0;
      steps = 0;
    }
    // The points the choice skips: their windows go by as they would without a call.
    for (int window = 0; window <= c.points_to_skip && k < points; ++window, ++k) {
      if (window > 0) {
        next = w.drift(next);
        next_unmoved = w.drift(next_unmoved);
        p.choices.push_back(std::nullopt);
      }
      with_none = w.drift(with_none);
      p.auto_loss_s += 10 * next;
      p.none_loss_s += 10 * with_none;
      actual_sum += 10 * next;
      unmoved_sum += 10 * next_unmoved;
      steps += 10;
    }
    actual = next;
    unmoved = next_unmoved;
  }
  return p;
}

// A fast hot spot: the imbalance is back after every window. Candidate 0 (tree, cheap)
// removes 30% of it, candidate 1 (greedy, dearer) 95%; both pay.
World fast_hot_spot() {
  World w;
  w.respond = [](std::size_t c, double before) {
    return c == 0 ? std::pair{0.7 * before, 0.002} : std::pair{0.05 * before, 0.010};
  };
  w.drift = [](double) { return 0.010; };
  return w;
}

TEST(AutoLoop, BalancesOnceWhereLoadsStay) {
  ClosedLoop loop({{"none", CandidateShape{}}, {"tree", CandidateShape{}}}, 0.02);
  World w;
  w.respond = [](std::size_t, double) { return std::pair{0.0005, 0.005}; };
  const Played p = play(loop, w, 8);
  ASSERT_EQ(p.choices.size(), 8U);
  EXPECT_EQ(p.choices[0], std::optional<std::size_t>(1));
  for (std::size_t k = 1; k < p.choices.size(); ++k) EXPECT_FALSE(p.choices[k]) << "point " << k;
  const Learned& tree = loop.learned(1);
  EXPECT_EQ(tree.calls, 1);
  EXPECT_NEAR(tree.correction(), 0.95, 1e-9);
  EXPECT_LT(p.auto_loss_s + p.spent_s, 0.2 * p.none_loss_s);
}

TEST(AutoLoop, StopsWhereCallsDeliverNothingAndLosesAtMostItsBudgetAndOneSurprise) {
  // Regridding faster than balancing pays: whatever a call does, the next window shows the
  // same imbalance. Each call costs far more than its floor, and more than half the budget.
  ClosedLoop loop({{"none", CandidateShape{}},
                   {"tree", CandidateShape{}},
                   {"diffusion", CandidateShape{}},
                   {"gossip", CandidateShape{}},
                   {"greedy", CandidateShape{.centralized = true}}},
                  0.02);
  World w;
  w.respond = [](std::size_t, double before) { return std::pair{before, 0.1}; };
  const Played p = play(loop, w, 30);
  const double overrun = p.auto_loss_s + p.spent_s - p.none_loss_s;
  EXPECT_GT(p.spent_s, 0) << "it tried";
  EXPECT_LE(overrun, loop.budget_s() + p.largest_cost_s);
  for (std::size_t k = 20; k < p.choices.size(); ++k) EXPECT_FALSE(p.choices[k]) << "point " << k;
  EXPECT_LT(loop.bank_s(), loop.budget_s());
}

TEST(AutoLoop, PrefersTheCandidateThatDeliveredMore) {
  ClosedLoop loop({{"tree", CandidateShape{}}, {"greedy", CandidateShape{.centralized = true}}}, 0.05);
  const World w = fast_hot_spot();
  const Played p = play(loop, w, 20);
  ASSERT_TRUE(p.choices[0]);
  EXPECT_EQ(*p.choices[0], 0U) << "the cheaper floor is tried first";
  EXPECT_EQ(loop.learned(0).calls, 1);
  EXPECT_NEAR(loop.learned(0).correction(), 0.3, 1e-9);
  // Once it has tried both, greedy: every call is greedy's, and one comes at least every
  // other point (the window right after a call shows the imbalance gone).
  for (std::size_t k = 5; k < p.choices.size(); ++k) {
    if (p.choices[k]) {
      EXPECT_EQ(*p.choices[k], 1U) << k;
    }
    if (k + 1 < p.choices.size()) {
      EXPECT_TRUE(p.choices[k] || p.choices[k + 1]) << k;
    }
  }
  EXPECT_GT(loop.learned(1).correction(), 0.9);
  EXPECT_LT(p.auto_loss_s + p.spent_s, 0.6 * p.none_loss_s);
}

TEST(AutoLoop, ValuesAnUntriedCandidateAtTheShareOfTheSamplesImbalanceItRemoved) {
  // The same hot spot, with the sample's word on what each removes: greedy is tried first
  // although tree is cheaper.
  ClosedLoop loop({{"tree", CandidateShape{.share_removed = 0.3}},
                   {"greedy", CandidateShape{.centralized = true, .share_removed = 0.95}}},
                  0.05);
  EXPECT_DOUBLE_EQ(loop.learned(0).correction(), 0.3) << "untried: the sample's share";
  const World w = fast_hot_spot();
  const Played p = play(loop, w, 20);
  ASSERT_TRUE(p.choices[0]);
  EXPECT_EQ(*p.choices[0], 1U);
  EXPECT_LE(loop.learned(0).calls, 1);
  for (std::size_t k = 2; k < p.choices.size(); ++k) {
    if (p.choices[k]) {
      EXPECT_EQ(*p.choices[k], 1U) << k;
    }
  }
}

// Two candidates the sample values at 0.8 and 1.0. Whichever is called first, its window
// after the call delivers `share` of what its own prior promised.
struct FirstCall {
  ClosedLoop loop{{{"tree", CandidateShape{.share_removed = 0.8}}, {"greedy", CandidateShape{.share_removed = 1.0}}},
                  0.05};
  std::size_t first = 0;
  LoopChoice next;
  explicit FirstCall(double share) {
    const std::optional<std::size_t> called = loop.decide(point(0.010, 100), test_network()).candidate;
    EXPECT_TRUE(called);
    first = called.value_or(0);
    const double delivered = share * loop.learned(first).prior * 0.010;
    next = loop.decide(point(0.010 - delivered, 90, 0.001, 0.010), test_network());
  }
  [[nodiscard]] std::size_t other() const { return 1 - first; }
  [[nodiscard]] const char* other_name() const { return other() == 0 ? "tree" : "greedy"; }
};

TEST(AutoLoop, DiscountsAnUntriedCandidateByWhatTheWorkloadLetATriedOneDeliver) {
  // The loads the call balanced moved on before the window ended: what held back the first
  // call holds back any, so the other candidate is not tried on the sample's word alone.
  FirstCall nothing(0.0);
  EXPECT_DOUBLE_EQ(nothing.next.record["weighed"][nothing.other_name()]["correction"].get<double>(), 0.0);
  EXPECT_FALSE(nothing.next.candidate) << nothing.next.record.dump();
  // Half of what its prior promised: the other's prior is halved.
  FirstCall half(0.5);
  EXPECT_NEAR(half.next.record["weighed"][half.other_name()]["correction"].get<double>(),
              0.5 * half.loop.learned(half.other()).prior, 1e-9);
  // All of it: the other keeps its prior.
  FirstCall all(1.0);
  EXPECT_NEAR(all.next.record["weighed"][all.other_name()]["correction"].get<double>(),
              all.loop.learned(all.other()).prior, 1e-9);
}

TEST(AutoLoop, ResumesWhenTheImbalanceGrowsPastWhatACallsCostJustifies) {
  ClosedLoop loop({{"tree", CandidateShape{}}}, 0.05);
  ASSERT_TRUE(loop.decide(point(0.004, 200), test_network()).candidate);
  // The call halved the imbalance at a cost of 20 ms: what it left is its reach, and loads
  // no more imbalanced than that have nothing to gain.
  const LoopChoice small = loop.decide(point(0.002, 190, 0.020, 0.004), test_network());
  EXPECT_FALSE(small.candidate) << small.record.dump();
  EXPECT_NEAR(loop.learned(0).correction(), 0.5, 1e-9);
  // Once the imbalance has grown well past it (to 0.058 in the next window, wherever the
  // vertices are), the call pays again.
  const LoopChoice grown = loop.decide(point(0.030, 180, std::nullopt, 0.031), test_network());
  EXPECT_TRUE(grown.candidate) << grown.record.dump();
}

TEST(AutoLoop, ReachIsWhatACallLeftBeforeTheLoadsMovedOn) {
  ClosedLoop loop({{"tree", CandidateShape{}}}, 0.05);
  ASSERT_TRUE(loop.decide(point(0.010, 200), test_network()).candidate);
  // The call left 5% at the first step after it; the refinement since has grown the
  // imbalance to 60% of the mean over the window. Tree can do again what it did: the
  // window's 60% is not its reach.
  PointObservation refined = point(0.012, 190, 0.001, 0.013);
  refined.first_step_max_load_s = 0.021;
  refined.first_step_mean_load_s = 0.020;
  const LoopChoice next = loop.decide(refined, test_network());
  EXPECT_NEAR(loop.learned(0).reach, 0.05, 1e-9);
  EXPECT_TRUE(next.candidate) << next.record.dump();
  // Where the engine does not measure that step, the window's imbalance stands for it.
  ClosedLoop unmeasured({{"tree", CandidateShape{}}}, 0.05);
  ASSERT_TRUE(unmeasured.decide(point(0.010, 200), test_network()).candidate);
  EXPECT_FALSE(unmeasured.decide(point(0.012, 190, 0.001, 0.013), test_network()).candidate);
  EXPECT_NEAR(unmeasured.learned(0).reach, 0.6, 1e-9);
}

TEST(AutoLoop, AnUntriedProtocolIsPricedAtWhatItsTriedFellowsFloorsFellShortBy) {
  const CandidateShape tree{.rounds = 10};
  const CandidateShape diffusion{.rounds = 30, .reducing_rounds = 30};
  const CandidateShape greedy{.centralized = true, .solve_s_per_object = 1e-8};
  ClosedLoop loop({{"tree", tree}, {"diffusion", diffusion}, {"greedy", greedy}}, 0.02);
  const PointObservation first = point(0.010, 200);
  const LoopChoice c = loop.decide(first, test_network());
  ASSERT_EQ(c.candidate, std::optional<std::size_t>(0)) << c.record.dump();
  // Tree's call cost three times its floor.
  const double tree_cost = 3 * floor_cost_s(tree, first, test_network());
  const PointObservation second = point(0.010, 190, tree_cost, 0.020);
  const LoopChoice next = loop.decide(second, test_network());
  EXPECT_NEAR(loop.learned(0).shortfall, 3, 1e-9);
  EXPECT_NEAR(next.record["weighed"]["diffusion"]["cost_s"].get<double>(),
              3 * floor_cost_s(diffusion, second, test_network()), 1e-12);
  EXPECT_NEAR(next.record["weighed"]["greedy"]["cost_s"].get<double>(), floor_cost_s(greedy, second, test_network()),
              1e-12)
      << "a gather is not a protocol";
}

TEST(AutoLoop, RecordsWhatEachCallWasPredictedToGainDeliveredAndCost) {
  ClosedLoop loop({{"tree", CandidateShape{}}}, 0.02);
  ASSERT_TRUE(loop.decide(point(0.010, 100), test_network()).candidate);
  const LoopChoice next = loop.decide(point(0.002, 90, 0.003, 0.010), test_network());
  const Json& c = next.record["credited"];
  EXPECT_EQ(c["candidate"], "tree");
  EXPECT_DOUBLE_EQ(c["predicted_gain_s"].get<double>(), 0.010 * 10);
  EXPECT_DOUBLE_EQ(c["delivered_gain_s"].get<double>(), 0.008 * 10);
  EXPECT_DOUBLE_EQ(c["cost_s"].get<double>(), 0.003);
  EXPECT_DOUBLE_EQ(c["correction"].get<double>(), 0.8);
}

// `point` with the slowest rank's load taken step by step: `stepwise_s` above the mean,
// over 10 steps since the last call.
PointObservation point_stepwise(double imbalance_s, double stepwise_s, int steps_left) {
  PointObservation p = point(imbalance_s, steps_left);
  p.stepwise_max_load_s = p.mean_load_s + stepwise_s;
  p.steps_measured = 10;
  return p;
}

TEST(AutoLoop, MakesNoFirstCallWhereTheImbalanceDidNotPersist) {
  // The same 10 ms imbalance, once where one rank was the slowest at every step and once
  // where the slowest rank changed from step to step (40 ms at each step, averaged to 10).
  // A call makes every rank wait for the slowest: where a quarter persisted, that throws
  // away 75 ms of leads over the 10 steps, more than the budget's 60 ms.
  ClosedLoop persisting({{"none", CandidateShape{}}, {"tree", CandidateShape{}}}, 0.02);
  EXPECT_TRUE(persisting.decide(point_stepwise(0.010, 0.010, 100), test_network()).candidate);
  ClosedLoop averaging({{"none", CandidateShape{}}, {"tree", CandidateShape{}}}, 0.02);
  const LoopChoice c = averaging.decide(point_stepwise(0.010, 0.040, 100), test_network());
  EXPECT_FALSE(c.candidate) << c.record.dump();
  EXPECT_DOUBLE_EQ(c.record["weighed"]["tree"]["wait_s"].get<double>(), 0.75 * 0.010 * 10);
}

TEST(AutoLoop, SkipsTheLastPointToo) {
  // Points every 10 steps; after the second point in a row without a call, one point is
  // skipped. With 15 steps left, one point remains (10 steps on; 20 is past the end), and
  // a look at it would make the ranks wait for each other for nothing.
  ClosedLoop loop({{"none", CandidateShape{}}, {"tree", CandidateShape{}}}, 0.02);
  EXPECT_EQ(loop.decide(point(0.0, 25), test_network()).points_to_skip, 0);
  const LoopChoice second = loop.decide(point(0.0, 15), test_network());
  EXPECT_FALSE(second.candidate);
  EXPECT_EQ(second.points_to_skip, 1);
  ClosedLoop longer({{"none", CandidateShape{}}, {"tree", CandidateShape{}}}, 0.02);
  (void)longer.decide(point(0.0, 45), test_network());
  EXPECT_EQ(longer.decide(point(0.0, 35), test_network()).points_to_skip, 1) << "three points remain";
}

TEST(AutoPricing, WaitingForTheSlowestCostsOnlyWhereTheSlowestRankChanged) {
  EXPECT_DOUBLE_EQ(synchronization_cost_s(point_stepwise(0.010, 0.010, 100)), 0.0);
  EXPECT_DOUBLE_EQ(point_stepwise(0.010, 0.020, 100).persistence(), 0.5);
  EXPECT_DOUBLE_EQ(synchronization_cost_s(point_stepwise(0.010, 0.020, 100)), 0.5 * 0.010 * 10);
  EXPECT_DOUBLE_EQ(synchronization_cost_s(point(0.010, 100)), 0.0) << "not measured: nothing charged";
}

TEST(AutoPricing, ACentralizedFloorGrowsWithTheRanksAndADistributedOneDoesNot) {
  const NetworkFacts net = test_network();
  PointObservation small = point(0.01, 100);
  PointObservation large = small;
  large.nranks = 64 * 1024;
  large.objects = small.objects * 1024;
  EXPECT_GT(floor_cost_s(CandidateShape{.centralized = true}, large, net),
            100 * floor_cost_s(CandidateShape{.centralized = true}, small, net));
  EXPECT_DOUBLE_EQ(floor_cost_s(CandidateShape{}, large, net), floor_cost_s(CandidateShape{}, small, net));
}

TEST(AutoPricing, ACentralizedFirstCallMovesEveryObjectAndRunsItsSampledSolve) {
  const NetworkFacts net = test_network();
  PointObservation seen = point(0.010, 100);
  seen.element_bytes = 4096;
  const double network_only = floor_cost_s(CandidateShape{.centralized = true}, seen, net);
  // Every object on the busiest rank but its 1/p share leaves: 500 × 63/64 × 4 kB at 2 GB/s.
  EXPECT_GT(network_only, 500.0 * 63 / 64 * 4096 / 2e9);
  const CandidateShape slow{.centralized = true, .solve_s_per_object = 1e-6};
  EXPECT_NEAR(floor_cost_s(slow, seen, net) - network_only, 1e-6 * 64 * 500, 1e-12);
  seen.code_time_scale = 3;
  EXPECT_NEAR(floor_cost_s(slow, seen, net) - network_only, 3e-6 * 64 * 500, 1e-12);
}

TEST(AutoPricing, AProtocolPaysForEachOfItsRounds) {
  const NetworkFacts net = test_network();
  const PointObservation seen = point(0.010, 100);
  const double few = floor_cost_s(CandidateShape{.rounds = 3, .reducing_rounds = 1}, seen, net);
  const double many = floor_cost_s(CandidateShape{.rounds = 22, .reducing_rounds = 21}, seen, net);
  EXPECT_NEAR(many - few, 19 * net.far_message_s + 20 * net.allreduce_s, 1e-12);
}

TEST(AutoPricing, TheSampledSolveTellsADearStrategyFromACheapOne) {
  const double greedy = solve_sample(GreedyBalancer()).seconds_per_object;
  const double metis = solve_sample(MetisBalancer(MetisParams{})).seconds_per_object;
  EXPECT_GT(greedy, 0);
  EXPECT_GT(metis, 2 * greedy);
}

TEST(AutoPricing, TheSampleTellsAStrategyThatStopsShortOfTheMeanFromOneThatReachesIt) {
  // Greedy deals every object out afresh and reaches the mean. Diffusion spreads load to
  // neighbours, and the sample's hot region is several ranks wide: with loads that differ
  // only from one object to the next, it came as near the mean as METIS. The tree ends each
  // rank within about one unit of its target. A protocol is not timed.
  const SampleSolve greedy = solve_sample(GreedyBalancer());
  const SampleSolve diffusion = solve_sample(DiffusionBalancer(DiffusionParams{}));
  const SampleSolve tree = solve_sample(TreeBalancer(TreeParams{}));
  EXPECT_GT(greedy.share_removed, 0.95);
  EXPECT_LT(diffusion.share_removed, 0.85);
  EXPECT_LT(diffusion.share_removed, tree.share_removed);
  EXPECT_LT(tree.share_removed, 0.95);
  EXPECT_EQ(tree.seconds_per_object, 0.0);
  // A balancer that decides only among the ranks keeps every owner here: not decided.
  struct OnlyAmongRanks final : Balancer {
    MigrationPlan plan(const LoadView& /*view*/, MPI_Comm /*comm*/) override { return {}; }
  };
  EXPECT_EQ(solve_sample(OnlyAmongRanks()).share_removed, 1.0);
}

TEST(AutoPricing, TheSampleTellsAStrategyThatIgnoresTheGraphFromOneThatMovesFewObjects) {
  // Greedy deals the objects out by load alone and cuts nearly every edge within a rank;
  // the tree moves a few objects from each rank and cuts their edges only.
  const SampleSolve greedy = solve_sample(GreedyBalancer());
  const SampleSolve tree = solve_sample(TreeBalancer(TreeParams{}));
  EXPECT_GT(greedy.share_cut, 0.9);
  EXPECT_LT(tree.share_cut, 0.3);
  EXPECT_GT(tree.share_cut, 0.0);
}

// A million edges of 256 bytes, on a machine where an exchange spread over all pairs of
// ranks costs 10^-10 s a byte.
struct ScatteredExchange {
  NetworkFacts net = test_network();
  PointObservation seen = point(0.010, 100);
  ScatteredExchange() {
    net.scattered_exchange_s_per_byte = 1e-10;
    seen.edges = 1'000'000;
    seen.edge_bytes = 256;
  }
};

TEST(AutoPricing, APlacementThatCutsTheEdgesPaysForTheExchangeItsComputeDoesNotHide) {
  auto [net, seen] = ScatteredExchange();
  // Cutting every edge sends 2 x 10^6 x 256 bytes a step, 51.2 ms at 10^-10 s a byte, of
  // which the mean load hides 20 ms.
  const CandidateShape scatters{.centralized = true, .share_cut = 1.0};
  EXPECT_NEAR(exchange_growth_s(scatters, seen, net), 0.0512 - 0.020, 1e-12);
  // What the step's exchange already costs is not paid again.
  seen.max_load_s = 0.060;
  seen.stepwise_max_load_s = 0.032;
  EXPECT_NEAR(exchange_growth_s(scatters, seen, net), 0.0512 - 0.020 - 0.028, 1e-12);
  // A decision that cuts a few edges stays under the compute; one node's machine shares no link.
  EXPECT_EQ(exchange_growth_s(CandidateShape{.share_cut = 0.2}, seen, net), 0.0);
  net.scattered_exchange_s_per_byte = 0;
  EXPECT_EQ(exchange_growth_s(scatters, seen, net), 0.0);
}

TEST(AutoLoop, MakesNoCallWhosePlacementsExchangeCostsMoreThanItsGain) {
  const auto [net, seen] = ScatteredExchange();
  ClosedLoop loop({{"greedy", CandidateShape{.centralized = true, .share_cut = 0.97}},
                   {"tree", CandidateShape{.share_removed = 0.8, .share_cut = 0.05}}},
                  0.05);
  const LoopChoice choice = loop.decide(seen, net);
  EXPECT_GT(choice.record["weighed"]["greedy"]["exchange_s"].get<double>(),
            choice.record["weighed"]["greedy"]["gain_s"].get<double>());
  EXPECT_EQ(choice.record["weighed"]["tree"]["exchange_s"].get<double>(), 0.0);
  EXPECT_EQ(choice.candidate, std::optional<std::size_t>(1));
}

TEST(AutoPricing, APlatformsFittedDecisionPricesAnUntriedCandidateWhereItAsksMoreThanTheFloor) {
  FittedCosts fits;
  fits.decision["greedy"] = FittedCost{{0.5, 0, 0, 0}};
  const PointObservation seen = point(0.010, 100);
  ClosedLoop priced({{"greedy", CandidateShape{.centralized = true}}, {"tree", CandidateShape{}}}, 0.02);
  const LoopChoice fitted = priced.decide(seen, test_network(), &fits);
  EXPECT_DOUBLE_EQ(fitted.record["weighed"]["greedy"]["cost_s"].get<double>(), 0.5);
  EXPECT_EQ(fitted.candidate, std::optional<std::size_t>(1)) << "greedy's fitted cost is over the bank";
  ClosedLoop floored({{"greedy", CandidateShape{.centralized = true}}, {"tree", CandidateShape{}}}, 0.02);
  const double floor = floored.decide(seen, test_network()).record["weighed"]["greedy"]["cost_s"].get<double>();
  EXPECT_DOUBLE_EQ(floor, floor_cost_s(CandidateShape{.centralized = true}, seen, test_network()));
  EXPECT_LT(floor, 0.01);
}

}  // namespace
}  // namespace lbbench
