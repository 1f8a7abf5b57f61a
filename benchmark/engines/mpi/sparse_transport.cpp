// The sparse exchange on real MPI: NBX (Hoefler, Siebert, Lumsdaine, PPoPP'10).
#include "comm/sparse_exchange.hpp"

namespace lbbench {

namespace {

// Synchronous sends (whole messages, or an announcement of the size and chunks), probes
// for what arrives, and a non-blocking barrier once every send was matched: a synchronous
// send completes only once matched, so when the barrier completes, nothing is in flight.
class NbxTransport final : public SparseTransport {
 public:
  NbxTransport(MPI_Comm comm, std::size_t max_chunk) : comm_(comm), max_chunk_(max_chunk) {}

  std::vector<Message> exchange(const std::vector<Message>& outgoing, const RoundTags& tags) override {
    std::vector<std::uint64_t> sizes;
    std::vector<MPI_Request> sends = post_sends(outgoing, sizes, tags, max_chunk_, /*synchronous=*/true, comm_);
    std::vector<Message> received;
    MPI_Request barrier = MPI_REQUEST_NULL;
    bool barrier_started = false;
    while (true) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, tags.whole, comm_, &arrived, &status);
      if (!arrived) MPI_Iprobe(MPI_ANY_SOURCE, tags.announce, comm_, &arrived, &status);
      if (arrived) {
        received.push_back(receive_one(status, tags, max_chunk_, comm_));
        continue;
      }
      if (!barrier_started) {
        int all_sent = 0;
        MPI_Testall(static_cast<int>(sends.size()), sends.data(), &all_sent, MPI_STATUSES_IGNORE);
        if (all_sent) {
          MPI_Ibarrier(comm_, &barrier);
          barrier_started = true;
        }
      } else {
        int done = 0;
        MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        if (done) break;
      }
    }
    return received;
  }

 private:
  MPI_Comm comm_;
  std::size_t max_chunk_;
};

}  // namespace

std::unique_ptr<SparseTransport> make_sparse_transport(MPI_Comm comm, std::size_t max_chunk) {
  return std::make_unique<NbxTransport>(comm, max_chunk);
}

}  // namespace lbbench
