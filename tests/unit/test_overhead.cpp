// calibrate --overhead's arithmetic: the peak rate at large granularity and the METG(50%)
// crossing, interpolated on a log scale (Task Bench's definition).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engines/mpi/overhead.hpp"

namespace lbbench {
namespace {

// A replay whose step is the work plus a fixed floor, and a bare loop with half that floor.
std::vector<OverheadPoint> floor_model(double replay_floor) {
  std::vector<OverheadPoint> points{{.work_s = 0, .replay_step_s = replay_floor, .bare_step_s = replay_floor / 2}};
  for (double w = 0.0625e-6; w < 1.1e-3; w *= 2) {
    points.push_back({.work_s = w, .replay_step_s = w + replay_floor, .bare_step_s = w + replay_floor / 2});
  }
  return points;
}

TEST(Overhead, ThePeakIsBothLoopsRateAtLargeGranularity) {
  const auto points = floor_model(1e-6);
  // The last four points lose at most a 1/128 of their rate to the floor.
  EXPECT_NEAR(peak_rate(points), 1.0, 1.0 / 128);
  EXPECT_LT(peak_rate(points), 1.0);
  // A bare loop slowed at its largest tasks alone (the host was busy) moves the common
  // peak less than its own would have moved.
  auto noisy = points;
  for (std::size_t i = noisy.size() - 4; i < noisy.size(); ++i) noisy[i].bare_step_s *= 1.5;
  EXPECT_GT(peak_rate(noisy), 0.75);
}

TEST(Overhead, MetgIsWhereTheEfficiencyCrossesOneHalf) {
  // With step = w + f, the efficiency w / (w + f) is one half at w = f, a granularity of 2f;
  // the points around it are w = f/2 and 2f, so the log interpolation lands near 2f.
  const double f = 1e-6;
  const auto points = floor_model(f);
  const double metg = efficiency_crossing(points, true, 0.5);
  EXPECT_NEAR(metg, 2 * f, 0.1 * f);
  // Half the floor, half the METG.
  EXPECT_NEAR(efficiency_crossing(points, false, 0.5), f, 0.05 * f);
  // A higher level needs coarser tasks.
  EXPECT_GT(efficiency_crossing(points, true, 0.9), metg);
}

TEST(Overhead, AReplayEfficientAtItsSmallestTaskHasNoCrossingToReport) {
  const auto points = floor_model(1e-12);
  EXPECT_TRUE(std::isnan(efficiency_crossing(points, true, 0.5)));
}

}  // namespace
}  // namespace lbbench
