// `auto`'s closed loop: at each LB point, credit the last call with what it delivered and
// charge it what it cost, then choose the candidate whose corrected gain best covers its
// cost, or no call at all.
//
// Pearce et al.'s Algorithm 1 predicts open-loop: every call is priced afresh from the
// loads it sees. Menon et al.'s MetaLB (Cluster 2012) decides *whether* to balance from
// the observed imbalance and the observed cost of a call. This loop does both, and
// departs from each:
//  - As MetaLB, the decision to call rests on measured figures: the imbalance the ranks
//    report (the slowest rank's step over the mean load) and the cost the engine charged
//    the candidate's last call. MetaLB also forecasts the imbalance's linear growth and
//    sets the next LB period from it; here the imbalance seen is the forecast (a growth
//    term measured no gain), each point says whether to call, and every point in a row
//    without a call doubles the points skipped before the next look.
//  - As Algorithm 1, the candidates are weighed against each other. The gain each is
//    credited with is not a model's but a measurement: the engines replay the loads since
//    a call on the placement before it too, and what the call delivered is how much lower
//    the slowest rank is where the vertices went than where they were, over the window
//    after it. The ratio of delivered to predicted gain corrects every later prediction
//    for that candidate, and what its call left (its reach) is not counted as gain again.
//    A candidate not yet called is valued at the share of a sample's imbalance its
//    decision removed, scaled by how much of its own such share the best-faring tried
//    candidate delivered on this workload (correction_of).
//
// Every call also makes the ranks wait for the slowest, which `none` never does; each is
// charged the leads that waiting throws away, as far as the imbalance since the last call
// did not persist from step to step (pricing.hpp, synchronization_cost_s). MetaLB's model
// of when to balance has no such term.
//
// The bank: B plus everything delivered less everything the calls cost, with B = budget ×
// none's predicted time from the first point to the end. The call of largest expected
// value is made; a candidate never tried only while its first call's price and its wait
// fit in the bank. So what finding out costs is bounded by B plus the gains so far plus
// each first call's surprise over its price, by the loop's own accounting; what the looks
// cost the ranks is outside it (balancers/model/README.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "balancers/model/auto/learned.hpp"
#include "balancers/model/auto/observation.hpp"
#include "balancers/model/auto/pricing.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct LoopCandidate {
  std::string name;
  CandidateShape shape;
};

struct LoopChoice {
  std::optional<std::size_t> candidate;  // index into the loop's candidates; unset: no call
  int points_to_skip = 0;                // LB points not to look at before the next
  Json record;                           // what was credited, weighed and chosen
};

class ClosedLoop {
 public:
  // `budget` is B's share of none's predicted time to the end, fixed at the first point.
  ClosedLoop(std::vector<LoopCandidate> candidates, double budget);

  // Alike on every rank from alike inputs. Credits the call before, then chooses.
  // `fits`, where the machine has them (machine.costs), price an untried candidate's call
  // where they ask more than its floor.
  LoopChoice decide(const PointObservation& seen, const NetworkFacts& net, const FittedCosts* fits = nullptr);

  [[nodiscard]] const Learned& learned(std::size_t candidate) const { return learned_.at(candidate); }
  // B plus Σ delivered − Σ spent: what later calls may still spend.
  [[nodiscard]] double bank_s() const { return budget_s_.value_or(0) + net_gain_s_; }
  [[nodiscard]] double budget_s() const { return budget_s_.value_or(0); }

 private:
  // The last call, credited at the first point after it.
  struct OpenCall {
    std::size_t candidate = 0;
    double predicted_s = 0;  // the gain per step predicted, before the correction
    double priced_s = 0;     // a first call's price before it ran (0: not its first call)
  };
  struct Weighed {
    double gain_s = 0;
    double cost_s = 0;      // its own: decision and migration
    double wait_s = 0;      // the ranks' leads its call throws away (synchronization_cost_s)
    double exchange_s = 0;  // what its placement adds to the steps to the end (exchange_growth_s)
    [[nodiscard]] double value_s() const { return gain_s - cost_s - wait_s - exchange_s; }
  };

  Json credit_last_call(const PointObservation& seen);
  // What looking at the next point's totals costs at least: one reduction over every rank.
  [[nodiscard]] static double look_cost_s(const NetworkFacts& net);
  // The candidate to call, or none; what each was weighed at goes into `weighed`.
  [[nodiscard]] std::optional<std::size_t> choose(const PointObservation& seen, const NetworkFacts& net,
                                                  const FittedCosts* fits, Json& weighed) const;
  // After a point without a call (points_without_call_ counts it): the points to skip.
  [[nodiscard]] int points_to_skip(const PointObservation& seen, const NetworkFacts& net) const;
  // What candidate `c`'s call is priced at before it has run: its floor, or the platform's
  // fitted costs where they ask more.
  [[nodiscard]] double untried_price_s(std::size_t c, const PointObservation& seen, const NetworkFacts& net,
                                       const FittedCosts* fits) const;
  // What an untried candidate of `shape`'s price is multiplied by (Learned::shortfall).
  [[nodiscard]] double shortfall_of(const CandidateShape& shape) const;
  // The share of the predicted gain a call of candidate `c` is expected to deliver.
  [[nodiscard]] double correction_of(std::size_t c) const;
  // The gain per step a call of candidate `c` is predicted, before its correction.
  [[nodiscard]] double removable_s(std::size_t c, const PointObservation& seen) const;
  [[nodiscard]] Weighed weigh(std::size_t c, const PointObservation& seen, const NetworkFacts& net,
                              const FittedCosts* fits) const;

  std::vector<LoopCandidate> candidates_;
  std::vector<Learned> learned_;
  double budget_share_;
  std::optional<double> budget_s_;
  double net_gain_s_ = 0;
  std::optional<OpenCall> open_;
  int window_steps_ = 0;         // steps of the window that ends at the next point
  int points_without_call_ = 0;  // in a row, up to this one
};

}  // namespace lbbench
