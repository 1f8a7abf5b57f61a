// Shipped scenarios, the normalized form, and the scenario reference kept true.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>

#include "scenario/scenario.hpp"

namespace lbbench {
namespace {

namespace fs = std::filesystem;

// The recorded runs the shipped trace scenarios replay: LBBENCH_TRACES_DIR, or the shared
// traces next to the project; empty when neither is there.
std::string traces_dir() {
  if (const char* env = std::getenv("LBBENCH_TRACES_DIR"); env && fs::is_directory(env)) return env;
  const fs::path shared = fs::path(LBBENCH_SOURCE_DIR) / ".." / "shared" / "traces";
  return fs::is_directory(shared) ? shared.lexically_normal().string() : "";
}

bool replays_a_trace(const fs::path& scenario) {
  const YAML::Node mesh = YAML::LoadFile(scenario.string())["mesh"];
  return mesh.IsMap() && mesh["format"] && mesh["format"].as<std::string>() == "lbdatafile";
}

// Every shipped scenario this machine can load: one that replays a recorded run needs the
// traces, and is left out (with a note in the test's output) where they are absent.
std::vector<fs::path> shipped_scenarios() {
  const std::string traces = traces_dir();
  if (!traces.empty()) setenv("LBBENCH_TRACES_DIR", traces.c_str(), 1);
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(LBBENCH_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    if (traces.empty() && replays_a_trace(entry.path())) {
      std::cout << "note: " << entry.path().filename().string()
                << " is not checked: it replays a recorded run, and the traces (../shared/traces or "
                   "LBBENCH_TRACES_DIR) are absent\n";
      continue;
    }
    out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ShippedScenarios, AtLeastQuickstartAndOnePerEvolutionKind) {
  std::set<std::string> kinds;
  bool quickstart = false;
  for (const auto& path : shipped_scenarios()) {
    const Scenario s = load_scenario(path.string());
    kinds.insert(std::string(evolution_name(s.workload.evolution)));
    quickstart |= path.filename() == "quickstart.yaml";
  }
  EXPECT_TRUE(quickstart);
  std::set<std::string> expected{"static", "drift", "amr", "phases"};
  if (!traces_dir().empty()) expected.insert("trace");
  EXPECT_EQ(kinds, expected);
  EXPECT_GE(shipped_scenarios().size(), 6u);
}

TEST(ShippedScenarios, NormalizedFormParsesBackToItself) {
  for (const auto& path : shipped_scenarios()) {
    const Scenario s = load_scenario(path.string());
    const std::string yaml = to_yaml(normalized(s));
    const Scenario again = parse_scenario(YAML::Load(yaml), path.string());
    EXPECT_EQ(normalized(again), normalized(s)) << path;
    EXPECT_EQ(scenario_sha256(again), scenario_sha256(s)) << path;
  }
}

TEST(Normalized, HashChangesWithAnyValue) {
  const std::string path = (fs::path(LBBENCH_SOURCE_DIR) / "scenarios" / "quickstart.yaml").string();
  const Scenario a = load_scenario(path);
  const std::vector<std::string> one{"workload.weights.peak=13"};
  const Scenario b = load_scenario(path, one);
  EXPECT_NE(scenario_sha256(a), scenario_sha256(b));
  EXPECT_EQ(scenario_sha256(a), scenario_sha256(load_scenario(path)));
}

TEST(Overrides, ShorthandsExpandIntoMappings) {
  const std::string path = (fs::path(LBBENCH_SOURCE_DIR) / "scenarios" / "hotspot.yaml").string();
  const std::vector<std::string> sets{"balancer=none", "balancer.period=3", "distribution.axis=1",
                                      "distribution.kind=strips", "steps=4"};
  const Scenario s = load_scenario(path, sets);
  EXPECT_EQ(s.balancer.name(), "none");
  EXPECT_EQ(s.balancer.period, 3);
  EXPECT_EQ(s.distribution.kind, DistributionKind::strips);
  EXPECT_EQ(s.distribution.axis, 1);
  EXPECT_EQ(s.steps, 4);
}

// Scenarios that together make the parser read every key it knows.
const std::vector<std::string> kEveryVariant = {
    R"(name: a
seed: 1
steps: 2
ranks: 2
mesh: {generator: grid2d, nx: 2, ny: 2}
workload:
  unit_seconds: 1.0e-6
  weights: {model: uniform, min: 1, max: 2}
  evolution: {kind: static}
  edge_bytes: 8
  element_bytes: 8
  messages: per-neighbor
  schedule: message-driven
distribution: {kind: strips, axis: 1}
balancer: {name: greedy, period: 1, params: {}}
machine: {preset: local, sites: 2, speeds: [1, 2]}
model: weights
cores: [1, 1]
reorder: {method: dist, t: 8}
)",
    R"(name: v
steps: 2
mesh: {generator: grid2d, nx: 2, ny: 2}
workload:
  components:
    - {name: a, weights: {model: uniform}, evolution: {kind: amr}}
    - {name: b, evolution: {kind: phases, phases: [{steps: 1, weights: {model: lognormal}}]}}
)",
    R"(name: b
steps: 2
mesh: {generator: grid3d, nx: 2, ny: 2, nz: 2}
workload:
  weights: {model: hotspot, base: 1, peak: 2, radius: 0.1, center: [0.1, 0.2, 0.3]}
  evolution: {kind: drift, velocity: [0.1, 0, 0]}
distribution: {kind: file, file: x.part}
)",
    R"(name: c
steps: 2
mesh: {generator: geometric, n: 10, dim: 3, radius: 0.2}
workload:
  weights: {model: lognormal, mu: 0, sigma: 1}
  evolution: {kind: amr, period: 2, regions: 1, radius: 0.1, factor: 2, levels: 2}
)",
    R"(name: d
