// The distributed balancers over real MPI match their serial references: the same
// owners, rounds, messages and bytes, for the same seed and LB call.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "balancers/sdk/protocol.hpp"
#include "balancers/sdk/registry.hpp"
#include "comm/mpi.hpp"
#include "meshes/build.hpp"
#include "mpi_test_util.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

// A hot spot on a 24x24 grid, as a pure function of the vertex id.
Load hotspot_load(VertexId id) {
  const double x = static_cast<double>(id.value() % 24) / 24 - 0.25;
  const double y = static_cast<double>(id.value() / 24) / 24 - 0.25;
  return Load(1e-4 * (1 + 7 * std::exp(-(x * x + y * y) / 0.03)));
}

template <class T>
std::vector<T> gather_to_root(const std::vector<T>& mine, MPI_Datatype type) {
  const int p = comm_size(kWorld);
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(p));
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, kWorld);
  std::vector<int> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<T> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, type, all.data(), counts.data(), displs.data(), type, kWorld);
  return all;
}

// The whole problem, objects in (rank, local index) order, on every rank.
GlobalProblem gather_problem(const LocalGraph& g, const std::vector<Load>& loads) {
  std::vector<std::int64_t> ids, degrees, neighbors, owners;
  std::vector<double> seconds;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    ids.push_back(g.gid[static_cast<std::size_t>(v)].value());
    degrees.push_back(g.degree(v));
    owners.push_back(comm_rank(kWorld));
    seconds.push_back(loads[static_cast<std::size_t>(v)].seconds());
    for (const VertexId u : g.neighbors(v)) neighbors.push_back(u.value());
  }
  const auto all_ids = gather_to_root(ids, MPI_INT64_T);
  const auto all_degrees = gather_to_root(degrees, MPI_INT64_T);
  const auto all_neighbors = gather_to_root(neighbors, MPI_INT64_T);
  const auto all_owners = gather_to_root(owners, MPI_INT64_T);
  const auto all_seconds = gather_to_root(seconds, MPI_DOUBLE);
  GlobalProblem p;
  p.nranks = comm_size(kWorld);
  std::vector<std::int64_t> index_of(all_ids.size());
  for (std::size_t i = 0; i < all_ids.size(); ++i) {
    p.id.push_back(VertexId{all_ids[i]});
    p.load.push_back(Load(all_seconds[i]));
    p.owner.push_back(Rank{static_cast<int>(all_owners[i])});
    index_of[static_cast<std::size_t>(all_ids[i])] = static_cast<std::int64_t>(i);
  }
  p.xadj.assign(1, 0);
  for (const auto d : all_degrees) p.xadj.push_back(p.xadj.back() + d);
  for (const auto u : all_neighbors) {
    p.adjncy.push_back(index_of[static_cast<std::size_t>(u)]);
    p.adj_bytes.push_back(64);
  }
  return p;
}

class MatchesReference : public testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(MatchesReference, SameOwnersAndTrafficAsTheSerialReference) {
  const auto& [name, params] = GetParam();
  const int me = comm_rank(kWorld);
  const int p = comm_size(kWorld);
  const LocalGraph g = generate_grid(GridSpec{2, {24, 24, 1}}, kWorld);
  std::vector<Load> loads;
  for (const VertexId id : g.gid) loads.push_back(hotspot_load(id));
  const MachineInfo machine = MachineInfo::uniform(p);
  const LoadView view = test::load_view(g, loads, machine, 42, 3, kWorld);
  auto balancer = test::balancer_from_yaml(name, params);
  const MigrationPlan plan = balancer->plan(view, kWorld);
  EXPECT_TRUE(plan.protocol.has_value());

  std::vector<std::int64_t> new_owner(static_cast<std::size_t>(g.num_local()), me);
  for (const auto& m : plan.moves) new_owner[static_cast<std::size_t>(m.vertex)] = m.to.value();
  const auto mpi_owners = gather_to_root(new_owner, MPI_INT64_T);

  const GlobalProblem problem = gather_problem(g, loads);
  const auto* distributed = dynamic_cast<const DistributedBalancer*>(balancer.get());
  EXPECT_NE(distributed, nullptr);
  if (distributed == nullptr || !plan.protocol) return;
  ProtocolStats serial;
  const Assignment reference = distributed->reference(problem, {.seed = 42, .invocation = 3}, &serial);
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) differ += reference[i].value() != mpi_owners[i];
  EXPECT_EQ(differ, 0) << "objects whose owner differs from the serial reference";
  EXPECT_EQ(plan.protocol->rounds, serial.rounds);
  EXPECT_EQ(plan.protocol->messages, serial.messages);
  EXPECT_EQ(plan.protocol->bytes, serial.bytes);
  EXPECT_EQ(plan.protocol->largest_list, serial.largest_list);
  std::int64_t moved = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) moved += reference[i] != problem.owner[i];
  // Counting units, block-distributed ranks are already balanced: nothing may move.
  if (params.find("count") != std::string::npos) {
    EXPECT_EQ(moved, 0);
  } else if (p > 1) {
    EXPECT_GT(moved, 0) << "the hot spot made it do something";
  }
}

INSTANTIATE_TEST_SUITE_P(Distributed, MatchesReference,
                         testing::Values(std::pair{"diffusion", "{}"},
                                         std::pair{"diffusion", "{damping: 0.5, iterations: 3}"},
                                         std::pair{"tree", "{}"}, std::pair{"tree", "{branching: 2, units: count}"},
                                         std::pair{"gossip", "{}"},
                                         std::pair{"gossip", "{fanout: 1, target_ratio: 1.2}"},
                                         std::pair{"prefix", "{}"}, std::pair{"prefix", "{subtract_min: true}"}),
                         [](const auto& info) { return test::param_name(info.param.first + info.param.second); });

}  // namespace
}  // namespace lbbench
