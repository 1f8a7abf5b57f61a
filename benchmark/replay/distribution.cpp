// The initial distribution (see distribution.hpp).
//
// block: contiguous id ranges of equal size. cyclic: id mod P. random: a hash of (seed,
// id). strips: equal-width slabs of the bounding box along one axis, so a non-uniform
// mesh starts imbalanced as a spatial decomposition would. file: one rank per line, in
// vertex order (the METIS .part format), streamed from rank 0. sfc: a block mesh's blocks
// along the Morton or Hilbert curve, cut into equal parts, as block-structured AMR codes
// start.
#include "replay/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/readers/line_source.hpp"
#include "meshes/readers/root_router.hpp"
#include "replay/migration.hpp"

namespace lbbench {

namespace {

// Reads a partition file (the METIS .part format: one rank per line, in vertex order),
// calling take(vertex, rank) for each line and checking ranks and the line count.
template <class Take>
void read_partition_lines(const std::string& path, std::int64_t n, int nranks, Take take) {
  LineSource src(path, '%');
  std::string line;
  std::int64_t v = 0;
  while (src.next(line)) {
    const auto tokens = split_tokens(line);
    if (tokens.empty()) continue;
    std::int64_t r = 0;
    if (tokens.size() != 1 || !parse_int(tokens[0], r))
      src.fail(fmt::format("expected one rank number, got '{}'", line));
    if (r < 0 || r >= nranks)
      src.fail(fmt::format("rank {} is outside 0..{} (the run has {} ranks)", r, nranks - 1, nranks));
    if (v == n) src.fail(fmt::format("more lines than the mesh's {} vertices", n));
    take(v, static_cast<int>(r));
    ++v;
  }
  if (v != n) src.fail(fmt::format("the file assigns {} vertices, but the mesh has {}", v, n));
}

std::vector<Rank> owners_from_file(const std::string& path, const LocalGraph& g, MPI_Comm comm) {
  const int nranks = comm_size(comm);
  const std::int64_t n = g.global_vertices;
  // Stage 1: the file's lines go to the block owner of each vertex id ...
  const Bytes block = route_from_root(comm, [&](RootRouter& router) {
    read_partition_lines(path, n, nranks, [&](std::int64_t v, int r) {
      ByteWriter out = router.record(block_owner(v, n, nranks));
      out.put(v);
      out.put(r);
    });
  });
  std::unordered_map<std::int64_t, int> directory;
  ByteReader in(block);
  while (!in.done()) {
    const auto v = in.get<std::int64_t>();
    directory[v] = in.get<int>();
  }
  // ... stage 2: each rank asks the block owners about the vertices it holds now.
  std::unordered_map<int, Bytes> asks;
  for (auto id : g.gid) ByteWriter(asks[block_owner(id.value(), n, nranks)]).put(id);
  SparseExchange exchange(comm);
  std::vector<Message> replies;
  for (const auto& m : exchange.exchange(to_messages(asks))) {
    Message reply{m.peer, {}};
    ByteReader ask(m.data);
    ByteWriter out(reply.data);
    while (!ask.done()) {
      const auto id = ask.get<VertexId>();
      out.put(id);
      out.put(directory.at(id.value()));
    }
    replies.push_back(std::move(reply));
  }
  std::unordered_map<VertexId, Rank> answer;
  for (const auto& m : exchange.exchange(replies)) {
    ByteReader a(m.data);
    while (!a.done()) {
      const auto id = a.get<VertexId>();
      answer[id] = Rank{a.get<int>()};
    }
  }
  std::vector<Rank> out;
  for (auto id : g.gid) out.push_back(answer.at(id));
  return out;
}

}  // namespace

std::vector<Rank> pin_recorded(const LocalGraph& g, const TraceLayout* trace, std::vector<Rank> owners, int nranks) {
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    if (g.is_pinned(g.gid[v])) owners[static_cast<std::size_t>(v)] = trace->start_rank(g.gid[v], nranks);
  }
  return owners;
}

