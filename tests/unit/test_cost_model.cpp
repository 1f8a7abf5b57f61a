// Pearce et al.'s diffusion simulator (Algorithm 2), cost model (equations 5-11) and the
// `auto` balancer that uses them (Algorithm 1).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <numeric>

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/diffusive/params.hpp"
#include "balancers/model/auto.hpp"
#include "balancers/model/cost_model.hpp"
#include "balancers/model/diffusion_sim.hpp"
#include "balancers/model/params.hpp"
#include "balancers/sdk/factory.hpp"
#include "balancers/sdk/registry.hpp"
#include "balancers/tree/tree.hpp"
#include "core/error.hpp"
#include "engines/mpi/network.hpp"

namespace lbbench {
namespace {

// Processes P0..P(n-1) in a line, each a neighbor of the next (Table 1's pattern).
std::vector<std::vector<int>> line(int n) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(n));
  for (int i = 0; i + 1 < n; ++i) {
    out[static_cast<std::size_t>(i)].push_back(i + 1);
    out[static_cast<std::size_t>(i + 1)].push_back(i);
  }
  return out;
}

DiffusionSimInput line_case(std::vector<double> loads) {
  DiffusionSimInput in;
  in.elements.assign(loads.size(), 100.0);
  in.neighbors = line(static_cast<int>(loads.size()));
  in.loads = std::move(loads);
  in.iterations = 1;  // one diffusion iteration per step, as in Algorithm 2
  in.threshold = 0.05;
  in.steps = 400;
  return in;
}

// Table 1, (c) and (d), with the paper's loads: the same lambda, sigma, g1 and g2 (checked
// in test_model_metrics), but in (c) the overloaded process neighbors the idle one and in
// (d) it sits at the other end of the line. With the paper's γ = 0.25 and a 5% threshold,
// Algorithm 2 takes the paper's 4 and 41 steps; Boillat's α with damping 0.75 is the same
// scheme on a chain.
TEST(DiffusionSim, TableOneCasesTakeThePapersStepCounts) {
  for (const bool boillat : {false, true}) {
    auto with_alpha = [&](std::vector<double> loads) {
      DiffusionSimInput in = line_case(std::move(loads));
      if (boillat) {
        in.damping = 0.75;
      } else {
        in.gamma = 0.25;
      }
      return simulate_diffusion(in);
    };
    EXPECT_EQ(with_alpha({0.5, 1.5, 1, 1, 1, 1, 1, 1}).convergence_steps, 4) << "boillat " << boillat;
    EXPECT_EQ(with_alpha({0.5, 1, 1, 1, 1, 1, 1, 1.5}).convergence_steps, 41) << "boillat " << boillat;
  }
}

TEST(DiffusionSim, ConservesLoadAndElementsAndLowersTheMaximum) {
  DiffusionSimInput in = line_case({5, 1, 1, 1, 0, 3});
  in.iterations = 5;
  in.steps = 10;
  const auto r = simulate_diffusion(in);
  EXPECT_NEAR(std::accumulate(r.final_loads.begin(), r.final_loads.end(), 0.0), 11, 1e-12);
  for (std::size_t s = 1; s < r.steps.size(); ++s) EXPECT_LE(r.steps[s].lmax, r.steps[s - 1].lmax + 1e-12);
  EXPECT_LT(r.steps.back().lmax, 5);
  EXPECT_GT(r.steps[0].elements_moved_max, 0);
}

TEST(DiffusionSim, OneIterationOnTwoProcessesMovesHalfTheDifference) {
  DiffusionSimInput in;
  in.loads = {4, 1};
  in.elements = {40, 10};
  in.neighbors = line(2);
  in.iterations = 1;
  in.threshold = 0;
  in.steps = 1;
  const auto r = simulate_diffusion(in);
  // alpha = 1 / (1 + 1): half the difference of 3, so 1.5 moves and the loads are 2.5 each.
  EXPECT_DOUBLE_EQ(r.final_loads[0], 2.5);
  EXPECT_DOUBLE_EQ(r.steps[0].lmax, 2.5);
  // Ten elements per unit of load on the sender: 15 elements.
  EXPECT_DOUBLE_EQ(r.steps[0].elements_moved_max, 15);
  EXPECT_EQ(r.convergence_steps, 1);
}

TEST(DiffusionSim, ABalancedLoadNeedsNoSteps) {
  DiffusionSimInput in = line_case({1, 1, 1});
  in.steps = 5;
  const auto r = simulate_diffusion(in);
  EXPECT_EQ(r.convergence_steps, 0);
  EXPECT_DOUBLE_EQ(r.steps[0].elements_moved_max, 0);
}

TEST(CostModel, EquationsAgainstHandValues) {
  const Platform p{.alpha_s = 1e-3, .beta_s_per_byte = 1e-9};
  EXPECT_DOUBLE_EQ(data_movement_cost(p, 1000, 4096), 1e-3 + 1e-9 * 1000 * 4096);  // eq. 6
  EXPECT_DOUBLE_EQ(data_movement_cost(p, 0, 4096), 0);                             // nothing moves
  EXPECT_DOUBLE_EQ(balancing_cost(0.5, p, 1000, 4096), 0.5 + 1e-3 + 4.096e-3);     // eq. 5
  EXPECT_DOUBLE_EQ(elements_moved_global(1000, 1.0, 4.0), 750);                    // eq. 7, corrected
  EXPECT_DOUBLE_EQ(elements_moved_global(1000, 1.0, 1.0), 0);
  EXPECT_DOUBLE_EQ(app_time_none(2.0, 10), 20);            // eq. 11
  EXPECT_DOUBLE_EQ(app_time_global(0.3, 1.25, 10), 12.8);  // eq. 9
  DiffusionSimResult sim;
  sim.steps = {{.imbalance_before = 1, .lmax = 3, .elements_moved_max = 100},
               {.imbalance_before = 0.5, .lmax = 2, .elements_moved_max = 0}};
  // eq. 10: (0.1 + 1e-3 + 1e-9 * 100 * 1000) + 3, then 0.1 + 2; every 4 steps: 4 x L_max.
  EXPECT_DOUBLE_EQ(app_time_diffusion(sim, 0.1, p, 1000), 0.1 + 1e-3 + 1e-4 + 3 + 0.1 + 2);
  EXPECT_DOUBLE_EQ(app_time_diffusion(sim, 0.1, p, 1000, 4), 0.1 + 1e-3 + 1e-4 + 12 + 0.1 + 8);
}

}  // namespace
}  // namespace lbbench

namespace lbbench {
namespace {

// A chain of `n` objects in blocks over `ranks` ranks, with the given per-object loads.
GlobalProblem chain(int n, int ranks, const std::function<double(int)>& load) {
  GlobalProblem p;
  p.nranks = ranks;
  p.element_bytes = 1024;
  p.period = 10;
  for (int i = 0; i < n; ++i) {
    p.id.emplace_back(i);
    p.load.emplace_back(load(i));
    p.owner.emplace_back(i * ranks / n);
  }
  p.xadj.push_back(0);
  for (int i = 0; i < n; ++i) {
    if (i > 0) p.adjncy.push_back(i - 1);
    if (i + 1 < n) p.adjncy.push_back(i + 1);
    p.xadj.push_back(static_cast<std::int64_t>(p.adjncy.size()));
  }
  p.adj_bytes.assign(p.adjncy.size(), 8);
  return p;
}

double max_of_times(const GlobalProblem& p, const Assignment& a) {
  const auto t = rank_times(p, a);
  return *std::max_element(t.begin(), t.end());
}

// The plan greedy, with its defaults, makes on a problem: what `auto` weighs for it.
Assignment greedy_plan(const GlobalProblem& problem) {
  return make_balancer(default_balancer_config(find_balancer("greedy", ConfigNode(YAML::Node(), "test")).kind))
      ->decide_serially(problem, nullptr);
}

AutoBalancer make_auto(const std::string& yaml) {
  ConfigNode node(YAML::Load(yaml), "test");
  return AutoBalancer(AutoParams::parse(node));
}

TEST(Auto, RebalancesAHotSpotAndKeepsABalancedLoad) {
  // Every candidate weighed and priced alike however slow the host: the decision's code,
  // which counts in its budget and in each candidate's time, is charged at next to nothing.
  const AutoBalancer a =
      make_auto("{candidates: [none, greedy, diffusion, tree], alpha: 1.0e-6, redecide: 0, explore_budget: 1000}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1e-3 : 1e-4; });
  hot.code_time_scale = 1e-6;
  const Assignment moved = a.decide_serially(hot, nullptr);
  const Json d = a.decision();
  EXPECT_NE(d["chosen"], "none");
  EXPECT_EQ(d["horizon_steps"], 10);
  EXPECT_LT(max_of_times(hot, moved), 0.5 * d["lmax_before_s"].get<double>());
  for (const auto& name : {"none", "greedy", "diffusion", "tree"}) {
    ASSERT_TRUE(d["candidates"].contains(name)) << name;
    EXPECT_GE(d["candidates"][name]["interval_s"].get<double>(),
              d["candidates"][d["chosen"].get<std::string>()]["interval_s"].get<double>());
  }
  // The paper's diffusion simulator runs only where asked for: it walks every edge.
  EXPECT_FALSE(d["candidates"]["diffusion"].contains("paper"));
  const AutoBalancer with_paper =
      make_auto("{candidates: [none, greedy, diffusion, tree], alpha: 1.0e-6, redecide: 0, paper_diffusion: true}");
  (void)with_paper.decide_serially(hot, nullptr);
  const Json paper = with_paper.decision()["candidates"]["diffusion"]["paper"];
  EXPECT_GE(paper["convergence_steps"].get<int>(), 1);
  EXPECT_GT(paper["interval_s"].get<double>(), 0.0);
  // No imbalance: every candidate costs its decision and gains nothing.
  const GlobalProblem flat = chain(400, 8, [](int) { return 1e-4; });
  const Assignment kept = a.decide_serially(flat, nullptr);
  EXPECT_EQ(a.decision()["chosen"], "none");
  EXPECT_EQ(kept, flat.owner);
}

// Algorithm 2 against the diffusion balancer itself (its serial reference, which the MPI
// tests hold to the same owners as the distributed run), call after call on a chain of
// ranks with the load piled on the first: the simulator should foresee each call's
// imbalance and largest load, and how many calls bring the imbalance near the threshold.
// Both end on a plateau near the 2% threshold (8 ranks: the simulator at 1.96%, the
// balancer at 2.40%), so "calls until within the threshold" itself is a knife edge there;
// the test counts calls until within 3%.
TEST(DiffusionSim, PredictsTheDiffusionBalancerCallByCall) {
  constexpr double kNear = 0.03;
  for (const int ranks : {4, 8}) {
    GlobalProblem p = chain(4000, ranks, [&](int i) { return i < 4000 / ranks ? 4e-4 : 1e-4; });
    const DiffusionBalancer diffusion{DiffusionParams{}};
    const DiffusionParams defaults;
    DiffusionSimInput in;
    in.loads = rank_times(p, p.owner);
    in.elements.assign(static_cast<std::size_t>(ranks), 4000.0 / ranks);
    in.neighbors = line(ranks);
    in.gamma = defaults.gamma;
    in.damping = defaults.damping;
    in.iterations = defaults.iterations;
    in.threshold = defaults.threshold;
    in.steps = 12;
    const DiffusionSimResult sim = simulate_diffusion(in);
    int simulated_calls = 0;
    int balancer_calls = 0;
    for (int call = 0; call < in.steps; ++call) {
      const auto& predicted = sim.steps[static_cast<std::size_t>(call)];
      const auto before = rank_times(p, p.owner);
      const double avg = std::accumulate(before.begin(), before.end(), 0.0) / ranks;
      const double imbalance = *std::max_element(before.begin(), before.end()) / avg - 1;
      if (imbalance > kNear) balancer_calls = call + 1;
      if (predicted.imbalance_before > kNear) simulated_calls = call + 1;
      EXPECT_NEAR(predicted.imbalance_before, imbalance, 0.01) << ranks << " ranks, call " << call;
      p.owner = diffusion.reference(p, ProtocolContext{.seed = 1, .invocation = call});
      const auto after = rank_times(p, p.owner);
      EXPECT_NEAR(predicted.lmax / *std::max_element(after.begin(), after.end()), 1, 0.02)
          << ranks << " ranks, call " << call;
    }
    EXPECT_GE(balancer_calls, 2) << "the case should need several calls";
    EXPECT_LT(balancer_calls, in.steps) << "and come near the threshold";
    EXPECT_NEAR(simulated_calls, balancer_calls, 1) << ranks << " ranks";
  }
}

// Over the rest of a run, a candidate pays its call again at every later LB point: with
// many calls left, one whose calls cost more than the balance they buy loses to none.
TEST(Auto, PricesEveryLaterCallOverTheRestOfTheRun) {
  // Each candidate at every call (WeighsACandidateAlsoAsRunOnce... weighs it run once).
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], alpha: 1.0e-6, redecide: 0, run_once: false}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1.2e-4 : 1e-4; });
  hot.element_bytes = 1000;
  hot.steps_left = 40;
  hot.later_calls = 3;
  hot.step_exchange_s = 2e-5;  // every step's exchange, measured before the call
  (void)a.decide_serially(hot, nullptr);
  Json d = a.decision();
  EXPECT_EQ(d["chosen_over"], "the rest of the run");
  EXPECT_EQ(d["step_exchange_s"], 2e-5);
  EXPECT_EQ(d["steps_left"], 40);
  EXPECT_EQ(d["later_calls"], 3);
  // The choice leaves out each candidate's decision at this call, made already whichever
  // is chosen; its prediction keeps it.
  double best = std::numeric_limits<double>::infinity();
  double second = best;
  std::string fastest;
  for (const auto& [name, c] : d["candidates"].items()) {
    const double to_end = c["to_end_s"].get<double>();
    if (name == "none") {
      EXPECT_NEAR(to_end, 40 * (d["lmax_before_s"].get<double>() + 2e-5), 1e-12);
    } else {
      EXPECT_DOUBLE_EQ(c["later_call_s"].get<double>(), c["decision_s"].get<double>() + c["migration_s"].get<double>());
      EXPECT_NEAR(to_end, 4 * c["later_call_s"].get<double>() + 40 * (c["lmax_after_s"].get<double>() + 2e-5), 1e-12);
    }
    const double choice = to_end - c["decision_s"].get<double>();
    if (choice < best) {
      second = best;
      best = choice;
      fastest = name;
    } else {
      second = std::min(second, choice);
    }
  }
  EXPECT_EQ(d["chosen"], fastest);
  EXPECT_NEAR(d["margin"].get<double>(), (second - best) / best, 1e-12);
  // Calls that cost a second each: over the rest of the run no balancer pays for them.
  auto fits = std::make_shared<FittedCosts>();
  fits->migration = FittedCost{{1.0, 0, 0, 0}};
  hot.fitted_costs = fits;
  (void)a.decide_serially(hot, nullptr);
  EXPECT_EQ(a.decision()["chosen"], "none");
  // Without the rest of the run, the choice is over the steps until the next call.
  hot.fitted_costs = nullptr;
  hot.steps_left = 0;
  (void)a.decide_serially(hot, nullptr);
  EXPECT_EQ(a.decision()["chosen_over"], "the steps until the next call");
}

