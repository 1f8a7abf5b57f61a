// GrapevineLB (Menon & Kale, SC13), the scheme of Charm++'s DistributedLB.
//
// In each phase, underloaded ranks (below the average) spread their loads by gossip:
// for `rounds` rounds (default ceil(log_fanout P)) every rank that knows something sends
// all it knows to `fanout` ranks drawn at random. Then ranks above target_ratio x average
// offer units to the underloaded ranks they heard of, each target drawn from a
// cumulative distribution weighted by how far it is below the average. A target accepts
// an offer that keeps it at or below target_ratio x average and refuses the rest (a
// negative acknowledgement that carries its real load, so the sender stops guessing
// wrong). Offers repeat until no overloaded rank has anything left to offer; phases
// repeat, up to `max_phases`, while max/avg stays above target_ratio and units moved.
//
// Ours:
//  - which unit to offer, which the paper leaves open: the heaviest that keeps the sender
//    at or above the average, else the lightest if it brings the sender closer to it;
//  - a departure from Charm++'s phases: a phase also needs the lightest unit an
//    overloaded rank could offer to fit on the least loaded rank. Else no offer could be
//    accepted, and the phase's gossip (most of its time) would be spent for nothing; the
//    owners are the same either way.
#pragma once

#include "balancers/gossip/params.hpp"
#include "balancers/sdk/protocol.hpp"

namespace lbbench {

class GossipBalancer final : public DistributedBalancer {
 public:
  explicit GossipBalancer(GossipParams params) : params_(params) {}
  [[nodiscard]] std::unique_ptr<RankProtocol> make_protocol(RankWork work, const ProtocolContext& ctx) const override;

 private:
  GossipParams params_;
};

}  // namespace lbbench
