// Gossip's packed list of known ranks: it must read back exactly what was merged into it,
// whatever the gaps and loads, copies must stay apart once one changes, and what a rank
// tells of it must be a fair draw.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "balancers/gossip/known_ranks.hpp"
#include "core/hash.hpp"

namespace lbbench {
namespace {

std::vector<Known> entries(const KnownRanks& known) {
  std::vector<Known> out;
  known.visit_until([&](const Known& k) {
    out.push_back(k);
    return false;
  });
  return out;
}

// A merge, checked to leave every entry of the merged list in its buffer.
void merge(KnownRanks& known, const std::vector<Known>& incoming) {
  std::vector<Known> merged = {{-5, -5}};  // what was there before is not kept
  known.merge(incoming, merged);
  EXPECT_EQ(merged, entries(known));
}

TEST(KnownRanks, ReadsBackWhatWasMergedWhateverTheGapsAndLoads) {
  const std::int32_t top = std::numeric_limits<std::int32_t>::max();
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const std::vector<Known> list = {{0, 0}, {1, -1}, {127, 128}, {128, big}, {70'000, -big - 1}, {top, 42}};
  KnownRanks known;
  merge(known, list);
  EXPECT_EQ(entries(known), list);
  EXPECT_EQ(known.size(), list.size());
}

TEST(KnownRanks, AListAsGossipMakesAtScaleTakesUnderFiveBytesAnEntry) {
  // 3,000 ranks of 262,144 (the largest list gossip keeps there), loads below 2^17 quanta.
  std::vector<Known> list;
  for (std::int32_t i = 0; i < 3000; ++i) list.push_back({i * 87 + (i * 31) % 50, (i * 7919) % (1 << 17)});
  KnownRanks known;
  merge(known, list);
  EXPECT_EQ(entries(known), list);
  EXPECT_LT(static_cast<double>(known.packed_bytes()) / 3000, 5.0);
}

TEST(KnownRanks, AMergeKeepsWhatIsKnownAndAddsTheRestInRankOrder) {
  KnownRanks known;
  merge(known, std::vector<Known>{{3, 30}, {9, 90}});
  merge(known, std::vector<Known>{{1, 10}, {3, 31}, {12, 120}});
  EXPECT_EQ(entries(known), (std::vector<Known>{{1, 10}, {3, 30}, {9, 90}, {12, 120}}));
  EXPECT_EQ(known.size(), 4U);
  known.clear();
  EXPECT_TRUE(known.empty());
  EXPECT_TRUE(entries(known).empty());
}

TEST(KnownRanks, UpdatesOverrideThePackedLoadsAndSurviveTheNextMerge) {
  KnownRanks known;
  merge(known, std::vector<Known>{{2, 20}, {5, 50}, {8, 80}});
  known.update(5, 55);
  known.update(2, 21);
  EXPECT_EQ(entries(known), (std::vector<Known>{{2, 21}, {5, 55}, {8, 80}}));
  EXPECT_EQ(known.size(), 3U) << "an update adds no entry";
  merge(known, std::vector<Known>{{5, 0}, {6, 60}});
  EXPECT_EQ(entries(known), (std::vector<Known>{{2, 21}, {5, 55}, {6, 60}, {8, 80}}));
}

TEST(KnownRanks, ACopyIsApartFromTheOriginal) {
  KnownRanks original;
  merge(original, std::vector<Known>{{4, 40}, {7, 70}});
  KnownRanks copy = original;
  copy.update(4, 41);
  merge(copy, std::vector<Known>{{9, 90}});
  EXPECT_EQ(entries(original), (std::vector<Known>{{4, 40}, {7, 70}}));
  EXPECT_EQ(entries(copy), (std::vector<Known>{{4, 41}, {7, 70}, {9, 90}}));
}

TEST(KnownRanks, AVisitStopsWhereAskedTo) {
  KnownRanks known;
  merge(known, std::vector<Known>{{1, 1}, {2, 2}, {3, 3}});
  known.update(2, 5);
  int seen = 0;
  EXPECT_TRUE(known.visit_until([&](const Known& k) {
    ++seen;
    return k.load == 5;
  }));
  EXPECT_EQ(seen, 2);
  EXPECT_FALSE(known.visit_until([](const Known&) { return false; }));
}

TEST(KnownRanks, ASampleIsThatManyEntriesInRankOrder) {
  std::vector<Known> list;
  for (std::int32_t r = 0; r < 50; ++r) list.push_back({3 * r, r});
  const std::vector<Known> told = KnownRanks::sample(list, 8, 12345);
  ASSERT_EQ(told.size(), 8U);
  for (std::size_t i = 1; i < told.size(); ++i) EXPECT_LT(told[i - 1].rank, told[i].rank);
  for (const Known& k : told) EXPECT_EQ(k.load, k.rank / 3) << "rank " << k.rank;
  EXPECT_EQ(KnownRanks::sample(list, 8, 12345), told) << "the same draws, the same sample";
  EXPECT_NE(KnownRanks::sample(list, 8, 54321), told);
  EXPECT_EQ(KnownRanks::sample(list, 50, 1), list) << "as many as known: all of them";
  EXPECT_EQ(KnownRanks::sample(list, 500, 1), list);
  EXPECT_TRUE(KnownRanks::sample(list, 0, 1).empty());
}

TEST(KnownRanks, EverySubsetOfASampleIsAboutEquallyLikely) {
  // 3 of 10 over 36,000 draws: each of the 120 subsets 300 times expected (sd 17), each
  // entry 10,800 (sd 87).
  std::vector<Known> list;
  for (std::int32_t r = 0; r < 10; ++r) list.push_back({r, 0});
  std::map<std::vector<std::int32_t>, int> subsets;
  std::vector<int> per_entry(10, 0);
  for (std::uint64_t i = 0; i < 36'000; ++i) {
    std::vector<std::int32_t> ranks;
    for (const Known& k : KnownRanks::sample(list, 3, hash_of({7, i}))) {
      ranks.push_back(k.rank);
      ++per_entry[static_cast<std::size_t>(k.rank)];
    }
    ++subsets[ranks];
  }
  EXPECT_EQ(subsets.size(), 120U);
  for (const auto& [subset, n] : subsets) {
    EXPECT_GT(n, 200);
    EXPECT_LT(n, 400);
  }
  for (int n : per_entry) {
    EXPECT_GT(n, 10'400);
    EXPECT_LT(n, 11'200);
  }
}

}  // namespace
}  // namespace lbbench
