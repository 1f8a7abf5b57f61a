// Reading the tree strategy's params (see params.hpp).
#include "balancers/tree/params.hpp"

#include <string>
#include <vector>

namespace lbbench {

TreeParams TreeParams::parse(ConfigNode& node) {
  static const std::vector<std::string> kUnits{"load", "count"};
  TreeParams p;
  p.branching = static_cast<int>(node.integer("branching", p.branching, 2, 1024));
  p.count_units = node.choice("units", kUnits, std::string("load")) == "count";
  node.finish();
  return p;
}

}  // namespace lbbench
