#include "replay/lb_points.hpp"

#include "replay/record_builder.hpp"

namespace lbbench {

namespace {

// Where the look for the LB point after step `point` starts: half the `stretch` of steps
// that lead to it ahead of it; -1 where there is no such point, or at period 1, where the
// look starts at the point.
int look_start_before(const Scenario& s, int point, int stretch) {
  return is_lb_point(s, point) && stretch / 2 > 0 ? point - stretch / 2 : -1;
}

}  // namespace

LbPoints::LbPoints(const Scenario& s, Balancer& balancer)
    : s_(s), balancer_(balancer), looks_(balancer.looks_before_calls()) {
  const int period = s.balancer.period;
  if (looks_) look_start_ = look_start_before(s, period - 1, period);
}

bool LbPoints::look_starts(int step) const { return looks_ && step == look_start_; }

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
  const int stretch = (points_to_skip_ + 1) * s_.balancer.period;
  look_start_ = look_start_before(s_, point_step_ + stretch, stretch);
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
