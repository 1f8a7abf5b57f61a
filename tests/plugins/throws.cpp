// A centralized strategy whose solve() throws.
#include <lbbench/balancers/sdk/plugin.hpp>
#include <stdexcept>

namespace {

class Throws final : public lbbench::plugin::Centralized {
 public:
  explicit Throws(const lbbench::plugin::Params& /*params*/) {}
  [[nodiscard]] lbbench::Assignment solve(const lbbench::GlobalProblem& /*problem*/) const override {
    throw std::runtime_error("the strategy gave up on purpose");
  }
};

}  // namespace

LBBENCH_BALANCER(Throws, "test-throws", lbbench::Family::global, "test: solve() throws", {})
