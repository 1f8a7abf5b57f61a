// Reporters (see reporters.hpp).
#include "app/reporters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "balancers/sdk/config.hpp"

namespace lbbench {

namespace {

std::string header(const RunRecord& r) {
  std::string out = fmt::format("lbbench · {} · {} ranks on {} ({}) · {} vertices · {} edges · {} steps · balancer {}",
                                r.scenario, r.ranks, r.machine, r.engine, r.vertices, r.edges, r.steps, r.balancer);
  const bool balances = r.balancer_family != family_name(Family::baseline);
  out += balances ? fmt::format(" every {} steps\n", r.lb_period) : "\n";
  // A record of the model engine has a modeling field; the smpi engine's only a simulation.
  if (r.simulated()) out += r.modeling ? "  (times are modeled)\n" : "  (times are simulated)\n";
  if (r.trace) {
    out += fmt::format("  recorded run: {} ranks, {} phases, {} tasks ({} pinned), {} subphases; ranks mapped {}\n",
                       r.trace->ranks, r.trace->phases, r.trace->tasks, r.trace->pinned, r.trace->subphases,
                       r.trace->mapping);
  }
  return out;
}

std::string totals(const RunRecord& r) {
  std::string out = fmt::format(
      "  total {:.3f} s   compute {:.3f} s (mean/rank)   wait {:.3f} s   LB {:.3f} s   migration {:.3f} s\n",
      r.total_time_s, r.compute_time_s, r.wait_time_s, r.lb_time_s, r.migration_time_s);
  const auto& imbalance = r.per_step.imbalance;
  if (!imbalance.empty()) {
    out += fmt::format("  imbalance (max/avg - 1): first step {:.1f}%, last step {:.1f}%, mean {:.1f}%\n",
                       100 * imbalance.front(), 100 * imbalance.back(), 100 * r.imbalance_mean);
  }
  if (r.load_vector && !r.load_vector->objective_per_step_s.empty()) {
    const auto& objective = r.load_vector->objective_per_step_s;
    out += fmt::format("  load vector ({}): sum of phase maxima {:.2f} ms at the first step, {:.2f} ms at the last\n",
                       fmt::join(r.load_vector->components, ", "), 1e3 * objective.front(), 1e3 * objective.back());
  }
  return out;
}

// vt's recorded imbalance beside this replay's for the first phases both have, and the
// largest difference over all of them: whether the replay runs as the application did.
std::string recorded_comparison(const RunRecord& r) {
  if (!r.trace || r.trace->stats_file.empty()) return {};
  const std::vector<double>& steps = r.per_step.imbalance;
  std::vector<RecordedImbalance> both;
  for (const RecordedImbalance& p : r.trace->recorded_imbalance) {
    if (p.step >= 0 && static_cast<std::size_t>(p.step) < steps.size()) both.push_back(p);
  }
  const std::string source = fmt::format("vt's LBStatsfile (pre-LB {} imb, max/avg - 1)", r.trace->recorded_statistic);
  if (both.empty()) return fmt::format("  {}: none of its phases is a step of this run\n", source);
  constexpr std::size_t kShown = 4;
  std::vector<std::string> recorded;
  std::vector<std::string> replayed;
  for (std::size_t i = 0; i < std::min(kShown, both.size()); ++i) {
    recorded.push_back(fmt::format("{:.4f} at phase {}", both[i].imbalance, both[i].phase));
    replayed.push_back(fmt::format("{:.4f}", steps[static_cast<std::size_t>(both[i].step)]));
  }
  const char* more = both.size() > kShown ? ", ..." : "";
  // On other rank counts than vt's, the two are not the same distribution's: said where they are compared.
  const std::string here = r.ranks == r.trace->ranks
                               ? std::string("this replay")
                               : fmt::format("this replay on {} ranks (vt's on {})", r.ranks, r.trace->ranks);
  std::string out = fmt::format("  {}: {}{}; {}: {}{}\n", source, fmt::join(recorded, ", "), more, here,
                                fmt::join(replayed, ", "), more);
  if (both.size() <= kShown) return out;
  const auto differs = [&](const RecordedImbalance& p) {
    return std::abs(steps[static_cast<std::size_t>(p.step)] - p.imbalance);
  };
  const auto worst =
      std::max_element(both.begin(), both.end(), [&](const auto& a, const auto& b) { return differs(a) < differs(b); });
  return out + fmt::format(
                   "  over the {} phases vt recorded and this run replays: the replay differs by up to {:.4f} "
                   "(phase {})\n",
                   both.size(), differs(*worst), worst->phase);
}

std::string lb_call(const LbEvent& e, std::size_t index) {
  std::string out = fmt::format(
      "  LB {} after step {}: imbalance {:.1f}% -> {:.1f}% (predicted {:.1f}%), {} vertices moved ({:.2f} MB)\n",
      index + 1, e.step, 100 * e.imbalance_before, 100 * e.imbalance_after, 100 * e.model_imbalance_predicted_after,
      e.migrations, static_cast<double>(e.migrated_bytes) / 1e6);
  if (e.vector) {
    out += fmt::format("        sum of phase maxima {:.2f} -> {:.2f} ms (the model: {:.2f} -> {:.2f} ms predicted)\n",
                       1e3 * e.vector->objective_before_s, 1e3 * e.vector->objective_after_s,
                       1e3 * e.vector->model_objective_before_s, 1e3 * e.vector->model_objective_predicted_after_s);
  }
  if (e.protocol) {
    out += fmt::format("        protocol: {} rounds, {} messages ({:.1f} kB), largest list {}, decided in {:.3f} s\n",
                       e.protocol->rounds, e.protocol->messages, static_cast<double>(e.protocol->bytes) / 1e3,
                       e.protocol->largest_list, e.decision_s);
  }
  return out;
}

// A block mesh's regrids: how many, the live blocks over the run, and what they cost.
std::string regrids(const RunRecord& r) {
  if (!r.regrid) return {};
  const RegridRecord& g = *r.regrid;
  const auto& live = r.per_step.vertices;
  std::string out = fmt::format("  regrid every {} steps: {} regrids", g.period, g.events.size());
  if (!live.empty()) {
    const auto [fewest, most] = std::minmax_element(live.begin(), live.end());
    out += fmt::format(", blocks {} at the first step, {} at the last ({} to {})", live.front(), live.back(), *fewest,
                       *most);
  }
  std::int64_t refined = 0;
  std::int64_t merged = 0;
  for (const RegridEvent& e : g.events) {
    refined += e.refined;
    merged += e.merged;
  }
  out += fmt::format(
      "\n        {} splits, {} merges; {} blocks gathered ({:.2f} MB), {} messages ({:.1f} kB) deciding; {:.3f} s\n",
      refined, merged, g.migrations, static_cast<double>(g.migrated_bytes) / 1e6, g.messages,
      static_cast<double>(g.bytes) / 1e3, g.time_s);
  return out;
}

std::string communication(const RunRecord& r) {
  std::string out = fmt::format("  edge cut {} -> {} edges; {} messages per step", r.edge_cut_initial, r.edge_cut,
                                r.messages_per_step);
  out += r.cross_site_messages_per_step ? fmt::format(", {} between sites\n", *r.cross_site_messages_per_step) : "\n";
  out += fmt::format("  perfect balance would take {:.3f} s ({:.1f}% less)\n", r.perfect_balance_time_s,
                     r.total_time_s > 0 ? 100.0 * (r.total_time_s - r.perfect_balance_time_s) / r.total_time_s : 0.0);
  return out;
}

// The start-up rank reorder: a simulated node's ranks share all its cores, so the node is
// the unit the reorder balances there.
std::string reorder(const RunRecord& r) {
  if (!r.reorder.is_object()) return {};
  const Json& o = r.reorder;
  const char* unit = r.simulated() ? "node" : "core";
  return fmt::format(
      "  reorder {} on {} {}{}s: max {} load {:.4g} s -> {:.4g} s per step (lower bound {:.4g} s); created in {:.3f} "
      "ms\n",
      o.value("method", ""), o.value("core_loads_before_s", Json::array()).size(), r.simulated() ? "simulated " : "",
      unit, unit, o.value("max_core_load_before_s", 0.0), o.value("max_core_load_after_s", 0.0),
      o.value("lower_bound_s", 0.0), 1e3 * o.value("create_s", 0.0));
}

}  // namespace

std::string console_summary(const RunRecord& r) {
  std::string out = header(r) + totals(r) + recorded_comparison(r) + regrids(r);
  for (std::size_t i = 0; i < r.lb.size(); ++i) out += lb_call(r.lb[i], i);
  return out + communication(r) + reorder(r);
}

std::string steps_csv(const RunRecord& r) {
  const PerStep& p = r.per_step;
  // A block mesh adds its live blocks and the bytes of the regrid after each step.
  const bool blocks = !p.vertices.empty();
  std::string csv = blocks
                        ? "step,wall_max_s,compute_max_s,compute_avg_s,wait_avg_s,imbalance,lb,vertices,regrid_bytes\n"
                        : "step,wall_max_s,compute_max_s,compute_avg_s,wait_avg_s,imbalance,lb\n";
  std::size_t next_call = 0;
  auto value = [](const std::vector<double>& series, std::size_t i, const char* format) {
    return i < series.size() ? fmt::format(fmt::runtime(format), series[i]) : std::string();
  };
  for (std::size_t i = 0; i < p.imbalance.size(); ++i) {
    const bool lb_here = next_call < r.lb.size() && static_cast<std::size_t>(r.lb[next_call].step) == i;
    if (lb_here) ++next_call;
    csv += fmt::format("{},{},{},{},{},{},{}", i, value(p.wall_max_s, i, "{:.9g}"), value(p.compute_max_s, i, "{:.9g}"),
                       value(p.compute_avg_s, i, "{:.9g}"), value(p.wait_avg_s, i, "{:.9g}"),
                       value(p.imbalance, i, "{:.6g}"), lb_here ? 1 : 0);
    if (blocks) {
      csv += fmt::format(",{},{}", i < p.vertices.size() ? p.vertices[i] : 0,
                         i < p.regrid_bytes.size() ? p.regrid_bytes[i] : 0);
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace lbbench
