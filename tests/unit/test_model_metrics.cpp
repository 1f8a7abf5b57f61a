// Pearce et al.'s load metrics (Figure 1, equations 1-4) and rank correlation (equation 13)
// against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "balancers/model/metrics.hpp"

namespace lbbench {
namespace {

TEST(LoadMoments, MatchHandComputedValues) {
  // mean 4; deviations -3 -2 -1 0 6: sum of squares 50, cubes 180, fourth powers 1394.
  const std::vector<double> loads{1, 2, 3, 4, 10};
  const LoadMoments m = load_moments(loads);
  EXPECT_DOUBLE_EQ(m.mean, 4);
  EXPECT_DOUBLE_EQ(m.max, 10);
  EXPECT_DOUBLE_EQ(m.max_over_avg, 2.5);
  EXPECT_DOUBLE_EQ(m.imbalance_pct, 150);
  EXPECT_NEAR(m.sigma, std::sqrt(10.0), 1e-12);
  ASSERT_TRUE(m.skewness && m.kurtosis);
  EXPECT_NEAR(*m.skewness, 36 / std::pow(10.0, 1.5), 1e-12);
  EXPECT_NEAR(*m.kurtosis, 278.8 / 100 - 3, 1e-12);
}

TEST(LoadMoments, ASymmetricDistributionHasNoSkewAndTwoPointsHaveKurtosisMinusTwo) {
  const LoadMoments m = load_moments(std::vector<double>{1, 3, 1, 3});
  EXPECT_NEAR(*m.skewness, 0, 1e-15);
  EXPECT_NEAR(*m.kurtosis, -2, 1e-12);
}

TEST(LoadMoments, ABalancedLoadHasNoShape) {
  const LoadMoments m = load_moments(std::vector<double>{0.1, 0.1, 0.1});
  EXPECT_NEAR(m.imbalance_pct, 0, 1e-12);
  EXPECT_NEAR(m.sigma, 0, 1e-15);
  EXPECT_FALSE(m.skewness);
  EXPECT_FALSE(m.kurtosis);
}

// Table 1, cases (c) and (d), with the paper's loads: eight processes in a line, one
// overloaded by half and one half idle. In (c) they are neighbors; in (d) they are at
// opposite ends. The moments cannot tell them apart (the paper's λ = 50%, σ = 0.25,
// g1 = 0, g2 = 1), although (d) takes seven diffusion hops to fix and (c) one.
TEST(LoadMoments, TableOneCasesCAndDAgree) {
  const std::vector<double> c{0.5, 1.5, 1, 1, 1, 1, 1, 1};
  const std::vector<double> d{0.5, 1, 1, 1, 1, 1, 1, 1.5};
  for (const auto& loads : {c, d}) {
    const LoadMoments m = load_moments(loads);
    EXPECT_NEAR(m.imbalance_pct, 50, 1e-12);
    EXPECT_NEAR(m.sigma, 0.25, 1e-12);
    EXPECT_NEAR(*m.skewness, 0, 1e-12);
    EXPECT_NEAR(*m.kurtosis, 1, 1e-12);
  }
}

TEST(RankCorrelation, TiesShareTheirMeanRank) {
  EXPECT_EQ(average_ranks(std::vector<double>{10, 20, 20, 5}), (std::vector<double>{2, 3.5, 3.5, 1}));
}

TEST(RankCorrelation, MonotoneModelsCorrelatePerfectly) {
  const std::vector<double> measured{0.3, 0.1, 0.7, 0.2};
  EXPECT_NEAR(*rank_correlation(std::vector<double>{3, 1, 70, 2}, measured), 1, 1e-15);
  EXPECT_NEAR(*rank_correlation(std::vector<double>{-3, -1, -70, -2}, measured), -1, 1e-15);
}

TEST(RankCorrelation, MatchesAHandComputedValueWithTies) {
  // Ranks: modeled (1, 2.5, 2.5, 4), measured (2, 1, 3, 4); means 2.5.
  // Sum of products 0.75 + 0 + 0 + 2.25 = 3; sums of squares 4.5 and 5.
  const auto r = rank_correlation(std::vector<double>{1, 2, 2, 3}, std::vector<double>{20, 10, 30, 40});
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 3 / std::sqrt(4.5 * 5), 1e-15);
}

TEST(RankCorrelation, UndefinedForAConstantSeries) {
  EXPECT_FALSE(rank_correlation(std::vector<double>{1, 1, 1}, std::vector<double>{1, 2, 3}));
  EXPECT_FALSE(rank_correlation(std::vector<double>{1}, std::vector<double>{1}));
  EXPECT_FALSE(rank_correlation(std::vector<double>{1, 2}, std::vector<double>{1, 2, 3}));
}

TEST(StepExchange, TheSlowestStepLessTheSlowestCompute) {
  // The slowest rank computes 3; the slowest step takes 5, on another rank (which waited).
  EXPECT_DOUBLE_EQ(step_exchange_s(std::vector<double>{3, 1, 2}, std::vector<double>{4.5, 5, 4.8}), 2.0);
  // Never below 0 (a step timed a little shorter than its compute), and 0 with no ranks.
  EXPECT_DOUBLE_EQ(step_exchange_s(std::vector<double>{3}, std::vector<double>{2.9}), 0.0);
  EXPECT_DOUBLE_EQ(step_exchange_s(std::vector<double>{}, std::vector<double>{}), 0.0);
}

}  // namespace
}  // namespace lbbench
