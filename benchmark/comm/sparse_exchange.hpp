// A sparse personalized exchange: each rank sends a message to any peers it likes and
// receives what was sent to it, with no O(P) collective. How the messages find their way
// is the engine's (a SparseTransport): on real MPI the NBX protocol (Hoefler, Siebert,
// Lumsdaine, PPoPP'10) of synchronous sends, probes and a non-blocking barrier
// (engines/mpi); under a simulator, what the simulator makes cheap (engines/smpi).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/bytes.hpp"

namespace lbbench {

struct Message {
  int peer = 0;
  Bytes data;
};

// One message per peer from per-peer buffers, skipping empty ones; the buffers are moved.
template <class PeerBuffers>
std::vector<Message> to_messages(PeerBuffers&& buffers) {
  std::vector<Message> out;
  for (auto& [peer, bytes] : buffers) {
    if (!bytes.empty()) out.push_back({static_cast<int>(peer), std::move(bytes)});
  }
  return out;
}

// The tags of one round: alternating rounds use different tags, so a fast rank's next
// round is never received in this one (a rank can only be one round ahead).
struct RoundTags {
  int parity;    // 0 or 1
  int whole;     // a message sent in one piece
  int announce;  // the size of a message sent in chunks
  int chunk;     // its chunks
  static RoundTags of(int parity) { return {parity, 100 + parity, 102 + parity, 104 + parity}; }
};

// One round's delivery on a communicator reserved for it.
class SparseTransport {
 public:
  virtual ~SparseTransport() = default;
  // Collective over the communicator: sends `outgoing`, returns what was sent here, in
  // any order.
  virtual std::vector<Message> exchange(const std::vector<Message>& outgoing, const RoundTags& tags) = 0;
};

// The native engine's transport (engines/<engine>/sparse_transport.cpp). Collective.
std::unique_ptr<SparseTransport> make_sparse_transport(MPI_Comm comm, std::size_t max_chunk);

// Posts every message of a round: whole when it fits in max_chunk, else an announcement of
// its size followed by chunks (MPI counts are 32-bit). `sizes` holds the announced sizes
// and must outlive the sends.
std::vector<MPI_Request> post_sends(const std::vector<Message>& outgoing, std::vector<std::uint64_t>& sizes,
                                    const RoundTags& tags, std::size_t max_chunk, bool synchronous, MPI_Comm comm);
// Receives one message whose first part was probed: whole, or announced and chunked.
Message receive_one(const MPI_Status& status, const RoundTags& tags, std::size_t max_chunk, MPI_Comm comm);

// Owns a private communicator, so its traffic never matches anyone else's.
class SparseExchange {
 public:
  // Messages above max_chunk bytes travel in chunks (MPI counts are 32-bit); tests lower it.
  explicit SparseExchange(MPI_Comm comm, std::size_t max_chunk = std::size_t{1} << 30);
  ~SparseExchange();
  SparseExchange(const SparseExchange&) = delete;
  SparseExchange& operator=(const SparseExchange&) = delete;

  // Collective. The messages received, sorted by sender.
  std::vector<Message> exchange(const std::vector<Message>& outgoing);
  [[nodiscard]] MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::unique_ptr<SparseTransport> transport_;
  int round_ = 0;
};

}  // namespace lbbench