// Loads that grow everywhere: the gain bound holds `none`'s steps (the lower of L_max and
// its trends) against perfect balance moving with the total trend, not against the
// balance of now.
TEST(Auto, MovesPerfectBalanceWithTheLoadsTotalTrend) {
  const AutoBalancer a = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0}");
  GlobalProblem growing = chain(400, 8, [](int i) { return i < 50 ? 1.2e-4 : 1e-4; });
  growing.period = 4;
  growing.steps_left = 20;
  growing.later_calls = 4;
  growing.load_trend.assign(growing.size(), 1e-6);
  growing.trend_origin = -1.5;
  (void)a.decide_serially(growing, nullptr);
  const Json d = a.decision();
  const double perfect_now = (50 * 1.2e-4 + 350 * 1e-4) / 8;
  const double moving_by = 400 * 1e-6 / 8 * ((4 + 1) / 2.0 + 1.5);  // over the 4 steps to the next call
  const double lmax = d["lmax_before_s"].get<double>();
  const double none_step = d["candidates"]["none"]["step_lmax_s"].get<double>();
  EXPECT_GT(none_step, lmax);  // rank 0 grows too
  EXPECT_NEAR(d["exploration"]["gain_bound_s"].get<double>(), 20 * (lmax - perfect_now - moving_by), 1e-12);
  EXPECT_GT(moving_by, 0.1 * (lmax - perfect_now));  // a share of the gap that matters
}

// Loads moving along their trends: the steps after a call are priced at the slowest rank
// averaged over the steps until the next call, from where the plan put each object.
TEST(Auto, PricesTheStepsAfterACallAlongTheLoadsTrends) {
  const AutoBalancer a = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0}");
  // Rank 0 twice the others: tree wins whatever its decision takes on a loaded host.
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 2e-4 : 1e-4; });
  hot.period = 4;
  hot.steps_left = 20;
  hot.later_calls = 4;
  (void)a.decide_serially(hot, nullptr);
  const Json still = a.decision();
  EXPECT_TRUE(still["load_trends"].is_null());
  EXPECT_FALSE(still["candidates"]["tree"].contains("step_lmax_s"));

  // A hot spot moving up the chain: objects 50..99 warm by 2% of a cold one's load per
  // step, objects 0..49 cool as fast. The loads shown are those of 1.5 steps before the call.
  hot.load_trend.assign(hot.size(), 0.0);
  for (std::size_t i = 0; i < 100; ++i) hot.load_trend[i] = i < 50 ? -2e-6 : 2e-6;
  hot.trend_origin = -1.5;
  const Assignment plan = a.decide_serially(hot, nullptr);
  const Json d = a.decision();
  EXPECT_EQ(d["load_trends"]["origin_step"], -1.5);
  ASSERT_EQ(d["chosen"], "tree");  // one candidate that moves: the plan returned is tree's
  const Json tree = d["candidates"]["tree"];
  // The slowest rank over the 4 steps to the next call, each rank moving along its objects'
  // trends from where `placed` puts them.
  auto mean_slowest = [&](const Assignment& placed) {
    const std::vector<double> loads = rank_times(hot, placed);
    std::vector<double> trend(8, 0.0);
    for (std::size_t i = 0; i < hot.size(); ++i)
      trend[static_cast<std::size_t>(placed[i].value())] += hot.load_trend[i];
    double mean = 0;
    for (int t = 1; t <= 4; ++t) {
      double slowest = 0;
      for (std::size_t r = 0; r < 8; ++r) slowest = std::max(slowest, loads[r] + trend[r] * (t + 1.5));
      mean += slowest / 4;
    }
    return mean;
  };
  EXPECT_NEAR(tree["step_lmax_s"].get<double>(), mean_slowest(plan), 1e-15);
  // Tree keeps the chain in order, so the warming objects gather on a few ranks, which grow
  // slowest again before the next call.
  EXPECT_GT(tree["step_lmax_s"].get<double>(), tree["lmax_after_s"].get<double>() * 1.02);
  EXPECT_NEAR(tree["to_end_s"].get<double>(),
              tree["decision_s"].get<double>() + tree["migration_s"].get<double>() +
                  4 * tree["later_call_s"].get<double>() + 20 * tree["step_lmax_s"].get<double>(),
              1e-12);
  // `none` alike, from where its objects are now: rank 0 cools and rank 1 warms.
  const Json none = d["candidates"]["none"];
  EXPECT_EQ(none["steps_forecast"]["kind"], "trend");
  EXPECT_NEAR(none["step_lmax_s"].get<double>(), mean_slowest(hot.owner), 1e-15);
  EXPECT_LT(none["step_lmax_s"].get<double>(), d["lmax_before_s"].get<double>());
  EXPECT_NEAR(none["to_end_s"].get<double>(), 20 * none["step_lmax_s"].get<double>(), 1e-15);
}

