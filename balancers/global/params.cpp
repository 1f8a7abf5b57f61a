// Reading the global strategies' params (see params.hpp).
#include "balancers/global/params.hpp"

#include <fmt/format.h>

#include <climits>
#include <filesystem>
#include <vector>

namespace lbbench {

namespace {

const std::vector<std::string> kObjectives{"cut", "volume"};
const std::vector<std::string> kZoltanMethods{"graph", "hypergraph", "rcb", "rib", "hsfc", "block", "random"};
const std::vector<std::string> kZoltanApproaches{"partition", "repartition", "refine"};
const std::vector<std::string> kZoltanPackages{"phg", "scotch"};

}  // namespace

RefineParams RefineParams::parse(ConfigNode& node) {
  RefineParams p;
  p.tolerance = node.number("tolerance", p.tolerance, 0.0, 10.0);
  node.finish();
  return p;
}

MetisParams MetisParams::parse(ConfigNode& node) {
  MetisParams p;
  p.tolerance = node.number("tolerance", p.tolerance, 1.0, 10.0);
  p.seed = node.integer("seed", p.seed, 0, INT32_MAX);
  p.minimize_volume = node.choice("objtype", kObjectives, std::string("cut")) == "volume";
  node.finish();
  return p;
}

Json MetisParams::to_json() const {
  return Json{{"tolerance", tolerance}, {"seed", seed}, {"objtype", minimize_volume ? "volume" : "cut"}};
}

ZoltanParams ZoltanParams::parse(ConfigNode& node) {
  ZoltanParams p;
  p.method = node.choice("method", kZoltanMethods, p.method);
  p.approach = node.choice("approach", kZoltanApproaches, p.approach);
  p.imbalance_tol = node.number("imbalance_tol", p.imbalance_tol, 1.0, 10.0);
  p.repart_multiplier = node.number("repart_multiplier", p.repart_multiplier, 0.0, 1e9);
  p.graph_package = node.choice("graph_package", kZoltanPackages, p.graph_package);
  p.seed = node.integer("seed", p.seed, 0, INT32_MAX);
  if (p.graph_package == "scotch" && p.method != "graph") {
    node.at("graph_package", "").fail("graph_package scotch applies to method graph only");
  }
  node.finish();
  return p;
}

Json ZoltanParams::to_json() const {
  Json j{{"method", method}, {"approach", approach}, {"imbalance_tol", imbalance_tol}};
  if (method == "graph" || method == "hypergraph") j["repart_multiplier"] = repart_multiplier;
  if (method == "graph") j["graph_package"] = graph_package;
  j["seed"] = seed;
  return j;
}

GridMetisParams GridMetisParams::parse(ConfigNode& node) {
  GridMetisParams p;
  p.tolerance = node.number("tolerance", p.tolerance, 1.0, 10.0);
  p.seed = node.integer("seed", p.seed, 0, INT32_MAX);
  node.finish();
  return p;
}

RandomParams RandomParams::parse(ConfigNode& node) {
  RandomParams p;
  p.seed = node.integer("seed", p.seed, 0);
  node.finish();
  return p;
}

namespace {

// A YAML scalar as the JSON value it reads as: a boolean, an integer, a number or a text.
Json scalar_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "!") {  // not quoted
    if (text == "true" || text == "false") return text == "true";
    try {
      std::size_t used = 0;
      const long long i = std::stoll(text, &used);
      if (used == text.size()) return i;
      const double d = std::stod(text, &used);
      if (used == text.size()) return d;
    } catch (const std::exception&) {
      // not a number: a text
    }
  }
  return text;
}

}  // namespace

PythonParams PythonParams::parse(ConfigNode& node) {
  PythonParams p;
  p.module = node.string("module", "");
  p.function = node.string("function", p.function);
  p.graph = node.boolean("graph", p.graph);
  p.vectors = node.boolean("vectors", p.vectors);
  if (auto args = node.find("args")) {
    args->expect_map("the function's keyword arguments");
    for (const auto& entry : args->yaml()) {
      if (!entry.second.IsScalar()) {
        args->at(entry.first.Scalar(), "a value").fail("expected a boolean, a number or a text");
      }
      p.args[entry.first.Scalar()] = scalar_json(entry.second);
    }
  }
  node.finish();
  // Checked once every key is known, so that a misspelled key is named first.
  if (p.module.empty()) node.fail("python needs params.module: the .py file that holds its function");
  const std::filesystem::path given(p.module);
  p.module_resolved = given.is_absolute() || node.file().empty()
                          ? p.module
                          : (std::filesystem::path(node.file()).parent_path() / given).lexically_normal().string();
  if (!std::filesystem::is_regular_file(p.module_resolved)) {
    node.at("module", "a Python file").fail(fmt::format("no Python file at {}", p.module_resolved));
  }
  return p;
}

Json PythonParams::to_json() const {
  return Json{{"module", module}, {"function", function}, {"graph", graph}, {"vectors", vectors}, {"args", args}};
}

}  // namespace lbbench
