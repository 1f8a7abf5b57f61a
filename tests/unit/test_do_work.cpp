// do_work's reads: what a call cannot do is carried to the next, so small weights cost
// their share on average, and a call's fixed cost comes off its reads.
#include <gtest/gtest.h>

#include "engines/mpi/do_work.hpp"

namespace lbbench {
namespace {

// 10^8 reads per second and unit_seconds 10^-9: a weight of 1 is a tenth of a read.
constexpr double kRate = 1e8;
constexpr double kUnit = 1e-9;

TEST(DoWork, WeightsWorthLessThanAReadAddUpInsteadOfVanishing) {
  WorkKernel kernel(std::size_t{1} << 16);
  DoWork work(kernel, kRate, kUnit, 0.0);
  for (int call = 0; call < 1000; ++call) work(1.0);
  // 1,000 tenths of a read; rounding each call alone gave none.
  EXPECT_NEAR(static_cast<double>(kernel.reads()), 100.0, 1.0);
}

TEST(DoWork, AFixedCostPerCallComesOffTheReads) {
  WorkKernel kernel(std::size_t{1} << 16);
  // A call costs one read's worth beyond its reads: a weight of 1,000 (100 reads' worth)
  // does 99 reads.
  DoWork work(kernel, kRate, kUnit, 1.0 / kRate);
  work(1000.0);
  EXPECT_EQ(kernel.reads(), 99U);
  // A weight worth one read cannot pay a call's fixed cost and a read: every other call
  // does both, and the calls' modeled time adds up to what was asked.
  WorkKernel small(std::size_t{1} << 16);
  DoWork each(small, kRate, kUnit, 1.0 / kRate);
  for (int call = 0; call < 1000; ++call) each(10.0);
  EXPECT_NEAR(static_cast<double>(small.reads()), 500.0, 1.0);
}

TEST(DoWork, NoWeightNoReads) {
  WorkKernel kernel(std::size_t{1} << 16);
  DoWork work(kernel, kRate, kUnit, 0.0);
  for (int call = 0; call < 100; ++call) work(0.0);
  EXPECT_EQ(kernel.reads(), 0U);
}

}  // namespace
}  // namespace lbbench
