// A diagnostic random balancer (see random.hpp).
#include "balancers/global/random.hpp"

#include "core/hash.hpp"

namespace lbbench {

MigrationPlan RandomBalancer::plan(const LoadView& view, MPI_Comm /*comm*/) {
  MigrationPlan out;
  for (LocalIndex v = 0; v < view.graph.num_local(); ++v) {
    const std::uint64_t h =
        hash_of({static_cast<std::uint64_t>(params_.seed), tag(Stream::balancer_random),
                 static_cast<std::uint64_t>(view.invocation), static_cast<std::uint64_t>(view.graph.gid[v].value())});
    const Rank to{static_cast<int>(h % static_cast<std::uint64_t>(view.nranks))};
    if (to != view.rank) out.moves.push_back({v, to});
  }
  return out;
}

}  // namespace lbbench
