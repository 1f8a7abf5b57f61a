// The one balancer interface (see balancer.hpp).
#include "balancers/sdk/balancer.hpp"

#include <algorithm>

#include "balancers/sdk/centralized.hpp"

namespace lbbench {

Assignment Balancer::decide_serially(const GlobalProblem& problem, ProtocolObserver*) const { return problem.owner; }

double MigrationCode::busiest_s(std::span<const std::int64_t> sent, std::span<const std::int64_t> kept,
                                std::span<const std::int64_t> arrived) const {
  double packing = 0;
  double rebuilding = 0;
  for (std::size_t r = 0; r < sent.size(); ++r) {
    packing = std::max(packing, static_cast<double>(sent[r]) * pack_s);
    rebuilding =
        std::max(rebuilding, static_cast<double>(kept[r]) * keep_s + static_cast<double>(arrived[r]) * unpack_s);
  }
  return packing + rebuilding;
}

MachineInfo MachineInfo::uniform(int nranks) {
  MachineInfo m;
  m.rank_node = std::vector<int>(static_cast<std::size_t>(nranks), 0);
  m.rank_site = std::vector<int>(static_cast<std::size_t>(nranks), 0);
  m.rank_speed = std::vector<double>(static_cast<std::size_t>(nranks), 1.0);
  return m;
}

}  // namespace lbbench