TEST(Auto, PricesTheMigrationEnginesCodeWhereAPlanMoves) {
  // A budget that no host's speed (the sanitizers' included) leaves greedy out of.
  const AutoBalancer a = make_auto("{candidates: [none, greedy], alpha: 1.0e-6, redecide: 0, explore_budget: 1000}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1.2e-4 : 1e-4; });
  hot.element_bytes = 1000;
  hot.migration_code = MigrationCode{.pack_s = 1e-6, .unpack_s = 3e-6, .keep_s = 2e-7};
  hot.code_time_scale = 2;
  (void)a.decide_serially(hot, nullptr);
  const Json greedy = a.decision()["candidates"]["greedy"];
  // The busiest packing and the busiest rebuilding, from greedy's own plan, scaled.
  const Assignment plan = greedy_plan(hot);
  std::vector<double> sent(8, 0.0), kept(8, 0.0), arrived(8, 0.0);
  for (std::size_t i = 0; i < hot.size(); ++i) {
    const auto from = static_cast<std::size_t>(hot.owner[i].value());
    const auto to = static_cast<std::size_t>(plan[i].value());
    if (from == to) {
      kept[from] += 1;
    } else {
      sent[from] += 1;
      arrived[to] += 1;
    }
  }
  double packing = 0;
  double rebuilding = 0;
  for (std::size_t r = 0; r < 8; ++r) {
    packing = std::max(packing, sent[r] * 1e-6);
    rebuilding = std::max(rebuilding, kept[r] * 2e-7 + arrived[r] * 3e-6);
  }
  ASSERT_GT(packing, 0);
  EXPECT_NEAR(greedy["migration_code_s"].get<double>(), 2 * (packing + rebuilding), 1e-15);
  EXPECT_GE(greedy["migration_s"].get<double>(), greedy["migration_code_s"].get<double>());
  // Not measured: nothing to add (a fresh `auto`: greedy's decision timed above, on a host
  // slowed down enough, could rule it out of a second).
  hot.migration_code = {};
  const AutoBalancer b = make_auto("{candidates: [none, greedy], alpha: 1.0e-6, redecide: 0, explore_budget: 1000}");
  (void)b.decide_serially(hot, nullptr);
  EXPECT_EQ(b.decision()["candidates"]["greedy"]["migration_code_s"], 0.0);
}

// Moves between nodes cross the busiest node's links, which all its ranks share: priced
// where it takes longer than the busiest receiver's bytes.
TEST(Auto, PricesTheBusiestNodesLinksWhereAPlanMovesBetweenNodes) {
  // Greedy must be weighed at all three decisions, however long its last one took on a
  // slow host (a sanitizer build under load): an open explore budget, and 300 steps left
  // to gain on, so that no decision time rules it out.
  const AutoBalancer a =
      make_auto("{candidates: [none, greedy], alpha: 1.0e-6, beta: 1.0e-15, redecide: 0, explore_budget: 1000000}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1.2e-4 : 1e-4; });
  hot.steps_left = 300;
  hot.element_bytes = 1000;
  (void)a.decide_serially(hot, nullptr);
  const double alone = a.decision()["candidates"]["greedy"]["migration_s"].get<double>();
  hot.rank_node = {0, 0, 0, 0, 1, 1, 1, 1};
  hot.network.node_bandwidth_Bps = 1e9;
  (void)a.decide_serially(hot, nullptr);
  const double between_nodes = a.decision()["candidates"]["greedy"]["migration_s"].get<double>();
  const Assignment plan = greedy_plan(hot);
  double out[2] = {0, 0};
  double in[2] = {0, 0};
  for (std::size_t i = 0; i < hot.size(); ++i) {
    const int from = hot.owner[i].value() / 4;
    const int to = plan[i].value() / 4;
    if (from == to) continue;
    out[from] += 1000;
    in[to] += 1000;
  }
  const double busiest = std::max({out[0], out[1], in[0], in[1]});
  ASSERT_GT(busiest, 0);
  // The busiest receiver's bytes at this beta, then the busiest node's at its bandwidth,
  // each after alpha.
  const double receiver = 1e-15 * a.decision()["candidates"]["greedy"]["elements_moved_max"].get<double>() * 1000;
  EXPECT_NEAR(between_nodes - alone, busiest / 1e9 - receiver, 1e-15);
  // Nodes whose bandwidth is not known price nothing more.
  hot.network.node_bandwidth_Bps = 0;
  (void)a.decide_serially(hot, nullptr);
  EXPECT_DOUBLE_EQ(a.decision()["candidates"]["greedy"]["migration_s"].get<double>(), alone);
}

// A call's totals as every rank knows them, on machine `m`.
CallOutlook outlook_of(const GlobalProblem& p, const MachineInfo& m) {
  const std::vector<double> t = rank_times(p, p.owner);
  return CallOutlook{.nranks = p.nranks,
                     .objects = static_cast<std::int64_t>(p.size()),
                     .edges = static_cast<std::int64_t>(p.adjncy.size() / 2),
                     .coord_dims = p.coord_dims,
                     .max_rank_load_s = *std::max_element(t.begin(), t.end()),
                     .total_load_s = std::accumulate(t.begin(), t.end(), 0.0),
                     .step_exchange_s = p.step_exchange_s,
                     .period = p.period,
                     .steps_left = p.steps_left,
                     .later_calls = p.later_calls,
                     .machine = &m,
                     .trends = rank_trends_of(p),
                     .steps_to_point = 0};
}

MachineInfo machine_with_collectives_of(int ranks, double seconds) {
  MachineInfo m = MachineInfo::uniform(ranks);
  m.network.far_message_s = m.network.allreduce_s = m.network.barrier_s = seconds;
  return m;
}

// A hot spot on the first of 8 ranks, with 30 steps and 2 calls left, on machine `m`.
GlobalProblem hot_spot_for_30_more_steps(const MachineInfo& m) {
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1e-3 : 1e-4; });
  hot.steps_left = 30;
  hot.later_calls = 2;
  hot.network = m.network;
  return hot;
}

// `a` decides on hot_spot_for_30_more_steps (collectives of 1 µs), where its one
// distributed candidate (tree) ran as itself first, within the explore budget, and took
// `tree_s`: the decision's record. The machine's code runs `code_time_scale` times as long
// as this host's.
Json hot_spot_decision_on_code_of(double code_time_scale, const AutoBalancer& a, double tree_s) {
  const MachineInfo m = machine_with_collectives_of(8, 1e-6);
  GlobalProblem hot = hot_spot_for_30_more_steps(m);
  hot.code_time_scale = code_time_scale;
  const CallOutlook call = outlook_of(hot, m);
  const Balancer& chooser = a.acting_for(call);
  const std::vector<const Balancer*> first = chooser.runs_first(call);
  EXPECT_EQ(first.size(), 1U);
  if (first.empty()) return Json();
  EXPECT_TRUE(chooser.keeps_running_first(call, {}, *first[0]));
  chooser.ran_first(
      {RanPlan{.balancer = first[0], .assignment = first[0]->decide_serially(hot, nullptr), .decision_s = tree_s}});
  (void)chooser.decide_serially(hot, nullptr);
  return a.decision();
}

Json hot_spot_decision_after_tree_took(const AutoBalancer& a, double tree_s) {
  return hot_spot_decision_on_code_of(1.0, a, tree_s);
}

TEST(Auto, WeighsWhatADistributedCandidateDidAsItselfInsteadOfItsReference) {
  const AutoBalancer a = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0, run_once: false}");
  const MachineInfo m = machine_with_collectives_of(8, 1e-6);
  const GlobalProblem hot = hot_spot_for_30_more_steps(m);
  const CallOutlook call = outlook_of(hot, m);
  const Balancer& chooser = a.acting_for(call);
  const std::vector<const Balancer*> first = chooser.runs_first(call);
  ASSERT_EQ(first.size(), 1U);
  const Assignment tree_plan = first[0]->decide_serially(hot, nullptr);
  // Tree as itself took 1 s: at every call that is more than `none` loses in all 30 steps.
  chooser.ran_first({RanPlan{.balancer = first[0], .assignment = tree_plan, .decision_s = 1.0, .protocol_rounds = 7}});
  (void)chooser.decide_serially(hot, nullptr);
  Json d = a.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["candidates"]["tree"]["ran_as_itself"], true);
  EXPECT_EQ(d["candidates"]["tree"]["decision_s"], 1.0);
  EXPECT_EQ(d["candidates"]["tree"]["protocol_rounds"], 7);
  // Weighed first, though `none` is expected to decide faster: weighing it costs nothing,
  // and it sets the bar an unknown candidate must clear.
  EXPECT_EQ(d["candidates"].begin().key(), "tree");
  // After a second that slow, tree is not run again (its last decision is its floor).
  EXPECT_TRUE(a.acting_for(call).promised_nothing_moves());
  // Quick as itself, tree wins, with the plan it made.
  const AutoBalancer b = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0, run_once: false}");
  const Balancer& again = b.acting_for(call);
  const std::vector<const Balancer*> b_first = again.runs_first(call);
  ASSERT_EQ(b_first.size(), 1U);
  again.ran_first({RanPlan{.balancer = b_first[0], .assignment = tree_plan, .decision_s = 1e-4, .protocol_rounds = 7}});
  EXPECT_EQ(again.decide_serially(hot, nullptr), tree_plan);
  EXPECT_EQ(b.decision()["chosen"], "tree");
  // What it did is weighed once: the next decision without it runs tree's reference.
  (void)b.acting_for(call).decide_serially(hot, nullptr);
  EXPECT_EQ(b.decision()["candidates"]["tree"]["ran_as_itself"], false);
}

// Tree as itself is made to take just long enough that it is predicted 1% faster than
// `none` over the rest of the run: within a near-tie margin of 5% `none`, whose calls cost
// nothing, is chosen, and the record names the fastest; by default (no margin), tree is.
// 10% faster is no near-tie.
TEST(Auto, ChoosesTheCheaperCandidateWhereThePredictionsAreWithinTheNearTieMargin) {
  const auto decide = hot_spot_decision_after_tree_took;
  const AutoBalancer strict = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0, run_once: false}");
  const Json quick = decide(strict, 0.0);
  ASSERT_EQ(quick["chosen"], "tree");
  const double none_s = quick["candidates"]["none"]["to_end_s"].get<double>();
  const double tree_quick_s = quick["candidates"]["tree"]["to_end_s"].get<double>();
  // Each of the 2 later calls pays the decision once more (this call's is made already,
  // whichever is chosen, and the choice leaves it out).
  const double one_percent_faster = (0.99 * none_s - tree_quick_s) / 2;
  const double ten_percent_faster = (0.90 * none_s - tree_quick_s) / 2;
  ASSERT_GT(ten_percent_faster, 0.0);
  EXPECT_EQ(decide(strict, one_percent_faster)["chosen"], "tree");
  const AutoBalancer a =
      make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0, near_tie: 0.05, run_once: false}");
  const Json tie = decide(a, one_percent_faster);
  const Json& tree = tie["candidates"]["tree"];
  EXPECT_NEAR(tree["to_end_s"].get<double>() - tree["decision_s"].get<double>(), 0.99 * none_s, 1e-9);
  EXPECT_EQ(tie["chosen"], "none");
  ASSERT_TRUE(tie.contains("near_tie")) << tie.dump();
  EXPECT_EQ(tie["near_tie"]["fastest"], "tree");
  EXPECT_NEAR(tie["near_tie"]["slower_by"].get<double>(), 1 / 0.99 - 1, 1e-6);
  EXPECT_TRUE(a.promised_nothing_moves());
  const Json clear = decide(a, ten_percent_faster);
  EXPECT_EQ(clear["chosen"], "tree");
  EXPECT_FALSE(clear.contains("near_tie"));
}

// `auto` runs a chosen candidate once and keeps `none` at the later calls that find the
// loads as its plan left them, so it weighs each candidate that way too. Tree taking 0.8 s
// a call on the hot spot loses to `none` (1.5 s over 30 steps) at its 2 later calls
// alone; run once, its call buys 30 balanced steps. The next call, on the shape tree
// left, keeps `none` without deciding.
TEST(Auto, WeighsACandidateAlsoAsRunOnceAndRemembersNoneForTheShapeItLeaves) {
  const AutoBalancer every_call =
      make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0.1, run_once: false}");
  EXPECT_EQ(hot_spot_decision_after_tree_took(every_call, 0.8)["chosen"], "none");
  const AutoBalancer a = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0.1}");
  const Json d = hot_spot_decision_after_tree_took(a, 0.8);
  ASSERT_EQ(d["chosen"], "tree") << d.dump();
  const Json& tree = d["candidates"]["tree"];
  EXPECT_EQ(tree["then"], "none");
  EXPECT_GT(tree["to_end_s"].get<double>(), d["candidates"]["none"]["to_end_s"].get<double>());
  // Its call now, a reduction (1 µs) at each of the 2 later calls, and 30 steps at the
  // slowest rank its plan leaves (the loads have no trends).
  const double once = tree["decision_s"].get<double>() + tree["migration_s"].get<double>() + 2 * 1e-6 +
                      30 * (tree["lmax_after_s"].get<double>() + d["step_exchange_s"].get<double>());
  EXPECT_NEAR(tree["once_to_end_s"].get<double>(), once, 1e-12);
  // The next call finds the loads as tree left them.
  const MachineInfo m = machine_with_collectives_of(8, 1e-6);
  CallOutlook next = outlook_of(hot_spot_for_30_more_steps(m), m);
  next.max_rank_load_s = tree["lmax_after_s"].get<double>();
  next.steps_left = 20;
  next.later_calls = 1;
  EXPECT_TRUE(a.acting_for(next).promised_nothing_moves());
  EXPECT_EQ(a.decision()["redecided"], false);
  EXPECT_EQ(a.decision()["chosen"], "none");
  // Chosen to run at every call, tree leaves no shape of its own: such a call decides
  // again (by the chooser, whose choice is not known yet, or by the totals).
  const AutoBalancer b = make_auto("{candidates: [none, tree], alpha: 1.0e-6, redecide: 0.1, run_once: false}");
  ASSERT_EQ(hot_spot_decision_after_tree_took(b, 0.0)["chosen"], "tree");
  (void)b.acting_for(next);
  const Json again = b.decision();
  EXPECT_TRUE(again.is_null() || again["redecided"].get<bool>()) << again.dump();
}

