// The params of the global strategies, read from a scenario's balancer.params. Plain data
// with no MPI or partitioner, so scenarios and the harness can hold them.
#pragma once

#include <cstdint>
#include <string>

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct RefineParams {
  double tolerance = 0.05;  // a rank may carry up to (1 + tolerance) times its fair share

  static RefineParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"tolerance", tolerance}}; }
};

struct MetisParams {
  double tolerance = 1.03;  // METIS ubvec: allowed max/avg part weight
  std::int64_t seed = 1;
  bool minimize_volume = false;  // objtype: cut (default) or volume

  static MetisParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
};

struct ZoltanParams {
  std::string method = "graph";          // graph, hypergraph, rcb, rib, hsfc, block, random
  std::string approach = "repartition";  // partition, repartition, refine
  double imbalance_tol = 1.05;
  double repart_multiplier = 100;     // PHG_REPART_MULTIPLIER: cut against migration volume
  std::string graph_package = "phg";  // phg or scotch, for method graph
  std::int64_t seed = 1;

  static ZoltanParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
  [[nodiscard]] bool geometric() const { return method == "rcb" || method == "rib" || method == "hsfc"; }
};

struct GridMetisParams {
  double tolerance = 1.03;  // METIS ubvec in both phases
  std::int64_t seed = 1;

  static GridMetisParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"tolerance", tolerance}, {"seed", seed}}; }
};

// A centralized strategy written in Python (balancers/global/python.hpp).
struct PythonParams {
  std::string module;           // the .py file, as the scenario gives it
  std::string module_resolved;  // found from the scenario's folder
  std::string function = "solve";
  bool graph = false;          // gather the communication graph for it
  bool vectors = false;        // gather each object's load vector for it
  Json args = Json::object();  // passed to the function as keyword arguments

  static PythonParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
};

struct RandomParams {
  std::int64_t seed = 1;

  static RandomParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"seed", seed}}; }
};

}  // namespace lbbench
