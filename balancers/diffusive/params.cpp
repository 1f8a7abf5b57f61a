// Reading the diffusive strategy's params (see params.hpp).
#include "balancers/diffusive/params.hpp"

namespace lbbench {

DiffusionParams DiffusionParams::parse(ConfigNode& node) {
  DiffusionParams p;
  p.gamma = node.number("gamma", p.gamma, 1e-6, 1.0);
  p.iterations = static_cast<int>(node.integer("iterations", p.iterations, 1, 100000));
  p.threshold = node.number("threshold", p.threshold, 0.0, 100.0);
  node.finish();
  return p;
}

}  // namespace lbbench
