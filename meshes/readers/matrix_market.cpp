// Matrix Market coordinate files as graphs: an off-diagonal entry (i, j) is an edge i-j.
// Values are ignored; general matrices are symmetrized (the pattern of A + A^T), as graph
// partitioners do; repeated entries collapse into one edge.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "meshes/build.hpp"
#include "meshes/readers/graph_reader.hpp"
#include "meshes/readers/line_source.hpp"
#include "meshes/readers/root_router.hpp"

namespace lbbench {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void produce(const std::string& path, RootRouter& router, int nranks, std::int64_t& n) {
  // The banner starts with '%', so it is read before comment skipping.
  std::string line;
  {
    std::ifstream probe(path);
    if (!probe) throw InputError(fmt::format("{}: cannot open the mesh file", path));
    std::getline(probe, line);
  }
  const auto banner = split_tokens(line);
  if (banner.size() < 5 || lower(banner[0]) != "%%matrixmarket" || lower(banner[1]) != "matrix") {
    throw InputError(fmt::format(
        "{}:1: not a Matrix Market file: expected \"%%MatrixMarket matrix coordinate <field> <symmetry>\"", path));
  }
  if (lower(banner[2]) != "coordinate") {
    throw InputError(
        fmt::format("{}:1: '{}' format is a dense matrix, not a graph; expected 'coordinate'", path, banner[2]));
  }
  LineSource src(path, '%');
  while (src.next(line)) {
    if (!split_tokens(line).empty()) break;
  }
  const auto size = split_tokens(line);
  std::int64_t rows = 0, cols = 0, nnz = 0;
  if (size.size() != 3 || !parse_int(size[0], rows) || !parse_int(size[1], cols) || !parse_int(size[2], nnz)) {
    src.fail(fmt::format("bad size line '{}': expected \"rows columns entries\"", line));
  }
  if (rows != cols) src.fail(fmt::format("the matrix is {} x {}; a graph needs a square matrix", rows, cols));
  if (rows < 1) src.fail("the matrix has no rows");
  n = rows;
  const std::int64_t size_line = src.line_number();
  std::int64_t entries = 0;
  while (src.next(line)) {
    const auto t = split_tokens(line);
    if (t.empty()) continue;
    std::int64_t i = 0, j = 0;
    if (t.size() < 2 || !parse_int(t[0], i) || !parse_int(t[1], j)) {
      src.fail(fmt::format("bad entry '{}': expected \"row column [value]\"", line));
    }
    if (i < 1 || i > n || j < 1 || j > n) {
      src.fail(fmt::format("entry ({}, {}) is outside the {} x {} matrix", i, j, n, n));
    }
    if (++entries > nnz)
      src.fail(fmt::format("more entries than the {} the size line (line {}) declares", nnz, size_line));
    if (i == j) continue;
    const std::int64_t a = i - 1, b = j - 1;
    ByteWriter to_a = router.record(block_owner(a, n, nranks));
    to_a.put(a);
    to_a.put(b);
    ByteWriter to_b = router.record(block_owner(b, n, nranks));
    to_b.put(b);
    to_b.put(a);
  }
  if (entries != nnz) {
    src.fail(fmt::format("the file ends after {} entries, but the size line (line {}) declares {}", entries, size_line,
                         nnz));
  }
}

}  // namespace

LocalGraph read_matrix_market(const std::string& path, MPI_Comm comm) {
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  std::int64_t n = 0;
  const Bytes mine = route_from_root(comm, [&](RootRouter& router) { produce(path, router, nranks, n); });
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  ByteReader in(mine);
  while (!in.done()) {
    const auto a = in.get<std::int64_t>();
    edges.emplace_back(a, in.get<std::int64_t>());
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  LocalGraph g;
  const std::int64_t begin = block_begin(me, n, nranks);
  const std::int64_t end = block_begin(me + 1, n, nranks);
  std::size_t at = 0;
  std::vector<VertexId> nbrs;
  std::vector<Rank> owners;
  for (std::int64_t v = begin; v < end; ++v) {
    nbrs.clear();
    owners.clear();
    for (; at < edges.size() && edges[at].first == v; ++at) {
      nbrs.push_back(VertexId{edges[at].second});
      owners.push_back(Rank{block_owner(edges[at].second, n, nranks)});
    }
    g.add_vertex(VertexId{v}, nbrs, owners, {}, {}, {});
  }
  return g;
}

}  // namespace lbbench
