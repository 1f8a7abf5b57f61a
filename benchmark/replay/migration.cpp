// The migration engine (see migration.hpp).
//
// Order matters for the owner tables. First every rank that moves a vertex tells the
// owners of its neighbors (as its owner table names them, which is still right) where it
// goes; they fix their edges. Only then do vertices move, carrying owner entries that
// already include their neighbors' moves. So one exchange suffices even when both ends of
// an edge move at once.
#include "replay/migration.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "comm/code_time.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"

namespace lbbench {

struct Migrator::Census {
  std::int64_t vertices = 0;
  std::int64_t edges = 0;
  std::uint64_t id_sum = 0;  // sum of mix64(id) mod 2^64: a lost or doubled id changes it
  double weight = 0.0;
  // Field by field (the id checksum modulo 2^64, as unsigned sums do), so that the census
  // is one reduction where it was four: the migration takes it twice at every call.
  static void add(Census& into, const Census& from) {
    into.vertices += from.vertices;
    into.edges += from.edges;
    into.id_sum += from.id_sum;
    into.weight += from.weight;
  }
};

Migrator::Migrator(MPI_Comm comm, std::int64_t element_bytes, std::uint64_t seed)
    : comm_(comm),
      me_(comm_rank(comm)),
      nranks_(comm_size(comm)),
      element_bytes_(element_bytes),
      seed_(seed),
      exchange_(std::make_unique<SparseExchange>(comm)) {}

Migrator::Census Migrator::census(const LocalGraph& g, const WeightSum& weight_sum) const {
  Census local;
  local.vertices = g.num_local();
  local.edges = g.num_local_edges();
  for (auto id : g.gid) local.id_sum += mix64(static_cast<std::uint64_t>(id.value()));
  local.weight = weight_sum ? weight_sum(g) : 0.0;
  return allreduce_combined<Census, &Census::add>(local, comm_);
}

void Migrator::check_plan(const LocalGraph& g, const MigrationPlan& plan) const {
  collectively(comm_, [&] {
    std::vector<bool> seen(static_cast<std::size_t>(g.num_local()), false);
    for (const auto& m : plan.moves) {
      if (m.vertex < 0 || m.vertex >= g.num_local()) {
        throw RunError(fmt::format("migration plan on rank {} names local vertex {}, but the rank has {}", me_,
                                   m.vertex, g.num_local()));
      }
      if (m.to.value() < 0 || m.to.value() >= nranks_) {
        throw RunError(fmt::format("migration plan on rank {} sends vertex {} to rank {}, which does not exist", me_,
                                   g.gid[m.vertex].value(), m.to.value()));
      }
      if (seen[static_cast<std::size_t>(m.vertex)]) {
        throw RunError(fmt::format("migration plan on rank {} moves vertex {} twice", me_, g.gid[m.vertex].value()));
      }
      seen[static_cast<std::size_t>(m.vertex)] = true;
    }
  });
}

MigrationStats Migrator::migrate(LocalGraph& g, const MigrationPlan& plan, const WeightSum& weight_sum) {
  check_plan(g, plan);
  const Census before = census(g, weight_sum);
  std::vector<Rank> target(static_cast<std::size_t>(g.num_local()), Rank{me_});
  for (const auto& m : plan.moves) target[static_cast<std::size_t>(m.vertex)] = m.to;
  tell_neighbors(g, target);
  // Packing and unpacking can fail on one rank (memory, a bad checksum); the exchange
  // between them must not be skipped by anyone, so it stays outside the agreed parts.
  MigrationStats stats;
  std::unordered_map<int, Bytes> outgoing;
  collectively(comm_, [&] {
    // Packing only reads the graph: charged as pure code (comm/code_time.hpp).
    std::tie(stats, outgoing) = charge_pure([&] {
      std::unordered_map<int, Bytes> packed;
      const MigrationStats packed_stats = pack_moving(g, target, packed);
      return std::pair{packed_stats, std::move(packed)};
    });
  });
  for (const auto& [peer, bytes] : outgoing) {
    if (!bytes.empty()) stats.sent_to.push_back(peer);
  }
  const auto incoming = exchange_->exchange(to_messages(outgoing));
  collectively(comm_, [&] {
    rebuild_charged(g, target, incoming);
    for (const auto& m : incoming) {
      ByteReader in(m.data);
      std::int64_t count = 0;
      for (; !in.done(); ++count) (void)skip_vertex(in, element_bytes_, g);
      stats.arrived_from.emplace_back(m.peer, count);
    }
  });
  const Census after = census(g, weight_sum);
  collectively(comm_, [&] {
    const double tolerance = 1e-9 * std::max(1.0, std::abs(before.weight));
    if (after.vertices != before.vertices || after.edges != before.edges || after.id_sum != before.id_sum ||
        std::abs(after.weight - before.weight) > tolerance) {
      throw RunError(fmt::format(
          "migration did not conserve the graph: vertices {} -> {}, edge ends {} -> {}, id checksum {:x} -> {:x}, "
          "total weight {} -> {}",
          before.vertices, after.vertices, before.edges, after.edges, before.id_sum, after.id_sum, before.weight,
          after.weight));
    }
  });
  return stats;
}

void Migrator::tell_neighbors(LocalGraph& g, const std::vector<Rank>& target) {
  std::unordered_map<VertexId, LocalIndex> local_index;
  local_index.reserve(static_cast<std::size_t>(g.num_local()));
  for (LocalIndex v = 0; v < g.num_local(); ++v) local_index.emplace(g.gid[v], v);

  // Decisions read the owner table as it was; local fixes are applied afterwards, or a
  // fix made for one moving vertex would hide a local neighbor from the next.
  std::unordered_map<int, Bytes> notes;
  std::vector<std::pair<std::int64_t, Rank>> local_fixes;  // (edge, new owner)
  std::vector<int> told;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const Rank to = target[static_cast<std::size_t>(v)];
    if (to == Rank{me_}) continue;
    told.clear();
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const Rank owner = g.adj_owner[e];
      if (owner == Rank{me_}) {
        const LocalIndex u = local_index.at(g.adj[e]);
        for (std::int64_t f = g.xadj[u]; f < g.xadj[u + 1]; ++f) {
          if (g.adj[f] == g.gid[v]) local_fixes.emplace_back(f, to);
        }
      } else if (std::find(told.begin(), told.end(), owner.value()) == told.end()) {
        told.push_back(owner.value());
        ByteWriter out(notes[owner.value()]);
        out.put(g.gid[v]);
        out.put(to);
      }
    }
  }
  for (const auto& [edge, owner] : local_fixes) g.adj_owner[edge] = owner;
  std::unordered_map<VertexId, Rank> moved;
  for (const auto& m : exchange_->exchange(to_messages(notes))) {
    ByteReader in(m.data);
    while (!in.done()) {
      const auto id = in.get<VertexId>();
      moved[id] = in.get<Rank>();
    }
  }
  if (moved.empty()) return;
  for (std::int64_t e = 0; e < g.num_local_edges(); ++e) {
    if (g.adj_owner[e] == Rank{me_}) continue;
    if (auto it = moved.find(g.adj[e]); it != moved.end()) g.adj_owner[e] = it->second;
  }
}

