// The sparse exchange under SimGrid SMPI: a census of messages shared by the simulated
// ranks, instead of NBX's polling.
//
// Under SMPI the NBX loop polls, and every poll is a simulation event: it crawls, and
// SMPI's MPI_Waitany does not wake for a message while it also holds an MPI_Ibarrier.
// MPI_Probe is no way out either: SMPI charges each failed probe a sleep that grows with
// the number of failed probes so far, across all ranks, so with many ranks the probes cost
// far more than the messages.
// So senders list their messages in the shared census, a barrier stands for NBX's
// non-blocking barrier (the simulated cost is of the same order, O(log P)), and each rank
// then receives exactly what was listed for it, source by source. The list of a parity is
// taken before any rank can reach the round after next, which needs this rank's barrier.
#include <array>
#include <map>
#include <tuple>

#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"

namespace lbbench {

namespace {

struct Census {
  struct Incoming {
    int source;
    std::uint64_t size;
  };
  std::array<std::vector<std::vector<Incoming>>, 2> incoming;  // [parity][receiver]
};

// Every simulated rank lives in this one process (privatization is off: the suite has no
// mutable globals but this registry) and ranks run one at a time, switching only inside
// MPI calls. An exchange's ranks share one census: per round parity and receiving rank,
// the (source, size) of every message on its way. Each exchange is known by (creation
// number agreed by its ranks, its rank 0 in MPI_COMM_WORLD, its size).
std::map<std::tuple<std::int64_t, int, int>, std::weak_ptr<Census>> census_registry;
std::map<int, std::int64_t> exchanges_created;  // per world rank

std::shared_ptr<Census> shared_census(MPI_Comm comm) {
  const int world_rank = comm_rank(MPI_COMM_WORLD);
  const std::int64_t serial = allreduce(exchanges_created[world_rank], MPI_MAX, comm) + 1;
  exchanges_created[world_rank] = serial;
  int root_in_world = world_rank;
  MPI_Bcast(&root_in_world, 1, MPI_INT, 0, comm);
  const int size = comm_size(comm);
  auto& slot = census_registry[{serial, root_in_world, size}];
  auto census = slot.lock();
  if (!census) {
    census = std::make_shared<Census>();
    for (auto& parity : census->incoming) parity.resize(static_cast<std::size_t>(size));
    slot = census;
  }
  return census;
}

class CensusTransport final : public SparseTransport {
 public:
  CensusTransport(MPI_Comm comm, std::size_t max_chunk)
      : comm_(comm), max_chunk_(max_chunk), census_(shared_census(comm)) {}

  std::vector<Message> exchange(const std::vector<Message>& outgoing, const RoundTags& tags) override {
    const int me = comm_rank(comm_);
    auto& lists = census_->incoming[static_cast<std::size_t>(tags.parity)];
    for (const auto& m : outgoing) lists[static_cast<std::size_t>(m.peer)].push_back({me, m.data.size()});
    std::vector<std::uint64_t> sizes;
    std::vector<MPI_Request> sends = post_sends(outgoing, sizes, tags, max_chunk_, /*synchronous=*/false, comm_);
    MPI_Barrier(comm_);
    const std::vector<Census::Incoming> mine = std::move(lists[static_cast<std::size_t>(me)]);
    lists[static_cast<std::size_t>(me)].clear();
    std::vector<Message> received;
    received.reserve(mine.size());
    for (const auto& in : mine) {
      if (in.size <= max_chunk_) {
        Message m{in.source, Bytes(in.size)};
        MPI_Recv(m.data.data(), static_cast<int>(in.size), MPI_BYTE, in.source, tags.whole, comm_, MPI_STATUS_IGNORE);
        received.push_back(std::move(m));
      } else {
        MPI_Status status;
        status.MPI_SOURCE = in.source;
        status.MPI_TAG = tags.announce;
        received.push_back(receive_one(status, tags, max_chunk_, comm_));
      }
    }
    // One wait per send: SimGrid's MPI_Waitall is quadratic in the request count.
    for (auto& send : sends) MPI_Wait(&send, MPI_STATUS_IGNORE);
    return received;
  }

 private:
  MPI_Comm comm_;
  std::size_t max_chunk_;
  std::shared_ptr<Census> census_;
};

}  // namespace

std::unique_ptr<SparseTransport> make_sparse_transport(MPI_Comm comm, std::size_t max_chunk) {
  return std::make_unique<CensusTransport>(comm, max_chunk);
}

}  // namespace lbbench
