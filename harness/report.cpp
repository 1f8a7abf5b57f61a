// `lbbench report` (see report.hpp).
#include "harness/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "harness/statistics.hpp"
#include "harness/store.hpp"
#include "record/run_record.hpp"

namespace lbbench {

namespace {

// Axes that already have columns of their own.
const std::set<std::string> kColumnAxes{"balancer", "machine", "engine", "ranks"};

std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string case_axes(const std::optional<SweepInfo>& sweep) {
  std::string out;
  if (!sweep) return out;
  for (const auto& [key, value] : sweep->axes.items()) {
    if (kColumnAxes.contains(key)) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value_text(value));
  }
  return out;
}

using CaseKey = std::tuple<std::string, std::string, std::string, int, std::string>;

// A run or a failure, as a report groups it: by case, then by balancer.
struct Entry {
  CaseKey key;
  std::string balancer;
  Json params;
  const RunRecord* run = nullptr;  // null for a failure
};

Entry entry_of(const RunRecord& r) {
  return {{r.scenario, r.engine, r.machine, r.ranks, case_axes(r.sweep)}, r.balancer, r.balancer_params, &r};
}

Entry entry_of(const FailureRecord& f) {
  const Json params = f.config.is_object() && f.config.contains("balancer")
                          ? f.config["balancer"].value("params", Json::object())
                          : Json::object();
  return {{f.scenario, f.engine, f.machine, f.ranks, case_axes(f.sweep)}, f.balancer, params, nullptr};
}

// The balancer's name, with its params when one case holds the same name with several.
std::string balancer_label(const Entry& e, bool with_params) {
  return !with_params || e.params.empty() ? e.balancer : e.balancer + e.params.dump();
}

double mean_of(const std::vector<double>& values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

using Grouped = std::map<CaseKey, std::map<std::string, std::vector<const Entry*>>>;

Grouped group(const std::vector<Entry>& entries) {
  // Does any case hold one balancer name with different params?
  std::map<std::pair<CaseKey, std::string>, std::set<std::string>> params_seen;
  for (const Entry& e : entries) params_seen[{e.key, e.balancer}].insert(balancer_label(e, true));
  Grouped g;
  for (const Entry& e : entries) {
    const bool ambiguous = params_seen[{e.key, e.balancer}].size() > 1;
    g[e.key][balancer_label(e, ambiguous)].push_back(&e);
  }
  return g;
}

BalancerRow make_row(const std::string& balancer, const std::vector<const Entry*>& entries) {
  BalancerRow row;
  row.balancer = balancer;
  std::vector<double> migrations;
  std::vector<double> lb_cost;
  std::vector<double> imbalance;
  for (const Entry* e : entries) {
    if (!e->run) {
      ++row.failed;
      continue;
    }
    const RunRecord& r = *e->run;
    ++row.runs;
    row.totals.push_back(r.total_time_s);
    migrations.push_back(static_cast<double>(r.migrations));
    lb_cost.push_back(r.lb_time_s + r.migration_time_s);
    if (!r.imbalance_after.empty()) imbalance.push_back(mean_of(r.imbalance_after));
  }
  if (row.runs > 0) {
    row.median_total_s = median(row.totals);
    row.migrations = median(migrations);
    row.lb_cost_s = median(lb_cost);
  }
  if (!imbalance.empty()) row.imbalance_after = median(imbalance);
  return row;
}

void add_speedups(ReportCase& c, const std::string& baseline, const ReportOptions& options) {
  const auto base = std::find_if(c.rows.begin(), c.rows.end(), [&](const auto& r) { return r.balancer == baseline; });
  if (base == c.rows.end() || base->runs == 0) return;
  for (auto& row : c.rows) {
    if (row.runs == 0 || row.median_total_s <= 0 || &row == &*base) continue;
    row.speedup = base->median_total_s / row.median_total_s;
    row.speedup_ci = bootstrap_ratio_of_medians(row.totals, base->totals, options.resamples, options.seed);
  }
}

// How much slower the second fastest of the candidates the model predicted measured than
// the fastest, relative; none when fewer than two were measured.
std::optional<double> runner_up_gap(const std::vector<const Entry*>& entries,
                                    const std::map<std::string, double>& measured) {
  std::set<std::string> predicted;
  for (const Entry* e : entries) {
    if (!e->run || !e->run->prediction) continue;
    for (const auto& [name, n] : e->run->prediction->calls) predicted.insert(name);
  }
  std::vector<double> totals;
  for (const auto& name : predicted) {
    const auto m = measured.find(name);
    if (m != measured.end() && m->second > 0) totals.push_back(m->second);
  }
  if (totals.size() < 2) return std::nullopt;
  std::partial_sort(totals.begin(), totals.begin() + 2, totals.end());
  return (totals[1] - totals[0]) / totals[0];
}

// `auto`'s pick (the candidate it called most) against the candidate measured fastest in
// the case, and its loop's predicted gain against the gain it measured, relative to the
// run's total.
void score_predictions(ReportCase& c, const std::vector<const Entry*>& entries,
                       std::map<std::string, std::vector<double>>& errors) {
  std::map<std::string, double> measured;
  for (const auto& row : c.rows) {
    if (row.runs > 0) measured[row.balancer] = row.median_total_s;
  }
  std::map<std::string, int> picks;
  for (const Entry* e : entries) {
    if (!e->run || !e->run->prediction) continue;
    const RunPrediction& p = *e->run->prediction;
    std::string fastest;
    for (const auto& [name, n] : p.calls) {
      const auto m = measured.find(name);
      if (m == measured.end() || m->second <= 0) continue;
      if (fastest.empty() || m->second < measured[fastest]) fastest = name;
    }
    if (e->run->total_time_s > 0 && p.predicted_gain_s > 0) {
      errors["gain"].push_back(std::abs(p.predicted_gain_s - p.delivered_gain_s) / e->run->total_time_s);
    }
    if (fastest.empty()) continue;  // no candidate was measured in this case
    ++c.predictions;
    c.fastest = fastest;
    const std::string& chosen = p.chosen;
    ++picks[chosen];
    if (chosen == fastest) ++c.correct;
    const auto at = measured.find(chosen);
    if (at != measured.end() && at->second <= (1 + ReportCase::kNearBest) * measured[fastest]) ++c.near_best;
  }
  // With repetitions, the case's pick is the one the model made most often.
  for (const auto& [name, n] : picks) {
    if (c.chosen.empty() || n > picks[c.chosen]) c.chosen = name;
  }
  c.runner_up_gap = runner_up_gap(entries, measured);
  const auto own = measured.find("auto");
  if (own == measured.end()) return;
  const auto ratio_to = [&](const std::string& name) -> std::optional<double> {
    const auto it = measured.find(name);
    if (it == measured.end() || it->second <= 0) return std::nullopt;
    return own->second / it->second;
  };
  c.auto_over_pick = ratio_to(c.chosen);
  c.auto_over_fastest = ratio_to(c.fastest);
  c.auto_over_none = ratio_to("none");
}

// The picks of a class of cases, with intervals from resampling the cases.
SelectionAccuracy selection_accuracy(std::string label, const std::vector<const ReportCase*>& cases,
                                     const ReportOptions& options) {
  SelectionAccuracy s;
  s.label = std::move(label);
  std::vector<Cluster> correct, near_best;
  std::vector<double> auto_over_pick;
  std::vector<double> auto_over_fastest;
  for (const ReportCase* c : cases) {
    ++s.cases;
    s.predictions += c->predictions;
    s.correct += c->correct;
    s.near_best += c->near_best;
    correct.push_back({static_cast<double>(c->correct), static_cast<double>(c->predictions)});
    near_best.push_back({static_cast<double>(c->near_best), static_cast<double>(c->predictions)});
    if (c->auto_over_pick) auto_over_pick.push_back(*c->auto_over_pick);
    if (c->auto_over_fastest) auto_over_fastest.push_back(*c->auto_over_fastest);
    if (c->auto_over_none) {
      s.auto_over_none_max = std::max(s.auto_over_none_max.value_or(0.0), *c->auto_over_none);
      if (*c->auto_over_none > 1 + SelectionAccuracy::kOverNone) ++s.auto_over_none_above;
    }
  }
  s.correct_ci = bootstrap_proportion(correct, options.resamples, options.seed);
  s.near_best_ci = bootstrap_proportion(near_best, options.resamples, options.seed + 1);
  if (!auto_over_pick.empty()) {
    s.auto_over_pick_median = median(auto_over_pick);
    s.auto_over_pick_max = *std::max_element(auto_over_pick.begin(), auto_over_pick.end());
  }
  if (!auto_over_fastest.empty()) {
    s.auto_over_fastest_mean = std::accumulate(auto_over_fastest.begin(), auto_over_fastest.end(), 0.0) /
                               static_cast<double>(auto_over_fastest.size());
    s.auto_over_fastest_max = *std::max_element(auto_over_fastest.begin(), auto_over_fastest.end());
  }
  return s;
}

// All cases with predictions, then those whose top two candidates are further apart than
// the model's mean error (where the records measure it: the loop's gain error over the
// run's total, else a fixed kNearTie), then the near-ties, where which candidate is
// "fastest" is closer than the model can tell.
std::vector<SelectionAccuracy> selection_classes(const std::vector<ReportCase>& cases,
                                                 const std::vector<PredictionError>& errors,
                                                 const ReportOptions& options) {
  const auto gain = std::find_if(errors.begin(), errors.end(), [](const auto& e) { return e.balancer == "gain"; });
  const bool measured = gain != errors.end();
  const double apart = measured ? gain->mean_relative_error : ReportCase::kNearTie;
  std::vector<const ReportCase*> all, clear, ties;
  for (const auto& c : cases) {
    if (!c.predictions) continue;
    all.push_back(&c);
    (c.near_tie(apart) ? ties : clear).push_back(&c);
  }
  if (all.empty()) return {};
  const std::string by =
      measured ? fmt::format("the model's mean error, {:.1f}%", 100 * apart) : fmt::format("{:.0f}%", 100 * apart);
  return {selection_accuracy("all cases", all, options),
          selection_accuracy(fmt::format("top two further apart than {}", by), clear, options),
          selection_accuracy(fmt::format("near-ties: top two within {}", by), ties, options)};
}

// Following the model (the measured time of the balancer it chose) against always using
// one balancer: the mean over cases of (T_always - T_chosen) / T_always.
std::vector<ModelGain> model_gains(const std::vector<ReportCase>& cases) {
  std::map<std::string, std::pair<int, double>> sums;
  for (const auto& c : cases) {
    if (!c.predictions) continue;
    const auto chosen =
        std::find_if(c.rows.begin(), c.rows.end(), [&](const auto& r) { return r.balancer == c.chosen; });
    if (chosen == c.rows.end() || chosen->runs == 0) continue;
    for (const auto& r : c.rows) {
      if (r.runs == 0 || r.balancer == "auto" || r.median_total_s <= 0) continue;
      auto& [n, sum] = sums[r.balancer];
      ++n;
      sum += (r.median_total_s - chosen->median_total_s) / r.median_total_s;
    }
  }
  std::vector<ModelGain> out;
  out.reserve(sums.size());
  for (const auto& [b, ns] : sums) out.push_back({b, ns.first, ns.second / ns.first});
  return out;
}

std::string fmt_time(double s) { return fmt::format("{:.4g}", s); }

std::string selection_table(const std::vector<SelectionAccuracy>& classes) {
  std::string out = fmt::format(
      "\nThe picks by class of case, with 95% bootstrap intervals over the cases; `auto / its pick` is `auto`'s "
      "own median total over that of the balancer it picked, and `auto / fastest` over that of the fastest "
      "candidate, where both ran (what its picks and its deciding cost, together):\n\n| class of case | cases | "
      "picks | correct [95% CI] | within {:.0f}% of the fastest [95% CI] | auto / its pick (median, largest) | "
      "auto / fastest (mean, largest) | auto / none (largest; cases above {:.0f}%) |\n"
      "|---|---:|---:|---|---|---|---|---|\n",
      100 * ReportCase::kNearBest, 100 * (1 + SelectionAccuracy::kOverNone));
  const auto share = [](int k, int n, const Interval& ci) {
    return n ? fmt::format("{} ({:.0f}%) [{:.0f}, {:.0f}]", k, 100.0 * k / n, 100 * ci.low, 100 * ci.high) : "–";
  };
  for (const auto& s : classes) {
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n", s.label, s.cases, s.predictions,
        share(s.correct, s.predictions, s.correct_ci), share(s.near_best, s.predictions, s.near_best_ci),
        s.auto_over_pick_median ? fmt::format("{:.2f}, {:.2f}", *s.auto_over_pick_median, *s.auto_over_pick_max) : "–",
        s.auto_over_fastest_mean ? fmt::format("{:.3f}, {:.2f}", *s.auto_over_fastest_mean, *s.auto_over_fastest_max)
                                 : "–",
        s.auto_over_none_max ? fmt::format("{:.3f}; {}", *s.auto_over_none_max, s.auto_over_none_above) : "–");
  }
  return out;
}

// One row per fit; the migration fit is every balancer's, so its balancer column is "all".
std::string cost_fit_table(const char* title, const char* model, const std::vector<CostFit>& fits) {
  if (fits.empty()) return {};
  std::string out = fmt::format(
      "\n## {}\n\n{}; coefficients ≥ 0, least squares on relative errors. A term that does not vary among the "
      "calls is folded into c0.\n\n| balancer | platform | calls | sizes | c0 (s) | c1 (s) | c2 (s) | c3 (s) | "
      "mean fit error |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
      title, model);
  for (const auto& f : fits) {
    out += fmt::format("| {} | {} | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.3g} | {:.1f}% |\n",
                       f.balancer.empty() ? "all" : f.balancer, f.platform(), f.samples, f.sizes, f.coefficients[0],
                       f.coefficients[1], f.coefficients[2], f.coefficients[3], 100 * f.mean_relative_error);
  }
  return out;
}

}  // namespace

