#include "balancers/model/auto/loop.hpp"

#include <algorithm>
#include <utility>

namespace lbbench {

ClosedLoop::ClosedLoop(std::vector<LoopCandidate> candidates, double budget)
    : candidates_(std::move(candidates)), learned_(candidates_.size()), budget_share_(budget) {
  for (std::size_t c = 0; c < candidates_.size(); ++c) learned_[c].prior = candidates_[c].shape.share_removed;
}

Json ClosedLoop::credit_last_call(const PointObservation& seen) {
  if (!open_) return nullptr;
  const std::size_t c = open_->candidate;
  Learned& l = learned_[c];
  // What the call delivered over the window after it: the same loads on the ranks that
  // held them before it, against where they are.
  const double delivered = seen.unmoved_max_load_s > 0
                               ? (seen.unmoved_max_load_s - seen.max_rank_load_s) * window_steps_
                               : 0.0;  // an engine that does not replay the loads unmoved credits nothing
  const double predicted = open_->predicted_s * window_steps_;
  const double cost = seen.last_call_cost_s.value_or(0);
  l.cost_s = cost;
  if (l.calls == 0 && open_->priced_s > 0) l.shortfall = cost / open_->priced_s;
  const double window_reach = seen.mean_load_s > 0 ? seen.imbalance_s() / seen.mean_load_s : 0;
  l.reach = seen.first_step_imbalance().value_or(window_reach);
  ++l.calls;
  l.predicted_s += predicted;
  l.delivered_s += delivered;
  net_gain_s_ += delivered - cost;
  open_.reset();
  Json out = {{"candidate", candidates_[c].name}, {"cost_s", cost}};
  out["predicted_gain_s"] = predicted;
  out["delivered_gain_s"] = delivered;
  out["correction"] = l.correction();
  return out;
}

double ClosedLoop::look_cost_s(const NetworkFacts& net) {
  return net.allreduce_s > 0 ? net.allreduce_s : net.message_latency_s();
}

ClosedLoop::Weighed ClosedLoop::weigh(std::size_t c, const PointObservation& seen, const NetworkFacts& net,
                                      const FittedCosts* fits) const {
  const Learned& l = learned_[c];
  const double horizon = std::min<double>(seen.steps_left, seen.steps_to_next);
  const double removable = removable_s(c, seen);
  const double untried = untried_price_s(c, seen, net, fits) * shortfall_of(candidates_[c].shape);
  return {.gain_s = correction_of(c) * removable * horizon,
          .cost_s = l.cost_s.value_or(untried),
          .wait_s = synchronization_cost_s(seen),
          .exchange_s = exchange_growth_s(candidates_[c].shape, seen, net) * seen.steps_left};
}

double ClosedLoop::untried_price_s(std::size_t c, const PointObservation& seen, const NetworkFacts& net,
                                   const FittedCosts* fits) const {
  return std::max(floor_cost_s(candidates_[c].shape, seen, net),
                  fits ? fitted_cost_s(candidates_[c].name, seen, *fits) : 0.0);
}

double ClosedLoop::shortfall_of(const CandidateShape& shape) const {
  // A floor leaves out costs that every call of a shape pays alike on this machine and
  // workload (a protocol round's barrier, the ranks' handler code, the peers a placement
  // gives each rank). So an untried candidate's floor is raised by the least that its
  // tried fellows' floors fell short (never lowered: it is a floor).
  std::optional<double> least;
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    const Learned& l = learned_[k];
    if (l.shortfall <= 0 || candidates_[k].shape.centralized != shape.centralized) continue;
    least = std::min(least.value_or(l.shortfall), l.shortfall);
  }
  return std::max(1.0, least.value_or(1.0));
}

