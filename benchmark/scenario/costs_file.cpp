// Reads costs files (see costs_file.hpp). JSON is YAML, so the strict YAML reader gives
// its errors their file, line and column.
#include "scenario/costs_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "core/config.hpp"

namespace lbbench {

namespace {

FittedCost read_fit(ConfigNode node, std::span<const std::string_view> terms) {
  node.expect_map("a fit: {terms, coefficients, calls, mean_relative_error}");
  const auto listed = node.at("terms", "the names of the fit's terms");
  std::vector<std::string> names;
  for (const auto& t : listed.elements("a list of term names")) names.push_back(t.as_string());
  if (!std::equal(names.begin(), names.end(), terms.begin(), terms.end())) {
    std::string expected;
    for (const auto& t : terms) expected += (expected.empty() ? "" : ", ") + std::string(t);
    listed.fail(fmt::format("expected the terms [{}] (a file from another version of lbbench?)", expected));
  }
  FittedCost fit;
  const auto c = node.numbers("coefficients", std::nullopt, terms.size(), terms.size(), 0.0);
  std::copy(c.begin(), c.end(), fit.coefficients.begin());
  // Provenance of the fit, for readers: checked, not used.
  (void)node.integer("calls", std::nullopt, 1);
  (void)node.number("mean_relative_error", std::nullopt, 0.0);
  node.finish();
  return fit;
}

FittedCosts read_platform(ConfigNode node) {
  FittedCosts out;
  if (auto decision = node.find("decision")) {
    decision->expect_map("a mapping from balancer names to their decision-cost fits");
    for (const auto& kv : decision->yaml()) {
      const auto name = kv.first.as<std::string>();
      out.decision.emplace(name, read_fit(decision->at(name, "a fit"), kDecisionTerms));
    }
  }
  if (auto migration = node.find("migration")) out.migration = read_fit(*migration, kMigrationTerms);
  return out;
}

}  // namespace

CostsByPlatform read_costs_file(const std::string& path) {
  ConfigNode root(load_yaml_file(path), path);
  root.expect_map("a costs file, as `lbbench report --costs-out` writes it");
  const std::string schema = root.string("schema");
  if (schema != kCostsSchema) {
    root.at("schema", "").fail(fmt::format("expected schema {}, got {}", kCostsSchema, schema));
  }
  CostsByPlatform out;
  for (auto platform : root.at("platforms", "a list of platforms").elements("a list of platforms")) {
    platform.expect_map("a platform: {engine, machine, decision, migration}");
    std::pair key{platform.string("engine"), platform.string("machine")};
    FittedCosts costs = read_platform(platform);
    platform.finish();
    if (!out.emplace(key, std::move(costs)).second) {
      platform.fail(fmt::format("platform {} · {} is listed twice", key.first, key.second));
    }
  }
  root.finish();
  return out;
}

}  // namespace lbbench
