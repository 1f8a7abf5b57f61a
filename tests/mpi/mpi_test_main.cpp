// GoogleTest main for MPI tests: every rank runs every test; only rank 0 prints progress,
// other ranks print their failures with their rank; the exit code fails if any rank failed.
#include <gtest/gtest.h>

#include "comm/mpi.hpp"

namespace {

class RankFailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed()) {
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
    }
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  lbbench::MpiSession mpi(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int rank = lbbench::comm_rank(MPI_COMM_WORLD);
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  const int failed = RUN_ALL_TESTS();
  return lbbench::allreduce(failed, MPI_MAX, MPI_COMM_WORLD);
}
