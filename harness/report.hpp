// `lbbench report`: comparison tables over run records.
//
// Records are grouped into cases: the same scenario, engine, machine, rank count and
// sweep axis values other than the balancer. Within a case every balancer gets a row:
// median total time, speedup over the baseline balancer with a 95% bootstrap confidence
// interval, migrations, LB cost and imbalance after LB. Where records carry the cost
// model's predictions (`prediction`), the report adds the correct-selection rate and the
// prediction error per balancer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"
#include "harness/cost_fits.hpp"
#include "harness/statistics.hpp"

namespace lbbench {

struct ReportOptions {
  std::string baseline = "none";
  int resamples = 2000;
  std::uint64_t seed = 1;
};

struct BalancerRow {
  std::string balancer;
  int runs = 0;                // finished runs
  int failed = 0;              // failure records
  std::vector<double> totals;  // total_time_s of the finished runs
  double median_total_s = 0;
  std::optional<double> speedup;  // baseline median / this median
  std::optional<Interval> speedup_ci;
  double migrations = 0;                  // median
  double lb_cost_s = 0;                   // median of LB decision plus migration time
  std::optional<double> imbalance_after;  // median over runs of the mean max/avg - 1 after LB
};

struct ReportCase {
  std::string scenario;
  std::string engine;
  std::string machine;
  int ranks = 0;
  std::string axes;  // "machine.wan_latency=0.004", other sweep axes
  std::vector<BalancerRow> rows;
  // From records with predictions: how many chose the balancer measured fastest here.
  int predictions = 0;
  int correct = 0;
  // Picks whose measured median is within kNearBest of the fastest: where candidates tie
  // within run-to-run noise, which of them is "fastest" is a coin toss.
  int near_best = 0;
  static constexpr double kNearBest = 0.05;
  std::string fastest;  // among the candidates the model predicted
  std::string chosen;   // the model's pick
  // How much slower the second fastest candidate measured than the fastest, relative; a
  // case whose top two are within `apart` is a near-tie, scored apart. `apart` is the
  // model's mean error where the records measure it, else kNearTie.
  std::optional<double> runner_up_gap;
  static constexpr double kNearTie = 0.02;
  [[nodiscard]] bool near_tie(double apart) const { return runner_up_gap && *runner_up_gap <= apart; }
  // auto's own measured median over that of the balancer it picked most often, and over
  // that of the fastest candidate: what its picks and its deciding cost it, together.
  std::optional<double> auto_over_pick;
  std::optional<double> auto_over_fastest;
  std::optional<double> auto_over_none;  // ... and over that of `none`
};

// The model's picks over a class of cases, with 95% bootstrap intervals over the cases.
struct SelectionAccuracy {
  std::string label;
  int cases = 0;
  int predictions = 0;
  int correct = 0;
  int near_best = 0;
  Interval correct_ci;
  Interval near_best_ci;
  // auto's median over its pick's, over the cases that ran both: median and largest.
  std::optional<double> auto_over_pick_median;
  std::optional<double> auto_over_pick_max;
  // auto's median over the fastest candidate's, over the same cases: mean and largest.
  std::optional<double> auto_over_fastest_mean;
  std::optional<double> auto_over_fastest_max;
  // auto's median over none's: the largest, and the cases where it is above 1 + kOverNone.
  std::optional<double> auto_over_none_max;
  int auto_over_none_above = 0;
  static constexpr double kOverNone = 0.03;
};

struct ModelGain {
  std::string balancer;  // always using this one
  int cases = 0;
  double gain = 0;  // mean of (T_always - T_chosen) / T_always
};

struct PredictionError {
  std::string balancer;
  int samples = 0;
  double mean_relative_error = 0;  // mean |predicted - measured| / measured
};

struct Failure {
  std::string id;
  std::string label;
  std::string reason;
};

struct Report {
  std::vector<ReportCase> cases;
  std::vector<CostFit> decision_costs;   // C_LbDecision
  std::vector<CostFit> migration_costs;  // C_DataMvmt
  std::vector<PredictionError> prediction_errors;
  std::vector<ModelGain> gains;
  std::vector<SelectionAccuracy> selection;  // all cases, then clear ones, then near-ties
  std::vector<Failure> failures;
  int records = 0;
  int duplicates = 0;
  std::vector<std::string> unreadable;  // records left out, and why
};

Report build_report(const std::vector<Json>& records, const ReportOptions& options);
std::string report_markdown(const Report& report, const ReportOptions& options);
std::string report_csv(const Report& report);

}  // namespace lbbench
