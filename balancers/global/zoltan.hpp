// Zoltan through its C API, run in parallel on the distributed graph: graph (PHG or
// Scotch) and hypergraph partitioning, geometric bisection (RCB, RIB) and space-filling
// curves (HSFC), block and random, each as partition, repartition or refine.
#pragma once

#include "balancers/global/params.hpp"
#include "balancers/sdk/balancer.hpp"

namespace lbbench {

class ZoltanBalancer final : public Balancer {
 public:
  explicit ZoltanBalancer(ZoltanParams params) : params_(std::move(params)) {}
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) override;

 private:
  ZoltanParams params_;
};

// Whether this build has Zoltan (it does not under the SMPI engine: Debian's Zoltan is
// linked to Open MPI).
bool zoltan_available();

}  // namespace lbbench
