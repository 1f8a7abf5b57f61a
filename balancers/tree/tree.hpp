// Langer & Kale's tree-based distributed balancer for homogeneous work units.
//
// Ranks form a spanning tree with a branching factor (rank r's children are
// b*r+1 .. b*r+b). An upward pass sums subtree loads; the downward pass gives every
// subtree its target at once, and each node, once it knows what the other subtrees send
// it or take from it, tags itself and its child subtrees as suppliers or receivers,
// matches suppliers to receivers, and tells each matched subtree of its counterpart.
// Suppliers then send exactly their excess. Only suppliers send and only their excess, so
// for homogeneous units the result is perfect balance (max - min <= 1 unit) with the
// minimum possible number of migrations.
//
// Departures from the poster:
//   - Targets. The remainder of total / ranks goes one unit each to ranks that hold more
//     than the floor of the average, before any other rank: that is what makes the
//     number of migrations the minimum. Knowing which ranks those are takes a second
//     up-and-down sweep (the total first, then the count of such ranks per subtree). The
//     poster leaves it open.
//   - Who learns of whom. Of two matched subtrees the poster tells one of the other at
//     random; here the one that moves more learns of the other, and the coin decides only
//     between equals (tree.cpp says why: random choices let lists grow with the ranks).
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
  // level a round, then the matches passed down (see tree.cpp): O(log^2 P), as the poster.
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
