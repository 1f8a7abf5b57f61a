// "Did you mean" suggestions.
#include <gtest/gtest.h>

#include "core/suggest.hpp"

namespace lbbench {
namespace {

TEST(Suggest, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(edit_distance("steps", "steps"), 0u);
  EXPECT_EQ(edit_distance("stesp", "steps"), 1u);
  EXPECT_EQ(edit_distance("weigths", "weights"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> keys{"steps", "seed", "mesh", "workload"};
  EXPECT_EQ(closest_match("stpes", keys), "steps");
  EXPECT_EQ(closest_match("workloads", keys), "workload");
  EXPECT_EQ(closest_match("balancer", keys), std::nullopt);
  EXPECT_EQ(did_you_mean("zzzz", keys), "");
}

}  // namespace
}  // namespace lbbench