Report build_report(const std::vector<Json>& records, const ReportOptions& options) {
  Report report;
  // The same record can be read twice (a task file not yet removed after --collect).
  std::set<std::string> seen;
  std::vector<RunRecord> runs;
  std::vector<FailureRecord> failures;
  const auto statuses = run_statuses(records);
  for (const auto& r : records) {
    if (!is_run_record(r) && !is_failure_record(r)) continue;
    if (!seen.insert(r.dump()).second) {
      ++report.duplicates;
      continue;
    }
    try {
      if (is_run_record(r)) {
        runs.push_back(run_record_from_json(r));
        continue;
      }
      FailureRecord f = failure_record_from_json(r);
      // A failure that a later attempt of the same run made good is history, not a result.
      const auto status = f.sweep ? statuses.find(f.sweep->id) : statuses.end();
      if (status != statuses.end() && status->second == "ok") continue;
      report.failures.push_back(
          {f.sweep ? f.sweep->id : "", fmt::format("{} {} {} ranks", f.balancer, f.machine, f.ranks), f.reason});
      failures.push_back(std::move(f));
    } catch (const InputError& e) {
      report.unreadable.push_back(e.what());
    }
  }
  std::vector<Entry> entries;
  entries.reserve(runs.size() + failures.size());
  for (const auto& r : runs) entries.push_back(entry_of(r));
  for (const auto& f : failures) entries.push_back(entry_of(f));
  report.records = static_cast<int>(entries.size());
  std::map<std::string, std::vector<double>> errors;
  for (const auto& [key, balancers] : group(entries)) {
    ReportCase c;
    std::tie(c.scenario, c.engine, c.machine, c.ranks, c.axes) = key;
    std::vector<const Entry*> all;
    for (const auto& [name, rs] : balancers) {
      c.rows.push_back(make_row(name, rs));
      all.insert(all.end(), rs.begin(), rs.end());
    }
    std::stable_partition(c.rows.begin(), c.rows.end(), [&](const auto& r) { return r.balancer == options.baseline; });
    add_speedups(c, options.baseline, options);
    score_predictions(c, all, errors);
    report.cases.push_back(std::move(c));
  }
  report.gains = model_gains(report.cases);
  for (const auto& [name, e] : errors) {
    report.prediction_errors.push_back(
        {name, static_cast<int>(e.size()), std::accumulate(e.begin(), e.end(), 0.0) / static_cast<double>(e.size())});
  }
  report.selection = selection_classes(report.cases, report.prediction_errors, options);
  std::vector<const RunRecord*> run_pointers;
  run_pointers.reserve(runs.size());
  for (const auto& r : runs) run_pointers.push_back(&r);
  report.decision_costs = fit_decision_costs(run_pointers);
  report.migration_costs = fit_migration_costs(run_pointers);
  return report;
}

