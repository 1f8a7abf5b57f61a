// The params of `auto` (Pearce et al.'s Algorithm 1), read from a scenario's
// balancer.params. Its candidates are balancers with their own typed params.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "balancers/sdk/config.hpp"
#include "core/config.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

struct AutoParams {
  // The balancers `auto` chooses from, each with its validated params. `parse` fills in
  // kDefaultCandidates when the scenario names none.
  std::vector<BalancerConfig> candidates;
  // Seconds per migration message and per byte; unset: the machine preset's link latency
  // and 1/bandwidth, or kAssumedLatency_s and kAssumedSecondsPerByte without a preset
  // (NetworkFacts).
  std::optional<double> alpha;
  std::optional<double> beta;
  int horizon = 0;  // steps until the next call; 0: the LB period
  // Decide again when the shown loads' max over mean is more than this, relative, from
  // every shape decided on; the choice made for the nearest shape runs as itself at the
  // other calls. 0: decide at every call.
  double redecide = 0.1;
  // Candidates predicted within this much (relative) of the fastest are near-ties, and the
  // one whose calls cost least is chosen. 0 (the default, for what it measured: see
  // balancers/README.md): the fastest predicted.
  double near_tie = 0;
  // Where a call's totals alone chose `none` (no other candidate's floor can win), the
  // share of `none`'s predicted time to the end that later calls may spend on looking at
  // the loads again: each costs one reduction over every rank. The calls beyond what fits
  // are skipped, spread evenly. 0: never look again after such a call; a large number:
  // look at every call.
  double look_budget = 0.05;
  // Also run the paper's diffusion simulator (Algorithm 2) for diffusive candidates and
  // record its prediction (`paper` in the decision) next to the reference's, which is what
  // `auto` chooses on. Off by default: it walks every edge of the gathered graph at every
  // decision (4-8 ms of a 13-16 ms decision on a 24,000-vertex point cloud with 1.2
  // million edges), and `auto` is charged for it.
  bool paper_diffusion = false;
  // The share of the most any candidate could gain over `none` to the end of the run (every
  // later step perfectly balanced, no call costing anything) that a decision may spend
  // running candidates to find out what they cost. A candidate whose run would take the
  // decision past it is not run. 0: run only what costs nothing; a large number: no limit
  // wherever balancing could gain anything.
  double explore_budget = 0.5;
  // After a call that chose or kept `none`, look at the next LB point's loads through a
  // reduction started half a period before it and read at it, which no rank waits for
  // unless another lags that far behind; where that look says the choice would be `none`
  // again, the next point is skipped whole. False: every later call reduces the loads at
  // the point itself, and every rank waits there for the slowest.
  bool nonblocking_look = true;
  // Where a decision's own gather alone costs more than its explore budget (thousands of
  // ranks), weigh the distributed candidates by what their plans leave each rank, reduced
  // over the ranks, with nothing gathered (see auto.hpp). False: such a call keeps `none`.
  bool weigh_by_totals = true;
  // Also weigh each candidate as `auto` runs it: once now, then `none` kept at the later
  // calls while the loads keep the shape its plan left (see RunOnce in auto.cpp). False:
  // each candidate is weighed as run at every call, as the paper extrapolates.
  bool run_once = true;
  // ... only where run once it beats `none` by more than this (relative): the plan's
  // placement is trusted to hold to the end of the run.
  double once_margin = 0.15;

  static const std::vector<std::string> kDefaultCandidates;

  static AutoParams parse(ConfigNode& node);
  [[nodiscard]] Json to_json() const;
  // Throws InputError when a candidate's params do not fit load vectors of `dims`
  // components.
  void check_dims(int dims) const;
};

}  // namespace lbbench
