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

// `auto` chooses from the totals every rank was told, so every rank chooses alike with
// nothing gathered, and the chosen protocol's plan is its own: the same as the protocol's
// alone. At the next point, on balanced loads after a call that cost more than any gain
// left, every rank keeps the distribution.
TEST(Auto, ChoosesAlikeOnEveryRankAndAppliesTheChosenCandidatesOwnPlan) {
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  if (p == 1) GTEST_SKIP() << "one rank has nothing to balance";
  const LocalGraph g = generate_grid(GridSpec{2, {30, 20, 1}}, kWorld);
  const std::vector<Load> loads = hot_on_rank_0(g, me);
  const MachineInfo machine = machine_with_1ns_collectives(p);
  LoadView view = test::load_view(g, loads, machine, 1, 0, kWorld);
  view.period = 10;
  view.steps_left = 100;
  const auto chooser = test::balancer_from_yaml("auto", "{candidates: [none, tree]}");
  const auto tree = test::balancer_from_yaml("tree", "{}");
  const MigrationPlan chosen = chooser->plan(view, kWorld);
  const MigrationPlan alone = tree->plan(view, kWorld);
  if (me == 0) {
    EXPECT_EQ(chosen.decision["chosen"], "tree") << chosen.decision.dump();
  } else {
    EXPECT_TRUE(chosen.decision.is_null());
  }
  EXPECT_FALSE(chooser->promised_nothing_moves());
  ASSERT_EQ(chosen.moves.size(), alone.moves.size());
  for (std::size_t i = 0; i < alone.moves.size(); ++i) {
    EXPECT_EQ(chosen.moves[i].vertex, alone.moves[i].vertex);
    EXPECT_EQ(chosen.moves[i].to, alone.moves[i].to);
  }
  const std::vector<Load> even(static_cast<std::size_t>(g.num_local()), Load(1e-4));
  LoadView after = test::load_view(g, even, machine, 1, 1, kWorld);
  after.period = 10;
  after.steps_left = 90;
  after.last_call_s = 10.0;
  const MigrationPlan kept = chooser->plan(after, kWorld);
  EXPECT_TRUE(chooser->promised_nothing_moves()) << "rank " << me;
  EXPECT_TRUE(kept.moves.empty());
  if (me == 0) {
    EXPECT_EQ(kept.decision["chosen"], "none");
    EXPECT_DOUBLE_EQ(kept.decision["credited"]["cost_s"].get<double>(), 10.0);
  }
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
