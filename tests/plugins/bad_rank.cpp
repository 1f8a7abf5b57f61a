// A centralized strategy that puts every object on a rank that does not exist.
#include <lbbench/balancers/sdk/plugin.hpp>

namespace {

class BadRank final : public lbbench::plugin::Centralized {
 public:
  explicit BadRank(const lbbench::plugin::Params& /*params*/) {}
  [[nodiscard]] lbbench::Assignment solve(const lbbench::GlobalProblem& problem) const override {
    return lbbench::Assignment(problem.size(), lbbench::Rank{problem.nranks});
  }
};

}  // namespace

LBBENCH_BALANCER(BadRank, "test-bad-rank", lbbench::Family::global, "test: every object onto rank P", {})
