// A diagnostic: every vertex to a rank drawn at random. Balances load in expectation and
// destroys locality, which shows what a balancer that ignores communication costs.
#pragma once

#include "balancers/balancer.hpp"
#include "core/config.hpp"

namespace lbbench {

struct RandomParams {
  std::int64_t seed = 1;

  static RandomParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"seed", seed}}; }
};

class RandomBalancer final : public Balancer {
 public:
  explicit RandomBalancer(RandomParams params) : params_(params) {}
  // No communication: each vertex's rank is a hash of (seed, LB call, vertex id).
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) override;
  [[nodiscard]] Json params() const override { return params_.to_json(); }

 private:
  RandomParams params_;
};

}  // namespace lbbench
