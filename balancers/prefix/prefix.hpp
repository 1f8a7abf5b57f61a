// Parallel prefix: order the work units globally by (rank, local index), scan the loads,
// and give each unit to the rank whose equal share of the total contains the unit's
// middle. It balances to within one unit and migrates a lot, which is why it is the
// comparison point for the tree balancer (Langer & Kale). The option from their poster
// first subtracts the global minimum rank load: every rank keeps that much of its own
// work, and only the rest is laid out by the scan.
#pragma once

#include "balancers/prefix/params.hpp"
#include "balancers/sdk/protocol.hpp"

namespace lbbench {

class PrefixBalancer final : public DistributedBalancer {
 public:
  explicit PrefixBalancer(PrefixParams params) : params_(params) {}
  [[nodiscard]] std::unique_ptr<RankProtocol> make_protocol(RankWork work, const ProtocolContext& ctx) const override;

 private:
  PrefixParams params_;
};

}  // namespace lbbench
