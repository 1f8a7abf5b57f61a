// Streaming a file from rank 0 to the ranks that own its records (see root_router.hpp).
#include "meshes/readers/root_router.hpp"

#include <algorithm>
#include <exception>

#include "comm/mpi.hpp"

namespace lbbench {

namespace {

constexpr int kTag = 7;
constexpr std::uint8_t kChunk = 0;
constexpr std::uint8_t kLast = 1;
constexpr std::uint8_t kAbort = 2;

}  // namespace

RootRouter::RootRouter(MPI_Comm comm, std::size_t chunk_bytes)
    : comm_(comm), chunk_bytes_(chunk_bytes), buffers_(static_cast<std::size_t>(comm_size(comm))) {
  for (std::size_t r = 1; r < buffers_.size(); ++r) buffers_[r].push_back(std::byte{kChunk});
}

ByteWriter RootRouter::record(int dest) {
  auto& b = buffers_[static_cast<std::size_t>(dest)];
  if (dest != 0 && b.size() >= chunk_bytes_) send(dest, kChunk);
  return ByteWriter(b);
}

void RootRouter::send(int dest, std::uint8_t kind) {
  auto& b = buffers_[static_cast<std::size_t>(dest)];
  b[0] = std::byte{kind};
  MPI_Send(b.data(), static_cast<int>(b.size()), MPI_BYTE, dest, kTag, comm_);
  b.assign(1, std::byte{kChunk});
}

void RootRouter::close(bool aborted) {
  for (int r = 1; r < static_cast<int>(buffers_.size()); ++r) {
    if (aborted) buffers_[static_cast<std::size_t>(r)].resize(1);
    send(r, aborted ? kAbort : kLast);
  }
}

Bytes route_from_root(MPI_Comm comm, const std::function<void(RootRouter&)>& produce) {
  MPI_Comm own = duplicate_comm(comm);
  const int nranks = comm_size(own);
  std::exception_ptr error;
  Bytes mine;
  if (comm_rank(own) == 0) {
    // Bounded memory on rank 0 even when records go to every rank in random order.
    const std::size_t chunk = std::clamp<std::size_t>((std::size_t{256} << 20) / nranks, 64 << 10, 8 << 20);
    RootRouter router(own, chunk);
    try {
      produce(router);
    } catch (...) {
      error = std::current_exception();
    }
    router.close(error != nullptr);
    mine = router.take_own();
  } else {
    while (true) {
      MPI_Status status;
      MPI_Probe(0, kTag, own, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      Bytes frame(static_cast<std::size_t>(count));
      MPI_Recv(frame.data(), count, MPI_BYTE, 0, kTag, own, MPI_STATUS_IGNORE);
      mine.insert(mine.end(), frame.begin() + 1, frame.end());
      if (frame[0] != std::byte{kChunk}) break;
    }
  }
  MPI_Comm_free(&own);
  agree_on_errors(error, comm);
  return mine;
}

}  // namespace lbbench
