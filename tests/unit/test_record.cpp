// The typed run record: it reads the records the engines write, writes them back field for
// field, names the field of a broken one, and the reporters make their text from it alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "app/reporters.hpp"
#include "core/error.hpp"
#include "record/run_record.hpp"
#include "replay/lb_points.hpp"
#include "replay/record_builder.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(LBBENCH_SOURCE_DIR) / "tests" / "fixtures" / "smpi-records";

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> fixture_cases() {
  std::vector<std::string> out;
  for (const auto& c : nlohmann::json::parse(text_of(kFixtures / "cases.json"))) out.push_back(c["name"]);
  return out;
}

// Key order is not part of the contract: compare as unordered JSON.
nlohmann::json unordered(const Json& j) { return nlohmann::json::parse(j.dump()); }

TEST(RunRecord, ReadsAndWritesBackEveryFieldOfRealRecords) {
  for (const auto& name : fixture_cases()) {
    const Json original = Json::parse(text_of(kFixtures / (name + ".record.json")));
    const RunRecord r = run_record_from_json(original);
    EXPECT_EQ(unordered(to_json(r)), unordered(original)) << name;
  }
}

TEST(RunRecord, TheConsoleSummaryIsMadeFromTheRecordAlone) {
  for (const auto& name : fixture_cases()) {
    const RunRecord r = run_record_from_json(Json::parse(text_of(kFixtures / (name + ".record.json"))));
    EXPECT_EQ(console_summary(r), text_of(kFixtures / (name + ".summary.txt"))) << name;
  }
}

TEST(RunRecord, NamesTheMissingOrMistypedField) {
  Json j = Json::parse(text_of(kFixtures / "tree-bgq.record.json"));
  Json missing = j;
  missing.erase("total_time_s");
  EXPECT_THAT([&] { (void)run_record_from_json(missing); },
              testing::ThrowsMessage<InputError>(testing::HasSubstr("'total_time_s' is missing")));
  Json mistyped = j;
  mistyped["lb"][1]["migrations"] = "many";
  EXPECT_THAT([&] { (void)run_record_from_json(mistyped); },
              testing::ThrowsMessage<InputError>(testing::HasSubstr("'lb[1].migrations' holds \"many\"")));
  Json other = j;
  other["schema"] = "lbbench.run/2";
  EXPECT_THAT([&] { (void)run_record_from_json(other); },
              testing::ThrowsMessage<InputError>(testing::HasSubstr("is not lbbench.run/1")));
}

TEST(RunRecord, AnOwnersDigestKeepsAll64Bits) {
  Json j = Json::parse(text_of(kFixtures / "tree-bgq.record.json"));
  j["lb"][0]["owners_digest"] = "fedcba9876543210";
  const RunRecord r = run_record_from_json(j);
  EXPECT_EQ(r.lb.at(0).owners_digest, 0xfedcba9876543210ULL);
  EXPECT_EQ(to_json(r).at("lb").at(0).at("owners_digest"), "fedcba9876543210");
  j["lb"][0]["owners_digest"] = "fedcba98765432";
  EXPECT_THAT([&] { (void)run_record_from_json(j); },
              testing::ThrowsMessage<InputError>(testing::HasSubstr("'lb[0].owners_digest' holds \"fedcba98765432\"")));
}

TEST(RunRecord, ReadsRecordsMadeBeforeLaterFields) {
  Json j = Json::parse(text_of(kFixtures / "metis-cluster.record.json"));
  for (auto& call : j["lb"]) call.erase("elements_moved_max");
  j.erase("per_step");
  j.erase("perfect_balance_time_s");
  const RunRecord r = run_record_from_json(j);
  EXPECT_FALSE(r.lb.at(0).elements_moved_max.has_value());
  EXPECT_TRUE(r.per_step.imbalance.empty());
  EXPECT_FALSE(to_json(r).at("lb").at(0).contains("elements_moved_max"));
}

// A block mesh's LB calls see the blocks the regrids left, which the cost fits take as the
// call's size; another mesh's calls see the mesh as it started.
TEST(RunRecord, ACallsMeshSizeIsTheOneTheRegridsLeft) {
  const RunRecord blocks = run_record_from_json(Json::parse(text_of(kFixtures / "amr3d-tree.record.json")));
  ASSERT_TRUE(blocks.regrid.has_value());
  ASSERT_FALSE(blocks.lb.empty());
  for (const LbEvent& call : blocks.lb) {
    const auto [vertices, edges] = mesh_size_at_call(blocks, call.step);
    EXPECT_EQ(vertices, blocks.per_step.vertices.at(static_cast<std::size_t>(call.step) + 1));
    EXPECT_EQ(edges, blocks.per_step.edges.at(static_cast<std::size_t>(call.step) + 1));
    EXPECT_GT(vertices, blocks.vertices) << "the growing front split blocks before the call after step " << call.step;
  }
  const RunRecord grid = run_record_from_json(Json::parse(text_of(kFixtures / "tree-bgq.record.json")));
  EXPECT_EQ(mesh_size_at_call(grid, grid.lb.at(0).step), std::make_pair(grid.vertices, grid.edges));
}

