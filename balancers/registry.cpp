// The one registry (see registry.hpp). Adding a balancer means a row here, a kind in
// params.hpp and a case in factory.cpp.
#include "balancers/sdk/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <vector>

#include "balancers/diffusive/params.hpp"
#include "balancers/global/params.hpp"
#include "balancers/gossip/params.hpp"
#include "balancers/model/auto/params.hpp"
#include "balancers/plugins.hpp"
#include "balancers/prefix/params.hpp"
#include "balancers/tree/params.hpp"
#include "balancers/vector/params.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace {

BalancerParams without_params(ConfigNode& params) {
  params.finish();  // these strategies take no params, so any key is unknown
  return {};
}

template <class Params>
BalancerParams with_params(ConfigNode& params) {
  return Params::parse(params);
}

constexpr std::array kTable{
    BalancerInfo{"none", BalancerKind::none, Family::baseline,
                 "never rebalances; the baseline every comparison starts from", &without_params},
    BalancerInfo{"greedy", BalancerKind::greedy, Family::global,
                 "centralized LPT: gather loads to rank 0, heaviest vertex first onto the least-loaded rank",
                 &without_params},
    BalancerInfo{"refine", BalancerKind::refine, Family::global,
                 "centralized RefineLB: move the fewest vertices off overloaded ranks until all are within tolerance",
                 &with_params<RefineParams>},
    BalancerInfo{"metis", BalancerKind::metis, Family::global,
                 "centralized METIS k-way on loads and edge bytes; parts relabeled to move the fewest vertices",
                 &with_params<MetisParams>},
    BalancerInfo{"zoltan", BalancerKind::zoltan, Family::global,
                 "Zoltan in parallel: graph, hypergraph, rcb, rib, hsfc, block or random; partition/repartition/refine",
                 &with_params<ZoltanParams>},
    BalancerInfo{"grid-metis", BalancerKind::grid_metis, Family::global,
                 "Koenig & Kale two-phase: METIS into sites by messages, then each site onto its ranks by load",
                 &with_params<GridMetisParams>},
    BalancerInfo{
        "diffusion", BalancerKind::diffusion, Family::diffusive,
        "Cybenko first-order diffusion on the rank graph; flows carried by the most attached boundary vertices",
        &with_params<DiffusionParams>},
    BalancerInfo{"tree", BalancerKind::tree, Family::tree,
                 "Langer & Kale: spanning tree of ranks, subtree targets, supplier/receiver matching with random lists",
                 &with_params<TreeParams>},
    BalancerInfo{"gossip", BalancerKind::gossip, Family::gossip,
                 "GrapevineLB: gossip the underloaded ranks, then probabilistic offers with negative acknowledgements",
                 &with_params<GossipParams>},
    BalancerInfo{
        "prefix", BalancerKind::prefix, Family::prefix,
        "parallel prefix over (rank, local index): perfect balance, heavy migration; optional minimum subtraction",
        &with_params<PrefixParams>},
    BalancerInfo{"vector-greedy", BalancerKind::vector_greedy, Family::vector,
                 "Buch's naive vector greedy: each vertex's largest load component as a scalar, then greedy",
                 &without_params},
    BalancerInfo{"multi-greedy", BalancerKind::multi_greedy, Family::vector,
                 "Buch's MultiGreedy: largest component first onto the rank least loaded in that component",
                 &without_params},
    BalancerInfo{"norm", BalancerKind::norm, Family::vector,
                 "Buch's NormLB: largest p-norm first onto the rank with the smallest norm after; exact pruned search",
                 &with_params<NormParams>},
    BalancerInfo{"norm-exhaustive", BalancerKind::norm_exhaustive, Family::vector,
                 "NormLB scanning every rank for every vertex: the reference norm must match",
                 &with_params<NormParams>},
    BalancerInfo{"metis-vector", BalancerKind::metis_vector, Family::vector,
                 "METIS multi-constraint (ncon = components) on the edgeless or the full graph, ubvec per component",
                 &with_params<MetisVectorParams>},
    BalancerInfo{"vector-refine", BalancerKind::vector_refine, Family::vector,
                 "move the fewest vertices until every rank is within tolerance of the average in every component",
                 &with_params<VectorRefineParams>},
    BalancerInfo{
        "auto", BalancerKind::auto_select, Family::model,
        "closed loop over candidates: at each point, the one whose measured gain best covers its measured cost, "
        "or no call, within a budget",
        &with_params<AutoParams>},
    BalancerInfo{"random", BalancerKind::random, Family::global,
                 "diagnostic: every vertex to a random rank (balances load, ignores locality)",
                 &with_params<RandomParams>},
    BalancerInfo{"python", BalancerKind::python, Family::global,
                 "a centralized strategy in Python: the gathered problem as NumPy arrays to params.module's function",
                 &with_params<PythonParams>},
};

// The table lists the kinds in their enum order, so a kind finds its row by index.
constexpr bool rows_follow_the_kinds() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].kind) != i) return false;
  }
  return kTable.size() == static_cast<std::size_t>(BalancerKind::plugin);
}
static_assert(rows_follow_the_kinds(), "registry rows must follow BalancerKind's order");

}  // namespace

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

std::vector<BalancerInfo> balancer_table() {
  std::vector<BalancerInfo> out(kTable.begin(), kTable.end());
  for (const BalancerInfo* row : plugin_rows()) out.push_back(*row);
  return out;
}

const BalancerInfo* find_builtin_balancer(std::string_view name) {
  for (const auto& info : kTable) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const BalancerInfo& find_balancer(const std::string& name, const ConfigNode& where) {
  if (const BalancerInfo* builtin = find_builtin_balancer(name)) return *builtin;
  std::vector<std::string> names;
  names.reserve(kTable.size());
  for (const auto& info : kTable) names.emplace_back(info.name);
  for (const BalancerInfo* row : plugin_rows()) {
    if (row->name == name) return *row;
    names.emplace_back(row->name);
  }
  where.fail(fmt::format("unknown balancer '{}'.{} Registered balancers: {} (see `lbbench list balancers`)", name,
                         did_you_mean(name, names), fmt::join(names, ", ")));
}

const BalancerInfo& balancer_info(BalancerKind kind) {
  if (kind == BalancerKind::plugin) throw std::logic_error("balancer_info: a plugin's row is its config's");
  return kTable[static_cast<std::size_t>(kind)];
}

BalancerConfig parse_balancer_config(const BalancerInfo& info, ConfigNode params) {
  if (params.yaml().IsDefined() && !params.yaml().IsNull()) params.expect_map("the balancer's params");
  if (info.plugin != nullptr) return BalancerConfig{info.kind, parse_plugin_params(*info.plugin, params), &info};
  return BalancerConfig{info.kind, info.parse(params)};
}

BalancerConfig default_balancer_config(const BalancerInfo& info) {
  return parse_balancer_config(info, ConfigNode(YAML::Node(), "defaults"));
}

BalancerConfig default_balancer_config(BalancerKind kind) { return default_balancer_config(balancer_info(kind)); }

const BalancerInfo& BalancerConfig::info() const { return row != nullptr ? *row : balancer_info(kind); }
std::string_view BalancerConfig::name() const { return info().name; }
Family BalancerConfig::family() const { return info().family; }

}  // namespace lbbench
