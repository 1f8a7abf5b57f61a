// A block mesh's regrid in the model engine (see regrid.hpp).
#include "engines/model/regrid.hpp"

#include <algorithm>
#include <unordered_set>

#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "core/hash.hpp"
#include "engines/model/lb_call.hpp"
#include "engines/model/round_pricer.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "meshes/octree/restructure.hpp"
#include "replay/regrid.hpp"

namespace lbbench {

namespace {

// Rank `rank`'s blocks as its process holds them: in its local order, with their edges and
// owner table.
LocalGraph rank_part(const ModelState& state, int rank) {
  const LocalGraph& g = state.graph();
  LocalGraph part = g.facts_only();
  const auto local = state.vertices_of(rank);
  std::int64_t edges = 0;
  for (const std::int64_t pos : local) edges += g.degree(static_cast<LocalIndex>(pos));
  part.reserve_more(static_cast<std::int64_t>(local.size()), edges);
  for (const std::int64_t pos : local) {
    const auto v = static_cast<LocalIndex>(pos);
    part.add_vertex(g.gid[static_cast<std::size_t>(pos)], g.neighbors(v), g.neighbor_owners(v), {}, g.coords_of(v),
                    g.vweights_of(v));
  }
  return part;
}

// One round of the decision: each rank's messages, priced and counted.
struct RoundCost {
  RoundPricer& pricer;
  RegridEvent& event;
  void add(const std::vector<RoundFlow>& flows, int rounds) {
    for (int i = 0; i < rounds; ++i) {
      for (const RoundFlow& f : flows) pricer.sent(f.from, f.to, f.bytes);
      pricer.round_done(0);
      event.messages += static_cast<std::int64_t>(flows.size());
      for (const RoundFlow& f : flows) event.bytes += static_cast<std::int64_t>(f.bytes);
    }
    event.rounds += rounds;
  }
};

std::vector<Rank> owners_of(const ModelState& state) {
  std::vector<Rank> out(static_cast<std::size_t>(state.graph().num_local()));
  for (std::size_t pos = 0; pos < out.size(); ++pos) out[pos] = state.owner(static_cast<std::int64_t>(pos));
  return out;
}

// The largest share of the blocks one rank holds.
double busiest_share(const ModelState& state) {
  std::size_t most = 0;
  for (int r = 0; r < state.nranks(); ++r) most = std::max(most, state.vertices_of(r).size());
  return static_cast<double>(most) / static_cast<double>(std::max<LocalIndex>(1, state.graph().num_local()));
}

}  // namespace

ModelRegridder::ModelRegridder(const Scenario& s, const NetworkModel& net, const MachineInfo& machine,
                               double code_scale)
    : spec_(std::get<OctreeSpec>(s.mesh)),
      geometry_(spec_.dim, spec_.max_level),
      front_(spec_.front, spec_.dim),
      net_(net),
      machine_(machine),
      code_scale_(code_scale),
      exchange_(std::make_unique<SparseExchange>(MPI_COMM_SELF)) {}

ModelRegridder::~ModelRegridder() = default;

ModelRegrid ModelRegridder::regrid(ModelState& state, const WorkloadField& field, int step) {
  const int next = step + 1;
  ModelRegrid out;
  RegridEvent& e = out.event;
  e.step = step;
  RoundPricer pricer(net_, code_scale_);
  RoundCost rounds{pricer, e};

  // The first collective, whether any block wishes to change (replay/regrid.cpp); the
  // regrid's own time starts after it.
  const RegridContext ctx{.spec = spec_, .geometry = geometry_, .front = front_, .step = next, .refine_only = false};
  const double first_s = net_.allreduce_s(8);
  if (wished_changes(ctx, state.graph()) == 0) {
    e.vertices_before = e.vertices_after = state.graph().global_vertices;
    e.owners_digest = state.owners_digest();
    out.duration_s = first_s;
    for (std::int64_t pos = 0; pos < state.graph().num_local(); ++pos) {
      out.inherit_from.push_back(pos);
      out.inherit_begin.push_back(pos + 1);
    }
    return out;
  }
  // The decision, on every block at once; its rounds priced with the messages each rank sends.
  const std::vector<Rank> before_gather = owners_of(state);
  const double decide_cpu0 = code_cpu_seconds();
  const RegridDecision d = decide_regrid(ctx, state.graph(), before_gather, *exchange_, MPI_COMM_SELF);
  const double decide_s = (code_cpu_seconds() - decide_cpu0) * busiest_share(state) * code_scale_;
  const LocalGraph& g = state.graph();
  e.split_rounds = d.split_rounds;
  rounds.add(round_flows(g, before_gather, kSplitEntryBytes, [](LocalIndex, std::int64_t) { return true; }),
             d.split_rounds);
  std::vector<Block> block(static_cast<std::size_t>(g.num_local()));
  for (std::size_t pos = 0; pos < block.size(); ++pos) block[pos] = geometry_.block_of(g.gid[pos]);
  const auto sibling_edge = [&](LocalIndex v, std::int64_t edge) {
    const auto far = static_cast<std::size_t>(state.position_of(g.adj[static_cast<std::size_t>(edge)]));
    return OctreeGeometry::siblings(block[static_cast<std::size_t>(v)], block[far]);
  };
  rounds.add(round_flows(g, before_gather, family_entry_bytes(spec_.dim), sibling_edge), spec_.dim);
  // Each merging family onto its gathering rank; no position moves, only owners.
  const ModelState::Placement place{[&](int r) { return net_.site_of(r); }};
  const MigrationTally tally = state.migrate(d.gather_to, &place);
  e.migrations = tally.vertices;
  e.migrated_bytes = tally.bytes;
  e.elements_moved_max = tally.arrivals_max;
  e.migration_s = model_migration_s(net_, machine_, code_scale_, tally);
  const std::vector<Rank> after_gather = owners_of(state);
  rounds.add(round_flows(g, after_gather, kFateEntryBytes, [](LocalIndex, std::int64_t) { return true; }), 1);

  // Every rank's blocks rebuilt in its own order, one after another into the new graph.
  const std::int64_t generation = next / spec_.period;
  const FateOf fate_of = [&](VertexId id) { return d.fate[static_cast<std::size_t>(state.position_of(id))]; };
  LocalGraph whole = g.facts_only();
  std::vector<std::int64_t> rank_begin{0};
  RegridCensus census;
  census.refined = d.refined;
  census.families = d.families;
  double slowest_rebuild = 0;
  for (int r = 0; r < state.nranks(); ++r) {
    const LocalGraph part = rank_part(state, r);
    const double cpu0 = code_cpu_seconds();
    const Restructured rebuilt = restructure(part, geometry_, generation, Rank{r}, fate_of);
    slowest_rebuild = std::max(slowest_rebuild, code_cpu_seconds() - cpu0);
    const std::unordered_set<VertexId> created(rebuilt.created.begin(), rebuilt.created.end());
    for (LocalIndex v = 0; v < part.num_local(); ++v) {
      const VertexId id = part.gid[static_cast<std::size_t>(v)];
      const double w = field.total_weight(id, part.coords_of(v), part.vweights_of(v), next);
      ++census.before;
      census.ids_before += mix64(static_cast<std::uint64_t>(id.value()));
      census.work_before += w;
      if (fate_of(id) == Fate::stay) continue;
      ++census.destroyed;
      census.ids_destroyed += mix64(static_cast<std::uint64_t>(id.value()));
      census.work_destroyed += w;
    }
    const LocalGraph& made = rebuilt.graph;
    for (LocalIndex v = 0; v < made.num_local(); ++v) {
      const auto i = static_cast<std::size_t>(v);
      const VertexId id = made.gid[i];
      const double w = field.total_weight(id, made.coords_of(v), made.vweights_of(v), next);
      ++census.after;
      census.ids_after += mix64(static_cast<std::uint64_t>(id.value()));
      census.work_after += w;
      if (created.contains(id)) {
        ++census.created;
        census.ids_created += mix64(static_cast<std::uint64_t>(id.value()));
        census.work_created += w;
      }
      whole.add_vertex(id, made.neighbors(v), made.neighbor_owners(v), {}, made.coords_of(v), made.vweights_of(v));
      for (auto k = rebuilt.lineage_begin[i]; k < rebuilt.lineage_begin[i + 1]; ++k) {
        const std::int64_t old = state.position_of(rebuilt.lineage[static_cast<std::size_t>(k)]);
        if (before_gather[static_cast<std::size_t>(old)] == Rank{r}) out.inherit_from.push_back(old);
      }
      out.inherit_begin.push_back(static_cast<std::int64_t>(out.inherit_from.size()));
    }
    census.edge_ends += made.num_local_edges();
    rank_begin.push_back(whole.num_local());
  }
  check_regrid_census(census, geometry_.children(), step);
  whole.global_vertices = census.after;
  whole.global_edges = census.edge_ends / 2;
  state.replace(std::move(whole), std::move(rank_begin));

  e.vertices_before = census.before;
  e.vertices_after = census.after;
  e.refined = census.refined;
  e.merged = census.families;
  e.created = census.created;
  e.destroyed = census.destroyed;
  e.owners_digest = state.owners_digest();
  // The decision's code and rounds, the gathering, the rebuilding, and the census's one
  // allreduce.
  e.time_s = decide_s + pricer.total_s() + e.migration_s + slowest_rebuild * code_scale_ +
             net_.allreduce_s(static_cast<double>(sizeof(RegridCensus)));
  out.duration_s = first_s + e.time_s;
  return out;
}

}  // namespace lbbench
