// Loads that move through the mesh: the motion fitted to the trends, the loads carried
// along it, the critical path of ranks out of step, and `auto`'s forecast of `none` from
// them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>

#include "balancers/model/auto.hpp"
#include "balancers/model/motion.hpp"
#include "balancers/model/params.hpp"
#include "core/config.hpp"

namespace lbbench {
namespace {

constexpr int kSide = 20;  // objects per axis
constexpr double kUnit = 1e-6;

// A hot spot of radius 3 cells around (10, 10, center_z) over a floor of 1, in units of kUnit.
double spot(double x, double y, double z, double center_z) {
  const double d2 = (x - 10) * (x - 10) + (y - 10) * (y - 10) + (z - center_z) * (z - center_z);
  return kUnit * (1 + 15 * std::exp(-d2 / 9));
}

// A kSide^3 grid with coordinates in cells, in blocks of z-slabs over `ranks` ranks, the
// loads `load(x, y, z)` and the trends `trend(x, y, z)`.
using Field = std::function<double(double, double, double)>;
GlobalProblem grid(int ranks, const Field& load, const Field& trend) {
  GlobalProblem p;
  p.nranks = ranks;
  p.coord_dims = 3;
  p.element_bytes = 1024;
  const int n = kSide * kSide * kSide;
  auto index = [](int x, int y, int z) { return x + kSide * (y + kSide * z); };
  p.xadj.push_back(0);
  for (int z = 0; z < kSide; ++z) {
    for (int y = 0; y < kSide; ++y) {
      for (int x = 0; x < kSide; ++x) {
        const int i = index(x, y, z);
        p.id.emplace_back(i);
        p.load.emplace_back(load(x, y, z));
        p.load_trend.push_back(trend(x, y, z));
        p.owner.emplace_back(i * ranks / n);
        p.coords.insert(p.coords.end(), {double(x), double(y), double(z)});
        for (const auto [dx, dy, dz] :
             {std::array{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}) {
          const int a = x + dx, b = y + dy, c = z + dz;
          if (a < 0 || b < 0 || c < 0 || a >= kSide || b >= kSide || c >= kSide) continue;
          p.adjncy.push_back(index(a, b, c));
        }
        p.xadj.push_back(static_cast<std::int64_t>(p.adjncy.size()));
      }
    }
  }
  p.adj_bytes.assign(p.adjncy.size(), 64);
  return p;
}

// A spot at z = 6 moving up by `speed` cells per step, as the engine shows it: the loads as
// of the call, each object's trend the central difference of its load a step either side.
// It stays inside the box over the steps the tests look at: what the motion carries out at
// the top and back in at the bottom is the floor's load.
GlobalProblem drifting(int ranks, double speed) {
  return grid(
      ranks, [](double x, double y, double z) { return spot(x, y, z, 6); },
      [speed](double x, double y, double z) { return (spot(x, y, z, 6 + speed) - spot(x, y, z, 6 - speed)) / 2; });
}

TEST(Motion, FitsTheVelocityOfADriftingHotSpot) {
  const std::optional<Motion> m = fit_motion(drifting(8, 0.3));
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->velocity.size(), 3U);
  EXPECT_NEAR(m->velocity[0], 0.0, 0.01);
  EXPECT_NEAR(m->velocity[1], 0.0, 0.01);
  EXPECT_NEAR(m->velocity[2], 0.3, 0.03);
  EXPECT_GT(m->fit_r2, 0.9);
  EXPECT_GT(m->objects_fitted, 1000);
}

TEST(Motion, ExplainsLittleOfLoadsThatGrowInPlace) {
  const GlobalProblem growing = grid(
      8, [](double x, double y, double z) { return spot(x, y, z, 10); },
      [](double x, double y, double z) { return 0.05 * (spot(x, y, z, 10) - kUnit); });
  const std::optional<Motion> m = fit_motion(growing);
  ASSERT_TRUE(m.has_value());
  EXPECT_LT(m->fit_r2, 0.1);
}

TEST(Motion, NeedsCoordinatesTrendsAndTheGraph) {
  GlobalProblem p = drifting(8, 0.3);
  p.coords.clear();
  p.coord_dims = 0;
  EXPECT_FALSE(fit_motion(p).has_value());
  p = drifting(8, 0.3);
  p.load_trend.clear();
  EXPECT_FALSE(fit_motion(p).has_value());
}

TEST(Motion, CarriesTheLoadsAlongTheMotion) {
  const GlobalProblem p = drifting(8, 0.3);
  const Motion m{{0.0, 0.0, 0.3}, 1.0, 0};
  const auto times = moved_rank_times(p, m, 20);
  ASSERT_EQ(times.size(), 20U);
  // Each rank's load t steps on is that of the spot at z = 6 + 0.3 t, within what the
  // coarse grid blurs where its cells straddle two ranks' slabs; the hottest rank moves on.
  for (const int t : {1, 10, 20}) {
    std::vector<double> truth(8, 0.0);
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double* x = &p.coords[3 * i];
      truth[static_cast<std::size_t>(p.owner[i].value())] += spot(x[0], x[1], x[2], 6 + 0.3 * t);
    }
    const std::vector<double>& forecast = times[static_cast<std::size_t>(t - 1)];
    for (std::size_t r = 0; r < 8; ++r)
      EXPECT_NEAR(forecast[r], truth[r], 0.08 * truth[r]) << "rank " << r << " t " << t;
    EXPECT_EQ(std::max_element(forecast.begin(), forecast.end()) - forecast.begin(),
              std::max_element(truth.begin(), truth.end()) - truth.begin());
  }
}

TEST(Motion, TheCriticalPathLetsRanksRunOutOfStep) {
  // Two neighbor ranks whose loads take turns: in step they would take 2 + 2, but each
  // waits only for the other's messages, which left as its last step ended.
  EXPECT_DOUBLE_EQ(critical_path_s(std::vector<std::vector<double>>{{2, 1}, {1, 2}}, {{1}, {0}}), 3.0);
  // A rank that waits: rank 2's second step ends once rank 1's first has (at 5).
  EXPECT_DOUBLE_EQ(critical_path_s(std::vector<std::vector<double>>{{0, 5, 0}, {0, 0, 1}}, {{1}, {0, 2}, {1}}), 5.0);
  // Ranks that are no one's neighbors take their own sums.
  EXPECT_DOUBLE_EQ(critical_path_s(std::vector<std::vector<double>>{{2, 1}, {1, 2}, {4, 0}}, {{}, {}}), 7.0);
}

// `auto`'s decision with `none` and the other candidate, over `steps_left` steps at
// period 8.
Json decision_of_none_and(const std::string& other, GlobalProblem p, int steps_left) {
  ConfigNode node(YAML::Load(fmt::format("{{candidates: [none, {}], redecide: 0, explore_budget: 1000}}", other)),
                  "test");
  const AutoBalancer a(AutoParams::parse(node));
  p.code_time_scale = 1e-6;  // the candidates' decisions cost their network, whatever the host's speed
  p.period = 8;
  p.steps_left = steps_left;
  p.later_calls = steps_left / 8 - 1;
  p.trend_origin = 0;
  (void)a.decide_serially(p, nullptr);
  return a.decision();
}

Json none_as_auto_prices_it(const GlobalProblem& p, int steps_left) {
  return decision_of_none_and("tree", p, steps_left)["candidates"]["none"];
}

TEST(Auto, PricesNoneAlongTheMotionOfItsLoads) {
  const GlobalProblem p = drifting(16, 0.3);
  const Json none = none_as_auto_prices_it(p, 24);
  ASSERT_EQ(none["steps_forecast"]["kind"], "moving");
  EXPECT_NEAR(none["steps_forecast"]["velocity_per_step"][2].get<double>(), 0.3, 0.03);
  // The truth: the critical path of the ranks' loads as the spot really moves on.
  std::vector<std::vector<double>> truth;
  for (int t = 1; t <= 24; ++t) {
    std::vector<double> loads(16, 0.0);
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double* x = &p.coords[3 * i];
      loads[static_cast<std::size_t>(p.owner[i].value())] += spot(x[0], x[1], x[2], 6 + 0.3 * t);
    }
    truth.push_back(loads);
  }
  std::vector<std::vector<int>> chain(16);
  for (int r = 0; r < 16; ++r) {
    if (r > 0) chain[static_cast<std::size_t>(r)].push_back(r - 1);
    if (r < 15) chain[static_cast<std::size_t>(r)].push_back(r + 1);
  }
  const double real = critical_path_s(truth, chain);
  EXPECT_NEAR(none["to_end_s"].get<double>(), real, 0.05 * real);
  // The paper's steps x L_max is well above it: the spot leaves the ranks it is on now.
  EXPECT_GT(none["steps_forecast"]["peak_to_end_s"].get<double>(), 1.15 * real);
}