// Wire format of one vertex: id, degree, neighbors, owners, [edge weights], coordinates,
// file weights, payload checksum, payload. The payload stands for the application state
// that would move with the element; its first 8 bytes are the id, so a payload delivered
// for the wrong vertex is caught as surely as a corrupted one.
void pack_vertex(const LocalGraph& g, LocalIndex v, std::int64_t element_bytes, std::uint64_t seed, Bytes& out) {
  ByteWriter w(out);
  const auto degree = static_cast<std::int32_t>(g.degree(v));
  w.put(g.gid[v]);
  w.put(degree);
  w.put_span(g.neighbors(v));
  w.put_span(g.neighbor_owners(v));
  if (g.has_edge_weights) w.put_span(std::span<const std::int32_t>(g.adj_weight.data() + g.xadj[v], degree));
  w.put_span(g.coords_of(v));
  w.put_span(g.vweights_of(v));
  // The payload is written in place after a slot for its checksum.
  const auto bytes = static_cast<std::size_t>(element_bytes);
  const std::size_t checksum_at = out.size();
  w.put<std::uint64_t>(0);
  const std::size_t payload_at = out.size();
  w.grow(bytes);
  std::byte* payload = out.data() + payload_at;
  const std::uint64_t h = hash_of({seed, tag(Stream::payload), static_cast<std::uint64_t>(g.gid[v].value())});
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t word = i == 0 ? static_cast<std::uint64_t>(g.gid[v].value()) : mix64(h + i);
    std::memcpy(payload + i, &word, std::min<std::size_t>(8, bytes - i));
  }
  const std::uint64_t checksum = XXH64(payload, bytes, 0);
  std::memcpy(out.data() + checksum_at, &checksum, sizeof checksum);
}

