// Invariants every registered balancer must keep, run over the whole registry: plans name
// local vertices and existing ranks, migrating them conserves the graph, and on an easy
// input (one overloaded rank) the result is no worse than `none`.
#include <gtest/gtest.h>

#include <numeric>

#include "balancers/global/zoltan.hpp"
#include "balancers/sdk/registry.hpp"
#include "comm/mpi.hpp"
#include "meshes/build.hpp"
#include "mpi_test_util.hpp"
#include "replay/migration.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

std::vector<std::string> registered_names() {
  std::vector<std::string> out;
  for (const auto& b : balancer_table()) out.emplace_back(b.name);
  return out;
}

// Runs one balancer on a 30x20 grid where rank 0's vertices are ten times heavier, checks
// the invariants, migrates, and checks the owner tables.
void check_invariants(Balancer& balancer, bool deterministic = true) {
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  LocalGraph g = generate_grid(GridSpec{2, {30, 20, 1}}, kWorld);
  std::vector<Load> loads(static_cast<std::size_t>(g.num_local()), Load(me == 0 ? 10e-6 : 1e-6));
  const MachineInfo machine = MachineInfo::uniform(p);
  const LoadView view = test::load_view(g, loads, machine, 1, 0, kWorld);
  const MigrationPlan plan = balancer.plan(view, kWorld);

  // EXPECT, never ASSERT, from here on: a rank that returned early would leave the
  // others waiting in the collectives below.
  std::vector<double> after(static_cast<std::size_t>(p), 0.0);
  std::vector<Rank> target(loads.size(), Rank{me});
  for (const auto& m : plan.moves) {
    const bool valid = m.vertex >= 0 && m.vertex < g.num_local() && m.to.value() >= 0 && m.to.value() < p;
    EXPECT_TRUE(valid) << "move of local vertex " << m.vertex << " to rank " << m.to.value();
    if (valid) target[static_cast<std::size_t>(m.vertex)] = m.to;
  }
  for (std::size_t v = 0; v < loads.size(); ++v)
    after[static_cast<std::size_t>(target[v].value())] += loads[v].seconds();
  MPI_Allreduce(MPI_IN_PLACE, after.data(), p, MPI_DOUBLE, MPI_SUM, kWorld);
  EXPECT_NEAR(std::accumulate(after.begin(), after.end(), 0.0), view.total_load.seconds(), 1e-9);
  EXPECT_LE(*std::max_element(after.begin(), after.end()), view.max_rank_load.seconds() * (1 + 1e-9))
      << "no worse than none";

  // Deterministic: the same view gives the same plan.
  const MigrationPlan again = balancer.plan(view, kWorld);
  if (deterministic) {
    EXPECT_EQ(again.moves.size(), plan.moves.size());
    for (std::size_t i = 0; i < std::min(plan.moves.size(), again.moves.size()); ++i) {
      EXPECT_EQ(again.moves[i].vertex, plan.moves[i].vertex);
      EXPECT_EQ(again.moves[i].to, plan.moves[i].to);
    }
  }

  Migrator migrator(kWorld, 32, 1);
  const std::int64_t before = allreduce<std::int64_t>(g.num_local(), MPI_SUM, kWorld);
  EXPECT_NO_THROW(migrator.migrate(g, plan, {}));
  EXPECT_EQ(allreduce<std::int64_t>(g.num_local(), MPI_SUM, kWorld), before);
  EXPECT_EQ(count_wrong_owner_entries(g, kWorld), 0);
}

class EveryBalancer : public testing::TestWithParam<std::string> {};

TEST_P(EveryBalancer, PlansAreValidDeterministicConserveLoadAndDoNoHarmOnAnEasyInput) {
  // auto times its candidates' serial references with the host clock, so two candidates
  // that tie but for their decision times can swap from one call to the next.
  check_invariants(*test::balancer_from_yaml(GetParam(), test::params_to_run(GetParam())), GetParam() != "auto");
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryBalancer, testing::ValuesIn(registered_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return test::param_name(info.param); });

// Every rank's machine with collectives of 1 ns: a protocol's network floor, about 8 ns,
// rules nothing out.
MachineInfo machine_with_1ns_collectives(int ranks) {
  MachineInfo machine = MachineInfo::uniform(ranks);
  machine.network.far_message_s = machine.network.allreduce_s = machine.network.barrier_s = 1e-9;
  return machine;
}