steps: 2
mesh: {generator: droplets, n: 10, dim: 2, radius: 0.1, droplets: 2, droplet_radius: 0.1, fraction: 0.5}
workload:
  evolution:
    kind: phases
    cycle: false
    phases:
      - {steps: 1, weights: {model: gradient, axis: 1, from: 1, to: 2}}
      - {steps: 1, weights: {model: from-file, component: 0, scale: 2}}
)",
    R"(name: e
steps: 2
mesh: {file: x.graph, format: chaco, coords: x.coords}
machine: {preset: grid-2site, wan_latency: 0.01, processes_per_core: 2, latency: 2e-6, bandwidth: 5e9}
model: weights-no-comm
)",
    R"(name: f
steps: 2
mesh: {generator: grid2d, nx: 4, ny: 4}
model: counts
model_error: {noise: 0.3, omit: 0.15}
)",
    R"(name: g
steps: 4
mesh: {generator: grid2d, nx: 4, ny: 4}
forecast: trend
)",
    R"(name: h
steps: 9
mesh:
  generator: octree
  min_level: 1
  max_level: 4
  period: 3
  front: {shape: sphere, center: [0.5, 0.5, 0.5], radius: 0.2, speed: 0.01, buffer: 1.5}
distribution: {kind: sfc, curve: hilbert}
)",
    R"(name: i
steps: 4
mesh:
  generator: quadtree
  front: {shape: plane, axis: 1, position: 0.2, speed: -0.05}
)",
};

// Key paths documented in a reference table's first column: rows starting "| `key` |".
std::set<std::string> documented_keys() {
  std::ifstream in(fs::path(LBBENCH_SOURCE_DIR) / "scenarios" / "README.md");
  std::set<std::string> out;
  const std::regex row(R"(^\| `([a-z_.\[\]]+)` \|)");
  std::string line;
  bool in_reference = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_reference = true;  // the shipped-scenario table comes before
    std::smatch m;
    if (in_reference && std::regex_search(line, m, row)) out.insert(m[1]);
  }
  return out;
}

