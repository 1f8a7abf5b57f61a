// `lbbench report` (see report.hpp).
#include "harness/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "harness/store.hpp"

namespace lbbench {

namespace {

// Axes that already have columns of their own.
const std::set<std::string> kColumnAxes{"balancer", "machine", "engine", "ranks"};

double quantile(std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string case_axes(const Json& record) {
  std::string out;
  if (!record.contains("sweep")) return out;
  const Json axes = record["sweep"].value("axes", Json::object());
  for (const auto& [key, value] : axes.items()) {
    if (kColumnAxes.contains(key)) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value_text(value));
  }
  return out;
}

using CaseKey = std::tuple<std::string, std::string, std::string, int, std::string>;

CaseKey case_key(const Json& r) {
  return {r.value("scenario", ""), r.value("engine", ""), r.value("machine", ""), r.value("ranks", 0), case_axes(r)};
}

// The balancer's name, with its params when one case holds the same name with several.
std::string balancer_label(const Json& r, bool with_params) {
  std::string name = r.value("balancer", "");
  if (!with_params) return name;
  const Json params = r.contains("balancer_params") ? r["balancer_params"]
                      : r.contains("config") && r["config"].contains("balancer")
                          ? r["config"]["balancer"].value("params", Json::object())
                          : Json::object();
  return params.empty() ? name : name + params.dump();
}

double mean_of(const Json& list) {
  double sum = 0;
  for (const auto& v : list) sum += v.get<double>();
  return list.empty() ? 0 : sum / static_cast<double>(list.size());
}

bool is_run(const Json& r) { return r.value("schema", "") == "lbbench.run/1"; }
bool is_failure(const Json& r) { return r.value("schema", "") == "lbbench.failure/1"; }

struct Grouped {
  std::map<CaseKey, std::map<std::string, std::vector<const Json*>>> cases;
};

Grouped group(const std::vector<const Json*>& records) {
  // Does any case hold one balancer name with different params?
  std::map<std::pair<CaseKey, std::string>, std::set<std::string>> params_seen;
  for (const Json* r : records) params_seen[{case_key(*r), r->value("balancer", "")}].insert(balancer_label(*r, true));
  Grouped g;
  for (const Json* r : records) {
    const CaseKey key = case_key(*r);
    const bool ambiguous = params_seen[{key, r->value("balancer", "")}].size() > 1;
    g.cases[key][balancer_label(*r, ambiguous)].push_back(r);
  }
  return g;
}

BalancerRow make_row(const std::string& balancer, const std::vector<const Json*>& records) {
  BalancerRow row;
  row.balancer = balancer;
  std::vector<double> migrations;
  std::vector<double> lb_cost;
  std::vector<double> imbalance;
  for (const Json* r : records) {
    if (is_failure(*r)) {
      ++row.failed;
      continue;
    }
    ++row.runs;
    row.totals.push_back(r->value("total_time_s", 0.0));
    migrations.push_back(r->value("migrations", 0.0));
    lb_cost.push_back(r->value("lb_time_s", 0.0) + r->value("migration_time_s", 0.0));
    if (r->contains("imbalance_after") && !(*r)["imbalance_after"].empty()) {
      imbalance.push_back(mean_of((*r)["imbalance_after"]));
    }
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

// The model's pick against the candidate measured fastest in the case, and each
// candidate's predicted total time against the measured median of that balancer.
void score_predictions(ReportCase& c, const std::vector<const Json*>& records,
                       std::map<std::string, std::vector<double>>& errors) {
  std::map<std::string, double> measured;
  for (const auto& row : c.rows) {
    if (row.runs > 0) measured[row.balancer] = row.median_total_s;
  }
  std::map<std::string, int> picks;
  for (const Json* r : records) {
    if (!is_run(*r) || !r->contains("prediction") || !(*r)["prediction"].is_object()) continue;
    const Json& p = (*r)["prediction"];
    if (!p.contains("chosen")) continue;
    const Json candidates = p.value("candidates", Json::object());
    std::string fastest;
    for (const auto& [name, candidate] : candidates.items()) {
      const auto m = measured.find(name);
      if (m == measured.end() || m->second <= 0) continue;
      if (fastest.empty() || m->second < measured[fastest]) fastest = name;
      if (candidate.contains("total_s")) {
        errors[name].push_back(std::abs(candidate["total_s"].get<double>() - m->second) / m->second);
      }
    }
    if (fastest.empty()) continue;  // no candidate was measured in this case
    ++c.predictions;
    c.fastest = fastest;
    const std::string chosen = p["chosen"].get<std::string>();
    ++picks[chosen];
    if (chosen == fastest) ++c.correct;
    const auto at = measured.find(chosen);
    if (at != measured.end() && at->second <= (1 + ReportCase::kNearBest) * measured[fastest]) ++c.near_best;
  }
  // With repetitions, the case's pick is the one the model made most often.
  for (const auto& [name, n] : picks) {
    if (c.chosen.empty() || n > picks[c.chosen]) c.chosen = name;
  }
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
  for (const auto& [b, ns] : sums) out.push_back({b, ns.first, ns.second / ns.first});
  return out;
}

std::string fmt_time(double s) { return fmt::format("{:.4g}", s); }

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

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

Interval bootstrap_ratio_of_medians(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto resample = [&](const std::vector<double>& v) {
    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
    std::vector<double> out(v.size());
    for (auto& x : out) x = v[pick(rng)];
    return median(std::move(out));
  };
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double ma = resample(a);
    if (ma > 0) ratios.push_back(resample(b) / ma);
  }
  if (ratios.empty()) return {};
  std::sort(ratios.begin(), ratios.end());
  return {quantile(ratios, 0.025), quantile(ratios, 0.975)};
}

Report build_report(const std::vector<Json>& records, const ReportOptions& options) {
  Report report;
  // The same record can be read twice (a task file not yet removed after --collect).
  std::set<std::string> seen;
  std::vector<const Json*> unique;
  const auto statuses = run_statuses(records);
  for (const auto& r : records) {
    if (!is_run(r) && !is_failure(r)) continue;
    if (!seen.insert(r.dump()).second) {
      ++report.duplicates;
      continue;
    }
    // A failure that a later attempt of the same run made good is history, not a result.
    const auto status = r.contains("sweep") ? statuses.find(r["sweep"].value("id", "")) : statuses.end();
    if (is_failure(r) && status != statuses.end() && status->second == "ok") continue;
    unique.push_back(&r);
    if (is_failure(r)) {
      const Json sweep = r.value("sweep", Json::object());
      std::string label =
          fmt::format("{} {} {} ranks", r.value("balancer", ""), r.value("machine", ""), r.value("ranks", 0));
      report.failures.push_back({sweep.value("id", ""), label, r.value("reason", "")});
    }
  }
  report.records = static_cast<int>(unique.size());
  std::map<std::string, std::vector<double>> errors;
  for (const auto& [key, balancers] : group(unique).cases) {
    ReportCase c;
    std::tie(c.scenario, c.engine, c.machine, c.ranks, c.axes) = key;
    std::vector<const Json*> all;
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
  report.decision_costs = fit_decision_costs(unique);
  report.migration_costs = fit_migration_costs(unique);
  for (const auto& [name, e] : errors) {
    report.prediction_errors.push_back(
        {name, static_cast<int>(e.size()), std::accumulate(e.begin(), e.end(), 0.0) / static_cast<double>(e.size())});
  }
  return report;
}

std::string report_markdown(const Report& report, const ReportOptions& options) {
  std::string out = fmt::format(
      "# lbbench report\n\n{} records; speedup is the median total time of `{}` over the "
      "balancer's, with a 95% bootstrap interval ({} resamples).\n",
      report.records, options.baseline, options.resamples);
  if (report.duplicates) out += fmt::format("{} duplicate records were read once.\n", report.duplicates);
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
      out += fmt::format("\nModel's pick: {}; {} of {} correct (fastest measured candidate: {}).\n", c.chosen,
                         c.correct, c.predictions, c.fastest);
      predictions += c.predictions;
      correct += c.correct;
      near_best += c.near_best;
    }
  }
  if (predictions) {
    out += fmt::format(
        "\n## Prediction accuracy\n\nCorrect selection: {} of {} ({:.0f}%). Within {:.0f}% of the fastest: {} "
        "({:.0f}%).\n\n| balancer | samples | mean abs. relative error |\n|---|---:|---:|\n",
        correct, predictions, 100.0 * correct / predictions, 100 * ReportCase::kNearBest, near_best,
        100.0 * near_best / predictions);
    for (const auto& e : report.prediction_errors) {
      out += fmt::format("| {} | {} | {:.1f}% |\n", e.balancer, e.samples, 100 * e.mean_relative_error);
    }
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
