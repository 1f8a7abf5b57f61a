// Vertex weights: deterministic in (vertex, position, step, seed), and each evolution does
// what it says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "workload/load_field.hpp"

namespace lbbench {
namespace {

// A unit-box "mesh" description: only the global facts LoadField reads.
LocalGraph unit_box(int dim, int ncon = 0) {
  LocalGraph g;
  g.global_vertices = 1000;
  g.dim = dim;
  g.ncon = ncon;
  for (int a = 0; a < dim; ++a) g.bounds.hi[a] = 1.0;
  return g;
}

WorkloadSpec workload(WeightModel w, Evolution e = StaticEvolution{}) {
  WorkloadSpec s;
  s.weights = std::move(w);
  s.evolution = std::move(e);
  return s;
}

double at(const LoadField& f, std::int64_t id, std::vector<double> x, int step, std::vector<double> fw = {}) {
  return f.weight(VertexId{id}, x, fw, step);
}

TEST(LoadField, RandomModelsAreDeterministicPerSeedAndVertex) {
  const LocalGraph g = unit_box(2);
  const LoadField a(workload(LognormalWeights{0.0, 1.0}), g, 7);
  const LoadField b(workload(LognormalWeights{0.0, 1.0}), g, 7);
  const LoadField other(workload(LognormalWeights{0.0, 1.0}), g, 8);
  int differing = 0;
  for (std::int64_t v = 0; v < 100; ++v) {
    EXPECT_EQ(at(a, v, {0.3, 0.3}, 0), at(b, v, {0.9, 0.1}, 5)) << "static: position and step do not matter";
    differing += at(a, v, {0, 0}, 0) != at(other, v, {0, 0}, 0);
  }
  EXPECT_GT(differing, 95);
}

TEST(LoadField, UniformStaysInRangeAndLognormalHasItsMedian) {
  const LocalGraph g = unit_box(2);
  const LoadField u(workload(UniformWeights{2.0, 5.0}), g, 1);
  const LoadField l(workload(LognormalWeights{1.0, 0.5}), g, 1);
  std::vector<double> lw;
  double umin = 1e9, umax = 0;
  for (std::int64_t v = 0; v < 20000; ++v) {
    const double w = at(u, v, {0, 0}, 0);
    umin = std::min(umin, w);
    umax = std::max(umax, w);
    lw.push_back(at(l, v, {0, 0}, 0));
  }
  EXPECT_GE(umin, 2.0);
  EXPECT_LE(umax, 5.0);
  EXPECT_LT(umin, 2.01);
  EXPECT_GT(umax, 4.99);
  std::nth_element(lw.begin(), lw.begin() + 10000, lw.end());
  EXPECT_NEAR(lw[10000], std::exp(1.0), 0.05 * std::exp(1.0));
}

TEST(LoadField, HotspotPeaksAtItsCenterAndGradientSpansItsEnds) {
  const LocalGraph g = unit_box(2);
  const LoadField h(workload(HotspotWeights{1.0, 9.0, 0.1, {0.25, 0.75}}), g, 1);
  EXPECT_DOUBLE_EQ(at(h, 0, {0.25, 0.75}, 0), 10.0);
  EXPECT_NEAR(at(h, 0, {0.95, 0.05}, 0), 1.0, 1e-9);
  EXPECT_NEAR(at(h, 0, {0.35, 0.75}, 0), 1.0 + 9.0 * std::exp(-1.0), 1e-9);
  const LoadField gr(workload(GradientWeights{1, 2.0, 6.0}), g, 1);
  EXPECT_DOUBLE_EQ(at(gr, 0, {0.9, 0.0}, 0), 2.0);
  EXPECT_DOUBLE_EQ(at(gr, 0, {0.1, 1.0}, 0), 6.0);
  EXPECT_DOUBLE_EQ(at(gr, 0, {0.1, 0.5}, 0), 4.0);
}

TEST(LoadField, PositionsAreNormalizedToTheBoundingBox) {
  LocalGraph g = unit_box(2);
  g.bounds.lo = {10, 20, 0};
  g.bounds.hi = {30, 60, 0};
  const LoadField gr(workload(GradientWeights{0, 0.0, 1.0}), g, 1);
  EXPECT_DOUBLE_EQ(at(gr, 0, {15, 25}, 0), 0.25);
}

TEST(LoadField, DriftMovesTheFieldAndWrapsAround) {
  const LocalGraph g = unit_box(2);
  const HotspotWeights spot{1.0, 9.0, 0.1, {0.5, 0.5}};
  const LoadField f(workload(spot, DriftEvolution{{0.1, 0.0}}), g, 1);
  EXPECT_DOUBLE_EQ(at(f, 0, {0.5, 0.5}, 0), 10.0);
  EXPECT_DOUBLE_EQ(at(f, 0, {0.8, 0.5}, 3), 10.0);
  EXPECT_NEAR(at(f, 0, {0.1, 0.5}, 6), 10.0, 1e-9) << "0.5 + 0.6 wraps to 0.1";
  EXPECT_LT(at(f, 0, {0.5, 0.5}, 3), 2.0);
  // Periodic distance: just across the wall from the spot is close to it.
  const LoadField edge(workload(HotspotWeights{1.0, 9.0, 0.1, {0.02, 0.5}}, DriftEvolution{{0.0, 0.0}}), g, 1);
  EXPECT_NEAR(at(edge, 0, {0.98, 0.5}, 0), at(edge, 0, {0.06, 0.5}, 0), 1e-9);
}

TEST(LoadField, AmrRefinesRegionsThatChangeEveryPeriod) {
  const LocalGraph g = unit_box(2);
  const LoadField f(workload(UniformWeights{1.0, 1.0}, AmrEvolution{5, 3, 0.2, 4.0, 2}), g, 11);
  // Sample a grid of positions; weights are 1, 4 or 16 and constant within a period.
  int refined_changes = 0;
  int refined = 0;
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 40; ++j) {
      const std::vector<double> x{(i + 0.5) / 40, (j + 0.5) / 40};
      const double w0 = at(f, 0, x, 0);
      EXPECT_TRUE(w0 == 1.0 || w0 == 4.0 || w0 == 16.0) << w0;
      EXPECT_EQ(at(f, 0, x, 4), w0) << "same epoch";
      refined += w0 > 1.0;
      refined_changes += at(f, 0, x, 5) != w0;
    }
  }
  EXPECT_GT(refined, 40) << "three regions of radius 0.2 cover a real share of the box";
  EXPECT_GT(refined_changes, 40) << "a new epoch refines elsewhere";
}

