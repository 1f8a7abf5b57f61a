// A centralized strategy that forgets its last object.
#include <lbbench/balancers/sdk/plugin.hpp>

namespace {

class Lost final : public lbbench::plugin::Centralized {
 public:
  explicit Lost(const lbbench::plugin::Params& /*params*/) {}
  [[nodiscard]] lbbench::Assignment solve(const lbbench::GlobalProblem& problem) const override {
    lbbench::Assignment a = problem.owner;
    a.pop_back();
    return a;
  }
};

}  // namespace

LBBENCH_BALANCER(Lost, "test-lost", lbbench::Family::global, "test: one owner short", {})
