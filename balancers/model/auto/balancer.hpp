// `auto`: at each LB point, the closed loop (loop.hpp) chooses one of its candidates, or
// no call, from the totals every engine reduces before any balancer runs, and the
// candidate makes the call as itself. Nothing is gathered for the choice.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "balancers/model/auto/loop.hpp"
#include "balancers/model/auto/params.hpp"
#include "balancers/model/auto/sampling.hpp"
#include "balancers/sdk/balancer.hpp"

namespace lbbench {

class AutoBalancer final : public Balancer {
 public:
  explicit AutoBalancer(AutoParams params);
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) override;
  void prepare(MPI_Comm comm) override;
  // The candidate chosen at the last point decides; `none` before the first.
  [[nodiscard]] Assignment decide_serially(const GlobalProblem& problem, ProtocolObserver* observer) const override;
  [[nodiscard]] bool needs_graph() const override;
  [[nodiscard]] bool needs_vectors() const override;
  [[nodiscard]] bool needs_trends() const override;
  [[nodiscard]] bool needs_coords() const override;
  Acting acting_for(const CallOutlook& call) override;
  [[nodiscard]] bool looks_before_calls() const override { return true; }
  [[nodiscard]] bool promised_nothing_moves() const override { return acting().promised_nothing_moves(); }

 private:
  [[nodiscard]] const Balancer& acting() const;
  [[nodiscard]] bool any_candidate(bool (Balancer::*needs)() const) const;

  AutoParams params_;
  std::vector<std::unique_ptr<Balancer>> candidates_;
  NoneBalancer none_;                  // what a point that chose no call runs
  std::optional<ClosedLoop> loop_;     // made at the first point, when the ranks are known
  std::vector<SampleSolve> samples_;   // per candidate, what it did on the sample (sampling.hpp)
  std::optional<std::size_t> chosen_;  // at the last point; unset: no call
};

}  // namespace lbbench
