// balancers/README.md documents exactly the params each registered balancer reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "balancers/sdk/registry.hpp"
#include "core/error.hpp"

namespace lbbench {
namespace {

// For each "### `name`" section, the keys in the first column of its table.
std::map<std::string, std::set<std::string>> documented_params() {
  std::ifstream in(std::filesystem::path(LBBENCH_SOURCE_DIR) / "balancers" / "README.md");
  std::map<std::string, std::set<std::string>> out;
  const std::regex heading(R"(^### `([a-z0-9-]+)`)");
  const std::regex row(R"(^\| `([a-z_]+)` \|)");
  std::string line, current;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, heading)) {
      current = m[1];
      out[current];
    } else if (!current.empty() && std::regex_search(line, m, row)) {
      out[current].insert(m[1]);
    }
  }
  return out;
}

TEST(BalancerReference, EveryBalancerAndEveryParamIsDocumented) {
  const auto documented = documented_params();
  for (const auto& info : balancer_table()) {
    SchemaRecorder recorder;
    YAML::Node empty(YAML::NodeType::Map);
    ConfigNode params(empty, "params", &recorder);
    try {
      (void)parse_balancer_config(info, params);
    } catch (const InputError&) {
      // A strategy with a required param (python's module) reads every key before it fails.
    }
    const std::string name(info.name);
    ASSERT_TRUE(documented.contains(name)) << "no section for " << name;
    EXPECT_EQ(documented.at(name), recorder.paths()) << name;
  }
  EXPECT_EQ(documented.size(), balancer_table().size()) << "a section for a balancer that is not registered";
}

}  // namespace
}  // namespace lbbench
