// Reading the diffusive strategy's params (see params.hpp).
#include "balancers/diffusive/params.hpp"

#include <algorithm>

namespace lbbench {

double diffusion_alpha(std::optional<double> gamma, double damping, std::int64_t degree_i, std::int64_t degree_j) {
  return gamma ? *gamma : damping / (1.0 + static_cast<double>(std::max(degree_i, degree_j)));
}

DiffusionParams DiffusionParams::parse(ConfigNode& node) {
  DiffusionParams p;
  if (node.has("gamma")) {
    if (node.has("damping")) node.fail("give gamma (the paper's α on every edge) or damping (Boillat's α), not both");
    p.gamma = node.number("gamma", std::nullopt, 1e-6, 1.0);
  }
  p.damping = node.number("damping", p.damping, 1e-6, 1.0);
  p.iterations = static_cast<int>(node.integer("iterations", p.iterations, 1, 100000));
  p.threshold = node.number("threshold", p.threshold, 0.0, 100.0);
  node.finish();
  return p;
}

}  // namespace lbbench