Rank starting_rank(const DistributionSpec& spec, const LocalGraph& g, const TraceLayout* trace, LocalIndex v,
                   int nranks, std::uint64_t seed) {
  const std::int64_t n = g.global_vertices;
  const std::int64_t id = g.gid[v].value();
  // A recorded run's non-migratable objects stay where it had them, whatever the rest does.
  if (g.is_pinned(g.gid[v]) || spec.kind == DistributionKind::trace) return trace->start_rank(g.gid[v], nranks);
  switch (spec.kind) {
    case DistributionKind::block: return Rank{block_owner(id, n, nranks)};
    case DistributionKind::cyclic: return Rank{static_cast<int>(id % nranks)};
    case DistributionKind::random:
      return Rank{static_cast<int>(hash_of({seed, tag(Stream::distribution_random), static_cast<std::uint64_t>(id)}) %
                                   static_cast<std::uint64_t>(nranks))};
    case DistributionKind::strips: {
      const double lo = g.bounds.lo[spec.axis];
      const double extent = g.bounds.hi[spec.axis] - lo;
      const double x = extent > 0 ? (g.coords_of(v)[spec.axis] - lo) / extent : 0.0;
      return Rank{std::clamp(static_cast<int>(std::floor(x * nranks)), 0, nranks - 1)};
    }
    case DistributionKind::file:
    case DistributionKind::trace:
    case DistributionKind::sfc: break;
  }
  throw std::logic_error("starting_rank: a file or key-order distribution has no rule of its own");
}

bool places_in_key_order(const DistributionSpec& spec, const LocalGraph& g) {
  return spec.kind == DistributionKind::sfc || (spec.kind == DistributionKind::block && g.sparse_ids);
}

std::vector<std::uint64_t> placement_keys(const DistributionSpec& spec, const MeshSpec& mesh, const LocalGraph& g) {
  std::vector<std::uint64_t> keys;
  keys.reserve(static_cast<std::size_t>(g.num_local()));
  if (spec.kind == DistributionKind::block) {
    for (const VertexId id : g.gid) keys.push_back(static_cast<std::uint64_t>(id.value()));
    return keys;
  }
  const auto& tree = std::get<OctreeSpec>(mesh);
  const OctreeGeometry geometry(tree.dim, tree.max_level);
  for (const VertexId id : g.gid) {
    const Block b = geometry.block_of(id);
    keys.push_back(spec.curve == Curve::hilbert ? geometry.hilbert_key(b) : geometry.morton_key(b));
  }
  return keys;
}

std::vector<Rank> cut_in_key_order(std::span<const std::uint64_t> keys, std::int64_t total, MPI_Comm comm) {
  const int nranks = comm_size(comm);
  std::vector<std::uint64_t> sorted(keys.begin(), keys.end());
  std::sort(sorted.begin(), sorted.end());
  const std::uint64_t top = allreduce<std::uint64_t>(sorted.empty() ? 0 : sorted.back(), MPI_MAX, comm);
  // Cut r (1..P-1) is the key at sorted place block_begin(r): the largest value s with
  // fewer than or as many as block_begin(r) keys below it, kept in [lo, hi).
  const auto cuts = static_cast<std::size_t>(nranks - 1);
  std::vector<std::uint64_t> lo(cuts, 0);
  std::vector<std::uint64_t> hi(cuts, top + 1);
  std::vector<std::int64_t> place(cuts);
  for (std::size_t r = 0; r < cuts; ++r) {
    place[r] = block_begin(static_cast<int>(r) + 1, total, nranks);
    if (place[r] >= total) lo[r] = hi[r] = ~std::uint64_t{0};  // an empty part past every key
  }
  std::vector<std::int64_t> below(cuts);
  std::vector<std::uint64_t> mid(cuts);
  for (;;) {
    bool searching = false;
    for (std::size_t r = 0; r < cuts; ++r) {
      searching = searching || hi[r] - lo[r] > 1;
      mid[r] = lo[r] + (hi[r] - lo[r]) / 2;
      below[r] = std::lower_bound(sorted.begin(), sorted.end(), mid[r]) - sorted.begin();
    }
    if (!searching) break;  // the same on every rank: the bounds move alike everywhere
    MPI_Allreduce(MPI_IN_PLACE, below.data(), static_cast<int>(cuts), MPI_INT64_T, MPI_SUM, comm);
    for (std::size_t r = 0; r < cuts; ++r) {
      if (hi[r] - lo[r] <= 1) continue;
      (below[r] <= place[r] ? lo[r] : hi[r]) = mid[r];
    }
  }
  std::vector<Rank> out;
  out.reserve(keys.size());
  for (const std::uint64_t k : keys) {
    out.push_back(Rank{static_cast<int>(std::upper_bound(lo.begin(), lo.end(), k) - lo.begin())});
  }
  return out;
}

