// The typed run record: it reads the records the engines write, writes them back field for
// field, names the field of a broken one, and the reporters make their text from it alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/reporters.hpp"
#include "core/error.hpp"
#include "record/run_record.hpp"

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

}  // namespace
}  // namespace lbbench
