// The one registry (see registry.hpp). Adding a balancer means one row here.
#include "balancers/registry.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "balancers/global/greedy.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace {

template <class B>
std::unique_ptr<Balancer> without_params(ConfigNode& params) {
  params.finish();  // these strategies take no params, so any key is unknown
  return std::make_unique<B>();
}

constexpr std::array kTable{
    BalancerInfo{"none", Family::baseline, "never rebalances; the baseline every comparison starts from",
                 &without_params<NoneBalancer>},
    BalancerInfo{"greedy", Family::global,
                 "centralized LPT: gather loads to rank 0, heaviest vertex first onto the least-loaded rank",
                 &without_params<GreedyBalancer>},
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
