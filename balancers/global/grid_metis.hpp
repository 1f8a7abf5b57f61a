// Koenig & Kale's two-phase grid topology-aware balancer (GridMetisLB): phase 1 splits the
// objects among sites by message counts alone; phase 2 splits each site's objects among
// its ranks by load and intra-site messages.
#pragma once

#include "balancers/global/metis_partition.hpp"
#include "balancers/global/params.hpp"
#include "balancers/sdk/centralized.hpp"

namespace lbbench {

class GridMetisBalancer final : public CentralizedBalancer {
 public:
  explicit GridMetisBalancer(GridMetisParams params) : params_(params) {}
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] bool needs_graph() const override { return true; }

 private:
  [[nodiscard]] std::vector<int> split_into_sites(const GlobalProblem& problem) const;
  void split_site(const GlobalProblem& problem, const std::vector<int>& site_of, int site, Assignment& out) const;
  GridMetisParams params_;
};

// Koenig & Kale's processor multipliers: speed relative to the slowest rank of `ranks`,
// rounded to a whole number of parts (at least 1).
std::vector<int> speed_multipliers(const GlobalProblem& problem, const std::vector<int>& ranks);

}  // namespace lbbench