void unpack_vertex(ByteReader& in, std::int64_t element_bytes, int me, int from, LocalGraph& into) {
  const auto id = in.get<VertexId>();
  const auto degree = static_cast<std::size_t>(in.get<std::int32_t>());
  std::vector<VertexId> nbrs;
  std::vector<Rank> owners;
  std::vector<std::int32_t> weights;
  std::vector<double> xyz, vw;
  in.get_into(nbrs, degree);
  in.get_into(owners, degree);
  if (into.has_edge_weights) in.get_into(weights, degree);
  in.get_into(xyz, static_cast<std::size_t>(into.dim));
  in.get_into(vw, static_cast<std::size_t>(into.ncon));
  const auto checksum = in.get<std::uint64_t>();
  const auto payload = in.take(static_cast<std::size_t>(element_bytes));
  std::int64_t embedded = id.value();
  if (payload.size() >= 8) std::memcpy(&embedded, payload.data(), 8);
  if (XXH64(payload.data(), payload.size(), 0) != checksum || embedded != id.value()) {
    throw RunError(
        fmt::format("payload of vertex {} received by rank {} from rank {} failed its checksum", id.value(), me, from));
  }
  into.add_vertex(id, nbrs, owners, weights, xyz, vw);
}

std::int64_t packed_vertex_bytes(std::int64_t degree, const LocalGraph& g, std::int64_t element_bytes) {
  // As pack_vertex writes it: id, degree, neighbors and their owners, edge weights,
  // coordinates, file weights, the payload's checksum and the payload.
  std::int64_t bytes =
      8 + 4 + degree * (8 + 4) + std::int64_t{8} * g.dim + std::int64_t{8} * g.ncon + 8 + element_bytes;
  if (g.has_edge_weights) bytes += 4 * degree;
  return bytes;
}

std::int64_t skip_vertex(ByteReader& in, std::int64_t element_bytes, const LocalGraph& into) {
  (void)in.get<VertexId>();
  const std::int64_t degree = in.get<std::int32_t>();
  (void)in.take(static_cast<std::size_t>(packed_vertex_bytes(degree, into, element_bytes) - 8 - 4));
  return degree;
}

void keep_vertex(const LocalGraph& g, LocalIndex v, LocalGraph& into) {
  const auto degree = static_cast<std::size_t>(g.degree(v));
  into.add_vertex(g.gid[v], g.neighbors(v), g.neighbor_owners(v),
                  g.has_edge_weights ? std::span<const std::int32_t>(g.adj_weight.data() + g.xadj[v], degree)
                                     : std::span<const std::int32_t>{},
                  g.coords_of(v), g.vweights_of(v));
}

MigrationStats Migrator::pack_moving(const LocalGraph& g, const std::vector<Rank>& target,
                                     std::unordered_map<int, Bytes>& outgoing) const {
  MigrationStats stats;
  // Each message is sized before it is written: growing it vertex by vertex reallocates
  // and copies it a dozen times, which under a simulator (every rank in one heap) is
  // dearer than the packing itself.
  std::unordered_map<int, std::int64_t> sizes;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const Rank to = target[static_cast<std::size_t>(v)];
    if (to != Rank{me_}) sizes[to.value()] += packed_vertex_bytes(g.degree(v), g, element_bytes_);
  }
  for (const auto& [peer, bytes] : sizes) outgoing[peer].reserve(static_cast<std::size_t>(bytes));
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const Rank to = target[static_cast<std::size_t>(v)];
    if (to == Rank{me_}) continue;
    pack_vertex(g, v, element_bytes_, seed_, outgoing[to.value()]);
    ++stats.vertices_sent;
  }
  for (const auto& [peer, bytes] : outgoing) stats.bytes_sent += static_cast<std::int64_t>(bytes.size());
  return stats;
}

