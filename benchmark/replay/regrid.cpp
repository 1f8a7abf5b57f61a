// A block mesh's regrid on the MPI engines (see regrid.hpp).
#include "replay/regrid.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "comm/code_time.hpp"
#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "meshes/octree/restructure.hpp"
#include "replay/engine.hpp"

namespace lbbench {

void RegridCensus::add(RegridCensus& into, const RegridCensus& from) {
  into.before += from.before;
  into.after += from.after;
  into.created += from.created;
  into.destroyed += from.destroyed;
  into.refined += from.refined;
  into.families += from.families;
  into.edge_ends += from.edge_ends;
  into.ids_before += from.ids_before;
  into.ids_after += from.ids_after;
  into.ids_created += from.ids_created;
  into.ids_destroyed += from.ids_destroyed;
  into.work_before += from.work_before;
  into.work_after += from.work_after;
  into.work_created += from.work_created;
  into.work_destroyed += from.work_destroyed;
}

void check_regrid_census(const RegridCensus& c, int children, int step) {
  std::vector<std::string> broken;
  if (c.after != c.before + c.created - c.destroyed) {
    broken.push_back(
        fmt::format("{} blocks + {} made - {} destroyed, but {} after", c.before, c.created, c.destroyed, c.after));
  }
  if (c.ids_after != c.ids_before + c.ids_created - c.ids_destroyed) {
    broken.push_back(fmt::format("the ids' checksum {:x} + made - destroyed is {:x}, but {:x} after", c.ids_before,
                                 c.ids_before + c.ids_created - c.ids_destroyed, c.ids_after));
  }
  const double expected = c.work_before + c.work_created - c.work_destroyed;
  if (std::abs(c.work_after - expected) > 1e-9 * std::max(1.0, std::abs(expected))) {
    broken.push_back(fmt::format("work {} + {} made - {} destroyed, but {} after", c.work_before, c.work_created,
                                 c.work_destroyed, c.work_after));
  }
  if (c.created != c.refined * children + c.families || c.destroyed != c.refined + c.families * children) {
    broken.push_back(fmt::format("{} splits and {} merges of {} blocks each, but {} blocks made and {} destroyed",
                                 c.refined, c.families, children, c.created, c.destroyed));
  }
  if (c.edge_ends % 2 != 0) broken.push_back(fmt::format("{} edge ends, an odd number", c.edge_ends));
  if (!broken.empty()) {
    throw AgreedRunError(
        fmt::format("the regrid after step {} did not conserve the mesh: {}", step, fmt::join(broken, "; ")));
  }
}

namespace {

double work_of(const WorkloadField& field, const LocalGraph& g, LocalIndex v, int step) {
  return field.total_weight(g.gid[static_cast<std::size_t>(v)], g.coords_of(v), g.vweights_of(v), step);
}

// Each rank's maxima of one regrid (its time, its parts' times, arrivals) and its sums
// (messages, bytes, moved blocks and bytes, the census after, the placement digest).
constexpr std::size_t kMaxima = 5;
constexpr std::size_t kSums = 9;

}  // namespace

void count_regrid_before(RegridCensus& c, const LocalGraph& g, const std::vector<Fate>& fate,
                         const WorkloadField& field, int step) {
  c.before += g.num_local();
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto i = static_cast<std::size_t>(v);
    const std::uint64_t id = mix64(static_cast<std::uint64_t>(g.gid[i].value()));
    const double w = work_of(field, g, v, step);
    c.ids_before += id;
    c.work_before += w;
    if (fate[i] == Fate::stay) continue;
    ++c.destroyed;
    c.ids_destroyed += id;
    c.work_destroyed += w;
  }
}

void count_regrid_after(RegridCensus& c, const Restructured& r, const WorkloadField& field, int step) {
  const LocalGraph& g = r.graph;
  const std::unordered_set<VertexId> created(r.created.begin(), r.created.end());
  c.after += g.num_local();
  c.edge_ends += g.num_local_edges();
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto i = static_cast<std::size_t>(v);
    const std::uint64_t id = mix64(static_cast<std::uint64_t>(g.gid[i].value()));
    const double w = work_of(field, g, v, step);
    c.ids_after += id;
    c.work_after += w;
    if (!created.contains(g.gid[i])) continue;
    ++c.created;
    c.ids_created += id;
    c.work_created += w;
  }
}

Regridder::Regridder(const Scenario& s, MPI_Comm comm)
    : spec_(std::get<OctreeSpec>(s.mesh)),
      geometry_(spec_.dim, spec_.max_level),
      front_(spec_.front, spec_.dim),
      comm_(comm),
      me_(comm_rank(comm)),
      exchange_(std::make_unique<SparseExchange>(comm)) {}

