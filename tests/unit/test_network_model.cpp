// The model engine's migration transfer (machine/network.hpp): flows routed as
// SimGrid routes a torus, links shared max-min fairly (with SimGrid's cross-traffic), a
// receiver's rendezvous messages taken one at a time.
#include <gtest/gtest.h>

#include <vector>

#include "machine/network.hpp"
#include "machine/preset.hpp"

namespace lbbench {
namespace {

const std::string kScenario = std::string(LBBENCH_SOURCE_DIR) + "/scenarios/quickstart.yaml";
constexpr double kBytes = 4e6;

// 1,024 ranks of BG/Q fill 64 nodes, a 4 x 2 x 2 x 2 x 2 torus: nodes 0 to 3 make a ring
// of four along the first dimension.
struct Ring {
  MachinePreset preset = load_machine_preset("bgq", kScenario);
  int ranks = 1024;

  [[nodiscard]] NetworkModel network() const { return NetworkModel(preset, ranks); }
  // The `i`-th rank of node `node`.
  [[nodiscard]] int rank_on(int node, int i) const {
    const NetworkModel net = network();
    for (int r = 0; r < ranks; ++r) {
      if (net.node_of(r) == node && i-- == 0) return r;
    }
    ADD_FAILURE() << "no rank " << i << " on node " << node;
    return 0;
  }
};

TEST(MigrationTransfer, TheTorusIsTheOneAssumedHere) {
  const Ring ring;
  EXPECT_EQ(ring.network().layout().torus_shape, (std::vector<int>{4, 2, 2, 2, 2}));
}

TEST(MigrationTransfer, AFlowAloneHasTheLinksBandwidth) {
  const Ring ring;
  const std::vector<RankFlow> one{{ring.rank_on(1, 0), ring.rank_on(0, 0), kBytes}};
  EXPECT_NEAR(ring.network().bulk_transfer_s(one), kBytes / ring.preset.link_bandwidth, 1e-12);
}

// SimGrid goes down from node 2 to node 0 (a tie from the lower half of the ring), through
// the link from 1 to 0 that a flow from node 1 also takes: they share it. Going up, through
// node 3, they would not.
TEST(MigrationTransfer, ATieInTheRingGoesDownFromItsLowerHalf) {
  const Ring ring;
  const std::vector<RankFlow> flows{{ring.rank_on(2, 0), ring.rank_on(0, 0), kBytes},
                                    {ring.rank_on(1, 0), ring.rank_on(0, 1), kBytes}};
  EXPECT_NEAR(ring.network().bulk_transfer_s(flows), 2 * kBytes / ring.preset.link_bandwidth, 1e-12);
}

// From nodes 1 and 3 to one rank of node 0 the routes share no link (3 reaches 0 across
// the wrap). Eager messages flow together; rendezvous messages wait for their receiver,
// which takes one at a time.
TEST(MigrationTransfer, AReceiverTakesItsRendezvousMessagesOneAtATime) {
  Ring ring;
  const std::vector<RankFlow> flows{{ring.rank_on(1, 0), ring.rank_on(0, 0), kBytes},
                                    {ring.rank_on(3, 0), ring.rank_on(0, 0), kBytes}};
  ring.preset.eager_bytes = 2 * kBytes;
  EXPECT_NEAR(ring.network().bulk_transfer_s(flows), kBytes / ring.preset.link_bandwidth, 1e-12);
  ring.preset.eager_bytes = 0;
  EXPECT_NEAR(ring.network().bulk_transfer_s(flows), 2 * kBytes / ring.preset.link_bandwidth, 1e-12);
}

// Two flows through one link with unequal bytes: the rates are solved again when the
// first finishes, and the link, busy throughout, is done when all its bytes have crossed.
TEST(MigrationTransfer, FlowsThatShareALinkEndWhenAllItsBytesHaveCrossed) {
  const Ring ring;
  // 1 -> 0 (one hop) and 2 -> 0 (two hops, through 1 -> 0), to different ranks.
  const std::vector<RankFlow> both{{ring.rank_on(1, 0), ring.rank_on(0, 0), kBytes},
                                   {ring.rank_on(2, 0), ring.rank_on(0, 1), kBytes / 4}};
  const double t = ring.network().bulk_transfer_s(both);
  EXPECT_NEAR(t, 1.25 * kBytes / ring.preset.link_bandwidth, 1e-9);
}

// A flow from node 2 to node 0 (down, two hops) sends its acknowledgements back up
// through the link from 0 to 1, at 5% of its rate, where a one-hop flow from node 0 to
// node 1 runs. That link's level is shared by weight (the two-hop flow has half the
// one-hop flow's): the one-hop flow gets 1/1.025 of the link, the two-hop flow half that,
// so it has half its bytes when the other ends, and the rest at the link's bandwidth.
TEST(MigrationTransfer, AFlowSlowsWhereItsAcknowledgementsCrossAFullLink) {
  const Ring ring;
  const std::vector<RankFlow> flows{{ring.rank_on(2, 0), ring.rank_on(0, 0), kBytes},
                                    {ring.rank_on(0, 1), ring.rank_on(1, 0), kBytes}};
  EXPECT_NEAR(ring.network().bulk_transfer_s(flows), 1.525 * kBytes / ring.preset.link_bandwidth, 1e-9);
}

// A step's halo messages: each arrives no sooner than the busiest link of its route has
// carried every message that crosses it. Three messages cross the link 1 -> 0 (the
// two-hop one 2 -> 0 also crosses 2 -> 1 alone), and so do the acknowledgements of one
// 0 -> 1, at 5% of its bytes; that one's link carries the three's acknowledgements. Within
// a node nothing is shared.
TEST(HaloOnSharedLinks, AMessageArrivesWhenTheBusiestLinkOfItsRouteHasCarriedTheStepsBytes) {
  const Ring ring;
  const double b = kBytes / ring.preset.link_bandwidth;
  const std::vector<RankFlow> flows{{ring.rank_on(1, 0), ring.rank_on(0, 0), kBytes},
                                    {ring.rank_on(1, 1), ring.rank_on(0, 1), kBytes},
                                    {ring.rank_on(2, 0), ring.rank_on(0, 2), kBytes},
                                    {ring.rank_on(0, 3), ring.rank_on(1, 2), kBytes},
                                    {ring.rank_on(3, 0), ring.rank_on(3, 1), kBytes}};
  const std::vector<double> drain = ring.network().step_drain_s(flows);
  ASSERT_EQ(drain.size(), flows.size());
  for (std::size_t f = 0; f < 3; ++f) EXPECT_NEAR(drain[f], 3.05 * b, 1e-12) << "flow " << f;
  EXPECT_NEAR(drain[3], 1.15 * b, 1e-12);
  EXPECT_EQ(drain[4], 0.0);
}

// Every rank sending alike to every other: 32 bgq ranks are two nodes of 16, and each
// node's link to the other carries 16 x 16 bytes per byte a pair sends, and the other
// way's acknowledgements, of 992 bytes sent in all. On one node nothing is shared.
TEST(HaloOnSharedLinks, AScatteredExchangeCostsTheBusiestLinksShare) {
  const MachinePreset bgq = load_machine_preset("bgq", kScenario);
  const NetworkModel two_nodes(bgq, 32);
  ASSERT_EQ(two_nodes.nodes(), 2);
  EXPECT_NEAR(two_nodes.scattered_exchange_s_per_byte(), 1.05 * 256 / 992 / bgq.link_bandwidth, 1e-18);
  EXPECT_EQ(NetworkModel(bgq, 16).scattered_exchange_s_per_byte(), 0.0);
  // Past kScatterNodes nodes, a node's links carry what its ranks send off it.
  const NetworkModel many(bgq, 16 * 512);
  EXPECT_NEAR(many.scattered_exchange_s_per_byte(),
              16.0 * (16 * 512 - 16) / many.node_bandwidth_Bps() / (16.0 * 512 * (16 * 512 - 1)), 1e-18);
}

}  // namespace
}  // namespace lbbench
