// A rank's background load (a recorded run's pinned objects, which no balancer may move):
// every family counts it, so a rank that carries much of it receives little or nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/diffusive/params.hpp"
#include "balancers/global/greedy.hpp"
#include "balancers/global/metis.hpp"
#include "balancers/global/params.hpp"
#include "balancers/global/refine.hpp"
#include "balancers/gossip/gossip.hpp"
#include "balancers/gossip/params.hpp"
#include "balancers/sdk/protocol.hpp"
#include "balancers/tree/params.hpp"
#include "balancers/tree/tree.hpp"
#include "balancers/vector/multi_greedy.hpp"
#include "balancers/vector/norm.hpp"
#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_problem.hpp"
#include "balancers/vector/vector_refine.hpp"

namespace lbbench {
namespace {

// Four ranks; rank 0 carries a background of 6 and holds all twelve unit objects. The
// balanced end: rank 0 keeps none (its background is over the mean of 4.5), the others
// take four each.
GlobalProblem heavy_background() {
  GlobalProblem p;
  p.nranks = 4;
  for (std::int64_t i = 0; i < 12; ++i) {
    p.id.push_back(VertexId{i});
    p.load.push_back(Load(1.0));
    p.owner.push_back(Rank{0});
  }
  p.rank_background = {Load(6.0), Load(0.0), Load(0.0), Load(0.0)};
  return p;
}

double max_time(const GlobalProblem& p, const Assignment& a) {
  const std::vector<double> t = rank_times(p, a);
  return *std::max_element(t.begin(), t.end());
}

std::int64_t kept_by(const Assignment& a, int rank) { return std::count(a.begin(), a.end(), Rank{rank}); }

TEST(Background, RankTimesCountIt) {
  const GlobalProblem p = heavy_background();
  EXPECT_EQ(rank_times(p, p.owner), (std::vector<double>{18.0, 0.0, 0.0, 0.0}));
}

TEST(Background, MovableSharesLeaveTheHeavyRankNothing) {
  const std::vector<double> share = movable_shares(heavy_background());
  EXPECT_DOUBLE_EQ(share[0], 0.0);
  for (int r = 1; r < 4; ++r) EXPECT_DOUBLE_EQ(share[static_cast<std::size_t>(r)], 4.0);
}

TEST(Background, CentralizedStrategiesLeaveTheHeavyRankItsBackgroundOnly) {
  const GlobalProblem p = heavy_background();
  const Assignment greedy = GreedyBalancer().solve(p);
  EXPECT_EQ(kept_by(greedy, 0), 0);
  EXPECT_DOUBLE_EQ(max_time(p, greedy), 6.0);
  const Assignment refine = RefineBalancer(RefineParams{}).solve(p);
  EXPECT_EQ(kept_by(refine, 0), 0);
  EXPECT_DOUBLE_EQ(max_time(p, refine), 6.0);
}

TEST(Background, MetisTargetsEachRanksShareOfTheMovableLoad) {
  GlobalProblem p = heavy_background();
  // A ring, so METIS has a graph to cut.
  p.xadj.push_back(0);
  for (std::int64_t i = 0; i < 12; ++i) {
    p.adjncy.push_back((i + 1) % 12);
    p.adjncy.push_back((i + 11) % 12);
    p.adj_bytes.insert(p.adj_bytes.end(), {8, 8});
    p.xadj.push_back(static_cast<std::int64_t>(p.adjncy.size()));
  }
  const Assignment a = MetisBalancer(MetisParams{}).solve(p);
  EXPECT_LE(kept_by(a, 0), 1);  // METIS meets targets within its tolerance
  EXPECT_LE(max_time(p, a), 7.0);
}

TEST(Background, ProtocolsCountItInTheirRanksLoads) {
  const GlobalProblem p = heavy_background();
  const std::vector<RankWork> work = split_by_rank(p, false);
  EXPECT_EQ(work[0].load(), work[0].background + 12 * work[0].quanta[0]);
  EXPECT_EQ(work[1].load(), 0);
  const Assignment tree = TreeBalancer(TreeParams{}).decide_serially(p, nullptr);
  EXPECT_EQ(kept_by(tree, 0), 0);
  EXPECT_DOUBLE_EQ(max_time(p, tree), 6.0);
  const Assignment gossip = GossipBalancer(GossipParams{}).decide_serially(p, nullptr);
  EXPECT_LT(kept_by(gossip, 0), 12);
  EXPECT_LT(max_time(p, gossip), 18.0);
}

TEST(Background, VectorStrategiesStartFromTheBackgroundVector) {
  GlobalProblem p = heavy_background();
  p.dims = 2;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.load_vec.insert(p.load_vec.end(), {Load(0.5), Load(0.5)});
  }
  p.rank_background_vec = {Load(3.0), Load(3.0), Load(0), Load(0), Load(0), Load(0), Load(0), Load(0)};
  EXPECT_EQ(background_loads(p, 2), (std::vector<double>{3, 3, 0, 0, 0, 0, 0, 0}));
  for (const Assignment& a : {MultiGreedyBalancer().solve(p), NormBalancer(NormParams{}).solve(p),
                              VectorRefineBalancer(VectorRefineParams{}).solve(p)}) {
    EXPECT_EQ(kept_by(a, 0), 0);
    EXPECT_DOUBLE_EQ(vector_objective(p, a), 6.0);  // 3 per component on rank 0
  }
}

// Edges to pinned objects name the ranks they sit on: the rank graph a locality-aware
// protocol sees holds both directions of every such tie.
TEST(Background, FixedEdgesTieBothRanksTogether) {
  GlobalProblem p;
  p.nranks = 3;
  for (std::int64_t i = 0; i < 2; ++i) {
    p.id.push_back(VertexId{i});
    p.load.push_back(Load(1.0));
    p.owner.push_back(Rank{0});
  }
  p.xadj = {0, 0, 0};
  p.fixed_xadj = {0, 1, 1};
  p.fixed_rank = {2};  // object 0 talks to a pinned object on rank 2
  const std::vector<RankWork> work = split_by_rank(p, true);
  EXPECT_EQ(work[0].peers, (std::vector<int>{2}));
  EXPECT_EQ(work[2].peers, (std::vector<int>{0}));
  EXPECT_TRUE(work[1].peers.empty());
  EXPECT_EQ(work[0].degree, (std::vector<std::int32_t>{1, 0}));
  // Diffusion runs on that graph: rank 0 sends to rank 2, never to rank 1.
  const Assignment a = DiffusionBalancer(DiffusionParams{}).decide_serially(p, nullptr);
  EXPECT_EQ(kept_by(a, 1), 0);
}

}  // namespace
}  // namespace lbbench