// vt's LBStatsfile beside a replayed trace: its imbalance per phase reads back, and the
// summary prints it beside the steps' for the first four, then the largest difference.
TEST(RunRecord, VtsRecordedImbalanceRoundTripsAndIsPrintedBesideTheSteps) {
  Json j = Json::parse(text_of(kFixtures / "tree-bgq.record.json"));
  j["per_step"]["imbalance"] = {0.5, 0.25, 0.125, 0.4, 0.1, 0.2};  // the fixture's 6 steps
  Json recorded = Json::array();
  for (int k = 0; k < 6; ++k) {
    const double vt = k == 3 ? 0.7 : j["per_step"]["imbalance"][static_cast<std::size_t>(k)].get<double>() + 0.01;
    recorded.push_back(Json{{"step", k}, {"phase", 10 + k}, {"imbalance", vt}});
  }
  j["trace"] = Json{{"files", 16},
                    {"ranks", 16},
                    {"phases", 6},
                    {"subphases", 0},
                    {"tasks", 16384},
                    {"pinned", 0},
                    {"mapping", "one to one"},
                    {"stats_file", "/t/stats.json"},
                    {"recorded_statistic", "Rank_load_raw"},
                    {"recorded_imbalance", recorded}};
  const RunRecord r = run_record_from_json(j);
  EXPECT_EQ(unordered(to_json(r)), unordered(j));
  ASSERT_EQ(r.trace->recorded_imbalance.size(), 6U);
  EXPECT_EQ(r.trace->recorded_imbalance[3], (RecordedImbalance{3, 13, 0.7}));
  const std::string summary = console_summary(r);
  EXPECT_THAT(summary,
              testing::HasSubstr("\n  vt's LBStatsfile (pre-LB Rank_load_raw imb, max/avg - 1): 0.5100 at phase "
                                 "10, 0.2600 at phase 11, 0.1350 at phase 12, 0.7000 at phase 13, ...; this "
                                 "replay: 0.5000, 0.2500, 0.1250, 0.4000, ...\n"));
  EXPECT_THAT(summary, testing::HasSubstr("\n  over the 6 phases vt recorded and this run replays: the replay differs "
                                          "by up to 0.3000 (phase 13)\n"));
  // A run of fewer steps than the trace has phases: those it ran, no summary.
  j["per_step"]["imbalance"] = {0.5, 0.25};
  const std::string short_run = console_summary(run_record_from_json(j));
  EXPECT_THAT(short_run, testing::HasSubstr("0.5100 at phase 10, 0.2600 at phase 11; this replay: 0.5000, 0.2500\n"));
  EXPECT_THAT(short_run, testing::Not(testing::HasSubstr("over the")));
  // On another rank count than vt's, the line says so.
  j["ranks"] = 8;
  EXPECT_THAT(console_summary(run_record_from_json(j)),
              testing::HasSubstr("at phase 11; this replay on 8 ranks (vt's on 16): 0.5000, 0.2500\n"));
  // Without a stats file, no field and no line.
  j["trace"].erase("stats_file");
  j["trace"].erase("recorded_statistic");
  j["trace"].erase("recorded_imbalance");
  const RunRecord plain = run_record_from_json(j);
  EXPECT_FALSE(to_json(plain).at("trace").contains("recorded_imbalance"));
  EXPECT_THAT(console_summary(plain), testing::Not(testing::HasSubstr("LBStatsfile")));
}

TEST(RunRecord, FailureRecordsRoundTrip) {
  FailureRecord f;
  f.scenario = "s";
  f.balancer = "tree";
  f.engine = "smpi";
  f.machine = "bgq";
  f.ranks = 64;
  f.exit_code = 3;
  f.reason = "a broken invariant stopped the run (exit 3)";
  f.error_tail = {"lbbench: error: ..."};
  f.sweep.emplace();
  f.sweep->name = "w";
  f.sweep->id = "abc";
  f.sweep->index = 2;
  f.sweep->engine = "smpi";
  f.sweep->status = "failed";
  const Json j = to_json(f);
  EXPECT_EQ(j["schema"], kFailureSchema);
  EXPECT_TRUE(is_failure_record(j));
  EXPECT_FALSE(is_run_record(j));
  EXPECT_EQ(unordered(to_json(failure_record_from_json(j))), unordered(j));
}

