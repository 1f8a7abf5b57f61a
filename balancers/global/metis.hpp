// METIS k-way over the whole graph, centralized: gather loads and edge bytes to rank 0,
// partition, map parts to ranks so that as few vertices as possible move, scatter.
#pragma once

#include "balancers/global/metis_partition.hpp"
#include "balancers/global/params.hpp"
#include "balancers/global/part_mapping.hpp"
#include "balancers/sdk/centralized.hpp"

namespace lbbench {

class MetisBalancer final : public CentralizedBalancer {
 public:
  explicit MetisBalancer(MetisParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] bool needs_graph() const override { return true; }

 private:
  MetisParams params_;
};

// The whole problem as a METIS graph: vertex weights from loads, edge weights from bytes.
MetisGraph metis_graph_of(const GlobalProblem& problem, bool with_sizes);

// With unequal rank speeds, each part's target weight (in each of ncon constraints) is its
// rank's share of the total speed, and parts may only be relabeled within ranks of the
// same speed. Equal speeds leave both inputs as they are.
void set_speed_targets(const GlobalProblem& problem, int ncon, MetisOptions& options, PartMappingInput& mapping);

}  // namespace lbbench
