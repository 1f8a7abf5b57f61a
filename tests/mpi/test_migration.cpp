// The migration engine: random plans conserve everything and keep the owner tables right;
// broken plans and broken conservation stop every rank.
#include <gtest/gtest.h>

#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "meshes/build.hpp"
#include "mpi_test_util.hpp"
#include "replay/migration.hpp"
#include "replay/unmoved_loads.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

// A weight that depends on the vertex and its coordinates, so losing or corrupting either
// changes the total.
double coordinate_weight_sum(const LocalGraph& g) {
  double sum = 0;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    sum += 1.0 + 0.001 * static_cast<double>(g.gid[v].value() % 97);
    for (double x : g.coords_of(v)) sum += 0.5 * x;
  }
  return sum;
}

MigrationPlan random_plan(const LocalGraph& g, std::uint64_t round, double share) {
  const int p = comm_size(kWorld);
  MigrationPlan plan;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto id = static_cast<std::uint64_t>(g.gid[v].value());
    if (uniform01({tag(Stream::test_plan), round, id}) >= share) continue;
    plan.moves.push_back({v, Rank{static_cast<int>(hash_of({round, id}) % static_cast<std::uint64_t>(p))}});
  }
  return plan;
}

class RandomPlans : public testing::TestWithParam<std::int64_t> {};

TEST_P(RandomPlans, ConserveVerticesEdgesWeightAndOwnerTables) {
  const std::int64_t element_bytes = GetParam();
  LocalGraph g = generate_geometric(GeometricSpec{2500, 3, 0.12}, 1, kWorld);
  const auto edges_before = test::all_edges(g, kWorld);
  const auto ids_before = test::all_ids(g, kWorld);
  const double weight_before = allreduce(coordinate_weight_sum(g), MPI_SUM, kWorld);
  Migrator migrator(kWorld, element_bytes, 77);
  for (std::uint64_t round = 0; round < 6; ++round) {
    const MigrationPlan plan = random_plan(g, round, round % 3 == 2 ? 1.0 : 0.4);
    std::int64_t planned = 0;
    for (const auto& m : plan.moves) planned += m.to != Rank{comm_rank(kWorld)};
    const MigrationStats stats = migrator.migrate(g, plan, coordinate_weight_sum);
    EXPECT_EQ(stats.vertices_sent, planned);
    if (element_bytes > 0 && planned > 0) {
      EXPECT_GT(stats.bytes_sent, planned * element_bytes);
    }
    EXPECT_EQ(count_wrong_owner_entries(g, kWorld), 0) << "round " << round;
    check_structure(g);
  }
  EXPECT_EQ(test::all_edges(g, kWorld), edges_before);
  EXPECT_EQ(test::all_ids(g, kWorld), ids_before);
  EXPECT_NEAR(allreduce(coordinate_weight_sum(g), MPI_SUM, kWorld), weight_before, 1e-9 * weight_before);
}

// Payload sizes: none, not a multiple of 8, and a few pages.
INSTANTIATE_TEST_SUITE_P(PayloadSizes, RandomPlans, testing::Values(0, 13, 100, 16384));

// Each vertex's load is a function of its id: after a random migration, every rank's
// unmoved load is the load of the vertices it held before, wherever they are now.
TEST(Migration, TheLoadsAfterAMigrationReplayOnThePlacementBeforeIt) {
  LocalGraph g = generate_geometric(GeometricSpec{2500, 3, 0.12}, 1, kWorld);
  auto load_of = [](VertexId id) { return Load(1e-3 * static_cast<double>(1 + id.value() % 13)); };
  Load held_before{};
  for (LocalIndex v = 0; v < g.num_local(); ++v) held_before += load_of(g.gid[v]);
  Migrator migrator(kWorld, 16, 5);
  PlacementBefore before;
  EXPECT_FALSE(before.known());
  const MigrationStats stats = migrator.migrate(g, random_plan(g, 9, 0.5), coordinate_weight_sum);
  before.after_migration(stats, g.num_local());
  ASSERT_TRUE(before.known());
  std::vector<Load> loads;
  for (LocalIndex v = 0; v < g.num_local(); ++v) loads.push_back(load_of(g.gid[v]));
  EXPECT_NEAR(before.unmoved_load(loads, kWorld), held_before.seconds(), 1e-12);
  before.after_call_without_moves(g.num_local());
  Load held_now{};
  for (const Load l : loads) held_now += l;
  EXPECT_NEAR(before.unmoved_load(loads, kWorld), held_now.seconds(), 1e-12);
}

TEST(Migration, EverythingToOneRankAndBack) {
  LocalGraph g = generate_grid(GridSpec{2, {20, 15, 1}}, kWorld);
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  Migrator migrator(kWorld, 64, 3);
  MigrationPlan to_last;
  for (LocalIndex v = 0; v < g.num_local(); ++v) to_last.moves.push_back({v, Rank{p - 1}});
  migrator.migrate(g, to_last, coordinate_weight_sum);
  EXPECT_EQ(g.num_local(), me == p - 1 ? 300 : 0);
  EXPECT_EQ(count_wrong_owner_entries(g, kWorld), 0);
  MigrationPlan cyclic;
  for (LocalIndex v = 0; v < g.num_local(); ++v)
    cyclic.moves.push_back({v, Rank{static_cast<int>(g.gid[v].value() % p)}});
  migrator.migrate(g, cyclic, coordinate_weight_sum);
  for (auto id : g.gid) EXPECT_EQ(id.value() % p, me);
  EXPECT_EQ(count_wrong_owner_entries(g, kWorld), 0);
}

TEST(Migration, APlanNamingAMissingRankStopsEveryRank) {
  LocalGraph g = generate_grid(GridSpec{2, {8, 8, 1}}, kWorld);
  const int p = comm_size(kWorld);
  MigrationPlan plan;
  if (comm_rank(kWorld) == 0) plan.moves.push_back({0, Rank{p}});
  Migrator migrator(kWorld, 8, 1);
  test::expect_error_containing([&] { migrator.migrate(g, plan, {}); },
                                {"to rank " + std::to_string(p) + ", which does not exist"});
}

TEST(Migration, APlanMovingAVertexTwiceStopsEveryRank) {
  LocalGraph g = generate_grid(GridSpec{2, {8, 8, 1}}, kWorld);
  MigrationPlan plan;
  if (comm_rank(kWorld) == 0) plan.moves = {{1, Rank{0}}, {1, Rank{0}}};
  Migrator migrator(kWorld, 8, 1);
  test::expect_error_containing([&] { migrator.migrate(g, plan, {}); }, {"moves vertex 1 twice"});
}

TEST(Migration, ALoadThatIsNotConservedStopsTheRun) {
  LocalGraph g = generate_grid(GridSpec{2, {8, 8, 1}}, kWorld);
  int calls = 0;
  // A weight function that changes between the census before and after, as a migration
  // that lost or corrupted data would.
  const WeightSum drifting = [&](const LocalGraph& graph) { return graph.num_local() * (++calls == 1 ? 1.0 : 1.5); };
  Migrator migrator(kWorld, 8, 1);
  test::expect_error_containing([&] { migrator.migrate(g, {}, drifting); }, {"did not conserve", "total weight"});
}

}  // namespace
}  // namespace lbbench
