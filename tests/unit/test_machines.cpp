// Machine presets: every shipped preset loads and lays out any rank count consistently.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "machine/preset.hpp"

namespace lbbench {
namespace {

const std::string kScenario = std::string(LBBENCH_SOURCE_DIR) + "/scenarios/quickstart.yaml";

std::vector<std::string> presets() {
  auto names = machine_preset_names(kScenario);
  names.erase(names.begin());  // "local" has no file
  return names;
}

TEST(MachinePresets, TheFourShippedPresetsLoad) {
  EXPECT_EQ(presets(), (std::vector<std::string>{"bgp", "bgq", "cluster-ib", "grid-2site"}));
  const MachinePreset bgq = load_machine_preset("bgq", kScenario);
  EXPECT_EQ(bgq.cores, 16);
  EXPECT_DOUBLE_EQ(bgq.core_flops(), 12.8e9);
  EXPECT_EQ(load_machine_preset("grid-2site", kScenario).sites, 2);
}

// Koenig & Kalé's sites were two halves of one cluster with a delay device between them:
// each cross-site flow keeps the network's bandwidth instead of sharing one link.
TEST(MachinePresets, TheGridsWideAreaLinkIsPerFlow) {
  MachinePreset grid = load_machine_preset("grid-2site", kScenario);
  EXPECT_FALSE(grid.wan_shared);
  const RankLayout l = plan_layout(grid, 8);
  EXPECT_NE(platform_xml(grid, l).find(R"(id="wan")"), std::string::npos);
  EXPECT_NE(platform_xml(grid, l).find(R"(sharing_policy="FATPIPE")"), std::string::npos);
  EXPECT_EQ(grid.to_json().at("wan_sharing"), "per-flow");
  grid.wan_shared = true;
  EXPECT_NE(platform_xml(grid, l).find(R"(sharing_policy="SHARED")"), std::string::npos);
  EXPECT_FALSE(grid.to_json().contains("wan_sharing"));
}

TEST(MachinePresets, UnknownNamesGetASuggestion) {
  try {
    load_machine_preset("bgqq", kScenario);
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Did you mean 'bgq'?"), std::string::npos) << e.what();
  }
}

class Layouts : public testing::TestWithParam<std::string> {};

TEST_P(Layouts, EveryRankCountFitsAndTheFilesAgree) {
  const MachinePreset p = load_machine_preset(GetParam(), kScenario);
  for (int n : {1, 2, 7, 64, 1000, 4096}) {
    const RankLayout l = plan_layout(p, n);
    ASSERT_EQ(static_cast<int>(l.rank_host.size()), n);
    std::map<int, int> per_host;
    for (int r = 0; r < n; ++r) {
      const int host = l.rank_host[static_cast<std::size_t>(r)];
      const int site = l.rank_site[static_cast<std::size_t>(r)];
      EXPECT_GE(host, site * l.hosts_per_site);
      EXPECT_LT(host, (site + 1) * l.hosts_per_site);
      ++per_host[host];
    }
    for (const auto& [host, count] : per_host) EXPECT_LE(count, p.cores) << "host " << host;
    EXPECT_GE(l.hosts_per_site, l.nodes_per_site);
    if (p.topology == Topology::torus) {
      int product = 1;
      for (int d : l.torus_shape) {
        product *= d;
        if (l.torus_shape.size() > 1) {
          EXPECT_GT(d, 1) << "no dimension of size 1";
        }
      }
      EXPECT_EQ(product, l.hosts_per_site);
      EXPECT_LE(static_cast<int>(l.torus_shape.size()), p.torus_dims);
    }
    // Sites split the ranks in contiguous halves.
    const auto first_remote = std::find(l.rank_site.begin(), l.rank_site.end(), 1) - l.rank_site.begin();
    if (p.sites == 2 && n >= 2) {
      EXPECT_EQ(first_remote, (n + 1) / 2);
    }
    const std::string xml = platform_xml(p, l);
    EXPECT_NE(xml.find("<platform version=\"4.1\">"), std::string::npos);
    EXPECT_NE(xml.find(R"(radical="0-)" + std::to_string(l.hosts_per_site - 1) + "\""), std::string::npos);
    if (p.sites > 1) {
      EXPECT_NE(xml.find("<zoneRoute"), std::string::npos);
    }
    const std::string hosts = hostfile(p, l);
    EXPECT_EQ(std::count(hosts.begin(), hosts.end(), '\n'), n);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, Layouts, testing::ValuesIn(presets()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(MachinePresets, BlueGeneQKeepsItsFixedDimension) {
  const MachinePreset p = load_machine_preset("bgq", kScenario);
  const RankLayout l = plan_layout(p, 16 * 512);  // 512 nodes: 4 x 4 x 4 x 4 x 2
  EXPECT_EQ(l.torus_shape, (std::vector<int>{4, 4, 4, 4, 2}));
}

TEST(MachinePresets, ProcessesPerCoreFillEachNodeThatManyTimesOver) {
  MachinePreset p = load_machine_preset("bgp", kScenario);  // 4 cores per node
  p.processes_per_core = 3;
  const RankLayout l = plan_layout(p, 30);
  EXPECT_EQ(l.nodes_per_site, 3);  // 12, 12 and 6 ranks
  std::map<int, int> per_host;
  for (int host : l.rank_host) ++per_host[host];
  EXPECT_EQ(per_host, (std::map<int, int>{{0, 12}, {1, 12}, {2, 6}}));
  // The platform still declares 4 cores a node: the ranks share them.
  EXPECT_NE(platform_xml(p, l).find(R"(core="4")"), std::string::npos);
  EXPECT_EQ(p.to_json()["processes_per_core"], 3);
}

TEST(MachinePresets, StackGuardPagesGoOnlyPastTheKernelsMappingLimit) {
  constexpr long long kDefaultLimit = 65530;
  EXPECT_EQ(guard_page_setting(16384, kDefaultLimit, {}), std::nullopt);
  EXPECT_EQ(guard_page_setting(32768, kDefaultLimit, {}), "contexts/guard-size:0");
  EXPECT_EQ(guard_page_setting(32768, 262144, {}), std::nullopt);  // a raised limit keeps them
  // The user's own choice wins.
  EXPECT_EQ(guard_page_setting(32768, kDefaultLimit, {"smpi/simulate-computation:no", "contexts/guard-size:1"}),
            std::nullopt);
}

TEST(MachinePresets, TheSimulatorKeepsFreedSmallBlocksPerSizeUnlessTheUserChoseHowMany) {
  EXPECT_EQ(simulator_glibc_tunables(""), "glibc.malloc.tcache_count=65535");
  // The user's other settings stay, and theirs come first.
  EXPECT_EQ(simulator_glibc_tunables("glibc.malloc.check=3"), "glibc.malloc.check=3:glibc.malloc.tcache_count=65535");
  EXPECT_EQ(simulator_glibc_tunables("glibc.malloc.tcache_count=7"), "glibc.malloc.tcache_count=7");
}

}  // namespace
}  // namespace lbbench