Regridder::~Regridder() = default;

void Regridder::regrid(LocalGraph& graph, StepLoop& loop, Migrator& migrator, const WorkloadField& field,
                       const MachineInfo& machine, const Engine& engine, int step, bool verify) {
  const int next = step + 1;  // the mesh is made for the steps that follow
  const RegridContext ctx{.spec = spec_, .geometry = geometry_, .front = front_, .step = next, .refine_only = false};
  // The regrid's first collective, whether any block wishes to change, waits for the
  // slowest rank's step, as an LB call's first reduction does; the regrid's own time
  // starts after it.
  const std::int64_t wished = allreduce(wished_changes(ctx, graph), MPI_SUM, comm_);
  const double t0 = engine.now();
  if (wished == 0) {
    keep_the_blocks(graph, loop, machine, step);
    return;
  }
  const std::vector<Rank> owner(static_cast<std::size_t>(graph.num_local()), Rank{me_});
  RegridDecision decision = decide_regrid(ctx, graph, owner, *exchange_, comm_);
  const StepLoop::TimesById times = loop.times_by_id(graph);

  // Every merging family onto the rank that gathers it, by the migration engine.
  std::unordered_map<VertexId, Fate> decided;
  MigrationPlan plan;
  for (LocalIndex v = 0; v < graph.num_local(); ++v) {
    const auto i = static_cast<std::size_t>(v);
    decided.emplace(graph.gid[i], decision.fate[i]);
    if (decision.gather_to[i] != Rank{me_}) plan.moves.push_back({v, decision.gather_to[i]});
  }
  Share share;
  const double t_gather = engine.now();
  share.decision_s = t_gather - t0;
  share.moved = migrator.migrate(graph, plan, [&](const LocalGraph& g) {
    double sum = 0;
    for (LocalIndex v = 0; v < g.num_local(); ++v) sum += work_of(field, g, v, next);
    return sum;
  });
  const double t_rebuild = engine.now();
  share.migration_s = t_rebuild - t_gather;
  // A block that arrived is a sibling of a family that merges here.
  std::vector<Fate> fate;
  fate.reserve(static_cast<std::size_t>(graph.num_local()));
  for (const VertexId id : graph.gid) {
    const auto it = decided.find(id);
    fate.push_back(it == decided.end() ? Fate::coarsen : it->second);
    share.arrived += it == decided.end() ? 1 : 0;
  }
  const FateBook fates(graph, fate, *exchange_, decision.traffic);

  RegridCensus mine;
  mine.refined = decision.refined;
  mine.families = decision.families;
  Restructured rebuilt;
  collectively(comm_, [&] {
    count_regrid_before(mine, graph, fate, field, next);
    // Pure, so charged as the migration's rebuilding is: the shorter of two runs.
    const FateOf fate_of = [&](VertexId id) { return fates.of(id); };
    rebuilt = charge_pure([&] { return restructure(graph, geometry_, next / spec_.period, Rank{me_}, fate_of); });
  });
  count_regrid_after(mine, rebuilt, field, next);
  const RegridCensus all = allreduce_combined<RegridCensus, &RegridCensus::add>(mine, comm_);
  check_regrid_census(all, geometry_.children(), step);
  rebuilt.graph.global_vertices = all.after;
  rebuilt.graph.global_edges = all.edge_ends / 2;
  graph = std::move(rebuilt.graph);
  loop.regridded(graph, times, rebuilt.lineage_begin, rebuilt.lineage);
  if (verify) {
    const std::int64_t wrong = count_wrong_owner_entries(graph, comm_) + count_asymmetric_edges(graph, comm_);
    if (wrong != 0) {
      throw AgreedRunError(
          fmt::format("after the regrid after step {}, {} edges or owner-table entries are wrong", step, wrong));
    }
  }
  share.time_s = engine.now() - t0;
  share.rebuild_s = share.time_s - share.decision_s - share.migration_s;
  share.messages = decision.traffic.messages;
  share.bytes = decision.traffic.bytes;
  share.census_after = loop.census_share(machine);
  for (const VertexId id : graph.gid) share.digest_share += placement_term(id.value(), me_);
  RegridEvent& e = share.global;
  e.step = step;
  e.vertices_before = all.before;
  e.vertices_after = all.after;
  e.refined = all.refined;
  e.merged = all.families;
  e.created = all.created;
  e.destroyed = all.destroyed;
  e.rounds = decision.traffic.rounds;
  e.split_rounds = decision.split_rounds;
  shares_.push_back(share);
}

