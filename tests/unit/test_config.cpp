// Every class of scenario error gives file:line:column, the key path, what was expected and,
// for misspellings, a suggestion.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {
namespace {

const char* kValid = R"(name: ok
seed: 1
steps: 10
mesh:
  generator: grid2d
  nx: 8
  ny: 8
workload:
  weights:
    model: hotspot
    center: [0.5, 0.5]
balancer:
  name: greedy
  period: 2
)";

// Parses `yaml` named "s.yaml" and returns the error message ("" if it parsed).
std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    YAML::Node root = load_yaml_string(yaml, "s.yaml");
    for (const auto& o : overrides) apply_override(root, o);
    parse_scenario(root, "s.yaml");
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ScenarioErrors, TheValidBaseParses) { EXPECT_EQ(error_of(kValid), ""); }

// Found by fuzzing the sweep file: a key that is no name (empty, a list) was read as "",
// and looking it up added it to the map being walked (a use after free).
TEST(ScenarioErrors, KeysMustBeNames) {
  EXPECT_EQ(error_of("name: a\nsteps: 1\n[x, y]: 2\n"), "s.yaml:3:1: (top level): expected a key name, got a list");
  EXPECT_EQ(error_of("name: a\nsteps: 1\n~: 2\n"), "s.yaml:3:1: (top level): expected a key name, got nothing");
  EXPECT_EQ(error_of("name: a\nsteps: 1\nmesh: {generator: grid2d, {n: 1}: 2}\n"),
            "s.yaml:3:27: mesh: expected a key name, got a mapping");
}

// Found by fuzzing the sweep file: a key with a byte that is not UTF-8 reached the JSON
// of a run's id, whose writer threw something that was no input error.
TEST(ScenarioErrors, TextThatIsNotUtf8IsNamedWhereItStarts) {
  EXPECT_EQ(error_of("name: a\nsteps: 1\nmesh: {generator: grid2d, nx: 2, ny: 2}\nbalancer: {name: tree, p\xbf: {}}\n"),
            "s.yaml:4:25: not UTF-8 text (byte 0xBF); the file must be UTF-8");
  EXPECT_NE(error_of("name: \xc3\x28\n"), "");                             // a cut sequence
  EXPECT_NE(error_of("name: \xed\xa0\x80\n"), "");                         // a surrogate
  EXPECT_NE(error_of("name: \xc0\xaf\n"), "");                             // an overlong form
  EXPECT_EQ(error_of(replace(kValid, "name: ok", "name: bäsé · ✓")), "");  // UTF-8 is fine
}

TEST(ScenarioErrors, MisspelledTopLevelKey) {
  EXPECT_EQ(error_of(replace(kValid, "steps:", "stesp:")),
            "s.yaml:3:1: stesp: unknown key 'stesp'. Did you mean 'steps'? ('steps' is required: an integer in [1, "
            "100000000])");
  EXPECT_EQ(error_of(replace(kValid, "seed:", "sede:")),
            "s.yaml:2:1: sede: unknown key 'sede'. Did you mean 'seed'? Expected one of: balancer, cores, "
            "distribution, forecast, machine, mesh, model, model_error, name, plugins, ranks, reorder, seed, steps, "
            "workload.");
}

TEST(ScenarioErrors, MisspelledNestedKey) {
  const std::string e = error_of(replace(kValid, "  weights:", "  weigths:"));
  EXPECT_NE(e.find("s.yaml:9:3: workload.weigths: unknown key 'weigths'. Did you mean 'weights'?"), std::string::npos)
      << e;
}

TEST(ScenarioErrors, MisspelledKeyForTheChosenGenerator) {
  const std::string e = error_of(replace(kValid, "  ny: 8", "  ny: 8\n  nz: 4"));
  EXPECT_NE(e.find("s.yaml:8:3: mesh.nz: unknown key 'nz'."), std::string::npos) << e;
}

TEST(ScenarioErrors, WrongType) {
  EXPECT_EQ(error_of(replace(kValid, "steps: 10", "steps: ten")),
            "s.yaml:3:8: steps: expected an integer in [1, 100000000], got 'ten'");
  const std::string list = error_of(replace(kValid, "center: [0.5, 0.5]", "center: 0.5"));
  EXPECT_NE(list.find("s.yaml:11:13: workload.weights.center: expected a list of 1 to 3 numbers, got '0.5'"),
            std::string::npos)
      << list;
  const std::string map = error_of(replace(kValid, "mesh:\n  generator: grid2d\n  nx: 8\n  ny: 8", "mesh: grid2d"));
  EXPECT_NE(map.find("s.yaml:4:7: mesh: expected the mesh section (a mapping of keys), got 'grid2d'"),
            std::string::npos)
      << map;
}