std::vector<Rank> cut_in_key_order_serial(std::span<const std::uint64_t> keys, int nranks) {
  std::vector<std::size_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  std::vector<Rank> out(keys.size());
  const auto n = static_cast<std::int64_t>(keys.size());
  for (std::size_t place = 0; place < order.size(); ++place) {
    out[order[place]] = Rank{block_owner(static_cast<std::int64_t>(place), n, nranks)};
  }
  return out;
}

std::vector<Rank> read_partition_file(const std::string& path, std::int64_t vertices, int nranks) {
  std::vector<Rank> out;
  out.reserve(static_cast<std::size_t>(vertices));
  read_partition_lines(path, vertices, nranks, [&](std::int64_t, int r) { out.push_back(Rank{r}); });
  return out;
}

void check_distribution(const DistributionSpec& spec, const LocalGraph& g) {
  if (spec.kind == DistributionKind::strips && spec.axis >= g.dim) {
    // The same on every rank (g.dim is global), so throwing here needs no agreement.
    throw AgreedInputError(
        g.dim == 0 ? "distribution: strips need coordinates, and this mesh has none (give mesh.coords, or use block)"
                   : fmt::format("distribution: strips along axis {} need {}-D coordinates; the mesh is {}-D",
                                 spec.axis, spec.axis + 1, g.dim));
  }
}

std::vector<Rank> initial_owners(const DistributionSpec& spec, const LocalGraph& g, const TraceLayout* trace,
                                 std::uint64_t seed, MPI_Comm comm, const MeshSpec* mesh) {
  if (spec.kind == DistributionKind::file)
    return pin_recorded(g, trace, owners_from_file(spec.file_resolved, g, comm), comm_size(comm));
  check_distribution(spec, g);
  if (places_in_key_order(spec, g)) {
    if (spec.kind == DistributionKind::sfc && mesh == nullptr) throw std::logic_error("sfc needs the block mesh");
    return cut_in_key_order(placement_keys(spec, mesh ? *mesh : MeshSpec{}, g), g.global_vertices, comm);
  }
  const int nranks = comm_size(comm);
  std::vector<Rank> out;
  out.reserve(static_cast<std::size_t>(g.num_local()));
  for (LocalIndex v = 0; v < g.num_local(); ++v) out.push_back(starting_rank(spec, g, trace, v, nranks, seed));
  return out;
}

void place_at_start(LocalGraph& g, const TraceLayout* trace, const DistributionSpec& spec, std::uint64_t seed,
                    MPI_Comm comm, const MeshSpec* mesh) {
  const auto owners = initial_owners(spec, g, trace, seed, comm, mesh);
  const int me = comm_rank(comm);
  MigrationPlan plan;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    if (owners[static_cast<std::size_t>(v)] != Rank{me}) plan.moves.push_back({v, owners[static_cast<std::size_t>(v)]});
  }
  Migrator(comm, 0, seed).migrate(g, plan, {});
}

}  // namespace lbbench
