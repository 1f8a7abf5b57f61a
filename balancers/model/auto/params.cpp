// Reading `auto`'s params (see params.hpp).
#include "balancers/model/auto/params.hpp"

#include <fmt/format.h>

#include <optional>

#include "balancers/sdk/registry.hpp"

namespace lbbench {

const std::vector<std::string> AutoParams::kDefaultCandidates{"none", "greedy", "metis", "diffusion", "tree"};

namespace {

// One entry of `candidates`: a name, or {name, params}.
BalancerConfig parse_candidate(ConfigNode entry) {
  std::string name;
  std::optional<ConfigNode> params;
  if (entry.is_map()) {
    name = entry.string("name");
    params = entry.find("params");
    entry.finish();
  } else {
    name = entry.as_string();
  }
  if (name == "auto") entry.fail("auto cannot be its own candidate");
  const BalancerInfo& info = find_balancer(name, entry);
  if (info.family == Family::reorder) entry.fail(fmt::format("{} is not a balancer of vertices", name));
  return parse_balancer_config(info, params ? params->unrecorded() : ConfigNode(YAML::Node(), entry.file()));
}

}  // namespace

AutoParams AutoParams::parse(ConfigNode& node) {
  AutoParams p;
  if (auto list = node.find("candidates")) {
    for (auto& item : list->elements("a list of balancer names or {name, params} mappings")) {
      p.candidates.push_back(parse_candidate(item));
    }
    if (p.candidates.empty()) list->fail("expected at least one candidate");
  } else {
    for (const auto& name : kDefaultCandidates) {
      p.candidates.push_back(default_balancer_config(find_balancer(name, node)));
    }
  }
  p.budget = node.number("budget", p.budget, 0.0, 1.0);
  node.finish();
  return p;
}

Json AutoParams::to_json() const {
  Json list = Json::array();
  for (const auto& c : candidates) list.push_back(Json{{"name", c.name()}, {"params", c.params_json()}});
  return Json{{"candidates", list}, {"budget", budget}};
}

void AutoParams::check_dims(int dims) const {
  for (const auto& c : candidates) c.check_dims(dims);
}

}  // namespace lbbench
