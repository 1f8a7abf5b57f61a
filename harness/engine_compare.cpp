// The same cases on several engines, side by side (see engine_compare.hpp).
#include "harness/engine_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "harness/statistics.hpp"
#include "harness/store.hpp"
#include "record/run_record.hpp"

namespace lbbench {

namespace {

// Sweep axes that name the engine and its machine, which differ between the twins.
const std::set<std::string> kEngineAxes{"balancer", "engine", "machine", "machine.preset", "ranks"};

std::string other_axes(const std::optional<SweepInfo>& sweep) {
  std::string out;
  if (!sweep) return out;
  for (const auto& [key, value] : sweep->axes.items()) {
    if (kEngineAxes.contains(key)) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key,
                       value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

using Key = std::tuple<std::string, int, std::string>;

std::string ratio_text(const std::vector<double>& other, const std::vector<double>& reference) {
  if (other.empty() || reference.empty()) return "–";
  const double ref = median(reference);
  return ref > 0 ? fmt::format("{:.3f}", median(other) / ref) : "–";
}

std::string seconds_text(const std::vector<double>& runs, bool with_range) {
  if (runs.empty()) return "–";
  const auto [lo, hi] = std::minmax_element(runs.begin(), runs.end());
  return with_range && runs.size() > 1 ? fmt::format("{:.4g} [{:.4g}, {:.4g}]", median(runs), *lo, *hi)
                                       : fmt::format("{:.4g}", median(runs));
}

// The balancers of a case, fastest first by an engine's median total.
std::vector<std::string> order_by_total(const EngineCase& c, const std::string& engine) {
  std::vector<std::pair<double, std::string>> totals;
  for (const auto& row : c.rows) {
    const auto it = row.by_engine.find(engine);
    if (it != row.by_engine.end() && !it->second.total.empty())
      totals.emplace_back(median(it->second.total), row.balancer);
  }
  std::sort(totals.begin(), totals.end());
  std::vector<std::string> out;
  out.reserve(totals.size());
  for (const auto& t : totals) out.push_back(t.second);
  return out;
}

std::string case_table(const EngineCase& c, const std::string& reference, const std::vector<std::string>& others) {
  std::string out = fmt::format("\n## {} · {} ranks{}\n\n", c.scenario, c.ranks, c.axes.empty() ? "" : " · " + c.axes);
  out += fmt::format("| balancer | {} total (s), median [range] |", reference);
  for (const auto& e : others)
    out += fmt::format(" {} total | {}/{} total | compute | wait | LB + migration |", e, e, reference);
  out += "\n|---|---|";
  for (std::size_t i = 0; i < others.size(); ++i) out += "---:|---:|---:|---:|---:|";
  out += "\n";
  for (const auto& row : c.rows) {
    const auto ref = row.by_engine.find(reference);
    if (ref == row.by_engine.end()) continue;
    out += fmt::format("| {} | {} |", row.balancer, seconds_text(ref->second.total, true));
    for (const auto& e : others) {
      const auto it = row.by_engine.find(e);
      const EngineRuns none;
      const EngineRuns& o = it == row.by_engine.end() ? none : it->second;
      out += fmt::format(" {} | {} | {} | {} | {} |", seconds_text(o.total, false),
                         ratio_text(o.total, ref->second.total), ratio_text(o.compute, ref->second.compute),
                         ratio_text(o.wait, ref->second.wait), ratio_text(o.lb, ref->second.lb));
    }
    out += "\n";
  }
  const std::vector<std::string> ref_order = order_by_total(c, reference);
  for (const auto& e : others) {
    const std::vector<std::string> order = order_by_total(c, e);
    out += fmt::format("\nOrder by total, {}: {}; {}: {} ({}).\n", reference, fmt::join(ref_order, " < "), e,
                       fmt::join(order, " < "), order == ref_order ? "the same" : "not the same");
  }
  return out;
}

}  // namespace

std::vector<EngineCase> compare_engines(const std::vector<Json>& records) {
  std::map<Key, std::map<std::string, EngineRow>> grouped;
  std::set<std::string> seen;
  for (const auto& j : records) {
    if (!is_run_record(j) || !seen.insert(j.dump()).second) continue;
    const RunRecord r = run_record_from_json(j);
    EngineRow& row = grouped[{r.scenario, r.ranks, other_axes(r.sweep)}][r.balancer];
    row.balancer = r.balancer;
    EngineRuns& runs = row.by_engine[r.engine];
    runs.total.push_back(r.total_time_s);
    runs.compute.push_back(r.compute_time_s);
    runs.wait.push_back(r.wait_time_s);
    runs.lb.push_back(r.lb_time_s + r.migration_time_s);
  }
  std::vector<EngineCase> out;
  for (auto& [key, rows] : grouped) {
    EngineCase c;
    std::tie(c.scenario, c.ranks, c.axes) = key;
    for (auto& [name, row] : rows) c.rows.push_back(std::move(row));
    out.push_back(std::move(c));
  }
  return out;
}

std::string engines_markdown(const std::vector<EngineCase>& cases, const std::string& reference) {
  std::string out = fmt::format(
      "# lbbench report: engines side by side\n\nEach engine's median over its runs; ratios are an engine's median "
      "over "
      "{}'s. LB + migration is the decision's and the migration's time together.\n",
      reference);
  int shown = 0;
  for (const auto& c : cases) {
    std::set<std::string> engines;
    bool has_reference = false;
    for (const auto& row : c.rows) {
      for (const auto& [e, runs] : row.by_engine) {
        if (e == reference) {
          has_reference = true;
        } else {
          engines.insert(e);
        }
      }
    }
    if (!has_reference || engines.empty()) continue;
    out += case_table(c, reference, std::vector<std::string>(engines.begin(), engines.end()));
    ++shown;
  }
  if (shown == 0) {
    throw InputError(fmt::format("no case has runs on {} and on another engine to set beside them", reference));
  }
  return out;
}

}  // namespace lbbench
