// METIS .graph and Chaco graph files.
//
// Header: "n m [fmt [ncon]]". METIS fmt is three digits "abc": a = vertex sizes, b = vertex
// weights (ncon of them), c = edge weights. Chaco's code is the same except that its
// hundreds digit means each line starts with the vertex number, and it has one weight.
// Lines starting with '%' are comments; a blank line is a vertex with no neighbors.
// Vertex sizes are read and ignored (the scenario's element_bytes sets payloads).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "meshes/readers/graph_reader.hpp"
#include "meshes/readers/line_source.hpp"
#include "meshes/readers/root_router.hpp"

namespace lbbench {

namespace {

struct Header {
  std::int64_t n = 0;
  std::int64_t m = 0;
  bool sizes = false;    // METIS: a vertex size leads each line
  bool numbers = false;  // Chaco: the vertex number leads each line
  bool edge_weights = false;
  int ncon = 0;
  std::int64_t line = 0;
};

Header read_header(LineSource& src, bool chaco) {
  std::string line;
  while (src.next(line)) {
    if (!split_tokens(line).empty()) break;
  }
  const auto tokens = split_tokens(line);
  if (tokens.empty()) src.fail("empty file: expected a header line \"n m [fmt [ncon]]\"");
  Header h;
  h.line = src.line_number();
  std::int64_t fmt_code = 0;
  std::int64_t ncon = 1;
  const std::size_t max_tokens = chaco ? 3 : 4;
  if (tokens.size() < 2 || tokens.size() > max_tokens || !parse_int(tokens[0], h.n) || !parse_int(tokens[1], h.m) ||
      (tokens.size() > 2 && !parse_int(tokens[2], fmt_code)) || (tokens.size() > 3 && !parse_int(tokens[3], ncon))) {
    src.fail(fmt::format("bad header '{}': expected \"n m{}\"", line, chaco ? " [code]" : " [fmt [ncon]]"));
  }
  if (h.n < 1) src.fail(fmt::format("the header declares {} vertices; a mesh needs at least one", h.n));
  if (h.m < 0) src.fail(fmt::format("the header declares a negative edge count {}", h.m));
  const auto digit = [&](int d) { return (fmt_code / (d == 0 ? 1 : d == 1 ? 10 : 100)) % 10; };
  if (fmt_code < 0 || fmt_code > 111 || digit(0) > 1 || digit(1) > 1 || digit(2) > 1) {
    src.fail(fmt::format("bad format code '{}': expected up to three 0/1 digits", tokens[2]));
  }
  h.edge_weights = digit(0) == 1;
  const bool vertex_weights = digit(1) == 1;
  (chaco ? h.numbers : h.sizes) = digit(2) == 1;
  if (ncon < 1 || ncon > 64) src.fail(fmt::format("bad ncon {}: expected 1 to 64", ncon));
  if (tokens.size() > 3 && !vertex_weights) src.fail("ncon is given but the format code declares no vertex weights");
  h.ncon = vertex_weights ? static_cast<int>(ncon) : 0;
  return h;
}

// Record routed to a vertex's block owner.
//   id, line, degree, ncon, has_edge_weights, weights[ncon], (neighbor, weight)[degree]
void read_vertex(LineSource& src, const Header& h, std::int64_t v, const std::string& line, RootRouter& router,
                 std::int64_t& entries, int nranks) {
  const auto tokens = split_tokens(line);
  std::size_t t = 0;
  auto next_int = [&](const char* what) {
    std::int64_t x = 0;
    if (t >= tokens.size()) src.fail(fmt::format("vertex {}: missing {}", v + 1, what));
    if (!parse_int(tokens[t], x)) src.fail(fmt::format("vertex {}: {} '{}' is not an integer", v + 1, what, tokens[t]));
    ++t;
    return x;
  };
  if (h.numbers) {
    const std::int64_t number = next_int("vertex number");
    if (number != v + 1) src.fail(fmt::format("vertex number {} where {} was expected", number, v + 1));
  }
  if (h.sizes) {
    if (next_int("vertex size") < 0) src.fail(fmt::format("vertex {}: negative vertex size", v + 1));
  }
  std::vector<double> weights;
  for (int c = 0; c < h.ncon; ++c) {
    const std::int64_t w = next_int("vertex weight");
    if (w < 0) src.fail(fmt::format("vertex {}: negative vertex weight {}", v + 1, w));
    weights.push_back(static_cast<double>(w));
  }
  const std::size_t per_edge = h.edge_weights ? 2 : 1;
  if ((tokens.size() - t) % per_edge != 0) {
    src.fail(fmt::format("vertex {}: neighbors and edge weights must come in pairs", v + 1));
  }
  const auto degree = static_cast<std::int32_t>((tokens.size() - t) / per_edge);
  ByteWriter out = router.record(block_owner(v, h.n, nranks));
  out.put(v);
  out.put(src.line_number());
  out.put(degree);
  out.put(static_cast<std::int32_t>(h.ncon));
  out.put(static_cast<std::uint8_t>(h.edge_weights));
  out.put_span<double>(weights);
  for (std::int32_t e = 0; e < degree; ++e) {
    const std::int64_t u = next_int("neighbor");
    if (u < 1 || u > h.n) src.fail(fmt::format("vertex {}: neighbor id {} is out of range 1..{}", v + 1, u, h.n));
    if (u == v + 1) src.fail(fmt::format("vertex {} lists itself as a neighbor (self-loops are not allowed)", v + 1));
    std::int64_t w = 1;
    if (h.edge_weights) {
      w = next_int("edge weight");
      if (w < 1 || w > INT32_MAX)
        src.fail(fmt::format("vertex {}: edge weight {} must be in 1..{}", v + 1, w, INT32_MAX));
    }
    out.put(u - 1);
    out.put(static_cast<std::int32_t>(w));
  }
  entries += degree;
}

void produce(const std::string& path, bool chaco, RootRouter& router, int nranks, std::int64_t& n,
             std::string& deferred_error) {
  LineSource src(path, '%');
  const Header h = read_header(src, chaco);
  n = h.n;
  std::string line;
  std::int64_t entries = 0;
  for (std::int64_t v = 0; v < h.n; ++v) {
    if (!src.next(line)) {
      src.fail(
          fmt::format("the file ends after {} vertex lines, but the header (line {}) declares n = {}", v, h.line, h.n));
    }
    read_vertex(src, h, v, line, router, entries, nranks);
  }
  while (src.next(line)) {
    if (!split_tokens(line).empty()) {
      src.fail(fmt::format("more vertex lines than the n = {} the header (line {}) declares", h.n, h.line));
    }
  }
  // Halving the entries, not doubling m: a header's m may be anywhere up to the largest integer.
  if (entries % 2 != 0 || entries / 2 != h.m) {
    // Reported after the symmetry check, which names the offending lines when that is why.
    deferred_error = fmt::format(
        "{}:{}: the header declares m = {} edges, but the vertex lines list {} neighbor "
        "entries ({} edges counted from both ends)",
        path, h.line, h.m, entries, static_cast<double>(entries) / 2.0);
  }
}

ReadGraph decode(const Bytes& bytes, std::int64_t n_hint, MPI_Comm comm) {
  const int nranks = comm_size(comm);
  ReadGraph out;
  LocalGraph& g = out.graph;
  ByteReader in(bytes);
  std::vector<std::pair<VertexId, std::int32_t>> edges;
  std::vector<VertexId> nbrs;
  std::vector<Rank> owners;
  std::vector<std::int32_t> weights;
  std::vector<double> vweights;
  while (!in.done()) {
    const auto v = in.get<std::int64_t>();
    out.line.push_back(in.get<std::int64_t>());
    const auto degree = in.get<std::int32_t>();
    g.ncon = in.get<std::int32_t>();
    g.has_edge_weights = in.get<std::uint8_t>() != 0;
    vweights.clear();
    in.get_into(vweights, static_cast<std::size_t>(g.ncon));
    edges.clear();
    for (std::int32_t e = 0; e < degree; ++e) {
      const auto u = in.get<std::int64_t>();
      edges.emplace_back(VertexId{u}, in.get<std::int32_t>());
    }
    std::sort(edges.begin(), edges.end());
    nbrs.clear();
    owners.clear();
    weights.clear();
    for (const auto& [u, w] : edges) {
      nbrs.push_back(u);
      owners.push_back(Rank{block_owner(u.value(), n_hint, nranks)});
      weights.push_back(w);
    }
    g.add_vertex(VertexId{v}, nbrs, owners, weights, {}, vweights);
  }
  return out;
}

}  // namespace

ReadGraph read_metis_or_chaco(const std::string& path, bool chaco, MPI_Comm comm) {
  const int nranks = comm_size(comm);
  std::string deferred_error;
  std::int64_t n = 0;
  const Bytes mine =
      route_from_root(comm, [&](RootRouter& router) { produce(path, chaco, router, nranks, n, deferred_error); });
  // Rank 0 knows n from the header; the others learn it here to compute block owners.
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
  ReadGraph read = decode(mine, n, comm);
  read.graph.ncon = allreduce(read.graph.ncon, MPI_MAX, comm);
  read.graph.has_edge_weights = allreduce(static_cast<int>(read.graph.has_edge_weights), MPI_MAX, comm) != 0;
  if (read.graph.has_edge_weights && read.graph.adj_weight.size() != read.graph.adj.size()) {
    read.graph.adj_weight.assign(read.graph.adj.size(), 1);  // a rank whose block had no lines
  }
  if (read.graph.vweights.size() !=
      static_cast<std::size_t>(read.graph.num_local()) * static_cast<std::size_t>(read.graph.ncon)) {
    read.graph.vweights.assign(
        static_cast<std::size_t>(read.graph.num_local()) * static_cast<std::size_t>(read.graph.ncon), 0.0);
  }
  collectively(comm, [&] {
    for (LocalIndex v = 0; v < read.graph.num_local(); ++v) {
      const auto nb = read.graph.neighbors(v);
      const auto dup = std::adjacent_find(nb.begin(), nb.end());
      if (dup != nb.end()) {
        throw InputError(fmt::format("{}:{}: vertex {} lists neighbor {} twice", path, read.line[v],
                                     read.graph.gid[v].value() + 1, dup->value() + 1));
      }
    }
  });
  check_symmetric(read, path, comm);
  collectively(comm, [&] {
    if (!deferred_error.empty()) throw InputError(deferred_error);
  });
  return read;
}

}  // namespace lbbench