// Rebuilding changes the graph, so where code is charged it is timed on a copy first and
// then for real, and charged the shorter (see shorter_of_two).
void Migrator::rebuild_charged(LocalGraph& g, const std::vector<Rank>& target,
                               const std::vector<Message>& incoming) const {
  if (!code_is_charged()) {
    keep_and_receive(g, target, incoming);
    return;
  }
  std::optional<LocalGraph> copy = g;
  charge_code(shorter_of_two([&] { keep_and_receive(*copy, target, incoming); }, [&] { copy.reset(); },
                             [&] { keep_and_receive(g, target, incoming); }));
}

void Migrator::reserve_for(LocalGraph& kept, const LocalGraph& g, const std::vector<Rank>& target,
                           const std::vector<Message>& incoming) const {
  std::int64_t vertices = 0;
  std::int64_t edges = 0;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    if (target[static_cast<std::size_t>(v)] != Rank{me_}) continue;
    ++vertices;
    edges += g.degree(v);
  }
  for (const auto& m : incoming) {
    ByteReader in(m.data);
    for (; !in.done(); ++vertices) edges += skip_vertex(in, element_bytes_, kept);
  }
  kept.reserve_more(vertices, edges);
}

void Migrator::keep_and_receive(LocalGraph& g, const std::vector<Rank>& target,
                                const std::vector<Message>& incoming) const {
  // Keep the vertices that stay, in order, then append the arrivals.
  LocalGraph kept = g.facts_only();
  reserve_for(kept, g, target, incoming);
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    if (target[static_cast<std::size_t>(v)] == Rank{me_}) keep_vertex(g, v, kept);
  }
  for (const auto& m : incoming) {
    ByteReader in(m.data);
    while (!in.done()) unpack_vertex(in, element_bytes_, me_, m.peer, kept);
  }
  g = std::move(kept);
}

std::int64_t count_wrong_owner_entries(const LocalGraph& g, MPI_Comm comm) {
  const int me = comm_rank(comm);
  std::unordered_map<VertexId, bool> mine;
  for (auto id : g.gid) mine.emplace(id, true);
  std::int64_t wrong = 0;
  std::unordered_map<int, Bytes> asks;
  for (std::int64_t e = 0; e < g.num_local_edges(); ++e) {
    if (g.adj_owner[e] == Rank{me}) {
      if (!mine.contains(g.adj[e])) ++wrong;
    } else {
      ByteWriter(asks[g.adj_owner[e].value()]).put(g.adj[e]);
    }
  }
  SparseExchange exchange(comm);
  for (const auto& m : exchange.exchange(to_messages(asks))) {
    ByteReader in(m.data);
    while (!in.done()) {
      if (!mine.contains(in.get<VertexId>())) ++wrong;
    }
  }
  return allreduce(wrong, MPI_SUM, comm);
}

MigrationCode measure_migration_code(const LocalGraph& g, std::int64_t element_bytes, std::uint64_t seed) {
  constexpr LocalIndex kSample = 256;
  const LocalIndex n = g.num_local();
  if (n == 0) return {};
  const LocalIndex stride = std::max<LocalIndex>(1, n / kSample);
  LocalGraph scratch;
  scratch.dim = g.dim;
  scratch.ncon = g.ncon;
  scratch.has_edge_weights = g.has_edge_weights;
  Bytes packed;
  MigrationCode c;
  int count = 0;
  double t = code_cpu_seconds();
  for (LocalIndex v = 0; v < n; v += stride, ++count) pack_vertex(g, v, element_bytes, seed, packed);
  c.pack_s = (code_cpu_seconds() - t) / count;
  t = code_cpu_seconds();
  ByteReader in(packed);
  while (!in.done()) unpack_vertex(in, element_bytes, 0, 0, scratch);
  c.unpack_s = (code_cpu_seconds() - t) / count;
  LocalGraph kept = scratch;
  kept.gid.clear();
  kept.xadj = {0};
  kept.adj.clear();
  kept.adj_owner.clear();
  kept.adj_weight.clear();
  kept.coords.clear();
  kept.vweights.clear();
  t = code_cpu_seconds();
  for (LocalIndex v = 0; v < scratch.num_local(); ++v) keep_vertex(scratch, v, kept);
  c.keep_s = (code_cpu_seconds() - t) / count;
  return c;
}

}  // namespace lbbench
