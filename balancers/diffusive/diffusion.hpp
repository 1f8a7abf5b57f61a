// First-order diffusion (Cybenko 1989) on the rank graph: ranks that share an edge are
// neighbors, and each iteration every rank i moves alpha_ij (L_i - L_j) of its virtual
// load to each neighbor j, with alpha_ij = gamma / (1 + max(deg_i, deg_j)) (Boillat's
// stable choice; gamma = 1 is the classic scheme, smaller gamma damps it, as Pearce et
// al.'s shifting coefficient). The iterations stop after `iterations`, or once the
// virtual loads are within `threshold` of balance (max/avg - 1). The accumulated flow
// over each rank-graph edge is then carried by real vertices chosen for locality: a
// region grown from the shared boundary, the vertices with the largest share of their
// edges on the receiving rank (or on vertices it already gets) first. Load only moves
// between neighboring ranks in one call, so far imbalances take several calls.
#pragma once

#include "balancers/diffusive/params.hpp"
#include "balancers/sdk/protocol.hpp"

namespace lbbench {

class DiffusionBalancer final : public DistributedBalancer {
 public:
  explicit DiffusionBalancer(DiffusionParams params) : params_(params) {}
  [[nodiscard]] std::unique_ptr<RankProtocol> make_protocol(RankWork work, const ProtocolContext& ctx) const override;
  [[nodiscard]] bool needs_locality() const override { return true; }
  // Its iterations at most, with the round that starts them and the one that ends them.
  [[nodiscard]] int expected_rounds(int /*nranks*/) const override { return params_.iterations + 2; }
  // The first round's (the loads' sum and maximum) and each iteration's (the maximum).
  [[nodiscard]] int expected_reducing_rounds(int /*nranks*/) const override { return params_.iterations + 1; }

 private:
  DiffusionParams params_;
};

}  // namespace lbbench