double ClosedLoop::correction_of(std::size_t c) const {
  const Learned& l = learned_[c];
  if (l.calls > 0) return l.correction();
  // A call delivers less than predicted for two causes: the candidate stops short, or the
  // loads it balanced did not last. The second is the workload's and holds for every
  // candidate, so an untried one's prior is discounted by the share of its own prior the
  // best-faring tried candidate delivered.
  std::optional<double> lasted;  // unset until a candidate has been called
  for (const Learned& other : learned_) {
    if (other.calls == 0 || other.prior <= 0) continue;
    lasted = std::max(lasted.value_or(0.0), std::min(1.0, other.correction() / other.prior));
  }
  return l.prior * lasted.value_or(1.0);
}

double ClosedLoop::removable_s(std::size_t c, const PointObservation& seen) const {
  // What the candidate's last call left is not gain again.
  return std::max(0.0, seen.imbalance_s() - learned_[c].reach * seen.mean_load_s);
}

std::optional<std::size_t> ClosedLoop::choose(const PointObservation& seen, const NetworkFacts& net,
                                              const FittedCosts* fits, Json& weighed) const {
  // The call of largest value, where one is expected to pay for itself. A candidate never
  // tried is valued at its price and the whole imbalance, and tried only while the bank
  // covers its price: a first call may still cost more than it was priced at.
  std::optional<std::size_t> best;
  double best_value = 0;
  for (std::size_t c = 0; c < candidates_.size(); ++c) {
    if (candidates_[c].name == "none") continue;
    const Weighed w = weigh(c, seen, net, fits);
    weighed[candidates_[c].name] = {{"gain_s", w.gain_s},
                                    {"cost_s", w.cost_s},
                                    {"wait_s", w.wait_s},
                                    {"exchange_s", w.exchange_s},
                                    {"correction", correction_of(c)},
                                    {"reach", learned_[c].reach}};
    const bool affordable = learned_[c].calls > 0 || w.cost_s + w.wait_s <= bank_s();
    if (affordable && w.value_s() > best_value) {
      best = c;
      best_value = w.value_s();
    }
  }
  return best;
}

int ClosedLoop::points_to_skip(const PointObservation& seen, const NetworkFacts& net) const {
  // As MetaLB lengthens the LB period where calls do not pay, every point in a row without
  // a call doubles the points not looked at before the next: a look makes the ranks wait
  // for each other, which `none` never does. Where one look costs more than B, no later
  // point is looked at.
  if (seen.steps_to_next <= 0) return 0;
  // The points still ahead: one every steps_to_next steps, before the run's last step.
  const int fitting = std::max(0, (seen.steps_left - 1) / seen.steps_to_next);
  if (look_cost_s(net) > budget_s()) return fitting;
  const int doubled = points_without_call_ > 1 ? (1 << std::min(points_without_call_ - 1, 8)) - 1 : 0;
  return std::min(doubled, fitting);
}

LoopChoice ClosedLoop::decide(const PointObservation& seen, const NetworkFacts& net, const FittedCosts* fits) {
  if (!budget_s_) budget_s_ = budget_share_ * seen.max_load_s * seen.steps_left;
  LoopChoice choice;
  choice.record = Json::object();
  choice.record["credited"] = credit_last_call(seen);
  choice.record["bank_s"] = bank_s();
  choice.record["imbalance_s"] = seen.imbalance_s();
  Json weighed = Json::object();
  const std::optional<std::size_t> best = choose(seen, net, fits, weighed);
  choice.record["weighed"] = std::move(weighed);
  choice.record["chosen"] = best ? candidates_[*best].name : std::string("none");
  points_without_call_ = best ? 0 : points_without_call_ + 1;
  if (!best) {
    choice.points_to_skip = points_to_skip(seen, net);
  }
  choice.record["points_to_skip"] = choice.points_to_skip;
  window_steps_ = std::min(seen.steps_left, seen.steps_to_next * (choice.points_to_skip + 1));
  if (best) {
    const bool untried = learned_[*best].calls == 0;
    open_ = OpenCall{.candidate = *best,
                     .predicted_s = removable_s(*best, seen),
                     .priced_s = untried ? untried_price_s(*best, seen, net, fits) : 0.0};
  }
  choice.candidate = best;
  return choice;
}

}  // namespace lbbench
