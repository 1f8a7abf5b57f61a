// A diagnostic random balancer (see random.hpp).
#include "balancers/global/random.hpp"

#include "balancers/sdk/centralized.hpp"
#include "comm/code_time.hpp"
#include "core/hash.hpp"

namespace lbbench {

Rank RandomBalancer::target(int invocation, VertexId v, int nranks) const {
  const std::uint64_t h = hash_of({static_cast<std::uint64_t>(params_.seed), tag(Stream::balancer_random),
                                   static_cast<std::uint64_t>(invocation), static_cast<std::uint64_t>(v.value())});
  return Rank{static_cast<int>(h % static_cast<std::uint64_t>(nranks))};
}

MigrationPlan RandomBalancer::plan(const LoadView& view, MPI_Comm /*comm*/) {
  const ChargedCode deciding;
  MigrationPlan out;
  for (LocalIndex v = 0; v < view.graph.num_local(); ++v) {
    const Rank to = target(view.invocation, view.graph.gid[v], view.nranks);
    if (to != view.rank) out.moves.push_back({v, to});
  }
  return out;
}

Assignment RandomBalancer::decide_serially(const GlobalProblem& problem, ProtocolObserver* /*observer*/) const {
  Assignment out;
  out.reserve(problem.size());
  for (const VertexId v : problem.id) out.push_back(target(problem.invocation, v, problem.nranks));
  return out;
}

}  // namespace lbbench
