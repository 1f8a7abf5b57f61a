// A diagnostic: every vertex to a rank drawn at random. Balances load in expectation and
// destroys locality, which shows what a balancer that ignores communication costs.
#pragma once

#include "balancers/global/params.hpp"
#include "balancers/sdk/balancer.hpp"

namespace lbbench {

class RandomBalancer final : public Balancer {
 public:
  explicit RandomBalancer(RandomParams params) : params_(params) {}
  // No communication: each vertex's rank is a hash of (seed, LB call, vertex id).
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) override;
  [[nodiscard]] Assignment decide_serially(const GlobalProblem& problem, ProtocolObserver* observer) const override;

 private:
  // Each vertex's rank: a hash of (seed, LB call, vertex id).
  [[nodiscard]] Rank target(int invocation, VertexId v, int nranks) const;
  RandomParams params_;
};

}  // namespace lbbench
