// LB_Load_create and LB_Dist_load_create through their C interface, on 1, 2 and 4
// processes with assigned core keys: each new communicator is the permutation the serial
// plan prescribes, and bad input fails the same way on every process.
#include <gtest/gtest.h>

#include <numeric>

#include "balancers/reorder/lb_load_create.h"
#include "balancers/reorder/reorder.hpp"
#include "comm/mpi.hpp"

namespace lbbench {
namespace {

using reorder::Method;

// Processes 0, 2, ... share core "100" and 1, 3, ... share core "200"; with 4
// processes the cores hold two each.
long long core_key_of(int rank, int size) { return size == 1 ? 100 : 100 + 100 * (rank % 2); }

std::vector<double> loads_for(int n) {
  std::vector<double> loads(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) loads[static_cast<std::size_t>(j)] = 1.0 + (7 * j) % 5;  // 1, 3, 5, 2, ...
  return loads;
}

// What the serial planner says each process's new rank must be.
int expected_new_rank(const std::vector<int>& plan, const reorder::SlotLayout& layout, int process) {
  for (int s = 0; s < layout.slots(); ++s) {
    if (layout.process_of_slot[static_cast<std::size_t>(s)] == process) return plan[static_cast<std::size_t>(s)];
  }
  return -1;
}

reorder::SlotLayout layout_of_world(int n) {
  std::vector<std::int64_t> keys(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) keys[static_cast<std::size_t>(r)] = core_key_of(r, n);
  return reorder::layout_from_core_keys(keys);
}

void expect_split_as_planned(MPI_Comm created, const std::vector<int>& plan, const reorder::SlotLayout& layout) {
  const int me = comm_rank(MPI_COMM_WORLD);
  ASSERT_NE(created, MPI_COMM_NULL);
  EXPECT_EQ(comm_size(created), comm_size(MPI_COMM_WORLD));
  EXPECT_EQ(comm_rank(created), expected_new_rank(plan, layout, me));
}

class LoadCreate : public ::testing::TestWithParam<Method> {};

TEST_P(LoadCreate, NewRanksFollowTheSerialPlan) {
  const int n = comm_size(MPI_COMM_WORLD);
  const int me = comm_rank(MPI_COMM_WORLD);
  const auto loads = loads_for(n);
  MPI_Comm created = MPI_COMM_NULL;
  const int rc = LB_Load_create_with(MPI_COMM_WORLD, loads.data(), static_cast<LB_Reorder_method>(GetParam()),
                                     core_key_of(me, n), &created);
  ASSERT_EQ(rc, MPI_SUCCESS) << LB_Reorder_error();
  const auto layout = layout_of_world(n);
  expect_split_as_planned(created, reorder::make_plan(GetParam(), loads, layout), layout);
  MPI_Comm_free(&created);
}

INSTANTIATE_TEST_SUITE_P(Methods, LoadCreate,
                         ::testing::Values(Method::identity, Method::paper, Method::ours, Method::exact, Method::random,
                                           Method::worst),
                         [](const auto& info) { return std::string(reorder::method_name(info.param)); });

TEST(DistLoadCreate, NewRanksFollowTheSerialReference) {
  const int n = comm_size(MPI_COMM_WORLD);
  const int me = comm_rank(MPI_COMM_WORLD);
  const auto loads = loads_for(n);
  for (int t : {2, 6, 16}) {
    MPI_Comm created = MPI_COMM_NULL;
    const int rc =
        LB_Dist_load_create_with(MPI_COMM_WORLD, loads[static_cast<std::size_t>(me)], t, core_key_of(me, n), &created);
    ASSERT_EQ(rc, MPI_SUCCESS) << LB_Reorder_error();
    const auto layout = layout_of_world(n);
    expect_split_as_planned(created, reorder::plan_dist(loads, layout, t), layout);
    MPI_Comm_free(&created);
  }
}

TEST(LoadCreate, DetectedCoresGiveAPermutation) {
  const int n = comm_size(MPI_COMM_WORLD);
  const auto loads = loads_for(n);
  MPI_Comm created = MPI_COMM_NULL;
  ASSERT_EQ(LB_Load_create(MPI_COMM_WORLD, loads.data(), &created), MPI_SUCCESS) << LB_Reorder_error();
  const int new_rank = comm_rank(created);
  std::vector<int> all(static_cast<std::size_t>(n));
  MPI_Allgather(&new_rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  std::vector<int> identity(static_cast<std::size_t>(n));
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(all, identity);
  MPI_Comm_free(&created);
  ASSERT_EQ(
      LB_Dist_load_create(MPI_COMM_WORLD, loads[static_cast<std::size_t>(comm_rank(MPI_COMM_WORLD))], 16, &created),
      MPI_SUCCESS)
      << LB_Reorder_error();
  MPI_Comm_free(&created);
}

TEST(LoadCreate, BadLoadsFailOnEveryProcess) {
  const int n = comm_size(MPI_COMM_WORLD);
  const int me = comm_rank(MPI_COMM_WORLD);
  auto loads = loads_for(n);
  loads.back() = -1;
  MPI_Comm created = MPI_COMM_NULL;
  EXPECT_EQ(LB_Load_create_with(MPI_COMM_WORLD, loads.data(), LB_REORDER_PAPER, core_key_of(me, n), &created),
            MPI_ERR_ARG);
  EXPECT_NE(std::string(LB_Reorder_error()).find("non-negative"), std::string::npos) << LB_Reorder_error();
  // Only the last process's own load is bad; the others learn it through the agreement.
  EXPECT_EQ(LB_Dist_load_create_with(MPI_COMM_WORLD, me == n - 1 ? -1.0 : 1.0, 16, core_key_of(me, n), &created),
            MPI_ERR_ARG);
  if (n > 1) {
    // Different arrays on different processes are caught, not silently split.
    auto mine = loads_for(n);
    mine[0] += me;
    EXPECT_EQ(LB_Load_create_with(MPI_COMM_WORLD, mine.data(), LB_REORDER_PAPER, core_key_of(me, n), &created),
              MPI_ERR_ARG);
    EXPECT_NE(std::string(LB_Reorder_error()).find("different load arrays"), std::string::npos);
  }
}

}  // namespace
}  // namespace lbbench