// Rank 0 of 8 at 6 ms a step against 5 ms for the others (17% over the mean, 14.6% of
// its load above it), with 30 steps and 2 calls left.
GlobalProblem rank_0_mildly_over_for_30_more_steps() {
  GlobalProblem mild = chain(400, 8, [](int i) { return i < 50 ? 1.2e-4 : 1e-4; });
  mild.steps_left = 30;
  mild.later_calls = 2;
  return mild;
}

TEST(Auto, ChoosesNoneFromTheCallsTotalsWhereNoOtherCandidatesFloorCanWin) {
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], redecide: 0}");
  // 17% over the mean on rank 0, for 30 more steps and 2 more calls.
  GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  const MachineInfo fast = machine_with_collectives_of(8, 1e-6);
  const Balancer& deciding = a.acting_for(outlook_of(mild, fast));
  EXPECT_FALSE(deciding.promised_nothing_moves());
  EXPECT_EQ(deciding.runs_first(outlook_of(mild, fast)).size(), 1U);
  // Collectives of 50 ms: tree's floor (plan()'s six, one round) and greedy's (a gather and
  // a scatter) at each of 3 calls cost more than balancing could save.
  const MachineInfo slow = machine_with_collectives_of(8, 0.05);
  const Balancer& acting = a.acting_for(outlook_of(mild, slow));
  EXPECT_TRUE(acting.promised_nothing_moves());
  EXPECT_TRUE(acting.runs_first(outlook_of(mild, slow)).empty());
  const Json d = a.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["redecided"], true);
  EXPECT_TRUE(d.contains("decided_by"));
  EXPECT_TRUE(d.contains("step_exchange_s"));  // the record's run prediction adds it to none's steps
  EXPECT_NEAR(d["candidates"]["tree"]["floor_s"].get<double>(), 8 * 0.05, 1e-12);
  EXPECT_GT(d["candidates"]["greedy"]["floor_s"].get<double>(), 0.125);
  // Over 3,000 steps the imbalance costs more than the floors: auto decides again.
  mild.steps_left = 3000;
  EXPECT_FALSE(a.acting_for(outlook_of(mild, slow)).promised_nothing_moves());
}

// A decision gathers every object's load, neighbors and trend to rank 0 before it can weigh
// any candidate. Where that gather alone costs more than the explore budget (half the most
// any candidate could gain), no candidate is weighed: the call's totals choose `none`,
// though tree's own floor could still win.
TEST(Auto, ChoosesNoneWhereTheDecisionsGatherAloneIsOverItsExploreBudget) {
  // 1 µs a byte: the gather of 400 objects and 399 edges is 29 ms. (By default tree would
  // be weighed by its plan's totals instead: WeighsTheProtocolsByTheirPlansTotals....)
  const AutoBalancer a = make_auto("{candidates: [none, tree], beta: 1.0e-6, redecide: 0, weigh_by_totals: false}");
  // Rank 0 is 1.3 ms over perfect balance at each of 30 steps: at most 39 ms to gain, and
  // half of it, 20 ms, to spend finding out.
  GlobalProblem mild = chain(400, 8, [](int i) { return i < 50 ? 1.3e-4 : 1e-4; });
  mild.steps_left = 30;
  mild.later_calls = 2;
  const MachineInfo fast = machine_with_collectives_of(8, 1e-6);
  const CallOutlook call = outlook_of(mild, fast);
  EXPECT_TRUE(a.acting_for(call).promised_nothing_moves());
  const Json d = a.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_NE(d["decided_by"].get<std::string>().find("gather"), std::string::npos) << d.dump();
  const double gather = d["exploration"]["gather_s"].get<double>();
  EXPECT_NEAR(gather, 0.0288, 0.001);
  EXPECT_GT(gather, d["exploration"]["budget_s"].get<double>());
  EXPECT_LT(gather, d["exploration"]["gain_bound_s"].get<double>()) << "tree's floor alone does not rule it out";
  // With the budget for it, the call decides.
  const AutoBalancer open =
      make_auto("{candidates: [none, tree], beta: 1.0e-6, redecide: 0, explore_budget: 1, weigh_by_totals: false}");
  EXPECT_FALSE(open.acting_for(call).promised_nothing_moves());
}

// A gatherv is linear at its root: rank 0 receives one share from every rank, at one
// receive overhead each, however few bytes the shares hold. With many ranks that, not the
// bytes, is what a decision's gather costs, and `auto` must see it before it gathers.
TEST(Auto, PricesItsGatherAtOneReceivePerRankForEachGathervAtTheRoot) {
  const AutoBalancer a = make_auto("{candidates: [none, tree], beta: 1.0e-12, redecide: 0, weigh_by_totals: false}");
  // As in ChoosesNoneWhereTheDecisionsGatherAloneIsOverItsExploreBudget: 20 ms to spend.
  GlobalProblem mild = chain(400, 8, [](int i) { return i < 50 ? 1.3e-4 : 1e-4; });
  mild.steps_left = 30;
  mild.later_calls = 2;
  MachineInfo m = machine_with_collectives_of(8, 1e-6);
  const CallOutlook call = outlook_of(mild, m);
  EXPECT_FALSE(a.acting_for(call).promised_nothing_moves()) << "the bytes alone cost nothing";
  // 1 ms a receive: ids, loads, degrees, neighbors, their bytes and the trends are six
  // gathervs of 8 receives each at rank 0, 48 ms.
  m.network.receive_overhead_s = 1e-3;
  EXPECT_TRUE(a.acting_for(outlook_of(mild, m)).promised_nothing_moves());
  const Json d = a.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_NE(d["decided_by"].get<std::string>().find("gather"), std::string::npos) << d.dump();
  EXPECT_NEAR(d["exploration"]["gather_s"].get<double>(), 6 * 8 * 1e-3, 1e-4);
}

// Where the decision's gather alone costs more than its explore budget, the protocols'
// plans are weighed by what they leave every rank, reduced over the ranks, with nothing
// gathered: the same predictions as the gathered problem gives, for a cost that does not
// grow with the objects. Tree's plan on a hot spot that grows, across two nodes joined by
// slow links, with the migration engine's code priced: every term of its call and steps
// is the gathered decision's.
TEST(Auto, WeighsTheProtocolsByTheirPlansTotalsWhereItsGatherIsOverItsExploreBudget) {
  MachineInfo m = machine_with_collectives_of(8, 1e-6);
  m.rank_node = std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1};
  m.network.node_bandwidth_Bps = 1e6;
  GlobalProblem hot = hot_spot_for_30_more_steps(m);
  hot.rank_node = m.rank_node.values();
  hot.migration_code = MigrationCode{.pack_s = 1e-6, .unpack_s = 2e-6, .keep_s = 1e-7};
  for (std::size_t i = 0; i < hot.size(); ++i) hot.load_trend.push_back(i < 50 ? 2e-5 : 0.0);
  hot.trend_origin = -2;
  const Assignment tree_plan =
      make_balancer(default_balancer_config(find_balancer("tree", ConfigNode(YAML::Node(), "test")).kind))
          ->decide_serially(hot, nullptr);
  // One decision on machine `on`, tree having run as itself in 1 ms: its choice and record.
  auto decide_on = [&](const AutoBalancer& a, const MachineInfo& on) {
    hot.network = on.network;
    const CallOutlook call = outlook_of(hot, on);
    const Balancer& acting = a.acting_for(call);
    const std::vector<const Balancer*> first = acting.runs_first(call);
    EXPECT_EQ(first.size(), 1U);
    if (first.empty()) return std::tuple(Assignment{}, Json(), Balancer::DecisionTraffic{});
    acting.ran_first(
        {RanPlan{.balancer = first[0], .assignment = tree_plan, .decision_s = 1e-3, .protocol_rounds = 7}});
    Assignment chosen = acting.decide_serially(hot, nullptr);
    return std::tuple(chosen, a.decision(), acting.decision_traffic());
  };
  const auto [gathered_plan, gathered, no_traffic] = decide_on(make_auto("{candidates: [none, tree], redecide: 0}"), m);
  EXPECT_EQ(no_traffic.sparse_rounds, 0);
  ASSERT_FALSE(gathered.contains("decided_by")) << gathered.dump();
  // 20 ms a receive: six gathervs of 8 receives each, 0.96 s, where balancing could gain
  // 1.2 s at most and the budget is half of it.
  MachineInfo slow_root = m;
  slow_root.network.receive_overhead_s = 0.02;
  const AutoBalancer a = make_auto("{candidates: [none, tree], redecide: 0}");
  const auto [plan, d, traffic] = decide_on(a, slow_root);
  ASSERT_TRUE(d.contains("decided_by")) << d.dump();
  EXPECT_NE(d["decided_by"].get<std::string>().find("plans' totals"), std::string::npos);
  EXPECT_GT(d["exploration"]["gather_s"].get<double>(), d["exploration"]["budget_s"].get<double>());
  EXPECT_LT(d["exploration"]["totals_s"].get<double>(), 1e-4);
  EXPECT_EQ(d["chosen"], "tree");
  EXPECT_EQ(plan, tree_plan);
  EXPECT_EQ(gathered["chosen"], "tree");
  for (const char* name : {"none", "tree"}) {
    for (const char* key : {"to_end_s", "interval_s", "step_lmax_s", "lmax_after_s"}) {
      const double want = gathered["candidates"][name][key].get<double>();
      EXPECT_NEAR(d["candidates"][name][key].get<double>(), want, 1e-12 * want) << name << " " << key;
    }
  }
  for (const char* key : {"migration_s", "migration_code_s", "elements_moved_max", "later_call_s"}) {
    const double want = gathered["candidates"]["tree"][key].get<double>();
    EXPECT_GT(want, 0) << key;
    EXPECT_NEAR(d["candidates"]["tree"][key].get<double>(), want, 1e-12 * want) << key;
  }
  // The engine that decides without plan() charges its exchanges: one sparse round, and
  // the two reductions of `none`'s and tree's totals.
  EXPECT_EQ(traffic.sparse_rounds, 1);
  EXPECT_EQ(traffic.allreduce_bytes.size(), 2U);
  // Without it, the call's totals keep `none`.
  const AutoBalancer without = make_auto("{candidates: [none, tree], redecide: 0, weigh_by_totals: false}");
  EXPECT_TRUE(without.acting_for(outlook_of(hot, slow_root)).promised_nothing_moves());
}

