// The application model's forecast of measured loads (replay/load_model.hpp).
#include <gtest/gtest.h>

#include <vector>

#include "core/config.hpp"
#include "replay/load_model.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {
namespace {

Scenario scenario_with(const std::string& forecast) {
  const std::string text =
      "name: f\nsteps: 10\nmesh: {generator: grid2d, nx: 3, ny: 1}\n"
      "balancer: {name: greedy, period: 4}\nforecast: " +
      forecast + "\n";
  return parse_scenario(load_yaml_string(text, "f.yaml"), "f.yaml");
}

// Three vertices measured over the 4 steps since the last call (i = 1..4): one rising by
// 0.5 a step from 1.5, one steady at 2, one falling by 2 from 6 to 0.
struct Measured {
  std::vector<std::vector<double>> per_step{{1.5, 2.0, 2.5, 3.0}, {2, 2, 2, 2}, {6, 4, 2, 0}};
  std::vector<std::vector<double>> phase_time{std::vector<double>(3, 0.0)};  // Σ y_i
  std::vector<std::vector<double>> summed{std::vector<double>(3, 0.0)};      // Σ_j Σ_{i≤j} y_i
  Measured() {
    for (std::size_t step = 0; step < 4; ++step) {
      for (std::size_t v = 0; v < 3; ++v) {
        phase_time[0][v] += per_step[v][step];
        summed[0][v] += phase_time[0][v];
      }
    }
  }
};

std::vector<double> told(const Scenario& s, const Measured& m, int step) {
  LocalGraph g;
  g.global_vertices = 3;
  g.gid = {VertexId{0}, VertexId{1}, VertexId{2}};
  g.xadj = {0, 0, 0, 0};
  const std::vector<std::int64_t> everyone = all_positions(g);
  const MachineInfo machine = MachineInfo::uniform(1);
  const std::vector<std::vector<double>> weights{std::vector<double>(3, 1.0)};
  const std::vector<Load> loads = modeled_vertex_loads(LoadModelInputs{.scenario = s,
                                                                       .graph = g,
                                                                       .vertices = everyone,
                                                                       .machine = machine,
                                                                       .weights = weights,
                                                                       .phase_time = m.phase_time,
                                                                       .steps_since_last_call = 4,
                                                                       .phase_time_summed = &m.summed,
                                                                       .step = step});
  std::vector<double> out;
  for (const Load l : loads) out.push_back(l.seconds());
  return out;
}

TEST(LoadForecast, TheMeanIsTheStepsAverage) {
  const std::vector<double> loads = told(scenario_with("mean"), Measured{}, 3);
  EXPECT_DOUBLE_EQ(loads[0], 2.25);
  EXPECT_DOUBLE_EQ(loads[1], 2.0);
  EXPECT_DOUBLE_EQ(loads[2], 3.0);
}

TEST(LoadForecast, TheTrendIsTheLineAveragedOverTheStepsUntilTheNextCall) {
  // After step 3 of 10 with period 4 the next call comes after step 7: steps i = 5..8,
  // where the rising vertex's line 1 + 0.5 i averages 1 + 0.5 * 6.5.
  const std::vector<double> loads = told(scenario_with("trend"), Measured{}, 3);
  EXPECT_NEAR(loads[0], 4.25, 1e-12);
  EXPECT_NEAR(loads[1], 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(loads[2], 0.0);  // its line falls below zero: no load, not a negative one
}

TEST(LoadForecast, TheTrendStopsAtTheRunsEnd) {
  // After step 7 of 10 only steps 8 and 9 remain: i = 5, 6, where the line averages 1 + 0.5 * 5.5.
  const std::vector<double> loads = told(scenario_with("trend"), Measured{}, 7);
  EXPECT_NEAR(loads[0], 3.75, 1e-12);
}

}  // namespace
}  // namespace lbbench