// Rank 0's objects ten times as heavy as the others'.
std::vector<Load> hot_on_rank_0(const LocalGraph& g, int me) {
  return std::vector<Load>(static_cast<std::size_t>(g.num_local()), Load(me == 0 ? 1e-3 : 1e-4));
}

// `auto` runs its distributed candidates' plan() at a decision, every rank at once, and a
// chosen protocol's plan is the one it made there: the same as the protocol's alone.
TEST(Auto, RunsItsDistributedCandidatesAsThemselvesAndAppliesTheChosenOnesOwnPlan) {
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  const LocalGraph g = generate_grid(GridSpec{2, {30, 20, 1}}, kWorld);
  const std::vector<Load> loads = hot_on_rank_0(g, me);
  const MachineInfo machine = MachineInfo::uniform(p);
  const LoadView view = test::load_view(g, loads, machine, 1, 0, kWorld);
  const auto chooser = test::balancer_from_yaml("auto", "{candidates: [none, tree], redecide: 0}");
  const auto tree = test::balancer_from_yaml("tree", "{}");
  const MigrationPlan chosen = chooser->plan(view, kWorld);
  const MigrationPlan alone = tree->plan(view, kWorld);
  // On one rank there is nothing to balance: the call's totals alone choose `none`.
  if (me == 0 && p > 1) {
    EXPECT_EQ(chosen.decision["candidates"]["tree"]["ran_as_itself"], true);
    EXPECT_EQ(chosen.decision["chosen"], "tree");
  }
  if (me == 0 && p == 1) {
    EXPECT_EQ(chosen.decision["chosen"], "none");
    EXPECT_TRUE(chosen.decision.contains("decided_by"));
  }
  ASSERT_EQ(chosen.moves.size(), alone.moves.size());
  for (std::size_t i = 0; i < alone.moves.size(); ++i) {
    EXPECT_EQ(chosen.moves[i].vertex, alone.moves[i].vertex);
    EXPECT_EQ(chosen.moves[i].to, alone.moves[i].to);
  }
}

// Rank 0 measures what each candidate's decision cost, and hands it to every rank with its
// choice: for the next call, on loads a microsecond from balance, every rank alike finds
// that tree's last decision cannot pay for itself and chooses `none` with nothing
// gathered. (A rank that did not know would go on to the gather.)
TEST(Auto, EveryRankLearnsWhatTheDecisionCostWithItsChoice) {
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  if (p == 1) GTEST_SKIP() << "one rank has nothing to balance";
  const LocalGraph g = generate_grid(GridSpec{2, {30, 20, 1}}, kWorld);
  const MachineInfo machine = machine_with_1ns_collectives(p);
  const auto chooser = test::balancer_from_yaml("auto", "{candidates: [none, tree], redecide: 0}");
  const std::vector<Load> hot = hot_on_rank_0(g, me);
  const MigrationPlan first = chooser->plan(test::load_view(g, hot, machine, 1, 0, kWorld), kWorld);
  if (me == 0) {
    ASSERT_EQ(first.decision["chosen"], "tree") << first.decision.dump();
    EXPECT_GT(first.decision["candidates"]["tree"]["decision_s"].get<double>(), 2e-6);
  }
  // The next call's totals, as every rank knows them: rank 0 a microsecond a step over.
  const double total = 1e-4 * static_cast<double>(g.global_vertices) + 1e-6;
  const CallOutlook near{.nranks = p,
                         .objects = g.global_vertices,
                         .max_rank_load_s = 1e-4 * static_cast<double>(g.global_vertices) / p + 1e-6,
                         .total_load_s = total,
                         .period = 1,
                         .machine = &machine,
                         .trends = {},
                         .steps_to_point = 0};
  EXPECT_TRUE(chooser->acting_for(near).promised_nothing_moves()) << "rank " << me;
  const Json d = chooser->decision();
  ASSERT_TRUE(d.contains("decided_by")) << "rank " << me << ": " << d.dump();
  EXPECT_EQ(d["candidates"]["tree"]["floor_from"], "its last decision");
}