// Loads that move rather than grow: where the ranks' trends mostly cancel, no step of any
// forecast passes the slowest rank seen, in the gathered decision and in the plans'
// totals alike; where they grow, the lines are followed.
TEST(Auto, CapsEveryForecastStepAtTheSlowestRankSeenWhereTheLoadsMoveRatherThanGrow) {
  EXPECT_EQ(moving_loads_cap(0.0, 0.0, 1.0), std::numeric_limits<double>::infinity()) << "no trends";
  EXPECT_EQ(moving_loads_cap(2.0, 2.0, 1.0), std::numeric_limits<double>::infinity()) << "growth";
  EXPECT_EQ(moving_loads_cap(0.2, 2.2, 1.0), 1.0) << "motion";
  // 1 s over perfect balance for 8 steps, two calls 4 steps apart: where the loads move at
  // 0.5 s a step, a balanced placement gains 0.5 s at the first step after each call and
  // nothing from the second on.
  EXPECT_DOUBLE_EQ(gain_bound_s(1.0, 8, 2, 4, false, 0.5), 8.0);
  EXPECT_DOUBLE_EQ(gain_bound_s(1.0, 8, 2, 4, true, 0.5), 1.0);
  EXPECT_DOUBLE_EQ(gain_bound_s(1.0, 8, 2, 4, true, 0.0), 8.0) << "nothing moves";
  EXPECT_DOUBLE_EQ(gain_bound_s(-1.0, 8, 2, 4, false, 0.0), 0.0) << "balanced already";
  MachineInfo m = machine_with_collectives_of(8, 1e-6);
  GlobalProblem hot = hot_spot_for_30_more_steps(m);
  // Load leaves rank 1 for the hot rank 0: its line would grow past 50 ms a step.
  for (std::size_t i = 0; i < hot.size(); ++i) hot.load_trend.push_back(i < 50 ? 2e-5 : i < 100 ? -2e-5 : 0.0);
  hot.trend_origin = -2;
  const Assignment tree_plan =
      make_balancer(default_balancer_config(find_balancer("tree", ConfigNode(YAML::Node(), "test")).kind))
          ->decide_serially(hot, nullptr);
  auto decide_on = [&](const MachineInfo& on) {
    const AutoBalancer a = make_auto("{candidates: [none, tree], redecide: 0}");
    hot.network = on.network;
    const CallOutlook call = outlook_of(hot, on);
    const Balancer& acting = a.acting_for(call);
    const std::vector<const Balancer*> first = acting.runs_first(call);
    EXPECT_EQ(first.size(), 1U);
    if (first.empty()) return Json();
    acting.ran_first(
        {RanPlan{.balancer = first[0], .assignment = tree_plan, .decision_s = 1e-3, .protocol_rounds = 7}});
    static_cast<void>(acting.decide_serially(hot, nullptr));
    return a.decision();
  };
  const Json gathered = decide_on(m);
  MachineInfo slow_root = m;
  slow_root.network.receive_overhead_s = 0.02;  // the gather over the budget: weighed by the totals
  const Json by_totals = decide_on(slow_root);
  ASSERT_TRUE(by_totals.contains("decided_by")) << by_totals.dump();
  for (const Json& d : {gathered, by_totals}) {
    ASSERT_TRUE(d["load_trends"].is_object()) << d.dump();
    EXPECT_TRUE(d["load_trends"]["moving"].get<bool>());
    EXPECT_NEAR(d["load_trends"]["capped_at_s"].get<double>(), 0.05, 1e-12);
    EXPECT_NEAR(d["candidates"]["none"]["step_lmax_s"].get<double>(), 0.05, 1e-12);
  }
  for (const char* key : {"to_end_s", "interval_s", "step_lmax_s"}) {
    const double want = gathered["candidates"]["tree"][key].get<double>();
    EXPECT_NEAR(by_totals["candidates"]["tree"][key].get<double>(), want, 1e-12 * want) << key;
  }
  // Weighed by the plans' totals, the explore budget is that of loads that move: rank 0's
  // 39 ms over balance comes back at 1 ms a step after each of the 3 calls, 10 steps apart.
  // The gathered decision keeps the bound of loads that stay (a regrid's jump reads as motion).
  const double held = gathered["exploration"]["gain_bound_s"].get<double>();
  EXPECT_NEAR(by_totals["exploration"]["gain_bound_s"].get<double>(), gain_bound_s(held / 30, 30, 3, 10, true, 1e-3),
              1e-9);
  EXPECT_LT(by_totals["exploration"]["gain_bound_s"].get<double>(), 0.9 * held);
  // Where every trend grows, the lines are followed past the slowest rank of now.
  for (std::size_t i = 50; i < 100; ++i) hot.load_trend[i] = 2e-5;
  const Json growing = decide_on(m);
  EXPECT_FALSE(growing["load_trends"]["moving"].get<bool>());
  EXPECT_GT(growing["candidates"]["none"]["step_lmax_s"].get<double>(), 0.05);
}

// After a decision, a candidate's floor is also what its decision cost there: a protocol
// whose network floor is a few microseconds, but which took 50 ms as itself, cannot pay
// for itself on a 17% imbalance over 30 steps, and the next call chooses `none` with
// nothing gathered or run. One that took 10 µs is run again.
TEST(Auto, RulesOutACandidateWhoseLastDecisionCannotPayForItself) {
  const GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  const MachineInfo fast = machine_with_collectives_of(8, 1e-6);
  const CallOutlook call = outlook_of(mild, fast);
  // Tree's decision as itself at the first call.
  auto first_call = [&](const AutoBalancer& a, double tree_s) {
    const Balancer& chooser = a.acting_for(call);
    const std::vector<const Balancer*> first = chooser.runs_first(call);
    EXPECT_EQ(first.size(), 1U);
    if (first.empty()) return;
    chooser.ran_first(
        {RanPlan{.balancer = first[0], .assignment = first[0]->decide_serially(mild, nullptr), .decision_s = tree_s}});
    (void)chooser.decide_serially(mild, nullptr);
    EXPECT_FALSE(a.decision().contains("decided_by"));
  };
  const AutoBalancer slow_tree = make_auto("{candidates: [none, tree], redecide: 0}");
  first_call(slow_tree, 0.05);
  // Three calls at half of 50 ms each outweigh 30 steps of rank 0's 0.875 ms over the mean.
  const Balancer& acting = slow_tree.acting_for(call);
  EXPECT_TRUE(acting.promised_nothing_moves());
  EXPECT_TRUE(acting.runs_first(call).empty());
  const Json d = slow_tree.decision();
  ASSERT_TRUE(d.contains("decided_by")) << d.dump();
  const Json& tree = d["candidates"]["tree"];
  EXPECT_NEAR(tree["floor_s"].get<double>() - tree["migration_floor_s"].get<double>(), 0.05, 1e-12);
  EXPECT_EQ(tree["floor_from"], "its last decision");
  const AutoBalancer quick_tree = make_auto("{candidates: [none, tree], redecide: 0}");
  first_call(quick_tree, 1e-5);
  EXPECT_FALSE(quick_tree.acting_for(call).promised_nothing_moves());
  EXPECT_FALSE(quick_tree.decision().contains("decided_by"));
}

// A candidate's reach: the share of the gain bound its steps gained over `none`'s when it
// was last weighed. Diffusion, whose plan here moves nothing, reached none of it, and the
// next call does not run it as itself (nor weigh it on rank 0), while tree, which balanced,
// runs again. The call after that has not weighed diffusion, so its reach is unknown again
// and it runs.
TEST(Auto, LeavesOutAProtocolThatBalancedNothingAtTheLastDecisionUntilTheNext) {
  const MachineInfo m = machine_with_collectives_of(8, 1e-6);
  const GlobalProblem hot = hot_spot_for_30_more_steps(m);
  const CallOutlook call = outlook_of(hot, m);
  const AutoBalancer a = make_auto("{candidates: [none, diffusion, tree], redecide: 0}");
  const Balancer& chooser = a.acting_for(call);
  auto is_tree = [](const Balancer* b) { return dynamic_cast<const TreeBalancer*>(b) != nullptr; };
  // Runs what runs_first() lists, tree balancing and diffusion moving nothing: the record.
  auto decide = [&](const std::vector<const Balancer*>& first) {
    std::vector<RanPlan> ran;
    for (const Balancer* b : first) {
      ran.push_back(RanPlan{.balancer = b,
                            .assignment = is_tree(b) ? b->decide_serially(hot, nullptr) : hot.owner,
                            .decision_s = 1e-3,
                            .protocol_rounds = is_tree(b) ? 7 : 22});
    }
    chooser.ran_first(std::move(ran));
    (void)chooser.decide_serially(hot, nullptr);
    return a.decision();
  };
  const std::vector<const Balancer*> first = chooser.runs_first(call);
  ASSERT_EQ(first.size(), 2U);
  const Json d1 = decide(first);
  EXPECT_EQ(d1["candidates"]["diffusion"]["reach"].get<double>(), 0.0) << d1.dump();
  EXPECT_GT(d1["candidates"]["tree"]["reach"].get<double>(), 0.9);
  const std::vector<const Balancer*> second = chooser.runs_first(call);
  ASSERT_EQ(second.size(), 1U);
  EXPECT_TRUE(is_tree(second[0]));
  const Json d2 = decide(second);
  EXPECT_EQ(d2["candidates"]["diffusion"]["out_of_reach"], true) << d2.dump();
  EXPECT_EQ(chooser.runs_first(call).size(), 2U) << "its reach is unknown again";
}

// After a decision every rank also knows each candidate's last migration and how much of
// the slowest rank's load stood above balance then. Here rank 0 is 14.6% over (6 ms against
// 5.125), and tree's floor at 3 calls must stay under 2 x 26.25 ms / 3 = 17.5 ms to win:
// a 50 ms migration learned on loads as imbalanced as these cannot pay for itself, one
// learned where ten times as much stood over balance is taken as 5 ms, and a migration is
// never scaled up for loads more imbalanced than those it was learned on.
TEST(Auto, RulesOutACandidateWhoseLastMigrationCannotPayForItself) {
  const GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  const MachineInfo fast = machine_with_collectives_of(8, 1e-6);
  const CallOutlook call = outlook_of(mild, fast);
  const double share_now = 1.0 - (6e-3 + 7 * 5e-3) / 8 / 6e-3;
  // Whether the call's totals choose `none` after tree's migration was learned so.
  auto ruled_out = [&](const AutoBalancer& a, double migration_s, double share_then) {
    dynamic_cast<const AutoChooser&>(a.acting_for(call)).learn({0, 0, 0, migration_s, 0, share_then, -1, -1});
    return a.acting_for(call).promised_nothing_moves();
  };
  const AutoBalancer as_now = make_auto("{candidates: [none, tree], redecide: 0}");
  EXPECT_TRUE(ruled_out(as_now, 0.05, share_now));
  EXPECT_NEAR(as_now.decision()["candidates"]["tree"]["migration_floor_s"].get<double>(), 0.05, 1e-12);
  const AutoBalancer less_over_now = make_auto("{candidates: [none, tree], redecide: 0}");
  EXPECT_FALSE(ruled_out(less_over_now, 0.05, 10 * share_now));
  const AutoBalancer more_over_now = make_auto("{candidates: [none, tree], redecide: 0}");
  EXPECT_TRUE(ruled_out(more_over_now, 0.05, share_now / 2));
  EXPECT_NEAR(more_over_now.decision()["candidates"]["tree"]["migration_floor_s"].get<double>(), 0.05, 1e-12);
  const AutoBalancer never_ran = make_auto("{candidates: [none, tree], redecide: 0}");
  EXPECT_FALSE(ruled_out(never_ran, 0, 0));
}

