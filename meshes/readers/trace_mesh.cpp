// A recorded run as this rank's part of the graph (see build.hpp): rank 0 reads and checks
// the trace, every rank receives it whole (it holds the tasks' times for every phase, which
// the load field needs wherever a task moves), and each keeps its block of vertices.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdio>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "meshes/build.hpp"

namespace lbbench {

LocalGraph trace_graph(const Trace& trace, int rank, int nranks) {
  LocalGraph g;
  const TraceLayout& layout = *trace.layout;
  const std::int64_t n = layout.vertices();
  const std::int64_t begin = block_begin(rank, n, nranks);
  const std::int64_t end = block_begin(rank + 1, n, nranks);
  g.has_edge_weights = true;
  if (layout.pinned_from < n) g.pinned_from = layout.pinned_from;
  // Each local vertex's neighbors with the bytes of their edge, sorted by neighbor.
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> nbrs(static_cast<std::size_t>(end - begin));
  for (const TraceEdge& e : trace.edges) {
    if (e.a >= begin && e.a < end) nbrs[static_cast<std::size_t>(e.a - begin)].emplace_back(e.b, e.bytes);
    if (e.b >= begin && e.b < end) nbrs[static_cast<std::size_t>(e.b - begin)].emplace_back(e.a, e.bytes);
  }
  std::int64_t edges = 0;
  for (const auto& list : nbrs) edges += static_cast<std::int64_t>(list.size());
  g.reserve_more(end - begin, edges);
  std::vector<VertexId> ids;
  std::vector<Rank> owners;
  std::vector<std::int32_t> weights;
  for (std::int64_t v = begin; v < end; ++v) {
    auto& list = nbrs[static_cast<std::size_t>(v - begin)];
    std::sort(list.begin(), list.end());
    ids.clear();
    owners.clear();
    weights.clear();
    for (const auto& [u, bytes] : list) {
      ids.push_back(VertexId{u});
      owners.push_back(Rank{block_owner(u, n, nranks)});
      weights.push_back(static_cast<std::int32_t>(bytes));
    }
    g.add_vertex(VertexId{v}, ids, owners, weights, {}, {});
  }
  return g;
}

Mesh read_trace_mesh(const MeshFileSpec& spec, MPI_Comm comm) {
  Bytes bytes;
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    const std::shared_ptr<const Trace> trace = read_trace_once(spec.resolved);
    // The reader's notes (a home LBAF rewrote, moves the replay does not follow), once a run.
    for (const std::string& note : trace->notes) fmt::print(stderr, "lbbench: note: {}\n", note);
    bytes = serialize_trace(*trace);
  });
  auto size = static_cast<std::uint64_t>(bytes.size());
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);
  if (size > static_cast<std::uint64_t>(INT_MAX)) {
    throw AgreedInputError(
        fmt::format("{}: the trace takes {} bytes, more than lbbench sends in one piece (2 GiB)", spec.path, size));
  }
  bytes.resize(static_cast<std::size_t>(size));
  MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, comm);
  Trace trace = deserialize_trace(bytes);
  Bytes().swap(bytes);  // gone before the graph is built: every simulated rank holds its own
  LocalGraph g = trace_graph(trace, comm_rank(comm), comm_size(comm));
  finish_graph(g, comm);
  return Mesh{std::move(g), trace.layout};
}

}  // namespace lbbench
