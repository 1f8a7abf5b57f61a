// Sweep expansion and ids, the record store's crash repair, and report arithmetic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "harness/report.hpp"
#include "harness/runner.hpp"
#include "harness/store.hpp"
#include "harness/sweep.hpp"
#include "scenario/costs_file.hpp"

namespace lbbench {
namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(LBBENCH_SOURCE_DIR) / "scenarios";

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "lbbench-harness-XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string sweep_text(const std::string& body) {
  return "scenario: " + (kScenarios / "hotspot.yaml").string() + "\n" + body;
}

std::string error_of(const fs::path& file) {
  try {
    (void)load_sweep(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Sweep, ExpandsTheProductOfItsAxesTimesTheRepetitions) {
  TempDir dir;
  const auto file = dir.write("s.yaml", sweep_text(R"(
repetitions: 2
set: {ranks: 4, steps: 3}
axes:
  balancer: [none, greedy, {name: refine, params: {tolerance: 0.1}}]
  workload.weights.peak: [4, 8]
)"));
  const Sweep s = load_sweep(file);
  ASSERT_EQ(s.runs.size(), 12u);
  EXPECT_EQ(s.name, "s");
  // Every configuration once, then again; the first axis varies slowest.
  EXPECT_EQ(s.runs[0].repetition, 0);
  EXPECT_EQ(s.runs[6].repetition, 1);
  EXPECT_EQ(s.runs[0].axes["balancer"], "none");
  EXPECT_EQ(s.runs[1].axes["workload.weights.peak"], 8);
  EXPECT_EQ(s.runs[2].axes["balancer"], "greedy");
  EXPECT_EQ(s.runs[4].config["balancer"]["params"]["tolerance"], 0.1);
  EXPECT_EQ(s.runs[1].config["workload"]["weights"]["peak"], 8.0);
  EXPECT_EQ(s.runs[0].config["ranks"], 4);
  std::set<std::string> ids;
  for (const auto& r : s.runs) ids.insert(r.id);
  EXPECT_EQ(ids.size(), 12u);
}

TEST(Sweep, AWholeNumberTooLargeForAnIntegerStaysANumberInTheRecord) {
  TempDir dir;
  const Sweep s = load_sweep(dir.write(
      "s.yaml", sweep_text("set: {ranks: 2}\naxes: {workload.weights.peak: [22222222222222222222], name: [inf]}\n")));
  ASSERT_EQ(s.runs.size(), 1u);
  ASSERT_TRUE(s.runs[0].axes["workload.weights.peak"].is_number_float());
  EXPECT_DOUBLE_EQ(s.runs[0].axes["workload.weights.peak"].get<double>(), 2.2222222222222222e19);
  // JSON has no infinity, so a word the number reader takes for one stays the word.
  EXPECT_EQ(s.runs[0].axes["name"], "inf");
}

TEST(Sweep, IdsAreStableAndDependOnlyOnTheRun) {
  TempDir dir;
  const std::string body = sweep_text("set: {ranks: 2}\naxes: {balancer: [none, greedy]}\nrepetitions: 2\n");
  const Sweep a = load_sweep(dir.write("a.yaml", body));
  const Sweep b = load_sweep(dir.write("b.yaml", body));
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (std::size_t i = 0; i < a.runs.size(); ++i) EXPECT_EQ(a.runs[i].id, b.runs[i].id);
  EXPECT_NE(a.runs[0].id, a.runs[2].id);  // the same configuration, another repetition
  // Fewer repetitions from the command line keep the first ones, with the same ids.
  const Sweep once = load_sweep(dir.write("once.yaml", body), {}, 1);
  ASSERT_EQ(once.runs.size(), 2u);
  EXPECT_EQ(once.runs[0].id, a.runs[0].id);
  EXPECT_EQ(once.runs[1].id, a.runs[1].id);
  // A setting the run did not have before makes another run.
  const Sweep c = load_sweep(dir.write("c.yaml", sweep_text("set: {ranks: 2, steps: 5}\naxes: {balancer: [none]}\n")));
  EXPECT_NE(c.runs[0].id, a.runs[0].id);
  // The engine is part of the run.
  const Sweep d = load_sweep(
      dir.write("d.yaml", sweep_text("set: {ranks: 2, engine: smpi, machine: bgq}\naxes: {balancer: [none]}\n")));
  const Sweep e =
      load_sweep(dir.write("e.yaml", sweep_text("set: {ranks: 2, machine: bgq}\naxes: {balancer: [none]}\n")));
  EXPECT_NE(d.runs[0].id, e.runs[0].id);
  EXPECT_EQ(d.runs[0].engine, "smpi");
}

TEST(Sweep, ABareBalancerNameKeepsThePeriodAndDropsTheParams) {
  TempDir dir;
  const Sweep s =
      load_sweep(dir.write("s.yaml", sweep_text("set: {ranks: 2, balancer.period: 3}\naxes: {balancer: [greedy]}\n")));
  EXPECT_EQ(s.runs[0].config["balancer"]["name"], "greedy");
  EXPECT_EQ(s.runs[0].config["balancer"]["period"], 3);
}

TEST(Sweep, RecalibrateMakesOnlyTheMpiEnginesRunsMeasureDoWorkFirst) {
  TempDir dir;
  const std::string body = "set: {ranks: 2, machine: bgq}\naxes: {engine: [mpi, smpi]}\n";
  const Sweep plain = load_sweep(dir.write("plain.yaml", sweep_text(body)));
  const Sweep measuring = load_sweep(dir.write("measuring.yaml", sweep_text("recalibrate: true\n" + body)));
  EXPECT_FALSE(plain.recalibrate);
  ASSERT_TRUE(measuring.recalibrate);
  RunnerOptions options;
  options.lbbench = "lbbench";
  auto flagged = [&](const SweepRun& run) {
    const auto cmd = run_command(run, options, dir.path() / "r.record");
    return std::find(cmd.begin(), cmd.end(), "--recalibrate") != cmd.end();
  };
  ASSERT_EQ(measuring.runs[0].engine, "mpi");
  EXPECT_FALSE(flagged(measuring.runs[0]));
  options.recalibrate = true;
  EXPECT_TRUE(flagged(measuring.runs[0]));
  EXPECT_FALSE(flagged(measuring.runs[1])) << "an SMPI run has no do_work rate to measure";
}

TEST(Sweep, AFixedSettingUnderAnAxisRefinesEachOfItsValues) {
  TempDir dir;
  // A bare name resets the params; the command line's budget must survive it.
  const Sweep s = load_sweep(dir.write("s.yaml", sweep_text("set: {ranks: 2}\naxes: {balancer: [auto]}\n")),
                             {"balancer.params.budget=0.05"});
  ASSERT_EQ(s.runs.size(), 1u);
  EXPECT_EQ(s.runs[0].config["balancer"]["name"], "auto");
  EXPECT_DOUBLE_EQ(s.runs[0].config["balancer"]["params"]["budget"].get<double>(), 0.05);
  // It refines a value given as a mapping too, where that value leaves the key alone.
  const Sweep m = load_sweep(
      dir.write("m.yaml",
                sweep_text("set: {ranks: 2}\naxes: {balancer: [{name: auto, params: {candidates: [none, tree]}}]}\n")),
      {"balancer.params.budget=0.05"});
  EXPECT_DOUBLE_EQ(m.runs[0].config["balancer"]["params"]["budget"].get<double>(), 0.05);
  EXPECT_EQ(m.runs[0].config["balancer"]["params"]["candidates"].size(), 2u);
}

TEST(Sweep, AFixedSettingAndAnAxisValueThatSetTheSameKeyAreRefused) {
  TempDir dir;
  const fs::path file =
      dir.write("s.yaml", sweep_text("set: {ranks: 2, balancer.params.budget: 0.02}\n"
                                     "axes: {balancer: [none, {name: auto, params: {budget: 0.05}}]}\n"));
  const std::string message = error_of(file);
  EXPECT_THAT(message, ::testing::HasSubstr("balancer.params.budget is set both here and by the balancer axis"));
  EXPECT_THAT(message, ::testing::HasSubstr(file.string() + ":3:"));  // the value's line
  // A bare name is the balancer's name.
  EXPECT_THAT(error_of(dir.write("n.yaml", sweep_text("set: {ranks: 2, balancer.name: greedy}\n"
                                                      "axes: {balancer: [none, auto]}\n"))),
              ::testing::HasSubstr("balancer.name is set both here and by the balancer axis"));
}

TEST(Sweep, SeveralScenariosMakeAnOuterAxis) {
  TempDir dir;
  const Sweep s = load_sweep(dir.write("s.yaml", "scenario: [" + (kScenarios / "hotspot.yaml").string() + ", " +
                                                     (kScenarios / "amr.yaml").string() +
                                                     "]\nset: {ranks: 2}\naxes: {balancer: [none, greedy]}\n"));
  ASSERT_EQ(s.runs.size(), 4u);
  EXPECT_EQ(s.runs[0].config["name"], s.runs[1].config["name"]);
  EXPECT_NE(s.runs[1].config["name"], s.runs[2].config["name"]);
}

TEST(Sweep, ErrorsNameTheFileLineAndColumnAndSuggest) {
  TempDir dir;
  const std::string misspelled = error_of(dir.write("a.yaml", sweep_text("set: {ranks: 2}\nrepetitons: 2\n")));
  EXPECT_NE(misspelled.find("a.yaml:3:1"), std::string::npos) << misspelled;
  EXPECT_NE(misspelled.find("repetitions"), std::string::npos) << misspelled;
  const std::string bad_value =
      error_of(dir.write("b.yaml", sweep_text("set: {ranks: 2}\naxes:\n  balancer: [none, gredy]\n")));
  EXPECT_NE(bad_value.find("b.yaml:4:20"), std::string::npos) << bad_value;
  EXPECT_NE(bad_value.find("greedy"), std::string::npos) << bad_value;
  const std::string not_a_list =
      error_of(dir.write("c.yaml", sweep_text("set: {ranks: 2}\naxes: {balancer: greedy}\n")));
  EXPECT_NE(not_a_list.find("list of values"), std::string::npos) << not_a_list;
  const std::string twice =
      error_of(dir.write("d.yaml", sweep_text("set: {ranks: 2}\naxes: {balancer: [none, none]}\n")));
  EXPECT_NE(twice.find("the same scenario"), std::string::npos) << twice;
  const std::string no_ranks = error_of(dir.write("e.yaml", sweep_text("axes: {balancer: [none]}\n")));
  EXPECT_NE(no_ranks.find("rank count"), std::string::npos) << no_ranks;
  const std::string smpi = error_of(dir.write("f.yaml", sweep_text("set: {ranks: 2, engine: smpi}\n")));
  EXPECT_NE(smpi.find("machine"), std::string::npos) << smpi;
  // Found by fuzzing: an axis with no value read an absent node (undefined behaviour).
  const std::string empty_axis =
      error_of(dir.write("g.yaml", sweep_text("set: {ranks: 2}\naxes:\n  balancer:\n  seed: [1]\n")));
  EXPECT_NE(empty_axis.find("'balancer' has no values"), std::string::npos) << empty_axis;
  const std::string missing = error_of(dir.write("h.yaml", "scenario: nowhere.yaml\nset: {ranks: 2}\n"));
  EXPECT_NE(missing.find("h.yaml:1:11"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file"), std::string::npos) << missing;
  // Found by fuzzing: a scenario name longer than the system allows threw a filesystem error.
  const std::string too_long =
      error_of(dir.write("i.yaml", "scenario: " + std::string(5000, 'x') + ".yaml\nset: {ranks: 2}\n"));
  EXPECT_NE(too_long.find("i.yaml:1:11"), std::string::npos) << too_long;
  EXPECT_NE(too_long.find("cannot open the scenario file"), std::string::npos) << too_long;
  // Found by fuzzing: a NUL byte in an axis value came back from the YAML reader as a string
  // that is not UTF-8, and naming the run in the error threw a JSON error.
  const std::string name = "tre" + std::string(78, 'n') + '\0' + "_" + std::string(15, 'n') + "e";
  const std::string nul =
      error_of(dir.write("j.yaml", sweep_text("set: {ranks: 2}\naxes:\n  balancer: [{name: " + name + "}]\n")));
  EXPECT_NE(nul.find("j.yaml"), std::string::npos) << nul;
  EXPECT_NE(nul.find("not UTF-8"), std::string::npos) << nul;
}

// A sweep over recorded runs needs the traces (LBBENCH_TRACES_DIR, or the shared ones next
// to the project): whether it names a scenario that replays one.
bool sweeps_a_trace(const fs::path& sweep) {
  const YAML::Node scenarios = YAML::LoadFile(sweep.string())["scenario"];
  std::vector<std::string> names;
  if (scenarios.IsScalar()) names.push_back(scenarios.as<std::string>());
  if (scenarios.IsSequence()) {
    for (const auto& n : scenarios) names.push_back(n.as<std::string>());
  }
  for (const auto& name : names) {
    const YAML::Node mesh = YAML::LoadFile((sweep.parent_path() / name).string())["mesh"];
    if (mesh.IsMap() && mesh["format"] && mesh["format"].as<std::string>() == "lbdatafile") return true;
  }
  return false;
}

// A sweep over a strategy built outside the tree needs that library, which the main build
// makes (build/plugins) and the sanitizer build does not: the first one it names that is absent.
std::optional<fs::path> absent_plugin(const fs::path& sweep) {
  const YAML::Node plugins = YAML::LoadFile(sweep.string())["plugins"];
  if (!plugins.IsSequence()) return std::nullopt;
  for (const auto& n : plugins) {
    const fs::path file = sweep.parent_path() / n.as<std::string>();
    if (!fs::exists(file)) return file.lexically_normal();
  }
  return std::nullopt;
}

TEST(Sweep, EveryShippedSweepExpandsAndValidates) {
  const fs::path traces = fs::path(LBBENCH_SOURCE_DIR) / ".." / "shared" / "traces";
  const bool have_traces = std::getenv("LBBENCH_TRACES_DIR") || fs::is_directory(traces);
  if (!std::getenv("LBBENCH_TRACES_DIR") && have_traces) setenv("LBBENCH_TRACES_DIR", traces.c_str(), 1);
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kScenarios / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    if (!have_traces && sweeps_a_trace(entry.path())) {
      std::cout << "note: " << entry.path().filename().string()
                << " is not checked: it replays a recorded run, and the traces (../shared/traces or "
                   "LBBENCH_TRACES_DIR) are absent\n";
      continue;
    }
    if (const auto plugin = absent_plugin(entry.path())) {
      std::cout << "note: " << entry.path().filename().string() << " is not checked: its plugin " << plugin->string()
                << " is not built (the main build makes it)\n";
      continue;
    }
    SCOPED_TRACE(entry.path().string());
    const Sweep s = load_sweep(entry.path());
    EXPECT_FALSE(s.runs.empty());
    ++count;
  }
  EXPECT_GE(count, 3);
}

TEST(RecordStore, CutsAnIncompleteLastLineAndKeepsTheRest) {
  TempDir dir;
  const fs::path file = dir.path() / "runs.jsonl";
  std::ofstream(file) << R"({"schema":"lbbench.run/1","a":1})"
                      << "\n"
                      << R"({"schema":"lbbench.run/1","a":2})"
                      << "\n"
                      << R"({"schema":"lbbench.ru)";
  const RecordStore store(file);
  EXPECT_EQ(store.repaired_bytes(), std::string(R"({"schema":"lbbench.ru)").size());
  store.append(Json{{"schema", "lbbench.run/1"}, {"a", 3}});
  const RecordSet set = read_records(file);
  EXPECT_TRUE(set.skipped.empty());
  ASSERT_EQ(set.records.size(), 3u);
  EXPECT_EQ(set.records[2]["a"], 3);
}

TEST(RecordStore, AFinishedRunOutranksItsFailures) {
  const std::vector<Json> records{
      Json{{"sweep", {{"id", "a"}, {"status", "failed"}}}}, Json{{"sweep", {{"id", "a"}, {"status", "ok"}}}},
      Json{{"sweep", {{"id", "b"}, {"status", "failed"}}}}, Json{{"sweep", {{"id", "c"}, {"status", "ok"}}}},
      Json{{"sweep", {{"id", "c"}, {"status", "failed"}}}}};
  const auto s = run_statuses(records);
  EXPECT_EQ(s.at("a"), "ok");
  EXPECT_EQ(s.at("b"), "failed");
  EXPECT_EQ(s.at("c"), "ok");
}

// A run record as a sweep stores it, through the record's own type.
Json run_record(const std::string& balancer, double total, const std::string& id, double migrations = 0) {
  RunRecord r;
  r.scenario = "s";
  r.scenario_sha256 = std::string(64, '0');
  r.engine = "mpi";
  r.machine = "local";
  r.ranks = 2;
  r.balancer = balancer;
  r.total_time_s = total;
  r.lb_time_s = 0.5;
  r.migration_time_s = 0.25;
  r.migrations = static_cast<std::int64_t>(migrations);
  r.imbalance_after = {0.1, 0.3};
  r.sweep.emplace();
  r.sweep->id = id;
  r.sweep->axes = Json{{"balancer", balancer}};
  r.sweep->status = "ok";
  return to_json(r);
}

const BalancerRow& row_of(const ReportCase& c, const std::string& b) {
  return *std::find_if(c.rows.begin(), c.rows.end(), [&](const auto& r) { return r.balancer == b; });
}

TEST(Report, MediansSpeedupsAndIntervals) {
  const std::vector<Json> records{run_record("none", 10, "n1"),       run_record("none", 12, "n2"),
                                  run_record("none", 11, "n3"),       run_record("greedy", 5, "g1", 100),
                                  run_record("greedy", 6, "g2", 300), run_record("greedy", 4, "g3", 200)};
  const Report report = build_report(records, ReportOptions{});
  ASSERT_EQ(report.cases.size(), 1u);
  const auto& c = report.cases[0];
  EXPECT_EQ(c.rows[0].balancer, "none");  // the baseline first
  const auto& g = row_of(c, "greedy");
  EXPECT_EQ(g.runs, 3);
  EXPECT_DOUBLE_EQ(g.median_total_s, 5);
  EXPECT_DOUBLE_EQ(*g.speedup, 11.0 / 5.0);
  EXPECT_DOUBLE_EQ(g.migrations, 200);
  EXPECT_DOUBLE_EQ(g.lb_cost_s, 0.75);
  EXPECT_DOUBLE_EQ(*g.imbalance_after, 0.2);
  // Resampled medians of {10,11,12} over those of {4,5,6}: between 10/6 and 12/4.
  EXPECT_GE(g.speedup_ci->low, 10.0 / 6.0);
  EXPECT_LE(g.speedup_ci->high, 12.0 / 4.0);
  EXPECT_LE(g.speedup_ci->low, *g.speedup);
  EXPECT_GE(g.speedup_ci->high, *g.speedup);
  EXPECT_LT(g.speedup_ci->low, g.speedup_ci->high);
}

TEST(Report, OneRunEachGivesAPointInterval) {
  const Interval i = bootstrap_ratio_of_medians({4}, {8}, 100, 1);
  EXPECT_DOUBLE_EQ(i.low, 2);
  EXPECT_DOUBLE_EQ(i.high, 2);
  EXPECT_DOUBLE_EQ(median({3, 1, 2, 10}), 2.5);
}

TEST(Report, CasesSplitOnOtherAxesAndFailuresCountUntilMadeGood) {
  Json slow = run_record("none", 10, "a");
  slow["sweep"]["axes"]["machine.wan_latency"] = 0.1;
  Json fast = run_record("none", 5, "b");
  fast["sweep"]["axes"]["machine.wan_latency"] = 0.2;
  Json failed = Json{{"schema", "lbbench.failure/1"},
                     {"scenario", "s"},
                     {"engine", "mpi"},
                     {"machine", "local"},
                     {"ranks", 2},
                     {"balancer", "greedy"},
                     {"reason", "exit code 3"},
                     {"sweep", {{"id", "c"}, {"status", "failed"}, {"axes", {{"machine.wan_latency", 0.1}}}}}};
  Json made_good = failed;
  made_good["sweep"]["id"] = "a";
  const Report report = build_report({slow, fast, failed, made_good, slow}, ReportOptions{});
  ASSERT_EQ(report.cases.size(), 2u);
  EXPECT_EQ(report.duplicates, 1);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].id, "c");
  EXPECT_EQ(row_of(report.cases[0], "greedy").failed, 1);
  EXPECT_EQ(row_of(report.cases[0], "greedy").runs, 0);
  const std::string csv = report_csv(report);
  EXPECT_NE(csv.find("s,mpi,local,2,machine.wan_latency=0.1,greedy,0,1,"), std::string::npos) << csv;
}

// The loop's predicted gain against the gain it measured, over the run's total: one
// error per run of `auto`, under the name "gain".
TEST(Report, ScoresTheLoopsGainPredictionOverTheRunsTotal) {
  Json a = run_record("auto", 10, "p");
  a["prediction"] = {{"chosen", "greedy"},
                     {"calls", {{"none", 3}, {"greedy", 2}}},
                     {"predicted_gain_s", 3.0},
                     {"delivered_gain_s", 2.0},
                     {"spent_s", 0.5}};
  const Report report = build_report({run_record("none", 12, "n"), run_record("greedy", 9, "g"), a}, ReportOptions{});
  ASSERT_EQ(report.prediction_errors.size(), 1u);
  EXPECT_EQ(report.prediction_errors[0].balancer, "gain");
  EXPECT_DOUBLE_EQ(report.prediction_errors[0].mean_relative_error, 0.1);
  const RunRecord back = run_record_from_json(a);
  ASSERT_TRUE(back.prediction.has_value());
  EXPECT_EQ(back.prediction->calls, (std::vector<std::pair<std::string, int>>{{"none", 3}, {"greedy", 2}}));
  EXPECT_DOUBLE_EQ(back.prediction->spent_s, 0.5);
}

TEST(Report, ScoresTheModelsPicksAndPredictionErrors) {
  Json with_prediction = run_record("auto", 6, "p1");
  with_prediction["prediction"] = {{"chosen", "greedy"}, {"calls", {{"none", 1}, {"greedy", 3}}}};
  Json wrong = run_record("auto", 6, "p2");
  wrong["prediction"] = {{"chosen", "none"}, {"calls", {{"none", 4}, {"greedy", 0}}}};
  const Report report = build_report(
      {run_record("none", 10, "n"), run_record("greedy", 5, "g"), with_prediction, wrong}, ReportOptions{});
  ASSERT_EQ(report.cases.size(), 1u);
  EXPECT_EQ(report.cases[0].fastest, "greedy");
  EXPECT_EQ(report.cases[0].predictions, 2);
  EXPECT_EQ(report.cases[0].correct, 1);
  EXPECT_TRUE(report.prediction_errors.empty()) << "no gain was predicted";
  // One pick each way: the tie goes to the first name, greedy (measured 5). Against always
  // none (10): (10 - 5) / 10; against always greedy: 0. `auto` itself is not a baseline.
  EXPECT_EQ(report.cases[0].chosen, "greedy");
  ASSERT_EQ(report.gains.size(), 2u);
  EXPECT_EQ(report.gains[0].balancer, "greedy");
  EXPECT_DOUBLE_EQ(report.gains[0].gain, 0);
  EXPECT_EQ(report.gains[1].balancer, "none");
  EXPECT_DOUBLE_EQ(report.gains[1].gain, 0.5);
}

TEST(Report, CountsPicksWithinNoiseOfTheFastest) {
  // tree is 4% slower than greedy: not the fastest, but within 5% of it; none is not.
  auto pick = [](const char* chosen, const char* id) {
    Json r = run_record("auto", 6, id);
    r["prediction"] = {{"chosen", chosen}, {"calls", {{"none", 0}, {"greedy", 0}, {"tree", 0}}}};
    return r;
  };
  const Report report =
      build_report({run_record("none", 10, "n"), run_record("greedy", 5, "g"), run_record("tree", 5.2, "t"),
                    pick("tree", "p1"), pick("none", "p2"), pick("greedy", "p3")},
                   ReportOptions{});
  ASSERT_EQ(report.cases.size(), 1u);
  EXPECT_EQ(report.cases[0].predictions, 3);
  EXPECT_EQ(report.cases[0].correct, 1);
  EXPECT_EQ(report.cases[0].near_best, 2);
  EXPECT_NE(report_markdown(report, ReportOptions{}).find("Within 5% of the fastest: 2 (67%)"), std::string::npos);
}

// Two cases, told apart by their scenario: in "clear" greedy beats tree by 20%, in "tie"
// by 1%. The model picks right in the first and wrong in the second; the report scores
// them in their own rows, with auto's own total against the balancer it picked.
TEST(Report, ScoresNearTiesApartWithBootstrapIntervals) {
  auto in_case = [](Json r, const char* scenario) {
    r["scenario"] = scenario;
    return r;
  };
  auto pick = [&](const char* scenario, const char* chosen, const char* id, double own_total) {
    Json r = in_case(run_record("auto", own_total, id), scenario);
    r["prediction"] = {{"chosen", chosen}, {"calls", {{"greedy", 1}, {"tree", 1}}}};
    return r;
  };
  const Report report =
      build_report({in_case(run_record("greedy", 5, "g1"), "clear"), in_case(run_record("tree", 6, "t1"), "clear"),
                    pick("clear", "greedy", "a1", 5.5), in_case(run_record("greedy", 5, "g2"), "tie"),
                    in_case(run_record("tree", 5.05, "t2"), "tie"), pick("tie", "tree", "a2", 5.05)},
                   ReportOptions{});
  ASSERT_EQ(report.cases.size(), 2u);
  ASSERT_EQ(report.selection.size(), 3u);
  const SelectionAccuracy& all = report.selection[0];
  const SelectionAccuracy& clear = report.selection[1];
  const SelectionAccuracy& ties = report.selection[2];
  EXPECT_EQ(all.cases, 2);
  EXPECT_EQ(all.correct, 1);
  EXPECT_EQ(all.near_best, 2);  // tree is 1% off the fastest
  // Resampling two cases, one right and one wrong, gives 0%, 50% or 100% correct.
  EXPECT_DOUBLE_EQ(all.correct_ci.low, 0);
  EXPECT_DOUBLE_EQ(all.correct_ci.high, 1);
  EXPECT_EQ(clear.cases, 1);
  EXPECT_EQ(clear.correct, 1);
  EXPECT_NEAR(*clear.auto_over_pick_median, 1.1, 1e-12);
  EXPECT_EQ(ties.cases, 1);
  EXPECT_EQ(ties.correct, 0);
  EXPECT_NEAR(*ties.auto_over_pick_max, 1.0, 1e-12);
  EXPECT_NEAR(*all.auto_over_pick_max, 1.1, 1e-12);
  // Against the fastest candidate (greedy in both): 5.5 / 5 and 5.05 / 5.
  EXPECT_NEAR(*clear.auto_over_fastest_mean, 1.1, 1e-12);
  EXPECT_NEAR(*ties.auto_over_fastest_mean, 1.01, 1e-12);
  EXPECT_NEAR(*all.auto_over_fastest_mean, 1.055, 1e-12);
  EXPECT_NEAR(*all.auto_over_fastest_max, 1.1, 1e-12);
  const std::string md = report_markdown(report, ReportOptions{});
  EXPECT_NE(md.find("| 1.055, 1.10 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| near-ties: top two within 2% | 1 | 1 | 0 (0%) [0, 0] |"), std::string::npos) << md;
  EXPECT_NE(md.find("the second 20.0% slower"), std::string::npos) << md;
}

// Where the loop's gain error is measured (here 10% of the run's total), top two 5% apart
// are closer than the model can tell: the case is a near-tie, not a wrong pick.
TEST(Report, TellsNearTiesByTheModelsOwnMeanError) {
  Json a = run_record("auto", 10, "a");
  a["prediction"] = {{"chosen", "tree"},
                     {"calls", {{"greedy", 0}, {"tree", 2}}},
                     {"predicted_gain_s", 3.0},
                     {"delivered_gain_s", 2.0}};
  const Report report = build_report({run_record("greedy", 5, "g"), run_record("tree", 5.25, "t"), a}, ReportOptions{});
  ASSERT_EQ(report.selection.size(), 3u);
  EXPECT_EQ(report.selection[1].cases, 0);
  EXPECT_EQ(report.selection[2].cases, 1);
  const std::string md = report_markdown(report, ReportOptions{});
  EXPECT_NE(md.find("| near-ties: top two within the model's mean error, 10.0% | 1 | 1 | 0 (0%)"), std::string::npos)
      << md;
}

// `auto` against `none` in every case: the largest ratio, and the cases above 3%.
TEST(Report, PrintsAutoOverNoneAndTheCasesItLosesByMoreThanThreePercent) {
  auto in_case = [](Json r, const char* scenario) {
    r["scenario"] = scenario;
    return r;
  };
  auto pick = [&](const char* scenario, double own_total) {
    Json r = in_case(run_record("auto", own_total, scenario), scenario);
    r["prediction"] = {{"chosen", "none"}, {"calls", {{"none", 4}, {"tree", 0}}}};
    return r;
  };
  const Report report = build_report(
      {in_case(run_record("none", 5, "n1"), "a"), in_case(run_record("tree", 6, "t1"), "a"), pick("a", 5.3),
       in_case(run_record("none", 5, "n2"), "b"), in_case(run_record("tree", 6, "t2"), "b"), pick("b", 5.1)},
      ReportOptions{});
  ASSERT_EQ(report.cases.size(), 2u);
  EXPECT_NEAR(*report.cases[0].auto_over_none, 1.06, 1e-12);
  const SelectionAccuracy& all = report.selection[0];
  EXPECT_NEAR(*all.auto_over_none_max, 1.06, 1e-12);
  EXPECT_EQ(all.auto_over_none_above, 1);
  const std::string md = report_markdown(report, ReportOptions{});
  EXPECT_NE(md.find("| 1.060; 1 |"), std::string::npos) << md;
}

TEST(CostFits, RecoversTheCoefficientsOfExactTimes) {
  // 1 ms + 20 ns per vertex + 5 ns per edge + 30 µs per rank, on varied sizes.
  std::vector<CostSample> samples;
  for (const double v : {1e3, 4e3, 16e3, 64e3}) {
    for (const double p : {2.0, 16.0, 128.0}) {
      const double e = v * (p < 10 ? 2 : 3);
      samples.push_back({{v, e, p}, 1e-3 + 20e-9 * v + 5e-9 * e + 30e-6 * p});
    }
  }
  const CostFit fit = fit_linear_cost(samples);
  EXPECT_NEAR(fit.coefficients[0], 1e-3, 1e-9);
  EXPECT_NEAR(fit.coefficients[1], 20e-9, 1e-13);
  EXPECT_NEAR(fit.coefficients[2], 5e-9, 1e-13);
  EXPECT_NEAR(fit.coefficients[3], 30e-6, 1e-10);
  EXPECT_LT(fit.mean_relative_error, 1e-9);
  EXPECT_EQ(fit.sizes, 12);
}

TEST(CostFits, KeepsCoefficientsNonNegativeAndFoldsAConstantTermIntoC0) {
  // Time falls slightly with size (noise, say): no negative per-vertex cost; one rank
  // count, so the per-rank term cannot be told from c0.
  const std::vector<CostSample> samples{{{1e3, 2e3, 4}, 1.00e-3}, {{2e3, 4e3, 4}, 0.99e-3}, {{4e3, 8e3, 4}, 0.98e-3}};
  const CostFit fit = fit_linear_cost(samples);
  for (const double c : fit.coefficients) EXPECT_GE(c, 0);
  EXPECT_NEAR(fit.predict({2e3, 4e3, 4}), 0.99e-3, 0.02e-3);
  EXPECT_GT(fit.mean_relative_error, 0);
}

TEST(CostFits, FitsEachBalancerOnEachPlatformFromRecords) {
  auto record = [](const char* balancer, const char* engine, std::int64_t v, std::vector<double> decisions) {
    RunRecord r;
    r.balancer = balancer;
    r.engine = engine;
    r.machine = "local";
    r.vertices = v;
    r.edges = 2 * v;
    r.ranks = 2;
    for (const double d : decisions) r.lb.emplace_back().decision_s = d;
    return r;
  };
  const std::vector<RunRecord> records{record("greedy", "mpi", 1000, {1e-3, 1e-3}),
                                       record("greedy", "mpi", 2000, {2e-3}), record("greedy", "smpi", 1000, {5e-3}),
                                       record("metis", "mpi", 1000, {4e-3}), record("none", "mpi", 1000, {})};
  std::vector<const RunRecord*> pointers;
  for (const auto& r : records) pointers.push_back(&r);
  const auto fits = fit_decision_costs(pointers);
  ASSERT_EQ(fits.size(), 3U);
  EXPECT_EQ(fits[0].balancer, "greedy");
  EXPECT_EQ(fits[0].platform(), "mpi · local");
  EXPECT_EQ(fits[0].samples, 3);
  EXPECT_EQ(fits[0].sizes, 2);
  EXPECT_NEAR(fits[0].predict({1500, 3000, 2}), 1.5e-3, 1e-9);
  EXPECT_EQ(fits[1].platform(), "smpi · local");
  EXPECT_EQ(fits[2].balancer, "metis");
}

// A run record whose LB calls took 0.5 ms + 2 µs per vertex per rank + 1 µs per arriving
// vertex + 1 ns per arriving payload byte to migrate, for `arriving` vertices per call.
RunRecord migration_record(const char* balancer, std::int64_t vertices, int ranks, double element_bytes,
                           const std::vector<std::int64_t>& arriving) {
  RunRecord r;
  r.balancer = balancer;
  r.engine = "smpi";
  r.machine = "bgq";
  r.vertices = vertices;
  r.edges = 2 * vertices;
  r.ranks = ranks;
  r.config = Json{{"workload", Json{{"element_bytes", element_bytes}}}};
  for (const std::int64_t m : arriving) {
    const auto moved = static_cast<double>(m);
    LbEvent& call = r.lb.emplace_back();
    call.elements_moved_max = m;
    call.decision_s = 1e-3;
    call.migration_s =
        5e-4 + 2e-6 * static_cast<double>(vertices) / ranks + 1e-6 * moved + 1e-9 * moved * element_bytes;
  }
  return r;
}

TEST(CostFits, FitsOneMigrationCostPerPlatformOverEveryBalancersCalls) {
  // Calls that move nothing still pay the engine's fixed work, so they count too; calls of
  // records made before elements_moved_max was recorded cannot, and stay out.
  const std::vector<RunRecord> records{migration_record("greedy", 4096, 16, 1024, {0, 10, 100}),
                                       migration_record("tree", 16384, 32, 4096, {5, 1000}),
                                       migration_record("metis", 8192, 16, 2048, {300, 0})};
  RunRecord old = migration_record("greedy", 4096, 16, 1024, {50});
  old.lb[0].elements_moved_max.reset();
  std::vector<const RunRecord*> pointers{&old};
  for (const auto& r : records) pointers.push_back(&r);
  const auto fits = fit_migration_costs(pointers);
  ASSERT_EQ(fits.size(), 1U);
  EXPECT_EQ(fits[0].balancer, "");
  EXPECT_EQ(fits[0].platform(), "smpi · bgq");
  EXPECT_EQ(fits[0].samples, 7);
  EXPECT_NEAR(fits[0].coefficients[0], 5e-4, 1e-9);
  EXPECT_NEAR(fits[0].coefficients[1], 2e-6, 1e-11);
  EXPECT_NEAR(fits[0].coefficients[2], 1e-6, 1e-11);
  EXPECT_NEAR(fits[0].coefficients[3], 1e-9, 1e-14);
  EXPECT_LT(fits[0].mean_relative_error, 1e-9);
}

TEST(CostFits, TheCostsFileReadsBackAsTheFitsOfEachPlatform) {
  const std::vector<RunRecord> records{migration_record("greedy", 4096, 16, 1024, {0, 10, 100}),
                                       migration_record("tree", 16384, 32, 4096, {5, 1000}),
                                       migration_record("metis", 8192, 16, 2048, {300, 0})};
  std::vector<const RunRecord*> pointers;
  for (const auto& r : records) pointers.push_back(&r);
  const auto decision = fit_decision_costs(pointers);
  const auto migration = fit_migration_costs(pointers);
  const auto path = std::filesystem::temp_directory_path() / "lbbench_test_costs.json";
  std::ofstream(path) << costs_file_json(decision, migration).dump(2);
  const CostsByPlatform read = read_costs_file(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(read.size(), 1U);
  const FittedCosts& costs = read.at({"smpi", "bgq"});
  ASSERT_TRUE(costs.migration.has_value());
  EXPECT_NEAR(costs.migration_s(512, 100, 2048), 5e-4 + 2e-6 * 512 + 1e-6 * 100 + 1e-9 * 100 * 2048, 1e-9);
  ASSERT_NE(costs.decision_of("tree"), nullptr);
  EXPECT_NEAR(costs.decision_of("tree")->seconds(16384, 32768, 32), 1e-3, 1e-9);
  EXPECT_EQ(costs.decision_of("refine"), nullptr);
}

TEST(CostFits, AMalformedCostsFileIsRefusedWithItsLineAndKey) {
  const auto path = std::filesystem::temp_directory_path() / "lbbench_test_bad_costs.json";
  auto error_of = [&](const std::string& text) {
    std::ofstream(path) << text;
    try {
      (void)read_costs_file(path.string());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string fit = R"({"terms": ["call", "vertices", "edges", "ranks"], "coefficients": [1e-3, 0, 0, 0], )"
                          R"("calls": 3, "mean_relative_error": 0.1})";
  EXPECT_THAT(error_of(R"({"schema": "lbbench.costs/2", "platforms": []})"),
              ::testing::HasSubstr("expected schema lbbench.costs/1"));
  EXPECT_THAT(error_of("{\"schema\": \"lbbench.costs/1\",\n \"platforms\": [{\"engine\": \"mpi\", \"machine\": "
                       "\"local\", \"decison\": {}}]}"),
              ::testing::AllOf(::testing::HasSubstr(":2:"), ::testing::HasSubstr("Did you mean 'decision'")));
  EXPECT_THAT(error_of(R"({"schema": "lbbench.costs/1", "platforms": [{"engine": "mpi", "machine": "local", )"
                       R"("migration": )" +
                       fit + "}]}"),
              ::testing::HasSubstr("expected the terms [call, local_vertices, elements_moved_max, bytes_moved_max]"));
  EXPECT_THAT(error_of(R"({"schema": "lbbench.costs/1", "platforms": [{"engine": "mpi", "machine": "local", )"
                       R"("decision": {"greedy": {"terms": ["call", "vertices", "edges", "ranks"], )"
                       R"("coefficients": [1e-3, -1, 0, 0], "calls": 3, "mean_relative_error": 0.1}}}]})"),
              ::testing::HasSubstr("coefficients"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lbbench
