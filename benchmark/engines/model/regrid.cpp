// A block mesh's regrid in the model engine (see regrid.hpp).
#include "engines/model/regrid.hpp"

#include <algorithm>

#include "comm/code_time.hpp"
#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "engines/model/lb_call.hpp"
#include "engines/model/round_pricer.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "meshes/octree/restructure.hpp"
#include "replay/regrid.hpp"

namespace lbbench {

namespace {

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
  out.event.step = step;
  // The first collective, whether any block wishes to change (replay/regrid.cpp); the
  // regrid's own time starts after it.
  const RegridContext ctx{.spec = spec_, .geometry = geometry_, .front = front_, .step = next, .refine_only = false};
  const double first_s = net_.allreduce_s(8);
  if (wished_changes(ctx, state.graph()) == 0) {
    keep_the_blocks(state, out);
    out.duration_s = first_s;
    return out;
  }
  const std::vector<Rank> before_gather = owners_of(state);
  // The whole mesh's decision, of which the busiest rank does its share (of the mesh the
  // decision reads, before the regrid).
  const double decider_share = busiest_share(state);
  const double decide_cpu0 = code_cpu_seconds();
  const RegridDecision d = decide_regrid(ctx, state.graph(), before_gather, *exchange_, MPI_COMM_SELF);
  const double decide_cpu = code_cpu_seconds() - decide_cpu0;
  RoundPricer pricer(net_, code_scale_);
  price_decision(state, d, before_gather, pricer, out.event);
  const double decision_rounds_s = pricer.total_s();
  gather_families(state, d, pricer, out.event);
  const double rebuild_cpu = rebuild_ranks(state, d, before_gather, field, out);
  out.event.owners_digest = state.owners_digest();
  // The decision's code and rounds; the gathering; the fates' round, the rebuilding and
  // the census's one allreduce.
  RegridEvent& e = out.event;
  e.decision_s = decide_cpu * decider_share * code_scale_ + decision_rounds_s;
  e.rebuild_s = pricer.total_s() - decision_rounds_s + rebuild_cpu * code_scale_ +
                net_.allreduce_s(static_cast<double>(sizeof(RegridCensus)));
  e.time_s = e.decision_s + e.migration_s + e.rebuild_s;
  out.duration_s = first_s + e.time_s;
  return out;
}

void ModelRegridder::keep_the_blocks(const ModelState& state, ModelRegrid& out) {
  out.event.vertices_before = out.event.vertices_after = state.graph().global_vertices;
  out.event.owners_digest = state.owners_digest();
  for (std::int64_t pos = 0; pos < state.graph().num_local(); ++pos) {
    out.inherit_from.push_back(pos);
    out.inherit_begin.push_back(pos + 1);
  }
}

void ModelRegridder::price_decision(const ModelState& state, const RegridDecision& d, const std::vector<Rank>& owner,
                                    RoundPricer& pricer, RegridEvent& e) const {
  const LocalGraph& g = state.graph();
  RoundCost rounds{pricer, e};
  e.split_rounds = d.split_rounds;
  rounds.add(round_flows(g, owner, kSplitEntryBytes, [](LocalIndex, std::int64_t) { return true; }), d.split_rounds);
  std::vector<Block> block(static_cast<std::size_t>(g.num_local()));
  for (std::size_t pos = 0; pos < block.size(); ++pos) block[pos] = geometry_.block_of(g.gid[pos]);
  const auto sibling_edge = [&](LocalIndex v, std::int64_t edge) {
    const auto far = static_cast<std::size_t>(state.position_of(g.adj[static_cast<std::size_t>(edge)]));
    return OctreeGeometry::siblings(block[static_cast<std::size_t>(v)], block[far]);
  };
  rounds.add(round_flows(g, owner, family_entry_bytes(spec_.dim), sibling_edge), spec_.dim);
}

void ModelRegridder::gather_families(ModelState& state, const RegridDecision& d, RoundPricer& pricer,
                                     RegridEvent& e) const {
  // No position moves, only owners.
  const ModelState::Placement place{[&](int r) { return net_.site_of(r); }};
  const MigrationTally tally = state.migrate(d.gather_to, &place);
  e.migrations = tally.vertices;
  e.migrated_bytes = tally.bytes;
  e.elements_moved_max = tally.arrivals_max;
  e.migration_s = model_migration_s(net_, machine_, code_scale_, tally);
  // Then the fates, told to the neighbours' ranks as they are after the gathering.
  RoundCost{pricer, e}.add(
      round_flows(state.graph(), owners_of(state), kFateEntryBytes, [](LocalIndex, std::int64_t) { return true; }), 1);
}

double ModelRegridder::rebuild_ranks(ModelState& state, const RegridDecision& d, const std::vector<Rank>& before_gather,
                                     const WorkloadField& field, ModelRegrid& out) const {
  const int next = out.event.step + 1;
  const FateOf fate_of = [&](VertexId id) { return d.fate[static_cast<std::size_t>(state.position_of(id))]; };
  LocalGraph whole = state.graph().facts_only();
  std::vector<std::int64_t> rank_begin{0};
  RegridCensus census;
  census.refined = d.refined;
  census.families = d.families;
  double slowest = 0;
  for (int r = 0; r < state.nranks(); ++r) {
    const LocalGraph part = state.part_of(r, ModelState::PartCarries::geometry);
    // Timed as SMPI charges it: the shorter of two runs. Timed once, the slowest of a
    // hundred thousand ranks' rebuilds is whichever one the host interrupted.
    double seconds = 0;
    const Restructured rebuilt =
        time_pure([&] { return restructure(part, geometry_, next / spec_.period, Rank{r}, fate_of); }, seconds);
    slowest = std::max(slowest, seconds);
    std::vector<Fate> fate;
    fate.reserve(static_cast<std::size_t>(part.num_local()));
    for (const VertexId id : part.gid) fate.push_back(fate_of(id));
    count_regrid_before(census, part, fate, field, next);
    count_regrid_after(census, rebuilt, field, next);
    const LocalGraph& made = rebuilt.graph;
    for (LocalIndex v = 0; v < made.num_local(); ++v) {
      const auto i = static_cast<std::size_t>(v);
      whole.add_vertex(made.gid[i], made.neighbors(v), made.neighbor_owners(v), {}, made.coords_of(v),
                       made.vweights_of(v));
      // What the rank measured of the blocks it replaces: those it held before the gathering.
      for (auto k = rebuilt.lineage_begin[i]; k < rebuilt.lineage_begin[i + 1]; ++k) {
        const std::int64_t old = state.position_of(rebuilt.lineage[static_cast<std::size_t>(k)]);
        if (before_gather[static_cast<std::size_t>(old)] == Rank{r}) out.inherit_from.push_back(old);
      }
      out.inherit_begin.push_back(static_cast<std::int64_t>(out.inherit_from.size()));
    }
    rank_begin.push_back(whole.num_local());
  }
  check_regrid_census(census, geometry_.children(), out.event.step);
  whole.global_vertices = census.after;
  whole.global_edges = census.edge_ends / 2;
  state.replace(std::move(whole), std::move(rank_begin));
  RegridEvent& e = out.event;
  e.vertices_before = census.before;
  e.vertices_after = census.after;
  e.refined = census.refined;
  e.merged = census.families;
  e.created = census.created;
  e.destroyed = census.destroyed;
  return slowest;
}

}  // namespace lbbench
