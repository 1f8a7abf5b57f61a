// Every edge must be listed at both ends with the same weight. Each claim "u lists v" goes
// to v's owner, which looks for u among v's neighbors; the error names both lines.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/error.hpp"
#include "meshes/readers/graph_reader.hpp"

namespace lbbench {

namespace {

struct Claim {
  std::int64_t from;  // u, which lists `to`
  std::int64_t to;
  std::int64_t line;  // u's line
  std::int32_t weight;
};

}  // namespace

void check_symmetric(const ReadGraph& read, const std::string& path, MPI_Comm comm) {
  const LocalGraph& g = read.graph;
  std::unordered_map<int, Bytes> outgoing;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const Claim c{g.gid[v].value(), g.adj[e].value(), read.line[v], static_cast<std::int32_t>(g.edge_weight(e))};
      ByteWriter(outgoing[g.adj_owner[e].value()]).put(c);
    }
  }
  SparseExchange exchange(comm);
  const auto received = exchange.exchange(to_messages(outgoing));
  collectively(comm, [&] {
    const std::int64_t first = g.num_local() ? g.gid.front().value() : 0;
    for (const auto& m : received) {
      ByteReader in(m.data);
      while (!in.done()) {
        const auto c = in.get<Claim>();
        const auto v = static_cast<LocalIndex>(c.to - first);  // block layout: ids are contiguous
        const auto nb = g.neighbors(v);
        const auto it = std::lower_bound(nb.begin(), nb.end(), VertexId{c.from});
        if (it == nb.end() || *it != VertexId{c.from}) {
          throw InputError(fmt::format("{}:{}: vertex {} lists neighbor {}, but vertex {} (line {}) does not list {}",
                                       path, c.line, c.from + 1, c.to + 1, c.to + 1, read.line[v], c.from + 1));
        }
        const auto back = g.edge_weight(g.xadj[v] + (it - nb.begin()));
        if (back != c.weight) {
          throw InputError(fmt::format("{}:{}: edge {}-{} has weight {} here but {} on line {}", path, c.line,
                                       c.from + 1, c.to + 1, c.weight, back, read.line[v]));
        }
      }
    }
  });
}

}  // namespace lbbench
