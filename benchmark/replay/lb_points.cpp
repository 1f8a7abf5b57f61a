#include "replay/lb_points.hpp"

#include "replay/record_builder.hpp"

namespace lbbench {

LbPoints::LbPoints(const Scenario& s, Balancer& balancer)
    : s_(s), balancer_(balancer), looks_(balancer.looks_before_calls()) {}

bool LbPoints::look_starts(int step) const { return looks_ && points_to_skip_ == 0 && is_look_start(s_, step); }

bool LbPoints::takes_point(int step) {
  if (!is_lb_point(s_, step)) return false;
  if (points_to_skip_ == 0) {
    point_step_ = step;
    return true;
  }
  --points_to_skip_;  // the loads' window carries on to the next point
  return false;
}

Balancer* LbPoints::calling(const std::function<CallOutlook()>& look) {
  if (!looks_) return &balancer_;
  Acting acting = balancer_.acting_for(look());
  if (acting.why.is_object()) acting.why["step"] = point_step_;
  choices_.push_back(std::move(acting.why));
  points_to_skip_ = acting.points_to_skip;
  // A point without a call: the loads' window carries on to the next call, so what a rank
  // loses to imbalance between two calls is its load over the whole interval, where a spot
  // that moves evens out.
  if (acting.balancer.promised_nothing_moves()) return nullptr;
  return &acting.balancer;
}

const Json& LbPoints::last_choice() const {
  static const Json kNone;
  return choices_.empty() ? kNone : choices_.back();
}

}  // namespace lbbench