TEST(Auto, FitsTheMotionOnlyWhereItCouldChangeTheChoice) {
  // Greedy scatters the grid and each object carries a megabyte: `none` wins at the peak
  // already, so the decision does not pay for fitting the motion.
  GlobalProblem p = drifting(16, 0.3);
  p.element_bytes = 1 << 20;
  const Json d = decision_of_none_and("greedy", p, 24);
  EXPECT_EQ(d["chosen"], "none");
  EXPECT_EQ(d["candidates"]["none"]["steps_forecast"]["kind"], "trend");
  EXPECT_FALSE(d["candidates"]["none"]["steps_forecast"].contains("fit_r2"));
}

TEST(Auto, KeepsNoneAtLmaxWhereTheLoadsStayPut) {
  const GlobalProblem still = grid(
      16, [](double x, double y, double z) { return spot(x, y, z, 6); }, [](double, double, double) { return 0.0; });
  const Json none = none_as_auto_prices_it(still, 24);
  EXPECT_EQ(none["steps_forecast"]["kind"], "trend");
  EXPECT_FALSE(none["steps_forecast"].contains("fit_r2"));  // nothing moves enough to fit
  const std::vector<double> t = rank_times(still, still.owner);
  EXPECT_NEAR(none["to_end_s"].get<double>(), 24 * *std::max_element(t.begin(), t.end()), 1e-15);
}

}  // namespace
}  // namespace lbbench
