// Streaming a file from rank 0 to the ranks that own its records, in bounded chunks, so no
// rank ever holds the whole file, and an error found while reading stops every rank with
// the same message instead of leaving some waiting forever.
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

#include "core/bytes.hpp"

namespace lbbench {

class RootRouter {
 public:
  RootRouter(MPI_Comm comm, std::size_t chunk_bytes);
  // A writer for one record to `dest`. Records are never split between chunks.
  ByteWriter record(int dest);
  // Sends what is left and tells every rank the stream is over (or aborted).
  void close(bool aborted);
  Bytes take_own() { return std::move(buffers_[0]); }

 private:
  void send(int dest, std::uint8_t kind);
  MPI_Comm comm_;
  std::size_t chunk_bytes_;
  std::vector<Bytes> buffers_;
};

// Runs produce() on rank 0 and delivers every record it writes to its destination.
// Returns this rank's records, in the order they were written. If produce() throws on
// rank 0, every rank throws that error.
Bytes route_from_root(MPI_Comm comm, const std::function<void(RootRouter&)>& produce);

}  // namespace lbbench
