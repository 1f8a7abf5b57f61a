// Reading `auto`'s params (see params.hpp).
#include "balancers/model/params.hpp"

#include <fmt/format.h>

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
  if (node.has("alpha")) p.alpha = node.number("alpha", std::nullopt, 0.0);
  if (node.has("beta")) p.beta = node.number("beta", std::nullopt, 0.0);
  p.horizon = static_cast<int>(node.integer("horizon", p.horizon, 0, 1 << 30));
  p.redecide = node.number("redecide", p.redecide, 0.0, 100.0);
  p.look_budget = node.number("look_budget", p.look_budget, 0.0, 1e6);
  p.paper_diffusion = node.boolean("paper_diffusion", p.paper_diffusion);
  p.explore_budget = node.number("explore_budget", p.explore_budget, 0.0, 1e6);
  p.nonblocking_look = node.boolean("nonblocking_look", p.nonblocking_look);
  p.near_tie = node.number("near_tie", p.near_tie, 0.0, 1.0);
  p.weigh_by_totals = node.boolean("weigh_by_totals", p.weigh_by_totals);
  p.run_once = node.boolean("run_once", p.run_once);
  p.once_margin = node.number("once_margin", p.once_margin, 0.0, 1.0);
  node.finish();
  return p;
}

Json AutoParams::to_json() const {
  Json list = Json::array();
  for (const auto& c : candidates) list.push_back(Json{{"name", c.name()}, {"params", c.params_json()}});
  auto optional = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  return Json{{"candidates", list},
              {"alpha", optional(alpha)},
              {"beta", optional(beta)},
              {"horizon", horizon},
              {"redecide", redecide},
              {"near_tie", near_tie},
              {"look_budget", look_budget},
              {"paper_diffusion", paper_diffusion},
              {"explore_budget", explore_budget},
              {"nonblocking_look", nonblocking_look},
              {"weigh_by_totals", weigh_by_totals},
              {"run_once", run_once},
              {"once_margin", once_margin}};
}

void AutoParams::check_dims(int dims) const {
  for (const auto& c : candidates) c.check_dims(dims);
}

}  // namespace lbbench