void Regridder::keep_the_blocks(const LocalGraph& graph, const StepLoop& loop, const MachineInfo& machine, int step) {
  Share share;
  share.global.step = step;
  share.global.vertices_before = graph.global_vertices;
  share.global.vertices_after = graph.global_vertices;
  share.census_after = loop.census_share(machine);
  for (const VertexId id : graph.gid) share.digest_share += placement_term(id.value(), me_);
  shares_.push_back(share);
}

std::vector<RegridEvent> Regridder::settle(MPI_Comm comm) const {
  if (shares_.empty()) return {};  // every rank made the same regrids
  std::vector<double> maxima;
  std::vector<std::uint64_t> sums;
  for (const Share& s : shares_) {
    maxima.insert(maxima.end(), {s.time_s, s.decision_s, s.migration_s, s.rebuild_s, static_cast<double>(s.arrived)});
    sums.insert(sums.end(),
                {static_cast<std::uint64_t>(s.messages), static_cast<std::uint64_t>(s.bytes),
                 static_cast<std::uint64_t>(s.moved.vertices_sent), static_cast<std::uint64_t>(s.moved.bytes_sent)});
    for (const std::int64_t x : s.census_after) sums.push_back(static_cast<std::uint64_t>(x));
    sums.push_back(s.digest_share);
  }
  const bool root = comm_rank(comm) == 0;
  std::vector<double> max_all(root ? maxima.size() : 0);
  std::vector<std::uint64_t> sum_all(root ? sums.size() : 0);
  MPI_Reduce(maxima.data(), max_all.data(), static_cast<int>(maxima.size()), MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(sums.data(), sum_all.data(), static_cast<int>(sums.size()), MPI_UINT64_T, MPI_SUM, 0, comm);
  if (!root) return {};
  std::vector<RegridEvent> out;
  for (std::size_t i = 0; i < shares_.size(); ++i) {
    RegridEvent e = shares_[i].global;
    const double* max = max_all.data() + i * kMaxima;
    const std::uint64_t* sum = sum_all.data() + i * kSums;
    e.time_s = max[0];
    e.decision_s = max[1];
    e.migration_s = max[2];
    e.rebuild_s = max[3];
    e.elements_moved_max = static_cast<std::int64_t>(max[4]);
    e.messages = static_cast<std::int64_t>(sum[0]);
    e.bytes = static_cast<std::int64_t>(sum[1]);
    e.migrations = static_cast<std::int64_t>(sum[2]);
    e.migrated_bytes = static_cast<std::int64_t>(sum[3]);
    e.after = census_of({static_cast<std::int64_t>(sum[4]), static_cast<std::int64_t>(sum[5]),
                         static_cast<std::int64_t>(sum[6]), static_cast<std::int64_t>(sum[7])});
    e.owners_digest = sum[8];
    out.push_back(e);
  }
  return out;
}

std::int64_t count_asymmetric_edges(const LocalGraph& g, MPI_Comm comm) {
  const int me = comm_rank(comm);
  std::unordered_map<VertexId, LocalIndex> local;
  for (LocalIndex v = 0; v < g.num_local(); ++v) local.emplace(g.gid[static_cast<std::size_t>(v)], v);
  // Whether u lists v, held by rank `owner_of_v`.
  const auto lists = [&](LocalIndex u, VertexId v, int owner_of_v) {
    for (std::int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) {
      if (g.adj[static_cast<std::size_t>(e)] == v) return g.adj_owner[static_cast<std::size_t>(e)] == Rank{owner_of_v};
    }
    return false;
  };
  std::int64_t broken = 0;
  std::unordered_map<int, Bytes> asks;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const auto i = static_cast<std::size_t>(e);
      if (g.adj_owner[i] == Rank{me}) {
        const auto it = local.find(g.adj[i]);
        broken += it == local.end() || !lists(it->second, g.gid[static_cast<std::size_t>(v)], me) ? 1 : 0;
        continue;
      }
      ByteWriter w(asks[g.adj_owner[i].value()]);
      w.put(g.adj[i]);
      w.put(g.gid[static_cast<std::size_t>(v)]);
    }
  }
  SparseExchange exchange(comm);
  for (const auto& m : exchange.exchange(to_messages(asks))) {
    ByteReader in(m.data);
    while (!in.done()) {
      const auto u = in.get<VertexId>();
      const auto v = in.get<VertexId>();
      const auto it = local.find(u);
      broken += it == local.end() || !lists(it->second, v, m.peer) ? 1 : 0;
    }
  }
  return allreduce(broken, MPI_SUM, comm);
}

}  // namespace lbbench
