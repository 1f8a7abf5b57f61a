// What a scenario says about its balancer, typed: which strategy (BalancerKind) and its
// validated params. Plain data with no MPI or partitioner: the scenario, the harness and
// the engines hold it, and only the engine that runs the replay builds a balancer from it
// (balancers/factory.hpp).
#pragma once

#include <string_view>
#include <variant>

#include "balancers/diffusive/params.hpp"
#include "balancers/global/params.hpp"
#include "balancers/gossip/params.hpp"
#include "balancers/model/params.hpp"
#include "balancers/prefix/params.hpp"
#include "balancers/tree/params.hpp"
#include "balancers/vector/params.hpp"

namespace lbbench {

enum class Family { baseline, global, diffusive, tree, gossip, prefix, vector, reorder, model };
std::string_view family_name(Family f);

// Every registered strategy; balancers/registry.cpp has one row for each.
enum class BalancerKind {
  none,
  greedy,
  refine,
  metis,
  zoltan,
  grid_metis,
  diffusion,
  tree,
  gossip,
  prefix,
  vector_greedy,
  multi_greedy,
  norm,
  norm_exhaustive,
  metis_vector,
  vector_refine,
  auto_select,
  random,
};

// Strategies that read no params.
struct NoParams {
  [[nodiscard]] Json to_json() const { return Json::object(); }
};

using BalancerParams =
    std::variant<NoParams, RefineParams, MetisParams, ZoltanParams, GridMetisParams, RandomParams, DiffusionParams,
                 TreeParams, GossipParams, PrefixParams, NormParams, MetisVectorParams, VectorRefineParams, AutoParams>;

struct BalancerInfo;

struct BalancerConfig {
  BalancerKind kind = BalancerKind::none;
  BalancerParams params;  // the alternative that kind's registry row parses to

  [[nodiscard]] const BalancerInfo& info() const;
  [[nodiscard]] std::string_view name() const;
  [[nodiscard]] Family family() const;
  // The params with every default filled in, for records and normalized scenarios.
  [[nodiscard]] Json params_json() const;
  // Throws InputError when the params do not fit load vectors of `dims` components.
  void check_dims(int dims) const;
};

}  // namespace lbbench
