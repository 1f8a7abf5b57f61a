// Reading the gossip strategy's params (see params.hpp).
#include "balancers/gossip/params.hpp"

namespace lbbench {

GossipParams GossipParams::parse(ConfigNode& node) {
  GossipParams p;
  p.fanout = static_cast<int>(node.integer("fanout", p.fanout, 1, 1024));
  p.rounds = static_cast<int>(node.integer("rounds", p.rounds, 0, 1000));
  p.target_ratio = node.number("target_ratio", p.target_ratio, 1.0, 100.0);
  p.max_phases = static_cast<int>(node.integer("max_phases", p.max_phases, 1, 1000));
  p.info_limit = static_cast<int>(node.integer("info_limit", p.info_limit, 0, 1 << 30));
  node.finish();
  return p;
}

}  // namespace lbbench
