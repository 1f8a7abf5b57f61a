// Where the balancer is asked, and what it answered: the LB points after which it may call,
// the look at the loads' totals for a balancer that looks before it calls
// (Balancer::looks_before_calls), and the points its last choice skips whole. The replay
// and the model engine both follow it, each with its own look and its own call.
//
// A look starts half the stretch to its point ahead of it: half a period, or half the
// points skipped before it. Left alone, the ranks drift apart with the steps since they last
// waited for each other; a rank waits at the point only where it is further ahead of the
// slowest than the look's lead, so the lead grows with the stretch.
#pragma once

#include <functional>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

class LbPoints {
 public:
  LbPoints(const Scenario& s, Balancer& balancer);

  [[nodiscard]] bool looks() const { return looks_; }
  // After `step`: a look at the totals begins, for the point ahead.
  [[nodiscard]] bool look_starts(int step) const;
  // After `step`: an LB point that is not skipped. A skipped one is used up.
  [[nodiscard]] bool takes_point(int step);
  // At a point taken: the balancer to call, or null where the point keeps the
  // distribution. A balancer that looks is shown what `look` saw and chooses.
  [[nodiscard]] Balancer* calling(const std::function<CallOutlook()>& look);
  // What the balancer chose at the last point looked at, and why (null where it does not look).
  [[nodiscard]] const Json& last_choice() const;
  [[nodiscard]] std::vector<Json> take_choices() { return std::move(choices_); }

 private:
  const Scenario& s_;
  Balancer& balancer_;
  bool looks_;
  std::vector<Json> choices_;  // at each point looked at, with its step
  int points_to_skip_ = 0;     // the last choice's
  int point_step_ = 0;         // the step after which the last point taken comes
  int look_start_ = -1;        // the step after which the next look starts; -1: none
};

}  // namespace lbbench
