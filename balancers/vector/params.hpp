// The params of the vector strategies, read from a scenario's balancer.params.
#pragma once

#include <cstdint>
#include <vector>

#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct NormParams {
  double p = 2.0;

  static NormParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"p", p}}; }
};

struct MetisVectorParams {
  bool full_graph = false;          // graph: none (objects only) or full (edges weighted by bytes)
  std::vector<double> ubvec{1.05};  // one value for every component, or one per component
  std::int64_t seed = 1;

  static MetisVectorParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
  // Throws InputError when ubvec does not fit load vectors of `dims` components.
  void check_dims(int dims) const;
};

struct VectorRefineParams {
  double tolerance = 0.05;  // a rank may carry up to (1 + tolerance) times the average, per component

  static VectorRefineParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const { return Json{{"tolerance", tolerance}}; }
};

}  // namespace lbbench
