// The registry's build step (see factory.hpp): one case per BalancerKind.
#include "balancers/sdk/factory.hpp"

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/diffusive/params.hpp"
#include "balancers/global/greedy.hpp"
#include "balancers/global/grid_metis.hpp"
#include "balancers/global/metis.hpp"
#include "balancers/global/params.hpp"
#include "balancers/global/python.hpp"
#include "balancers/global/random.hpp"
#include "balancers/global/refine.hpp"
#include "balancers/global/zoltan.hpp"
#include "balancers/gossip/gossip.hpp"
#include "balancers/gossip/params.hpp"
#include "balancers/model/auto/balancer.hpp"
#include "balancers/model/auto/params.hpp"
#include "balancers/plugin_balancers.hpp"
#include "balancers/prefix/params.hpp"
#include "balancers/prefix/prefix.hpp"
#include "balancers/tree/params.hpp"
#include "balancers/tree/tree.hpp"
#include "balancers/vector/metis_vector.hpp"
#include "balancers/vector/multi_greedy.hpp"
#include "balancers/vector/norm.hpp"
#include "balancers/vector/norm_exhaustive.hpp"
#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_greedy.hpp"
#include "balancers/vector/vector_refine.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

template <class B, class Params>
std::unique_ptr<Balancer> with(const BalancerConfig& config) {
  return std::make_unique<B>(config.params.get<Params>());
}

std::unique_ptr<Balancer> make_zoltan(const BalancerConfig& config) {
  if (!zoltan_available()) {
    throw InputError(
        "zoltan is not available in this build: Debian's Zoltan is linked to Open MPI, so it cannot run under the "
        "SMPI engine; use metis, refine or grid-metis there");
  }
  return with<ZoltanBalancer, ZoltanParams>(config);
}

}  // namespace

std::unique_ptr<Balancer> make_balancer(const BalancerConfig& config) {
  switch (config.kind) {
    case BalancerKind::none: return std::make_unique<NoneBalancer>();
    case BalancerKind::greedy: return std::make_unique<GreedyBalancer>();
    case BalancerKind::refine: return with<RefineBalancer, RefineParams>(config);
    case BalancerKind::metis: return with<MetisBalancer, MetisParams>(config);
    case BalancerKind::zoltan: return make_zoltan(config);
    case BalancerKind::grid_metis: return with<GridMetisBalancer, GridMetisParams>(config);
    case BalancerKind::diffusion: return with<DiffusionBalancer, DiffusionParams>(config);
    case BalancerKind::tree: return with<TreeBalancer, TreeParams>(config);
    case BalancerKind::gossip: return with<GossipBalancer, GossipParams>(config);
    case BalancerKind::prefix: return with<PrefixBalancer, PrefixParams>(config);
    case BalancerKind::vector_greedy: return std::make_unique<VectorGreedyBalancer>();
    case BalancerKind::multi_greedy: return std::make_unique<MultiGreedyBalancer>();
    case BalancerKind::norm: return with<NormBalancer, NormParams>(config);
    case BalancerKind::norm_exhaustive: return with<NormExhaustiveBalancer, NormParams>(config);
    case BalancerKind::metis_vector: return with<MetisVectorBalancer, MetisVectorParams>(config);
    case BalancerKind::vector_refine: return with<VectorRefineBalancer, VectorRefineParams>(config);
    case BalancerKind::auto_select: return with<AutoBalancer, AutoParams>(config);
    case BalancerKind::random: return with<RandomBalancer, RandomParams>(config);
    case BalancerKind::python: return with<PythonBalancer, PythonParams>(config);
    case BalancerKind::plugin: return make_plugin_balancer(config);
  }
  throw std::logic_error("make_balancer: a balancer kind without a case");
}

}  // namespace lbbench
