// Zoltan through its C API, run in parallel on the distributed graph: graph (PHG or
// Scotch) and hypergraph partitioning, geometric bisection (RCB, RIB) and space-filling
// curves (HSFC), block and random, each as partition, repartition or refine.
#pragma once

#include "balancers/balancer.hpp"
#include "core/config.hpp"

namespace lbbench {

struct ZoltanParams {
  std::string method = "graph";        // graph, hypergraph, rcb, rib, hsfc, block, random
  std::string approach = "repartition";  // partition, repartition, refine
  double imbalance_tol = 1.05;
  double repart_multiplier = 100;      // PHG_REPART_MULTIPLIER: cut against migration volume
  std::string graph_package = "phg";   // phg or scotch, for method graph
  std::int64_t seed = 1;

  static ZoltanParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
  [[nodiscard]] bool geometric() const { return method == "rcb" || method == "rib" || method == "hsfc"; }
};

class ZoltanBalancer final : public Balancer {
 public:
  explicit ZoltanBalancer(ZoltanParams params) : params_(std::move(params)) {}
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) override;
  [[nodiscard]] Json params() const override { return params_.to_json(); }

 private:
  ZoltanParams params_;
};

// Whether this build has Zoltan (it does not under the SMPI engine: Debian's Zoltan is
// linked to Open MPI).
bool zoltan_available();

}  // namespace lbbench