// A hot spot on one of 8 ranks for 30 more steps: the most any candidate could gain over
// `none` is 30 x (50 ms - 10.6 ms), and a decision may spend half of that (explore_budget)
// finding out what candidates cost. Tree as itself took 0.7 s of it, so greedy, never run,
// is not weighed; with no limit it is.
TEST(Auto, SpendsNoMoreThanItsExploreBudgetFindingOutWhatCandidatesCost) {
  const auto decide = hot_spot_decision_after_tree_took;
  const double gain_s = 30 * (0.05 - (0.05 + 7 * 0.005) / 8);
  const Json spent = decide(make_auto("{candidates: [none, greedy, tree], redecide: 0}"), 0.7);
  ASSERT_TRUE(spent.contains("exploration")) << spent.dump();
  EXPECT_NEAR(spent["exploration"]["gain_bound_s"].get<double>(), gain_s, 1e-9);
  EXPECT_NEAR(spent["exploration"]["budget_s"].get<double>(), 0.5 * gain_s, 1e-9);
  EXPECT_EQ(spent["candidates"]["greedy"]["over_explore_budget"], true);
  EXPECT_EQ(spent["candidates"]["tree"]["decision_s"], 0.7);
  const Json open = decide(make_auto("{candidates: [none, greedy, tree], redecide: 0, explore_budget: 1000}"), 0.7);
  EXPECT_TRUE(open["candidates"]["greedy"].contains("to_end_s")) << open.dump();
  EXPECT_GT(open["exploration"]["spent_s"].get<double>(), 0.7);
  // Quick as itself, tree leaves room for greedy.
  const Json room = decide(make_auto("{candidates: [none, greedy, tree], redecide: 0}"), 1e-4);
  EXPECT_TRUE(room["candidates"]["greedy"].contains("to_end_s")) << room.dump();
}

// What the decision's own code on rank 0 takes counts in the budget too: quick as itself,
// tree leaves room for greedy, but not where the code that priced tree ran a million times
// slower than on this host (any code at all then takes seconds). Without `none` among the
// candidates (its reference, timed, would spend the budget too), the only other code timed
// before greedy's reference is its try at a sample of a problem too small to take one:
// tens of nanoseconds, hundredths of a second at that scale.
TEST(Auto, CountsItsOwnCodeInWhatItSpendsFindingOut) {
  const auto decide = hot_spot_decision_on_code_of;
  const Json here = decide(1.0, make_auto("{candidates: [greedy, tree], redecide: 0}"), 1e-4);
  EXPECT_TRUE(here["candidates"]["greedy"].contains("to_end_s")) << here.dump();
  const Json slow = decide(1e6, make_auto("{candidates: [greedy, tree], redecide: 0}"), 1e-4);
  EXPECT_EQ(slow["candidates"]["greedy"]["over_explore_budget"], true) << slow.dump();
  const Json& spent = slow["exploration"];
  EXPECT_GT(spent["spent_s"].get<double>(), spent["budget_s"].get<double>());
}

// Two protocols, neither run before: tree, whose structure says fewer rounds at 8 ranks,
// runs first, and diffusion after it only while what tree took and what diffusion is
// expected to take stay within the budget (half of 43 x 39.4 ms: 846.6 ms). Diffusion is
// expected to take its 22 rounds and the 21 of them that reduce the loads' maximum on the
// network, times what code added to tree's rounds.
TEST(Auto, RunsTheProtocolsCheapestFirstWhileTheExploreBudgetLasts) {
  const MachineInfo m = machine_with_collectives_of(8, 0.01);
  GlobalProblem hot = hot_spot_for_30_more_steps(m);
  // 43 steps: rank 0 is 39.4 ms over perfect balance at each, and half of that over the
  // run (the budget) is 846.6 ms, of which the decision's own gather (two far messages and
  // half a collective, 25 ms here) is spent whatever runs.
  hot.steps_left = 43;
  const CallOutlook call = outlook_of(hot, m);
  const AutoBalancer a = make_auto("{candidates: [none, diffusion, tree], redecide: 0}");
  const Balancer& chooser = a.acting_for(call);
  const std::vector<const Balancer*> first = chooser.runs_first(call);
  ASSERT_EQ(first.size(), 2U);
  const auto* tree = dynamic_cast<const TreeBalancer*>(first[0]);
  ASSERT_NE(tree, nullptr) << "tree runs first";
  const auto& diffusion = dynamic_cast<const DistributedBalancer&>(*first[1]);
  EXPECT_LT(tree->expected_rounds(8), diffusion.expected_rounds(8));
  ASSERT_EQ(diffusion.expected_rounds(8), 22);
  ASSERT_EQ(diffusion.expected_reducing_rounds(8), 21);
  // A round costs 20 ms here (the barrier, then the allreduce), a round that reduces 10 ms
  // more, and plan()'s collectives 60 ms: diffusion is expected at 710 ms on the network.
  auto tree_took = [&](double seconds) {
    return std::vector<RanPlan>{
        RanPlan{.balancer = tree, .assignment = {}, .decision_s = seconds, .protocol_rounds = 1}};
  };
  // Tree's one round took what the network says (80 ms): 25 + 80 + 710 ms fit.
  EXPECT_TRUE(chooser.keeps_running_first(call, tree_took(0.080), *first[1]));
  // It took 10% more: diffusion is expected 10% dearer too, 25 + 88 + 781 ms, which do not
  // (on the network alone, 25 + 88 + 710 ms would; and with its rounds alone priced, not
  // the reductions, 25 + 88 + 550).
  EXPECT_FALSE(chooser.keeps_running_first(call, tree_took(0.088), *first[1]));
  // Nothing ran before it: diffusion alone, at 710 ms, fits.
  EXPECT_TRUE(chooser.keeps_running_first(call, {}, *first[1]));
  const AutoBalancer open = make_auto("{candidates: [none, diffusion, tree], redecide: 0, explore_budget: 1000}");
  const Balancer& unlimited = open.acting_for(call);
  EXPECT_TRUE(unlimited.keeps_running_first(call, tree_took(0.5), *first[1]));
}

// From 48 ranks on, a centralized candidate that is unknown at a decision is timed first on
// a sample of 1/64 of the ranks (2 at 128 ranks), then, where the budget has room for it,
// on the usual one of 1/16 of the ranks (8), whose estimate it keeps. At 32 ranks the
// usual sample is 2 ranks already, and the only one. (Where the budget has no room, the
// first sample's estimate is kept, as the second sweep's cluster-ib records show with
// `sample_ranks: 2`; a unit test of that would depend on this host's timing.)
TEST(Auto, SamplesSmallFirstWhereTheRanksAreMany) {
  auto decided_on = [](int ranks) {
    GlobalProblem hot = chain(8192, ranks, [](int i) { return i < 64 ? 1e-3 : 1e-4; });
    hot.steps_left = 30;
    hot.later_calls = 2;
    hot.network = machine_with_collectives_of(ranks, 0).network;
    const AutoBalancer a =
        make_auto("{candidates: [none, greedy], alpha: 0, beta: 0, redecide: 0, explore_budget: 1000}");
    (void)a.decide_serially(hot, nullptr);
    return a.decision()["candidates"]["greedy"];
  };
  EXPECT_EQ(decided_on(128)["sample_ranks"], 8) << decided_on(128).dump();
  EXPECT_EQ(decided_on(32)["sample_ranks"], 2);
  EXPECT_EQ(decided_on(8)["sample_ranks"], 2);
  EXPECT_FALSE(decided_on(2).contains("sample_ranks")) << "a sample of 2 ranks is the whole problem";
}

// At 128 ranks a candidate is timed on 2 ranks' objects first, and on the usual 8 only
// where the first sample left it in the running: where it cannot win even so, the first
// sample is enough, however much the budget has left.
TEST(Auto, TimesTheUsualSampleOnlyWhereTheFirstLeavesTheCandidateInTheRunning) {
  auto metis_sample_ranks = [](double hot_load) {
    GlobalProblem p = chain(8192, 128, [&](int i) { return i < 64 ? hot_load : 1e-4; });
    p.steps_left = 30;
    p.later_calls = 2;
    p.network = machine_with_collectives_of(128, 0).network;
    const AutoBalancer a =
        make_auto("{candidates: [none, metis], alpha: 0, beta: 0, redecide: 0, explore_budget: 1.0e6}");
    (void)a.decide_serially(p, nullptr);
    return a.decision()["candidates"]["metis"];
  };
  // Rank 0 at 640 ms a step against 6.4 for the others: 19 s to gain, ten times what the
  // first sample's timing made of metis's decision under the sanitizers on a loaded host
  // (1.7 s, where 64 ms a step left it out: the sample is timed code).
  const Json can_win = metis_sample_ranks(1e-2);
  EXPECT_EQ(can_win["sample_ranks"], 8) << can_win.dump();
  // Rank 0 0.01% over the others: no decision pays for itself.
  const Json cannot = metis_sample_ranks(1.0001e-4);
  EXPECT_EQ(cannot["sample_ranks"], 2) << cannot.dump();
  EXPECT_EQ(cannot["skipped"], true);
}

// After the totals alone chose `none`, later calls look at the loads again only as far as
// `look_budget` of none's time to the end pays for their reductions.
TEST(Auto, SkipsTheLaterCallsThatLookingAgainCannotPayFor) {
  GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  mild.later_calls = 5;
  const MachineInfo slow = machine_with_collectives_of(8, 0.05);
  const CallOutlook call = outlook_of(mild, slow);
  // 5% of none's 0.18 s to the end pays for no 50 ms reduction: no later call is taken.
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], redecide: 0}");
  EXPECT_TRUE(a.takes_call(nullptr));
  ASSERT_TRUE(a.acting_for(call).promised_nothing_moves());
  const Json d = a.decision();
  const double none_s = d["candidates"]["none"]["to_end_s"].get<double>();
  const double look_s = d["network"]["collective_s"].get<double>();
  ASSERT_LT(0.05 * none_s, look_s);
  EXPECT_EQ(d["look_budget"], 0.05);
  EXPECT_EQ(d["skips_next_calls"], 5);
  for (int later = 0; later < 5; ++later) EXPECT_FALSE(a.takes_call(nullptr)) << later;
  EXPECT_TRUE(a.takes_call(nullptr));
  // A budget for one look and a half: one look, half way through the 5 calls left.
  const AutoBalancer once = make_auto(
      fmt::format("{{candidates: [none, greedy, tree], redecide: 0, look_budget: {}}}", 1.5 * look_s / none_s));
  (void)once.acting_for(call);
  EXPECT_EQ(once.decision()["skips_next_calls"], 2);
  EXPECT_FALSE(once.takes_call(nullptr));
  EXPECT_FALSE(once.takes_call(nullptr));
  EXPECT_TRUE(once.takes_call(nullptr));
  // A budget for every call, and a decision that balances: every call is taken.
  const AutoBalancer every = make_auto("{candidates: [none, greedy, tree], redecide: 0, look_budget: 1000}");
  (void)every.acting_for(call);
  EXPECT_EQ(every.decision()["skips_next_calls"], 0);
  EXPECT_TRUE(every.takes_call(nullptr));
  const MachineInfo fast = machine_with_collectives_of(8, 1e-6);
  EXPECT_FALSE(a.acting_for(outlook_of(mild, fast)).promised_nothing_moves());
  EXPECT_TRUE(a.takes_call(nullptr));
}

