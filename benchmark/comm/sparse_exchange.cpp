// The sparse exchange (see sparse_exchange.hpp): what every transport shares.
#include "comm/sparse_exchange.hpp"

#include <algorithm>

#include "comm/mpi.hpp"

namespace lbbench {

SparseExchange::SparseExchange(MPI_Comm comm, std::size_t max_chunk)
    : comm_(duplicate_comm(comm)), transport_(make_sparse_transport(comm_, max_chunk)) {}

SparseExchange::~SparseExchange() {
  transport_.reset();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<Message> SparseExchange::exchange(const std::vector<Message>& outgoing) {
  const int parity = round_++ % 2;
  std::vector<Message> received = transport_->exchange(outgoing, RoundTags::of(parity));
  // Arrival order depends on timing; sorting by peer makes every caller deterministic.
  std::stable_sort(received.begin(), received.end(),
                   [](const Message& a, const Message& b) { return a.peer < b.peer; });
  return received;
}

Message receive_one(const MPI_Status& status, const RoundTags& tags, std::size_t max_chunk, MPI_Comm comm) {
  Message m{status.MPI_SOURCE, {}};
  if (status.MPI_TAG == tags.whole) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    m.data.resize(static_cast<std::size_t>(count));
    MPI_Recv(m.data.data(), count, MPI_BYTE, m.peer, tags.whole, comm, MPI_STATUS_IGNORE);
    return m;
  }
  // The sender posted every chunk before it started receiving, so these receives end.
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, m.peer, tags.announce, comm, MPI_STATUS_IGNORE);
  m.data.resize(size);
  for (std::size_t at = 0; at < size; at += max_chunk) {
    const auto n = static_cast<int>(std::min<std::size_t>(max_chunk, size - at));
    MPI_Recv(m.data.data() + at, n, MPI_BYTE, m.peer, tags.chunk, comm, MPI_STATUS_IGNORE);
  }
  return m;
}

std::vector<MPI_Request> post_sends(const std::vector<Message>& outgoing, std::vector<std::uint64_t>& sizes,
                                    const RoundTags& tags, std::size_t max_chunk, bool synchronous, MPI_Comm comm) {
  const auto send = [&](const void* data, int count, MPI_Datatype type, int peer, int tag, MPI_Request* request) {
    if (synchronous) {
      MPI_Issend(data, count, type, peer, tag, comm, request);
    } else {
      MPI_Isend(data, count, type, peer, tag, comm, request);
    }
  };
  std::vector<MPI_Request> sends;
  sizes.assign(outgoing.size(), 0);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const auto& m = outgoing[i];
    if (m.data.size() <= max_chunk) {
      sends.emplace_back();
      send(m.data.data(), static_cast<int>(m.data.size()), MPI_BYTE, m.peer, tags.whole, &sends.back());
      continue;
    }
    sizes[i] = m.data.size();
    sends.emplace_back();
    send(&sizes[i], 1, MPI_UINT64_T, m.peer, tags.announce, &sends.back());
    for (std::size_t at = 0; at < m.data.size(); at += max_chunk) {
      const auto n = static_cast<int>(std::min(max_chunk, m.data.size() - at));
      sends.emplace_back();
      send(m.data.data() + at, n, MPI_BYTE, m.peer, tags.chunk, &sends.back());
    }
  }
  return sends;
}

}  // namespace lbbench
