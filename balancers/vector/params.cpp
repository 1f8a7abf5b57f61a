// Reading the vector strategies' params (see params.hpp).
#include "balancers/vector/params.hpp"

#include <fmt/format.h>

#include <climits>
#include <string>

#include "core/error.hpp"

namespace lbbench {

NormParams NormParams::parse(ConfigNode& node) {
  NormParams p;
  p.p = node.number("p", p.p, 1.0, 64.0);
  node.finish();
  return p;
}

MetisVectorParams MetisVectorParams::parse(ConfigNode& node) {
  static const std::vector<std::string> kGraphs{"none", "full"};
  MetisVectorParams p;
  p.full_graph = node.choice("graph", kGraphs, std::string("none")) == "full";
  if (auto u = node.find("ubvec")) {
    p.ubvec = u->is_sequence() ? node.numbers("ubvec", std::nullopt, 1, 64, 1.0, 10.0)
                               : std::vector<double>{u->as_number(1.0, 10.0)};
  }
  p.seed = node.integer("seed", p.seed, 0, INT32_MAX);
  node.finish();
  return p;
}

Json MetisVectorParams::to_json() const {
  return Json{{"graph", full_graph ? "full" : "none"}, {"ubvec", ubvec}, {"seed", seed}};
}

void MetisVectorParams::check_dims(int dims) const {
  if (ubvec.size() != 1 && static_cast<int>(ubvec.size()) != dims) {
    throw InputError(
        fmt::format("metis-vector: ubvec has {} entries but the workload's load vectors have {} "
                    "components; give one value, or one per component",
                    ubvec.size(), dims));
  }
}

VectorRefineParams VectorRefineParams::parse(ConfigNode& node) {
  VectorRefineParams p;
  p.tolerance = node.number("tolerance", p.tolerance, 0.0, 10.0);
  node.finish();
  return p;
}

}  // namespace lbbench