TEST(ScenarioErrors, OutOfRange) {
  EXPECT_EQ(error_of(replace(kValid, "period: 2", "period: 0")),
            "s.yaml:14:11: balancer.period: expected an integer >= 1, got 0");
  const std::string e = error_of(replace(kValid, "center: [0.5, 0.5]", "center: [0.5, 1.5]"));
  EXPECT_NE(e.find("s.yaml:11:19: workload.weights.center[1]: expected a number in [0, 1], got 1.5"), std::string::npos)
      << e;
}

TEST(ScenarioErrors, MissingRequiredKey) {
  const std::string e = error_of(replace(kValid, "  nx: 8\n", ""));
  EXPECT_NE(e.find("s.yaml:5:3: mesh: missing required key 'nx' (an integer >= 1)"), std::string::npos) << e;
  const std::string top = error_of("name: x\nsteps: 1\n");
  EXPECT_NE(top.find("s.yaml:1:1: (top level): missing required key 'mesh'"), std::string::npos) << top;
}

TEST(ScenarioErrors, UnknownNameWithSuggestion) {
  const std::string gen = error_of(replace(kValid, "generator: grid2d", "generator: grid2"));
  EXPECT_NE(gen.find("s.yaml:5:14: mesh.generator: unknown value 'grid2'. Did you mean 'grid2d'? Expected one of: "
                     "grid2d, grid3d, geometric, droplets"),
            std::string::npos)
      << gen;
  const std::string balancer = error_of(replace(kValid, "name: greedy", "name: greedyy"));
  EXPECT_NE(balancer.find("s.yaml:13:9: balancer.name: unknown balancer 'greedyy'. Did you mean 'greedy'?"),
            std::string::npos)
      << balancer;
  const std::string model = error_of(replace(kValid, "model: hotspot", "model: hotpsot"));
  EXPECT_NE(model.find("Did you mean 'hotspot'?"), std::string::npos) << model;
  const std::string forecast = error_of(std::string(kValid) + "forecast: trnd\n");
  EXPECT_NE(forecast.find("s.yaml:15:11: forecast: unknown value 'trnd'. Did you mean 'trend'?"), std::string::npos)
      << forecast;
}

const char* kBlockMesh = R"(name: blocks
steps: 20
mesh:
  generator: octree
  min_level: 1
  max_level: 4
  front: {shape: sphere, radius: 0.2}
)";

// A block mesh's keys: what belongs to which front, what the levels allow, which
// distributions can place its blocks, and ids that would run out.
TEST(ScenarioErrors, BlockMeshes) {
  EXPECT_EQ(error_of(kBlockMesh), "");
  const std::string misspelled = error_of(replace(kBlockMesh, "generator: octree", "generator: octre"));
  EXPECT_NE(misspelled.find("s.yaml:4:14: mesh.generator: unknown value 'octre'. Did you mean 'octree'?"),
            std::string::npos)
      << misspelled;
  const std::string levels = error_of(replace(kBlockMesh, "max_level: 4", "max_level: 0"));
  EXPECT_NE(levels.find("s.yaml:6:14: mesh.max_level: must be at least min_level (1)"), std::string::npos) << levels;
  const std::string deep = error_of(replace(kBlockMesh, "max_level: 4", "max_level: 17"));
  EXPECT_NE(deep.find("mesh.max_level: expected an integer in [0, 16], got 17"), std::string::npos) << deep;
  const std::string shape = error_of(replace(kBlockMesh, "radius: 0.2", "axis: 1"));
  EXPECT_NE(shape.find("mesh.front.axis: is a plane front's key; this front's shape is sphere"), std::string::npos)
      << shape;
  const std::string key = error_of(replace(kBlockMesh, "radius: 0.2", "radius: 0.2, sped: 0.1"));
  EXPECT_NE(key.find("mesh.front.sped: unknown key 'sped'. Did you mean 'speed'?"), std::string::npos) << key;
  const std::string center = error_of(replace(kBlockMesh, "radius: 0.2", "center: [0.5, 0.5]"));
  EXPECT_NE(center.find("mesh.front.center: has 2 entries but the mesh is 3-D"), std::string::npos) << center;
  const std::string plane_axis = error_of(
      replace(replace(kBlockMesh, "octree", "quadtree"), "{shape: sphere, radius: 0.2}", "{shape: plane, axis: 2}"));
  EXPECT_NE(plane_axis.find("mesh.front.axis: expected an integer in [0, 1], got 2"), std::string::npos) << plane_axis;
  // Every regrid's blocks take ids never used before: 16 levels of an octree leave room
  // for some 28,000 regrids.
  const std::string ids =
      error_of(replace(replace(kBlockMesh, "steps: 20", "steps: 100000"), "max_level: 4", "max_level: 16"));
  EXPECT_NE(ids.find("mesh.max_level: 16 levels and 49999 regrids need block ids beyond 2^63"), std::string::npos)
      << ids;
  const std::string sfc = error_of(std::string(kValid) + "distribution: sfc\n");
  EXPECT_NE(sfc.find("distribution: sfc cuts the blocks of an octree or quadtree mesh"), std::string::npos) << sfc;
  const std::string curve = error_of(std::string(kBlockMesh) + "distribution: {kind: sfc, curve: hilbrt}\n");
  EXPECT_NE(curve.find("distribution.curve: unknown value 'hilbrt'. Did you mean 'hilbert'?"), std::string::npos)
      << curve;
  const std::string file = error_of(std::string(kBlockMesh) + "distribution: {kind: file, file: p.part}\n");
  EXPECT_NE(file.find("a partition file gives a rank per vertex id in order"), std::string::npos) << file;
  const Scenario defaults = parse_scenario(YAML::Load(kBlockMesh), "s.yaml");
  EXPECT_EQ(defaults.distribution.kind, DistributionKind::sfc) << "a block mesh starts along a curve";
  EXPECT_EQ(std::get<OctreeSpec>(defaults.mesh).period, 2);
}

