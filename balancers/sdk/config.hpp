// What a scenario says about its balancer, typed: which strategy (BalancerKind) and its
// validated params. Plain data with no MPI or partitioner: the scenario, the harness and
// the engines hold it, and only the engine that runs the replay builds a balancer from it
// (balancers/sdk/factory.hpp). Each strategy's params are its own type, read by its
// registry row's parser; a config holds them whatever the type, so that no header lists
// every strategy's params.
#pragma once

#include <any>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/json_yaml.hpp"

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
  python,
  plugin,  // a strategy loaded at run time (BalancerConfig::info() names it)
};

// One strategy's validated params, of its own type P, which gives `Json to_json() const`
// and may give `void check_dims(int) const`. Empty for a strategy that reads none.
class BalancerParams {
 public:
  BalancerParams() = default;
  template <class P>
  BalancerParams(P params)  // NOLINT(google-explicit-constructor): params are their value
      : value_(std::move(params)),
        to_json_([](const std::any& v) { return std::any_cast<const P&>(v).to_json(); }),
        check_dims_([](const std::any& v, int dims) {
          if constexpr (requires(const P& p) { p.check_dims(dims); }) std::any_cast<const P&>(v).check_dims(dims);
        }) {}

  // The params as P, or null where they are of another type.
  template <class P>
  [[nodiscard]] const P* get_if() const {
    return std::any_cast<P>(&value_);
  }
  template <class P>
  [[nodiscard]] const P& get() const {
    if (const P* p = get_if<P>()) return *p;
    throw std::logic_error("BalancerParams::get: the params are of another strategy");
  }
  [[nodiscard]] Json to_json() const { return to_json_ ? to_json_(value_) : Json::object(); }
  // Throws InputError when the params do not fit load vectors of `dims` components.
  void check_dims(int dims) const {
    if (check_dims_) check_dims_(value_, dims);
  }

 private:
  std::any value_;
  Json (*to_json_)(const std::any&) = nullptr;
  void (*check_dims_)(const std::any&, int) = nullptr;
};

struct BalancerInfo;

struct BalancerConfig {
  BalancerKind kind = BalancerKind::none;
  BalancerParams params;  // of the type kind's registry row parses to
  // The registry row a plugin's strategy was parsed from; null for the built-in ones,
  // whose row their kind names.
  const BalancerInfo* row = nullptr;

  [[nodiscard]] const BalancerInfo& info() const;
  [[nodiscard]] std::string_view name() const;
  [[nodiscard]] Family family() const;
  // The params with every default filled in, for records and normalized scenarios.
  [[nodiscard]] Json params_json() const { return params.to_json(); }
  // Throws InputError when the params do not fit load vectors of `dims` components.
  void check_dims(int dims) const { params.check_dims(dims); }
};

}  // namespace lbbench