// After a call that chose `none`, the engines start a look at the next point's totals
// without waiting (nonblocking_look). The look keeps `none` there without a call where the
// decision remembered for the loads' shape chose it, or where the totals alone still rule
// every other candidate out; a hot spot past both is a call.
TEST(Auto, KeepsNoneOnALookWhereItWouldBeChosenAgain) {
  GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  mild.later_calls = 5;
  const MachineInfo slow = machine_with_collectives_of(8, 0.05);
  const CallOutlook call = outlook_of(mild, slow);
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], look_budget: 1000}");
  ASSERT_TRUE(a.acting_for(call).promised_nothing_moves());
  ASSERT_TRUE(a.wants_look());
  // The same shape: the decision remembered for it chose `none`.
  EXPECT_FALSE(a.takes_call(&call));
  // A milder shape, 20% from it: no decision is remembered, and the totals alone rule out
  // greedy and tree.
  CallOutlook milder = call;
  milder.max_rank_load_s = call.total_load_s / 8 * 1.02;
  EXPECT_FALSE(a.takes_call(&milder));
  // A hot spot that balancing would pay for.
  CallOutlook hot = call;
  hot.max_rank_load_s = 100 * call.max_rank_load_s;
  hot.total_load_s = call.total_load_s + hot.max_rank_load_s - call.max_rank_load_s;
  EXPECT_TRUE(a.takes_call(&hot));
  // The next call's record counts the points the looks kept.
  (void)a.acting_for(call);
  EXPECT_EQ(a.decision()["points_kept_by_looks"], 2);
  // Without looks nothing is asked for.
  const AutoBalancer blocking =
      make_auto("{candidates: [none, greedy, tree], look_budget: 1000, nonblocking_look: false}");
  ASSERT_TRUE(blocking.acting_for(call).promised_nothing_moves());
  EXPECT_FALSE(blocking.wants_look());
}

// Before the first call the run is under `none` as after a call that chose it: the first
// point is looked at without waiting too. Where the look's totals alone rule out every
// other candidate, the point is kept without a call, the look's decision is the record's,
// and the later points look again only as far as `look_budget` pays for.
TEST(Auto, LooksBeforeItsFirstCallAndKeepsNoneWhereTheTotalsRuleTheRestOut) {
  GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  mild.later_calls = 5;
  const MachineInfo slow = machine_with_collectives_of(8, 0.05);
  const CallOutlook call = outlook_of(mild, slow);
  const MachineInfo fast_network = machine_with_collectives_of(8, 1e-6);
  const CallOutlook cheap = outlook_of(mild, fast_network);
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree]}");
  ASSERT_TRUE(a.wants_look()) << "before the first call";
  EXPECT_FALSE(make_auto("{candidates: [greedy, tree]}").wants_look()) << "no `none` for a look to keep";
  EXPECT_TRUE(a.look_decision().is_null());
  EXPECT_FALSE(a.takes_call(&call));
  const Json d = a.look_decision();
  ASSERT_FALSE(d.is_null());
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["by_look"], true);
  EXPECT_EQ(d["calls"], 0);
  // 5% of none's time to the end pays for no 50 ms reduction: the 5 later points are
  // skipped whole, with no look before them.
  EXPECT_EQ(d["skips_next_calls"], 5);
  EXPECT_FALSE(a.wants_look());
  for (int later = 0; later < 5; ++later) EXPECT_FALSE(a.takes_call(nullptr)) << later;
  EXPECT_TRUE(a.look_decision().is_null()) << "a skipped point decides nothing";
  // The look's decision is remembered for the loads' shape, as a call's is: the same shape
  // keeps `none` again without deciding, even where the totals alone would not rule the
  // rest out.
  EXPECT_FALSE(a.takes_call(&cheap));
  EXPECT_TRUE(a.look_decision().is_null()) << "kept by the decision remembered";
  // Where balancing could pay (a fast network), the look's point is a call, and the look
  // decided nothing.
  const AutoBalancer fast = make_auto("{candidates: [none, greedy, tree], redecide: 0}");
  EXPECT_TRUE(fast.takes_call(&cheap));
  EXPECT_TRUE(fast.look_decision().is_null());
  // A call that balances: no look before the next point.
  EXPECT_FALSE(fast.acting_for(cheap).promised_nothing_moves());
  EXPECT_FALSE(fast.wants_look());
}

// A look reduces the ranks' trends with the loads, as a call does: where the decision would
// weigh by the plans' totals (its gather over the budget) and the loads move, the explore
// budget is that of loads that move there too, and the point is kept without a call, whose
// one blocking reduction would join every rank to the slowest. Without the trends the same
// look sees the budget of loads that stay, and the point is a call.
TEST(Auto, ALooksTrendsGiveItTheBudgetOfLoadsThatMove) {
  MachineInfo m = machine_with_collectives_of(8, 0.02);
  m.network.receive_overhead_s = 1.0;  // the gather over any budget: weighed by the totals
  GlobalProblem hot = hot_spot_for_30_more_steps(m);
  // Load leaves rank 1 for the hot rank 0 at 10 ms a step: a balanced placement holds
  // about 4 steps after each call.
  for (std::size_t i = 0; i < hot.size(); ++i) hot.load_trend.push_back(i < 50 ? 2e-4 : i < 100 ? -2e-4 : 0.0);
  hot.trend_origin = -2;
  const CallOutlook moving = outlook_of(hot, m);
  ASSERT_TRUE(loads_move(moving.trends.sum, moving.trends.size));
  CallOutlook untrended = moving;
  untrended.trends = {};
  const AutoBalancer a = make_auto("{candidates: [none, tree], redecide: 0}");
  EXPECT_FALSE(a.takes_call(&moving));
  const Json d = a.look_decision();
  ASSERT_FALSE(d.is_null());
  EXPECT_EQ(d["by_look"], true);
  const double bound = d["exploration"]["gain_bound_s"].get<double>();
  EXPECT_LT(bound, 0.5 * gain_bound_s(moving.max_rank_load_s - moving.total_load_s / 8, 30, 3, 10, false, 0.0));
  EXPECT_TRUE(make_auto("{candidates: [none, tree], redecide: 0}").takes_call(&untrended));
}

// A look sees the loads half a period before the LB point. Where they grow, the totals
// that would keep `none` there are taken at the most the point can show: the slowest rank
// grown by the fastest trend at every step between. A look that, as seen, finds tree's
// run over the explore budget takes the call where the growth to the point pays for it;
// where the loads move instead, the slowest rank of now bounds them, and it keeps `none`.
TEST(Auto, ALookWeighsTheSlowestRankTheLBPointCanShow) {
  MachineInfo m = machine_with_collectives_of(8, 0.02);
  m.network.receive_overhead_s = 1.0;  // the gather over any budget: weighed by the totals
  GlobalProblem mild = rank_0_mildly_over_for_30_more_steps();
  mild.network = m.network;
  CallOutlook seen = outlook_of(mild, m);
  const double mean = seen.total_load_s / 8;
  // First what tree's floor and run cost there, from a look that keeps `none`.
  const AutoBalancer probe = make_auto("{candidates: [none, tree], redecide: 0}");
  ASSERT_FALSE(probe.takes_call(&seen));
  const Json kept = probe.look_decision();
  const double floor = kept["candidates"]["tree"]["floor_s"].get<double>();
  const double run = kept["candidates"]["tree"]["expected_run_s"].get<double>();
  const double weighing = kept["exploration"]["totals_s"].get<double>();
  // A gain bound (30 steps of rank 0's excess) that tree's floor at its 3 calls can win
  // but whose explore budget (half of it) its run alone does not fit in.
  const double can_win = weighing + 3 * AutoChooser::kSkipShare * floor;
  const double fits = 2 * (weighing + run);
  ASSERT_LT(can_win, fits);
  seen.max_rank_load_s = mean + (can_win + fits) / 2 / 30;
  seen.total_load_s = 8 * mean + seen.max_rank_load_s - mean;
  EXPECT_FALSE(make_auto("{candidates: [none, tree], redecide: 0}").takes_call(&seen)) << "as seen";
  // Rank 0 alone grows over the 5 steps to the point, by what makes the budget fit tree's
  // run: nothing cancels, the loads grow.
  const double growth = fits / 30;
  CallOutlook growing = seen;
  growing.steps_to_point = 5;
  growing.trends = RankTrends{.sum = growth / 5, .size = growth / 5, .largest = growth / 5};
  EXPECT_TRUE(make_auto("{candidates: [none, tree], redecide: 0}").takes_call(&growing));
  // The same trends as load that leaves rank 1 for rank 0: capped at the slowest rank now.
  CallOutlook moving = growing;
  moving.trends.sum = 0;
  moving.trends.size = 2 * growth / 5;
  EXPECT_FALSE(make_auto("{candidates: [none, tree], redecide: 0}").takes_call(&moving));
}

TEST(Auto, PredictsWithThePlatformsFittedCostsWhereGiven) {
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], alpha: 1.0e-6, redecide: 0}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1e-3 : 1e-4; });
  hot.element_bytes = 1000;
  // Greedy's decision fitted at 2 ms + 1 µs per vertex; migration at 1 ms per call + 1 µs
  // per vertex per rank + 10 µs per arriving vertex + 1 ns per byte; tree's decision not fitted.
  auto fits = std::make_shared<FittedCosts>();
  fits->decision["greedy"] = FittedCost{{2e-3, 1e-6, 0, 0}};
  fits->migration = FittedCost{{1e-3, 1e-6, 1e-5, 1e-9}};
  hot.fitted_costs = fits;
  (void)a.decide_serially(hot, nullptr);
  const Json d = a.decision();
  const Json& greedy = d["candidates"]["greedy"];
  EXPECT_NEAR(greedy["decision_s"].get<double>(), 2e-3 + 400e-6, 1e-12);
  EXPECT_TRUE(greedy.contains("decision_reference_s"));
  const double arriving = greedy["elements_moved_max"].get<double>();
  EXPECT_GT(arriving, 0);
  EXPECT_NEAR(greedy["migration_s"].get<double>(), 1e-3 + 50e-6 + 1e-5 * arriving + 1e-9 * 1000 * arriving, 1e-12);
  EXPECT_NEAR(greedy["repeat_s"].get<double>(), 2e-3 + 400e-6 + 1e-3 + 50e-6, 1e-12);
  EXPECT_EQ(greedy["fitted"], (Json{{"decision", true}, {"migration", true}}));
  const Json& tree = d["candidates"]["tree"];
  EXPECT_FALSE(tree.contains("decision_reference_s"));
  EXPECT_EQ(tree["fitted"], (Json{{"decision", false}, {"migration", true}}));
  EXPECT_EQ(d["candidates"]["none"]["migration_s"], 0.0);

  // A platform where every migration costs a second: balancing no longer pays off.
  fits->migration = FittedCost{{1.0, 0, 0, 0}};
  (void)a.decide_serially(hot, nullptr);
  EXPECT_EQ(a.decision()["chosen"], "none");
}