TEST(ScenarioErrors, UnknownBalancerParam) {
  const std::string e = error_of(replace(kValid, "period: 2", "period: 2\n  params: {tolerance: 1.1}"));
  EXPECT_NE(e.find("s.yaml:15:12: balancer.params.tolerance: unknown key 'tolerance'. This mapping takes no keys."),
            std::string::npos)
      << e;
}

TEST(ScenarioErrors, DuplicateKey) {
  const std::string e = error_of(replace(kValid, "seed: 1", "seed: 1\nseed: 2"));
  EXPECT_NE(e.find("s.yaml:3:1: seed: key 'seed' appears twice"), std::string::npos) << e;
}

TEST(ScenarioErrors, YamlSyntax) {
  const std::string e = error_of("name: x\nsteps: [1, 2\n");
  EXPECT_NE(e.find("s.yaml:3:1: YAML syntax error"), std::string::npos) << e;
}

TEST(ScenarioErrors, ContradictoryKeys) {
  const std::string both = error_of(replace(kValid, "  generator: grid2d", "  generator: grid2d\n  file: a.graph"));
  EXPECT_NE(both.find("mesh: give either 'generator' or 'file', not both"), std::string::npos) << both;
  const std::string drift = error_of(replace(kValid, "    model: hotspot\n    center: [0.5, 0.5]",
                                             "    model: uniform\n  evolution: {kind: drift, velocity: [0.1, 0]}"));
  EXPECT_NE(drift.find("workload.evolution.kind: drift moves a spatial load field"), std::string::npos) << drift;
  const std::string still = error_of(replace(kValid, "balancer:", "  evolution: drift\nbalancer:"));
  EXPECT_NE(still.find("workload.evolution: drift needs a velocity"), std::string::npos) << still;
  const std::string phases = error_of(replace(
      kValid, "balancer:", "  evolution: {kind: phases, phases: [{steps: 2, weights: {model: uniform}}]}\nbalancer:"));
  EXPECT_NE(phases.find("workload.weights: with evolution.kind phases, each phase gives its own weights"),
            std::string::npos)
      << phases;
  // The trend forecast extrapolates measured times; a weight model has none to fit.
  EXPECT_EQ(error_of(std::string(kValid) + "model: weights\nforecast: trend\n"),
            "s.yaml:16:11: forecast: the trend forecast extrapolates measured times; it needs model: measured (not "
            "weights)");
  const std::string dim = error_of(replace(kValid, "center: [0.5, 0.5]", "center: [0.5, 0.5, 0.5]"));
  EXPECT_NE(dim.find("workload.weights.center: has 3 entries but the mesh is 2-D"), std::string::npos) << dim;
}

TEST(ScenarioErrors, CommandLineOverrides) {
  EXPECT_EQ(error_of(kValid, {"steps=4", "balancer=none", "workload.weights.peak=3"}), "");
  const std::string e = error_of(kValid, {"steps=many"});
  EXPECT_NE(e.find("--set: steps: expected an integer"), std::string::npos) << e;
  const std::string key = error_of(kValid, {"workload.wieghts.peak=3"});
  EXPECT_NE(key.find("--set: workload.wieghts: unknown key 'wieghts'. Did you mean 'weights'?"), std::string::npos)
      << key;
  EXPECT_NE(error_of(kValid, {"no-equals-sign"}).find("expected key.path=value"), std::string::npos);
}

}  // namespace
}  // namespace lbbench
