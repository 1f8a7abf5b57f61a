// A strategy named 'greedy', which the tests load to see the name refused.
#include <lbbench/balancers/sdk/plugin.hpp>

namespace {

class Stay final : public lbbench::plugin::Centralized {
 public:
  explicit Stay(const lbbench::plugin::Params& /*params*/) {}
  [[nodiscard]] lbbench::Assignment solve(const lbbench::GlobalProblem& problem) const override {
    return problem.owner;
  }
};

}  // namespace

LBBENCH_BALANCER(Stay, "greedy", lbbench::Family::global, "test: a name taken", {})
