// Reading the parallel prefix strategy's params (see params.hpp).
#include "balancers/prefix/params.hpp"

namespace lbbench {

PrefixParams PrefixParams::parse(ConfigNode& node) {
  PrefixParams p;
  p.subtract_min = node.boolean("subtract_min", p.subtract_min);
  node.finish();
  return p;
}

}  // namespace lbbench
