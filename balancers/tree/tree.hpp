// Langer & Kale's tree-based distributed balancer for homogeneous work units.
//
// Ranks form a spanning tree with a branching factor (rank r's children are
// b*r+1 .. b*r+b). An upward pass sums subtree loads; the downward pass gives every
// subtree its target, tags each subtree (and each rank itself) as a supplier or a
// receiver, matches suppliers to receivers at every node, and passes the matches down.
// A match between two subtrees is resolved by a coin: either the supplier subtree is
// told about the receiver, or the receiver subtree about the supplier, which keeps every
// list short (the randomization of the paper). Suppliers then send exactly their excess.
// Only suppliers send and only their excess, so for homogeneous units the result is
// perfect balance (max - min <= 1 unit) with the minimum possible number of migrations.
//
// Departures from the poster, which leaves them open:
//   - Targets. The remainder of total / ranks goes one unit each to ranks that hold more
//     than the floor of the average, before any other rank: that is what makes the
//     number of migrations the minimum. Knowing which ranks those are takes a second
//     up-and-down sweep (the total first, then the count of such ranks per subtree).
//   - Weighted units (`units: load`, the default). Amounts are integer load quanta (see
//     Quantum: equal loads still count one unit each, continuous loads round within 0.1%). A
//     supplier carries its instructions in order with its heaviest units, taking a unit
//     while at least half of it fits under the running total it was told to send, so
//     every receiver ends within about one unit of its target and errors do not pile up.
#pragma once

#include "balancers/sdk/protocol.hpp"
#include "balancers/tree/params.hpp"

namespace lbbench {

class TreeBalancer final : public DistributedBalancer {
 public:
  explicit TreeBalancer(TreeParams params) : params_(params) {}
  [[nodiscard]] std::unique_ptr<RankProtocol> make_protocol(RankWork work, const ProtocolContext& ctx) const override;
  // Two sweeps up and down the tree (the total, then the ranks above the average), one
  // level a round, then the matches passed down (see tree.cpp).
  [[nodiscard]] int expected_rounds(int nranks) const override;
  // The two sweeps alone, 4 rounds a level: the fewest rounds the protocol takes.
  [[nodiscard]] int sweep_rounds(int nranks) const;

 private:
  [[nodiscard]] int depth(int nranks) const;  // levels below the root

  TreeParams params_;
};

// The fewest units any balancer can move to reach perfect balance from these counts:
// every rank keeps floor(avg) or floor(avg) + 1, and the extra units stay where there
// is already more than the floor.
std::int64_t minimum_migrations(const std::vector<std::int64_t>& counts);

}  // namespace lbbench
