// Pearce et al.'s diffusion simulator (Algorithm 2) and cost model (equations 5-11), and
// the network fit the machine presets are made from.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <numeric>

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/diffusive/params.hpp"
#include "balancers/model/cost_model.hpp"
#include "balancers/model/diffusion_sim.hpp"
#include "balancers/sdk/centralized.hpp"
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
