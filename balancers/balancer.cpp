// The one balancer interface (see balancer.hpp).
#include "balancers/balancer.hpp"

namespace lbbench {

std::string_view family_name(Family f) {
  switch (f) {
    case Family::baseline: return "baseline";
    case Family::global: return "global";
    case Family::diffusive: return "diffusive";
    case Family::tree: return "tree";
    case Family::gossip: return "gossip";
    case Family::prefix: return "prefix";
    case Family::vector: return "vector";
    case Family::reorder: return "reorder";
    case Family::model: return "model";
  }
  return "?";
}

MachineInfo MachineInfo::uniform(int nranks) {
  MachineInfo m;
  m.rank_node = std::vector<int>(static_cast<std::size_t>(nranks), 0);
  m.rank_site = std::vector<int>(static_cast<std::size_t>(nranks), 0);
  m.rank_speed = std::vector<double>(static_cast<std::size_t>(nranks), 1.0);
  return m;
}

}  // namespace lbbench