// `auto`'s loop weighs only the candidates that call, yet a point without a call runs
// none: the record counts none among the choices even where no point chose it, so that
// the report can find none the fastest.
TEST(RunRecord, AutosChoicesCountNoneWhereNoPointChoseIt) {
  const std::string quickstart = std::string(LBBENCH_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const std::vector<std::string> overrides{"balancer.name=auto"};
  const Scenario s = load_scenario(quickstart, overrides);
  const auto steps = static_cast<std::size_t>(s.steps);
  StepTotals totals;
  totals.compute_max.assign(steps, 1.0);
  totals.compute_sum.assign(steps, 1.0);
  totals.wall_max.assign(steps, 1.0);
  totals.wait_sum.assign(steps, 0.0);
  totals.total_time = totals.compute_mean = totals.compute_max_rank = static_cast<double>(steps);
  const Json greedy = {{"chosen", "greedy"}, {"weighed", {{"greedy", Json::object()}, {"tree", Json::object()}}}};
  const RunRecord r = assemble_record(RecordFacts{.scenario = s,
                                                  .engine = "model",
                                                  .ranks = 1,
                                                  .nodes = 1,
                                                  .sites = 1,
                                                  .vertices = 0,
                                                  .edges = 0,
                                                  .components = {},
                                                  .initial = {},
                                                  .final = {},
                                                  .simulation = std::nullopt,
                                                  .provenance = {},
                                                  .choices = {greedy, greedy},
                                                  .regrids = {},
                                                  .live_blocks = {},
                                                  .live_edges = {}},
                                      totals, {});
  ASSERT_TRUE(r.prediction.has_value());
  EXPECT_EQ(r.prediction->chosen, "greedy");
  const auto& calls = r.prediction->calls;
  const auto none = std::find_if(calls.begin(), calls.end(), [](const auto& c) { return c.first == "none"; });
  ASSERT_NE(none, calls.end()) << "none is missing from the choices";
  EXPECT_EQ(none->second, 0);
}

// A balancer that looks before it calls and skips `skips[k]` points after its k-th look.
class Skipping : public Balancer {
 public:
  explicit Skipping(std::vector<int> skips) : skips_(std::move(skips)) {}
  MigrationPlan plan(const LoadView& /*view*/, MPI_Comm /*comm*/) override { return {}; }
  Acting acting_for(const CallOutlook& /*call*/) override {
    const int skip = looks_ < skips_.size() ? skips_[looks_] : 0;
    ++looks_;
    return {*this, Json::object(), skip};
  }
  [[nodiscard]] bool looks_before_calls() const override { return true; }
  [[nodiscard]] bool promised_nothing_moves() const override { return true; }

 private:
  std::vector<int> skips_;
  std::size_t looks_ = 0;
};

// The steps after which looks start and points are taken, over the whole run.
std::pair<std::vector<int>, std::vector<int>> walk(const Scenario& s, LbPoints& points) {
  std::vector<int> starts, taken;
  for (int step = 0; step < s.steps; ++step) {
    if (points.look_starts(step)) starts.push_back(step);
    if (!points.takes_point(step)) continue;
    taken.push_back(step);
    EXPECT_EQ(points.calling([] { return CallOutlook{}; }), nullptr);
  }
  return {starts, taken};
}

// Period 8 over 60 steps: points after steps 7, 15, ..., 55. A look starts half the stretch
// to its point ahead of it: half a period where no point is skipped, and 8 steps ahead of
// a point 16 steps on. None starts for a point the run never reaches.
TEST(LbPoints, ALookLeadsItsPointByHalfTheStretchToIt) {
  const std::string quickstart = std::string(LBBENCH_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const std::vector<std::string> overrides{"balancer.name=auto", "balancer.period=8", "steps=60"};
  const Scenario s = load_scenario(quickstart, overrides);
  Skipping balancer({0, 1, 0, 5});
  LbPoints points(s, balancer);
  const auto [starts, taken] = walk(s, points);
  EXPECT_EQ(taken, (std::vector<int>{7, 15, 31, 39}));
  EXPECT_EQ(starts, (std::vector<int>{3, 11, 23, 35}));
}

}  // namespace
}  // namespace lbbench