TEST(LoadField, PhasesSwitchAtTheirBoundariesAndCycle) {
  const LocalGraph g = unit_box(2);
  PhasesEvolution p;
  p.phases = {{2, UniformWeights{1.0, 1.0}}, {3, UniformWeights{7.0, 7.0}}};
  p.cycle = true;
  const LoadField f(workload(UniformWeights{}, p), g, 1);
  const std::vector<double> expected{1, 1, 7, 7, 7, 1, 1, 7};
  for (int s = 0; s < 8; ++s) EXPECT_EQ(at(f, 0, {0, 0}, s), expected[s]) << "step " << s;
  p.cycle = false;
  const LoadField once(workload(UniformWeights{}, p), g, 1);
  EXPECT_EQ(at(once, 0, {0, 0}, 50), 7.0);
}

TEST(LoadField, FileWeightsNeedTheFileToHaveThem) {
  EXPECT_THROW(LoadField(workload(FileWeights{0, 1.0}), unit_box(2, 0), 1), InputError);
  EXPECT_THROW(LoadField(workload(FileWeights{2, 1.0}), unit_box(2, 2), 1), InputError);
  const LoadField f(workload(FileWeights{1, 0.5}), unit_box(2, 2), 1);
  EXPECT_EQ(at(f, 0, {0, 0}, 0, {4.0, 6.0}), 3.0);
}

TEST(LoadField, WithoutCoordinatesThePositionIsTheScaledVertexId) {
  const LocalGraph g = unit_box(0);
  const LoadField gr(workload(GradientWeights{0, 0.0, 1.0}), g, 1);
  EXPECT_NEAR(at(gr, 0, {}, 0), 0.0005, 1e-12);
  EXPECT_NEAR(at(gr, 999, {}, 0), 0.9995, 1e-12);
  EXPECT_THROW(LoadField(workload(HotspotWeights{1, 1, 0.1, {0.5, 0.5}}), g, 1), InputError)
      << "a 2-D center for a mesh whose positions are 1-D";
}

}  // namespace
}  // namespace lbbench
