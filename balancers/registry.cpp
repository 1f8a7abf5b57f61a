// The one registry (see registry.hpp). Adding a balancer means one row here.
#include "balancers/registry.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/global/greedy.hpp"
#include "balancers/global/grid_metis.hpp"
#include "balancers/global/metis.hpp"
#include "balancers/global/random.hpp"
#include "balancers/global/refine.hpp"
#include "balancers/global/zoltan.hpp"
#include "balancers/model/auto.hpp"
#include "balancers/gossip/gossip.hpp"
#include "balancers/prefix/prefix.hpp"
#include "balancers/tree/tree.hpp"
#include "balancers/vector/metis_vector.hpp"
#include "balancers/vector/multi_greedy.hpp"
#include "balancers/vector/norm.hpp"
#include "balancers/vector/norm_exhaustive.hpp"
#include "balancers/vector/vector_greedy.hpp"
#include "balancers/vector/vector_refine.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace {

template <class B>
std::unique_ptr<Balancer> without_params(ConfigNode& params) {
  params.finish();  // these strategies take no params, so any key is unknown
  return std::make_unique<B>();
}

// Strategies with a params struct: B(Params::parse(node)).
template <class B, class Params>
std::unique_ptr<Balancer> with_params(ConfigNode& params) {
  return std::make_unique<B>(Params::parse(params));
}

std::unique_ptr<Balancer> make_zoltan(ConfigNode& params) {
  if (!zoltan_available()) {
    params.fail("zoltan is not available in this build: Debian's Zoltan is linked to Open MPI, so it cannot run "
                "under the SMPI engine; use metis, refine or grid-metis there");
  }
  return with_params<ZoltanBalancer, ZoltanParams>(params);
}

constexpr std::array kTable{
    BalancerInfo{"none", Family::baseline, "never rebalances; the baseline every comparison starts from",
                 &without_params<NoneBalancer>},
    BalancerInfo{"greedy", Family::global,
                 "centralized LPT: gather loads to rank 0, heaviest vertex first onto the least-loaded rank",
                 &without_params<GreedyBalancer>},
    BalancerInfo{"refine", Family::global,
                 "centralized RefineLB: move the fewest vertices off overloaded ranks until all are within tolerance",
                 &with_params<RefineBalancer, RefineParams>},
    BalancerInfo{"metis", Family::global,
                 "centralized METIS k-way on loads and edge bytes; parts relabeled to move the fewest vertices",
                 &with_params<MetisBalancer, MetisParams>},
    BalancerInfo{"zoltan", Family::global,
                 "Zoltan in parallel: graph, hypergraph, rcb, rib, hsfc, block or random; partition/repartition/refine",
                 &make_zoltan},
    BalancerInfo{"grid-metis", Family::global,
                 "Koenig & Kale two-phase: METIS into sites by messages, then each site onto its ranks by load",
                 &with_params<GridMetisBalancer, GridMetisParams>},
    BalancerInfo{"diffusion", Family::diffusive,
                 "Cybenko first-order diffusion on the rank graph; flows carried by the most attached boundary vertices",
                 &with_params<DiffusionBalancer, DiffusionParams>},
    BalancerInfo{"tree", Family::tree,
                 "Langer & Kale: spanning tree of ranks, subtree targets, supplier/receiver matching with random lists",
                 &with_params<TreeBalancer, TreeParams>},
    BalancerInfo{"gossip", Family::gossip,
                 "GrapevineLB: gossip the underloaded ranks, then probabilistic offers with negative acknowledgements",
                 &with_params<GossipBalancer, GossipParams>},
    BalancerInfo{"prefix", Family::prefix,
                 "parallel prefix over (rank, local index): perfect balance, heavy migration; optional minimum subtraction",
                 &with_params<PrefixBalancer, PrefixParams>},
    BalancerInfo{"vector-greedy", Family::vector,
                 "Buch's naive vector greedy: each vertex's largest load component as a scalar, then greedy",
                 &without_params<VectorGreedyBalancer>},
    BalancerInfo{"multi-greedy", Family::vector,
                 "Buch's MultiGreedy: largest component first onto the rank least loaded in that component",
                 &without_params<MultiGreedyBalancer>},
    BalancerInfo{"norm", Family::vector,
                 "Buch's NormLB: largest p-norm first onto the rank with the smallest norm after; exact pruned search",
                 &with_params<NormBalancer, NormParams>},
    BalancerInfo{"norm-exhaustive", Family::vector,
                 "NormLB scanning every rank for every vertex: the reference norm must match",
                 &with_params<NormExhaustiveBalancer, NormParams>},
    BalancerInfo{"metis-vector", Family::vector,
                 "METIS multi-constraint (ncon = components) on the edgeless or the full graph, ubvec per component",
                 &with_params<MetisVectorBalancer, MetisVectorParams>},
    BalancerInfo{"vector-refine", Family::vector,
                 "move the fewest vertices until every rank is within tolerance of the average in every component",
                 &with_params<VectorRefineBalancer, VectorRefineParams>},
    BalancerInfo{"auto", Family::model,
                 "Pearce et al.'s Algorithm 1: predicts each candidate with the cost model at every call, applies the "
                 "cheapest",
                 &with_params<AutoBalancer, AutoParams>},
    BalancerInfo{"random", Family::global, "diagnostic: every vertex to a random rank (balances load, ignores locality)",
                 &with_params<RandomBalancer, RandomParams>},
};

}  // namespace

std::span<const BalancerInfo> balancer_table() { return kTable; }

const BalancerInfo& find_balancer(const std::string& name, const ConfigNode& where) {
  std::vector<std::string> names;
  for (const auto& info : kTable) {
    if (info.name == name) return info;
    names.emplace_back(info.name);
  }
  where.fail(fmt::format("unknown balancer '{}'.{} Registered balancers: {} (see `lbbench list balancers`)", name,
                         did_you_mean(name, names), join(names)));
}

std::unique_ptr<Balancer> make_balancer(const BalancerInfo& info, ConfigNode params) {
  if (params.yaml().IsDefined() && !params.yaml().IsNull()) params.expect_map("the balancer's params");
  return info.make(params);
}

}  // namespace lbbench
