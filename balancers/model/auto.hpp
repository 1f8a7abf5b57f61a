// `auto`: Pearce et al.'s Algorithm 1. At every LB call it predicts, for each candidate
// balancer, the time of the steps until the next call, applies the cheapest, and says why
// in the record.
//
// The prediction follows the cost model (equations 5-11) with one step beyond the paper,
// which the issue asks for: instead of assuming a global balancer reaches L_ave and moves
// Elements_max (L_max - L_ave)/L_max elements (equations 7 and 9), every candidate's serial
// reference runs on the gathered load model, which gives the L_max it really reaches and
// the elements it really sends to each rank. The diffusion simulator (Algorithm 2) still
// runs for diffusive candidates; its convergence_steps and equation-10 time are recorded
// next to the reference's.
//
//   T_none = H x L_max                                            (equation 11)
//   T_c    = C_LbDecision + alpha + beta x ElementsMoved_max x elementsize + H x L_max,after
//
// H is the number of steps until the next LB call. C_LbDecision is measured: the time of
// the candidate's serial solve on rank 0 for centralized candidates (what they do in a
// run, without the gather), and for distributed ones that time divided by the ranks plus
// one alpha per protocol round.
//
// Beyond the paper, the rest of the run: where the engine says how many steps and LB calls
// are left, every candidate is priced to the end of the run and the cheapest there is
// chosen (`chosen_over` in the record), as the paper's choice of one strategy for a run
// means:
//
//   T_c,end = C_BalAlg + later_calls x C_later + steps_left x L_max,after
//
// with C_later, a later call, priced as this one: its decision and its migration again.
// The paper's extrapolation (loads stay as they are) would have later calls move nothing,
// but greedy and metis re-partition at every call and move again, and on changing loads
// (drift, AMR) every balancer does; the first call's plan size is the forecast for each
// later call (an upper estimate for incremental strategies on loads that stay put).
// Re-scored from earlier model-accuracy records, this pricing picked the fastest in 50%,
// 92% and 64% of the cases (2 ranks, SMPI short and long steps) where pricing later calls
// at their fixed costs picked it in 39%, 81% and 61%; run again on the simulated sweeps it
// moved two picks each way (results/README.md), so it is kept for what it models, not for
// a measured gain. The record keeps the predicted margin to the runner-up.
//
// Beyond the paper: where the scenario gives the platform's fitted costs (machine.costs,
// from `lbbench report --costs-out` over earlier runs), C_LbDecision is the candidate's
// regression on vertices, edges and ranks, and C_DataMvmt the migration engine's on
// vertices per rank and arriving vertices and bytes. Fitted from whole runs, they include
// what the reference and alpha + beta x bytes leave out: the gather and scatter, and the
// migration engine's checks and rebuilt exchanges, which it pays at every call.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "balancers/centralized.hpp"
#include "balancers/params.hpp"

namespace lbbench {

class AutoBalancer final : public CentralizedBalancer {
 public:
  explicit AutoBalancer(AutoParams params);
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] bool needs_graph() const override { return true; }
  [[nodiscard]] bool needs_vectors() const override { return needs_vectors_; }
  [[nodiscard]] Json decision() const override { return last_decision_; }

 private:
  AutoParams params_;
  std::vector<std::unique_ptr<Balancer>> candidates_;
  bool needs_vectors_ = false;  // some candidate balances load vectors
  mutable Json last_decision_;
};

}  // namespace lbbench