// Where the decision's gather alone is over its explore budget, every rank weighs tree's
// plan by its totals: a sparse round tells each rank what arrives, two reductions bring the
// totals to every rank, and every rank makes the same choice with nothing gathered. Its
// predictions are the gathered decision's, on loads that grow and ranks on two nodes, and
// the plan applied is tree's own.
TEST(Auto, WeighsTheProtocolsPlansByTheirTotalsOnEveryRankWithNothingGathered) {
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  if (p == 1) GTEST_SKIP() << "one rank has nothing to balance";
  const LocalGraph g = generate_grid(GridSpec{2, {30, 20, 1}}, kWorld);
  MachineInfo machine = machine_with_1ns_collectives(p);
  std::vector<int> nodes(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) nodes[static_cast<std::size_t>(r)] = 2 * r / p;
  machine.rank_node = nodes;
  machine.network.node_bandwidth_Bps = 1e6;
  const std::vector<Load> hot = hot_on_rank_0(g, me);
  // Every object grows alike: the ranks that receive rank 0's objects grow fastest after.
  const std::vector<double> trend(static_cast<std::size_t>(g.num_local()), 1e-5);
  auto view_on = [&](const MachineInfo& m) {
    LoadView v = test::load_view(g, hot, m, 1, 0, kWorld);
    v.vertex_load_trend = trend;
    v.trend_origin = 0.0;
    v.period = 5;
    return v;
  };
  const auto gathering = test::balancer_from_yaml("auto", "{candidates: [none, tree], redecide: 0}");
  const MigrationPlan gathered = gathering->plan(view_on(machine), kWorld);
  // A second a receive at the gatherv's root.
  MachineInfo slow_root = machine;
  slow_root.network.receive_overhead_s = 1.0;
  const auto weighing = test::balancer_from_yaml("auto", "{candidates: [none, tree], redecide: 0}");
  const MigrationPlan weighed = weighing->plan(view_on(slow_root), kWorld);
  const MigrationPlan alone = test::balancer_from_yaml("tree", "{}")->plan(view_on(slow_root), kWorld);
  EXPECT_FALSE(weighing->promised_nothing_moves()) << "rank " << me;
  ASSERT_EQ(weighed.moves.size(), alone.moves.size()) << "rank " << me;
  for (std::size_t i = 0; i < alone.moves.size(); ++i) {
    EXPECT_EQ(weighed.moves[i].vertex, alone.moves[i].vertex);
    EXPECT_EQ(weighed.moves[i].to, alone.moves[i].to);
  }
  if (me != 0) return;
  const Json& d = weighed.decision;
  ASSERT_TRUE(d.contains("decided_by")) << d.dump();
  EXPECT_NE(d["decided_by"].get<std::string>().find("plans' totals"), std::string::npos);
  EXPECT_EQ(d["chosen"], "tree");
  ASSERT_EQ(gathered.decision["chosen"], "tree") << gathered.decision.dump();
  for (const char* key : {"step_lmax_s", "lmax_after_s", "elements_moved_max", "migration_s"}) {
    const double want = gathered.decision["candidates"]["tree"][key].get<double>();
    EXPECT_GT(want, 0) << key;
    EXPECT_NEAR(d["candidates"]["tree"][key].get<double>(), want, 1e-9 * want) << key;
  }
  const double none_want = gathered.decision["candidates"]["none"]["interval_s"].get<double>();
  EXPECT_NEAR(d["candidates"]["none"]["interval_s"].get<double>(), none_want, 1e-9 * none_want);
}

// Every Zoltan method with every approach that applies, and Scotch.
class ZoltanVariants : public testing::TestWithParam<std::string> {};

TEST_P(ZoltanVariants, KeepTheInvariants) {
  if (!zoltan_available()) GTEST_SKIP() << "no Zoltan in this build";
  // PT-Scotch's parallel strategies, as Zoltan drives them, are not reproducible.
  const bool scotch = GetParam().find("scotch") != std::string::npos;
  check_invariants(*test::balancer_from_yaml("zoltan", GetParam()), !scotch);
}

INSTANTIATE_TEST_SUITE_P(Methods, ZoltanVariants,
                         testing::Values("{method: graph, approach: partition}",
                                         "{method: graph, approach: repartition}", "{method: graph, approach: refine}",
                                         "{method: graph, graph_package: scotch, approach: partition}",
                                         "{method: hypergraph, approach: partition}",
                                         "{method: hypergraph, approach: repartition}",
                                         "{method: hypergraph, approach: refine}", "{method: rcb}", "{method: rib}",
                                         "{method: hsfc}", "{method: block}", "{method: random}"),
                         [](const testing::TestParamInfo<std::string>& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace lbbench
