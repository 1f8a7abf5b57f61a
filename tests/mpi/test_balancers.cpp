// Invariants every registered balancer must keep, run over the whole registry: plans name
// local vertices and existing ranks, migrating them conserves the graph, and on an easy
// input (one overloaded rank) the result is no worse than `none`.
#include <gtest/gtest.h>

#include <numeric>

#include "balancers/registry.hpp"
#include "core/mpi.hpp"
#include "engine/migration.hpp"
#include "meshes/build.hpp"
#include "mpi_test_util.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

std::vector<std::string> registered_names() {
  std::vector<std::string> out;
  for (const auto& b : balancer_table()) out.emplace_back(b.name);
  return out;
}

class EveryBalancer : public testing::TestWithParam<std::string> {};

TEST_P(EveryBalancer, PlansAreValidConserveLoadAndDoNoHarmOnAnEasyInput) {
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  LocalGraph g = generate_grid(GridSpec{2, {30, 20, 1}}, kWorld);
  // Rank 0's vertices are ten times heavier than everyone else's.
  std::vector<Load> loads(static_cast<std::size_t>(g.num_local()), Load(me == 0 ? 10e-6 : 1e-6));
  const Load mine = std::accumulate(loads.begin(), loads.end(), Load{});
  const MachineInfo machine = MachineInfo::uniform(p);
  const LoadView view{g, loads, 64, machine, Rank{me}, p, 1, 0, 0, mine,
                      Load(allreduce(mine.seconds(), MPI_SUM, kWorld)), Load(allreduce(mine.seconds(), MPI_MAX, kWorld))};

  const BalancerInfo& info = find_balancer(GetParam(), ConfigNode(YAML::Node(), "test"));
  auto balancer = make_balancer(info, ConfigNode(YAML::Node(), "test"));
  const MigrationPlan plan = balancer->plan(view, kWorld);

  std::vector<double> after(static_cast<std::size_t>(p), 0.0);
  std::vector<Rank> target(loads.size(), Rank{me});
  for (const auto& m : plan.moves) {
    ASSERT_GE(m.vertex, 0);
    ASSERT_LT(m.vertex, g.num_local());
    ASSERT_GE(m.to.value(), 0);
    ASSERT_LT(m.to.value(), p);
    target[static_cast<std::size_t>(m.vertex)] = m.to;
  }
  for (std::size_t v = 0; v < loads.size(); ++v) after[static_cast<std::size_t>(target[v].value())] += loads[v].seconds();
  MPI_Allreduce(MPI_IN_PLACE, after.data(), p, MPI_DOUBLE, MPI_SUM, kWorld);
  EXPECT_NEAR(std::accumulate(after.begin(), after.end(), 0.0), view.total_load.seconds(), 1e-9);
  EXPECT_LE(*std::max_element(after.begin(), after.end()), view.max_rank_load.seconds() * (1 + 1e-9));

  Migrator migrator(kWorld, 32, 1);
  EXPECT_NO_THROW(migrator.migrate(g, plan, {}));
  EXPECT_EQ(count_wrong_owner_entries(g, kWorld), 0);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryBalancer, testing::ValuesIn(registered_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace lbbench
