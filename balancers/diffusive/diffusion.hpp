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

#include "balancers/protocol.hpp"
#include "core/config.hpp"

namespace lbbench {

struct DiffusionParams {
  double gamma = 1.0;
  int iterations = 20;
  double threshold = 0.02;

  static DiffusionParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const {
    return Json{{"gamma", gamma}, {"iterations", iterations}, {"threshold", threshold}};
  }
};

class DiffusionBalancer final : public DistributedBalancer {
 public:
  explicit DiffusionBalancer(DiffusionParams params) : params_(params) {}
  [[nodiscard]] std::unique_ptr<RankProtocol> make_protocol(RankWork work, const ProtocolContext& ctx) const override;
  [[nodiscard]] bool needs_locality() const override { return true; }
  [[nodiscard]] Json params() const override { return params_.to_json(); }

 private:
  DiffusionParams params_;
};

}  // namespace lbbench