// A mesh collection can live apart from the scenarios, as the traces do: a relative
// mesh.file not next to the scenario is looked for in LBBENCH_MESHES_DIR, and one next to
// it wins.
TEST(ScenarioFiles, AMeshFileNotNextToTheScenarioIsLookedForInTheMeshesFolder) {
  const fs::path root = fs::temp_directory_path() / "lbbench-meshes-dir-test";
  fs::remove_all(root);
  fs::create_directories(root / "scenarios");
  fs::create_directories(root / "meshes");
  std::ofstream(root / "meshes" / "pair.graph") << "2 1\n2\n1\n";
  const std::string yaml = "name: t\nsteps: 2\nmesh: {file: pair.graph}\n";
  const std::string scenario = (root / "scenarios" / "t.yaml").string();
  auto resolved = [&] { return std::get<MeshFileSpec>(parse_scenario(YAML::Load(yaml), scenario).mesh).resolved; };
  unsetenv("LBBENCH_MESHES_DIR");
  EXPECT_EQ(resolved(), (root / "scenarios" / "pair.graph").string());  // the reader will name it
  setenv("LBBENCH_MESHES_DIR", (root / "meshes").c_str(), 1);
  EXPECT_EQ(resolved(), (root / "meshes" / "pair.graph").string());
  std::ofstream(root / "scenarios" / "pair.graph") << "2 1\n2\n1\n";
  EXPECT_EQ(resolved(), (root / "scenarios" / "pair.graph").string());
  // A name the system refuses to look up (longer than a file name may be) is a file that
  // is not there, for the reader to name, not a filesystem exception.
  const std::string too_long(300, 'm');
  const std::string refused = "name: t\nsteps: 2\nmesh: {file: " + too_long + "}\n";
  EXPECT_EQ(std::get<MeshFileSpec>(parse_scenario(YAML::Load(refused), scenario).mesh).resolved,
            (root / "scenarios" / too_long).string());
  unsetenv("LBBENCH_MESHES_DIR");
  fs::remove_all(root);
}

TEST(ScenarioReference, DocumentsExactlyTheKeysTheParserReads) {
  SchemaRecorder recorder;
  for (const auto& yaml : kEveryVariant) {
    EXPECT_NO_THROW(parse_scenario(YAML::Load(yaml), "variant.yaml", &recorder)) << yaml;
  }
  // A recorded run's keys; the trace only has to exist to be parsed.
  const fs::path trace = fs::temp_directory_path() / "lbbench-reference-trace";
  fs::create_directories(trace);
  const std::string replay = "name: t\nsteps: 2\nmesh: {file: " + trace.string() +
                             ", format: lbdatafile}\nworkload:\n  weights: {model: trace, subphase: rest, scale: 2}\n"
                             "  evolution: {kind: trace, after_last: hold}\ndistribution: trace\n";
  EXPECT_NO_THROW(parse_scenario(YAML::Load(replay), "variant.yaml", &recorder)) << replay;
  std::set<std::string> read;
  const std::string phase_weights = "workload.evolution.phases[].weights.";
  const std::string component = "workload.components[].";
  for (std::string key : recorder.paths()) {
    // A component's weights and evolution are documented once, as workload.weights.* and
    // workload.evolution.*; so are a phase's weights.
    if (key.rfind(component + "weights.", 0) == 0 || key.rfind(component + "evolution.", 0) == 0) {
      key = "workload." + key.substr(component.size());
    }
    if (key.rfind(phase_weights, 0) == 0) key = "workload.weights." + key.substr(phase_weights.size());
    read.insert(key);
  }
  const std::set<std::string> documented = documented_keys();
  for (const auto& key : read) EXPECT_TRUE(documented.contains(key)) << "read but not documented: " << key;
  for (const auto& key : documented) EXPECT_TRUE(read.contains(key)) << "documented but never read: " << key;
}

}  // namespace
}  // namespace lbbench
