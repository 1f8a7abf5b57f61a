// MPI helpers: the sparse exchange, error agreement, routing from rank 0, block layout.
#include <gtest/gtest.h>

#include <numeric>

#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "meshes/readers/root_router.hpp"
#include "mpi_test_util.hpp"

namespace lbbench {
namespace {

TEST(ExclusiveSum, AgreesWithMpiExscan) {
  const int me = comm_rank(MPI_COMM_WORLD);
  MPI_Comm comm = duplicate_comm(MPI_COMM_WORLD);
  const std::vector<long long> mine{me + 1LL, 10LL * me * me, -3LL};
  std::vector<long long> expected(mine.size(), 0);
  MPI_Exscan(mine.data(), expected.data(), 3, MPI_LONG_LONG, MPI_SUM, comm);
  if (me == 0) expected.assign(mine.size(), 0);  // MPI leaves rank 0's undefined
  EXPECT_EQ(exclusive_sum(mine, comm), expected);
  MPI_Comm_free(&comm);
}

TEST(SparseExchange, DeliversEveryMessageToItsPeerOverManyRounds) {
  const int me = comm_rank(MPI_COMM_WORLD);
  const int p = comm_size(MPI_COMM_WORLD);
  SparseExchange exchange(MPI_COMM_WORLD);
  for (int round = 0; round < 5; ++round) {
    // Rank r sends round+r+k bytes to (r+k) % p for k = 1, 3; the value encodes sender and round.
    std::vector<Message> out;
    for (int k : {1, 3}) {
      Message m{(me + k) % p, {}};
      ByteWriter w(m.data);
      for (int i = 0; i < round + me + k; ++i) w.put<int>(1000 * me + round);
      out.push_back(std::move(m));
    }
    const auto in = exchange.exchange(out);
    std::vector<int> expected_sources;
    for (int k : {1, 3}) expected_sources.push_back(((me - k) % p + p) % p);
    std::sort(expected_sources.begin(), expected_sources.end());
    ASSERT_EQ(in.size(), 2u);
    std::vector<int> sources;
    for (const auto& m : in) {
      sources.push_back(m.peer);
      const int k = ((me - m.peer) % p + p) % p;
      ByteReader r(m.data);
      int count = 0;
      while (!r.done()) {
        EXPECT_EQ(r.get<int>(), 1000 * m.peer + round);
        ++count;
      }
      // With p <= 3, k is ambiguous (1 and 3 can name the same peer); check the sum instead.
      if (p > 3) {
        EXPECT_EQ(count, round + m.peer + k);
      }
    }
    std::sort(sources.begin(), sources.end());
    EXPECT_EQ(sources, expected_sources);
  }
}

TEST(SparseExchange, MessagesLargerThanAChunkArriveWhole) {
  const int me = comm_rank(MPI_COMM_WORLD);
  const int p = comm_size(MPI_COMM_WORLD);
  SparseExchange exchange(MPI_COMM_WORLD, 1000);
  for (int round = 0; round < 3; ++round) {
    // Sizes around the chunk boundary: one below, exactly one chunk, several chunks.
    const std::size_t size = std::vector<std::size_t>{999, 1000, 4321}[static_cast<std::size_t>(round)];
    std::vector<Message> out;
    for (int peer = 0; peer < p; ++peer) {
      Message m{peer, Bytes(size)};
      for (std::size_t i = 0; i < size; ++i) m.data[i] = std::byte(static_cast<unsigned char>(i * 7 + me + peer));
      out.push_back(std::move(m));
    }
    const auto in = exchange.exchange(out);
    ASSERT_EQ(in.size(), static_cast<std::size_t>(p));
    for (const auto& m : in) {
      ASSERT_EQ(m.data.size(), size);
      for (std::size_t i = 0; i < size; ++i) {
        ASSERT_EQ(m.data[i], std::byte(static_cast<unsigned char>(i * 7 + m.peer + me)));
      }
    }
  }
}

TEST(SparseExchange, NothingToSendReturnsNothing) {
  SparseExchange exchange(MPI_COMM_WORLD);
  EXPECT_TRUE(exchange.exchange({}).empty());
}

TEST(DuplicateComm, SameRanksInTheirOwnMatchingContext) {
  const int me = comm_rank(MPI_COMM_WORLD);
  const int p = comm_size(MPI_COMM_WORLD);
  MPI_Comm copy = duplicate_comm(MPI_COMM_WORLD);
  ASSERT_NE(copy, MPI_COMM_NULL);
  int relation = MPI_UNEQUAL;
  MPI_Comm_compare(MPI_COMM_WORLD, copy, &relation);
  EXPECT_EQ(relation, MPI_CONGRUENT);  // same ranks in the same order, another context
  // Same peer, same tag, both communicators: each receive gets its own communicator's
  // message, though the one on the copy was sent first and the receive on the parent was
  // posted first.
  const int next = (me + 1) % p;
  const int prev = (me + p - 1) % p;
  int on_parent = -1;
  int on_copy = -1;
  MPI_Request requests[4];
  MPI_Irecv(&on_parent, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&on_copy, 1, MPI_INT, prev, 7, copy, &requests[1]);
  const int to_copy = 2000 + me;
  const int to_parent = 1000 + me;
  MPI_Isend(&to_copy, 1, MPI_INT, next, 7, copy, &requests[2]);
  MPI_Isend(&to_parent, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &requests[3]);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  EXPECT_EQ(on_parent, 1000 + prev);
  EXPECT_EQ(on_copy, 2000 + prev);
  MPI_Comm_free(&copy);
}

TEST(AgreeOnErrors, EveryRankThrowsTheLowestFailingRanksError) {
  const int me = comm_rank(MPI_COMM_WORLD);
  const int p = comm_size(MPI_COMM_WORLD);
  test::expect_error_containing(
      [&] {
        collectively(MPI_COMM_WORLD, [&] {
          if (me == p - 1) throw InputError("bad input seen on the last rank");
          if (p > 2 && me == p - 2) throw RunError("later error");
        });
      },
      {p > 2 ? "later error" : "bad input seen on the last rank"});
}

TEST(AgreeOnErrors, KeepsTheKindOfError) {
  const int me = comm_rank(MPI_COMM_WORLD);
  EXPECT_THROW(collectively(MPI_COMM_WORLD,
                            [&] {
                              if (me == 0) throw InputError("x");
                            }),
               AgreedInputError);
  EXPECT_THROW(collectively(MPI_COMM_WORLD,
                            [&] {
                              if (me == 0) throw RunError("x");
                            }),
               AgreedRunError);
  EXPECT_NO_THROW(collectively(MPI_COMM_WORLD, [] {}));
}

TEST(RouteFromRoot, RecordsArriveAtTheirRankInOrder) {
  const int me = comm_rank(MPI_COMM_WORLD);
  const int p = comm_size(MPI_COMM_WORLD);
  // Many small records to every rank, interleaved, with a tiny chunk size forced by volume.
  const Bytes mine = route_from_root(MPI_COMM_WORLD, [&](RootRouter& router) {
    for (int i = 0; i < 200000; ++i) {
      ByteWriter w = router.record(i % p);
      w.put<int>(i);
    }
  });
  ByteReader r(mine);
  int expected = me;
  while (!r.done()) {
    EXPECT_EQ(r.get<int>(), expected);
    expected += p;
  }
  EXPECT_GE(expected, 200000);
}

TEST(RouteFromRoot, AnErrorOnRankZeroStopsEveryRank) {
  test::expect_error_containing(
      [] {
        route_from_root(MPI_COMM_WORLD, [](RootRouter& router) {
          router.record(0).put<int>(1);
          throw InputError("mesh.graph:3: broken line");
        });
      },
      {"mesh.graph:3: broken line"});
}

TEST(BlockLayout, OwnerAndBeginAgree) {
  for (std::int64_t n : {1, 5, 16, 17, 1000}) {
    for (int p : {1, 2, 3, 4, 7}) {
      if (n < p) continue;
      EXPECT_EQ(block_begin(0, n, p), 0);
      EXPECT_EQ(block_begin(p, n, p), n);
      for (std::int64_t i = 0; i < n; ++i) {
        const int r = block_owner(i, n, p);
        EXPECT_LE(block_begin(r, n, p), i);
        EXPECT_LT(i, block_begin(r + 1, n, p));
      }
    }
  }
}

}  // namespace
}  // namespace lbbench