// Algorithm 1 decides at the first call and then only when the loads' max over mean has
// moved past `redecide` since the last decision; the calls between run the chosen
// balancer itself, whose plan is then auto's.
TEST(Auto, DecidesAgainOnlyWhenTheLoadsChangedShape) {
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], alpha: 1.0e-6, redecide: 0.1}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1e-3 : 1e-4; });
  (void)a.decide_serially(hot, nullptr);
  Json d = a.decision();
  const std::string chosen = d["chosen"].get<std::string>();
  ASSERT_NE(chosen, "none");
  EXPECT_EQ(d["redecided"], true);
  EXPECT_EQ(d["decisions"], 1);
  EXPECT_TRUE(d.contains("candidates"));
  const double decided_at = d["max_over_mean"].get<double>();
  EXPECT_GT(decided_at, 2.0);

  // The same loads again: the choice stands, and the chosen balancer decides alone.
  const Assignment reused = a.decide_serially(hot, nullptr);
  d = a.decision();
  EXPECT_EQ(d["redecided"], false);
  EXPECT_EQ(d["chosen"], chosen);
  EXPECT_EQ(d["decisions"], 1);
  EXPECT_EQ(d["calls"], 2);
  EXPECT_FALSE(d.contains("candidates"));
  EXPECT_DOUBLE_EQ(d["max_over_mean_at_decision"].get<double>(), decided_at);
  const auto candidate =
      make_balancer(default_balancer_config(find_balancer(chosen, ConfigNode(YAML::Node(), "test")).kind));
  EXPECT_EQ(reused, candidate->decide_serially(hot, nullptr));

  // Balanced loads are another shape: auto decides again, and balancing no longer pays.
  const GlobalProblem flat = chain(400, 8, [](int) { return 1e-4; });
  (void)a.decide_serially(flat, nullptr);
  d = a.decision();
  EXPECT_EQ(d["redecided"], true);
  EXPECT_EQ(d["decisions"], 2);
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_NEAR(d["max_over_mean"].get<double>(), 1.0, 1e-9);
  // Back to the first shape: its choice is remembered, not decided a third time.
  (void)a.decide_serially(hot, nullptr);
  d = a.decision();
  EXPECT_EQ(d["redecided"], false);
  EXPECT_EQ(d["chosen"], chosen);
  EXPECT_EQ(d["decisions"], 2);
  // redecide: 0 decides at every call.
  const AutoBalancer always = make_auto("{candidates: [none, greedy, tree], alpha: 1.0e-6, redecide: 0}");
  for (int call = 1; call <= 2; ++call) {
    (void)always.decide_serially(hot, nullptr);
    EXPECT_EQ(always.decision()["redecided"], true);
    EXPECT_EQ(always.decision()["decisions"], call);
  }
}

// A candidate whose decision alone, at every call left, outweighs the best prediction so
// far is not run: from the platform's fit at once, from its own last decision later.
TEST(Auto, SkipsACandidateThatCannotWinOnItsExpectedDecision) {
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], alpha: 1.0e-6, redecide: 0}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1e-3 : 1e-4; });
  hot.steps_left = 40;
  hot.later_calls = 3;
  auto fits = std::make_shared<FittedCosts>();
  fits->decision["greedy"] = FittedCost{{10.0, 0, 0, 0}};  // ten seconds a call
  hot.fitted_costs = fits;
  (void)a.decide_serially(hot, nullptr);
  Json d = a.decision();
  const Json& greedy = d["candidates"]["greedy"];
  EXPECT_EQ(greedy["skipped"], true);
  EXPECT_DOUBLE_EQ(greedy["decision_estimate_s"].get<double>(), 10.0);
  EXPECT_EQ(greedy["estimated_from"], "the platform's fit");
  EXPECT_GE(greedy["bound_s"].get<double>(), d["candidates"][d["chosen"].get<std::string>()]["to_end_s"].get<double>());
  EXPECT_FALSE(d["candidates"]["tree"].contains("skipped"));
  // A cheap fit: greedy runs, and wins the hot spot.
  fits->decision["greedy"] = FittedCost{{1e-6, 0, 0, 0}};
  (void)a.decide_serially(hot, nullptr);
  d = a.decision();
  EXPECT_FALSE(d["candidates"]["greedy"].contains("skipped"));
  EXPECT_NE(d["chosen"], "none");
  // A large problem with nothing to gain: there is nothing to spend on finding out what
  // greedy costs (explore_budget), so it is neither sampled nor run.
  GlobalProblem flat = chain(16384, 32, [](int) { return 1e-4; });
  flat.steps_left = 40;
  flat.later_calls = 3;
  const AutoBalancer thrifty = make_auto("{candidates: [none, greedy], alpha: 1.0e-6, redecide: 0}");
  (void)thrifty.decide_serially(flat, nullptr);
  d = thrifty.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["candidates"]["greedy"]["over_explore_budget"], true);
  EXPECT_EQ(d["candidates"]["greedy"]["decision_estimate_s"], 0.0);
  // With almost nothing to gain (rank 0 0.01% over the rest) and a budget of 1,000 times
  // that, greedy, never timed, is timed on a sample of the ranks, and any decision at all
  // already loses to none.
  flat = chain(16384, 32, [](int i) { return i < 512 ? 1.0001e-4 : 1e-4; });
  flat.steps_left = 40;
  flat.later_calls = 3;
  const AutoBalancer b = make_auto("{candidates: [none, greedy], alpha: 1.0e-6, redecide: 0, explore_budget: 1000}");
  (void)b.decide_serially(flat, nullptr);
  d = b.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["candidates"]["greedy"]["skipped"], true);
  EXPECT_EQ(d["candidates"]["greedy"]["estimated_from"], "a sample");
  const double sampled_s = d["candidates"]["greedy"]["decision_estimate_s"].get<double>();
  EXPECT_GT(sampled_s, 0.0);
  // The next decision keeps that estimate instead of timing another sample.
  (void)b.decide_serially(flat, nullptr);
  d = b.decision();
  EXPECT_EQ(d["candidates"]["greedy"]["skipped"], true);
  EXPECT_EQ(d["candidates"]["greedy"]["estimated_from"], "an earlier sample");
  EXPECT_NEAR(d["candidates"]["greedy"]["decision_estimate_s"].get<double>(), sampled_s, 1e-12 * sampled_s);
}

// A centralized candidate never run in full is expected to move what its sample's plan
// says: greedy places every object afresh and keeps about half of a 2-rank sample's
// objects by chance, so at 32 ranks it moves nearly all; refine keeps them home beyond
// chance. Each is then run in full (the budget allows it): greedy's migration is what its
// sample predicted; refine's sample, two ranks equally loaded, moved nothing, so its
// estimate errs low, never high.
TEST(Auto, ExpectsACentralizedCandidatesMigrationFromItsSamplesPlan) {
  GlobalProblem hot = chain(16384, 32, [](int i) { return i < 2048 ? 3e-4 : 1e-4; });
  hot.steps_left = 40;
  hot.later_calls = 3;
  hot.migration_code = MigrationCode{.pack_s = 1e-6, .unpack_s = 3e-6, .keep_s = 2e-7};
  auto weighed = [&](const std::string& name) {
    const AutoBalancer a =
        make_auto(fmt::format("{{candidates: [none, {}], alpha: 1.0e-6, redecide: 0, explore_budget: 1000}}", name));
    (void)a.decide_serially(hot, nullptr);
    return a.decision()["candidates"][name];
  };
  const Json greedy = weighed("greedy");
  EXPECT_NEAR(greedy["sample_kept_share"].get<double>(), 0.5, 0.1);
  EXPECT_NEAR(greedy["sampled_migration_s"].get<double>(), greedy["migration_s"].get<double>(),
              0.1 * greedy["migration_s"].get<double>());
  const Json refine = weighed("refine");
  EXPECT_GT(refine["sample_kept_share"].get<double>(), 0.9);
  EXPECT_LE(refine["sampled_migration_s"].get<double>(), refine["migration_s"].get<double>());
  EXPECT_LT(refine["sampled_migration_s"].get<double>(), greedy["sampled_migration_s"].get<double>() / 4);
  // Where what balancing could gain (0.8 s over the run) pays for greedy's decisions (1 ms
  // each here, 10 under sanitizers, 4 calls) but not for its migrations as well (0.8 s and
  // more each), greedy is skipped on its sample, not run in full to find that out.
  GlobalProblem mild = chain(16384, 32, [](int i) { return i < 2048 ? 1.446e-4 : 1e-4; });
  mild.steps_left = 40;
  mild.later_calls = 3;
  mild.migration_code = MigrationCode{.pack_s = 4e-4, .unpack_s = 12e-4, .keep_s = 8e-5};
  const AutoBalancer a = make_auto("{candidates: [none, greedy], alpha: 1.0e-6, redecide: 0}");
  (void)a.decide_serially(mild, nullptr);
  const Json d = a.decision();
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["candidates"]["greedy"]["skipped"], true);
  EXPECT_EQ(d["candidates"]["greedy"]["estimated_from"], "a sample");
  EXPECT_GT(d["candidates"]["greedy"]["migration_estimate_s"].get<double>(),
            d["candidates"]["greedy"]["decision_estimate_s"].get<double>());
}

// A protocol never run is expected to cost at least its floor (six allreduces and a
// round); where that floor alone loses to a cheaper candidate, the record says so.
TEST(Auto, NamesTheProtocolsFloorWhereItRuledADistributedCandidateOut) {
  const AutoBalancer a = make_auto("{candidates: [none, greedy, tree], alpha: 2.0e-3, redecide: 0}");
  GlobalProblem hot = chain(400, 8, [](int i) { return i < 50 ? 1e-2 : 1e-4; });
  hot.steps_left = 40;
  hot.later_calls = 3;
  (void)a.decide_serially(hot, nullptr);
  const Json d = a.decision();
  EXPECT_EQ(d["chosen"], "greedy");
  const Json& tree = d["candidates"]["tree"];
  EXPECT_EQ(tree["skipped"], true);
  EXPECT_EQ(tree["estimated_from"], "the protocol's floor");
}

TEST(Auto, NamesABadCandidate) {
  EXPECT_THROW(make_auto("{candidates: [none, gredy]}"), InputError);
  EXPECT_THROW(make_auto("{candidates: [auto]}"), InputError);
  EXPECT_THROW(make_auto("{candidates: [{name: refine, params: {tolerence: 0.1}}]}"), InputError);
}

}  // namespace
}  // namespace lbbench

namespace lbbench {
namespace {

TEST(NetworkFit, RecoversAlphaAndBetaFromExactPoints) {
  // 2 µs and 4 GB/s.
  std::vector<PingPongPoint> points;
  for (std::int64_t b = 8; b <= (1 << 22); b *= 8) points.push_back({b, 2e-6 + static_cast<double>(b) / 4e9, 1});
  const NetworkFit fit = fit_network(points);
  EXPECT_NEAR(fit.latency_s, 2e-6, 1e-12);
  EXPECT_NEAR(fit.bandwidth_Bps, 4e9, 1e-3 * 4e9);
  EXPECT_LT(fit.max_relative_residual, 1e-9);
}

TEST(NetworkFit, WeighsSmallMessagesAsMuchAsLargeOnes) {
  // 1 µs and 1 GB/s, with the large messages 5% off either way: in plain least squares
  // their absolute errors would set the intercept (to −7 µs here); on relative errors α
  // stays near the small messages' 1 µs.
  const std::vector<PingPongPoint> points{{8, 1e-6 + 8e-9, 1},
                                          {64, 1e-6 + 64e-9, 1},
                                          {262144, 0.95 * (1e-6 + 262144e-9), 1},
                                          {2097152, 1.05 * (1e-6 + 2097152e-9), 1}};
  const NetworkFit fit = fit_network(points);
  EXPECT_NEAR(fit.latency_s, 1e-6, 0.05e-6);
  EXPECT_NEAR(fit.bandwidth_Bps, 1e9, 0.05e9);
  EXPECT_NEAR(fit.max_relative_residual, 0.05, 0.01);
}

TEST(NetworkFit, NeedsTwoSizes) {
  EXPECT_THROW(fit_network({{64, 1e-6, 1}, {64, 2e-6, 1}}), std::invalid_argument);
  EXPECT_THROW(fit_network({{64, 0.0, 1}, {128, 1e-6, 1}}), std::invalid_argument);
}

}  // namespace
}  // namespace lbbench