std::string report_markdown(const Report& report, const ReportOptions& options) {
  std::string out = fmt::format(
      "# lbbench report\n\n{} records; speedup is the median total time of `{}` over the "
      "balancer's, with a 95% bootstrap interval ({} resamples).\n",
      report.records, options.baseline, options.resamples);
  if (report.duplicates) out += fmt::format("{} duplicate records were read once.\n", report.duplicates);
  for (const auto& why : report.unreadable) out += fmt::format("A record was left out: {}\n", why);
  int predictions = 0;
  int correct = 0;
  int near_best = 0;
  for (const auto& c : report.cases) {
    out += fmt::format("\n## {} · {} · {} · {} ranks{}\n\n", c.scenario, c.engine, c.machine, c.ranks,
                       c.axes.empty() ? "" : " · " + c.axes);
    out += fmt::format(
        "| balancer | runs | failed | median total (s) | speedup vs {} [95% CI] | migrations | LB cost (s) "
        "| imbalance after LB |\n|---|---:|---:|---:|---|---:|---:|---:|\n",
        options.baseline);
    for (const auto& r : c.rows) {
      const std::string speedup =
          r.balancer == options.baseline ? "baseline"
          : !r.speedup                   ? "–"
          : r.runs < 2                   ? fmt::format("{:.3f} (n=1)", *r.speedup)
                       : fmt::format("{:.3f} [{:.3f}, {:.3f}]", *r.speedup, r.speedup_ci->low, r.speedup_ci->high);
      out += fmt::format("| {} | {} | {} | {} | {} | {:.0f} | {} | {} |\n", r.balancer, r.runs, r.failed,
                         r.runs ? fmt_time(r.median_total_s) : "–", speedup, r.migrations,
                         r.runs ? fmt_time(r.lb_cost_s) : "–",
                         r.imbalance_after ? fmt::format("{:.1f}%", 100 * *r.imbalance_after) : "–");
    }
    if (c.predictions) {
      out += fmt::format("\nModel's pick: {}; {} of {} correct (fastest measured candidate: {}{}).\n", c.chosen,
                         c.correct, c.predictions, c.fastest,
                         c.runner_up_gap ? fmt::format(", the second {:.1f}% slower", 100 * *c.runner_up_gap) : "");
      predictions += c.predictions;
      correct += c.correct;
      near_best += c.near_best;
    }
  }
  if (predictions) {
    out += fmt::format(
        "\n## Prediction accuracy\n\nCorrect selection: {} of {} ({:.0f}%). Within {:.0f}% of the fastest: {} "
        "({:.0f}%).\n\n`auto`'s loop: its predicted gain against the gain measured, over the run's total.\n\n| "
        "prediction | runs | mean abs. error over the total |\n|---|---:|---:|\n",
        correct, predictions, 100.0 * correct / predictions, 100 * ReportCase::kNearBest, near_best,
        100.0 * near_best / predictions);
    for (const auto& e : report.prediction_errors) {
      out += fmt::format("| {} | {} | {:.1f}% |\n", e.balancer, e.samples, 100 * e.mean_relative_error);
    }
    out += selection_table(report.selection);
    out +=
        "\nFollowing the model (the measured time of the balancer it chose) against always using one "
        "balancer, mean over cases of (T_always - T_chosen) / T_always:\n\n| always | cases | gain |\n"
        "|---|---:|---:|\n";
    for (const auto& g : report.gains) out += fmt::format("| {} | {} | {:.1f}% |\n", g.balancer, g.cases, 100 * g.gain);
  }
  out += cost_fit_table("Decision cost",
                        "C_LbDecision fitted to every LB call: seconds ≈ c0 + c1·V + c2·E + c3·P (vertices, edges, "
                        "ranks)",
                        report.decision_costs);
  out += cost_fit_table("Migration cost",
                        "C_DataMvmt fitted to every LB call, for all balancers together (one migration engine): "
                        "seconds ≈ c0 + c1·V/P + c2·M + c3·B (vertices per rank, vertices arriving at the busiest "
                        "rank, their payload bytes)",
                        report.migration_costs);
  if (!report.failures.empty()) {
    out += "\n## Failed runs\n\n| id | run | reason |\n|---|---|---|\n";
    for (const auto& f : report.failures) out += fmt::format("| {} | {} | {} |\n", f.id, f.label, f.reason);
  }
  return out;
}

std::string report_csv(const Report& report) {
  std::string out =
      "scenario,engine,machine,ranks,axes,balancer,runs,failed,median_total_s,speedup,speedup_ci_low,"
      "speedup_ci_high,migrations,lb_cost_s,imbalance_after\n";
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); };
  auto csv = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  for (const auto& c : report.cases) {
    for (const auto& r : c.rows) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv(c.scenario), c.engine, csv(c.machine),
                         c.ranks, csv(c.axes), csv(r.balancer), r.runs, r.failed,
                         r.runs ? fmt::format("{:.6g}", r.median_total_s) : "", opt(r.speedup),
                         r.speedup_ci ? fmt::format("{:.6g}", r.speedup_ci->low) : "",
                         r.speedup_ci ? fmt::format("{:.6g}", r.speedup_ci->high) : "",
                         r.runs ? fmt::format("{:.6g}", r.migrations) : "",
                         r.runs ? fmt::format("{:.6g}", r.lb_cost_s) : "", opt(r.imbalance_after));
    }
  }
  return out;
}

}  // namespace lbbench
