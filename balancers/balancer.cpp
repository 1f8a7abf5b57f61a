// The one balancer interface (see balancer.hpp).
#include "balancers/balancer.hpp"

#include "balancers/centralized.hpp"

namespace lbbench {

Assignment Balancer::decide_serially(const GlobalProblem& problem, ProtocolObserver*) const { return problem.owner; }

MachineInfo MachineInfo::uniform(int nranks) {
  MachineInfo m;
  m.rank_node = std::vector<int>(static_cast<std::size_t>(nranks), 0);
  m.rank_site = std::vector<int>(static_cast<std::size_t>(nranks), 0);
  m.rank_speed = std::vector<double>(static_cast<std::size_t>(nranks), 1.0);
  return m;
}

}  // namespace lbbench
