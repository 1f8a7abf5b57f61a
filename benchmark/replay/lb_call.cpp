// One LB call (see lb_call.hpp).
#include "replay/lb_call.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <span>

#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "replay/call_ledger.hpp"
#include "replay/engine.hpp"
#include "replay/load_model.hpp"
#include "replay/movable_part.hpp"
#include "replay/record_builder.hpp"

namespace lbbench {

namespace {

// This rank's load per component, over its vertices except those the plan moves away
// (whose loads are added to `given`, per target rank).
std::vector<double> rank_components(const std::vector<Load>& vectors, int dims, const MigrationPlan& plan, int me,
                                    std::map<int, std::vector<double>>* given = nullptr) {
  const auto d = static_cast<std::size_t>(dims);
  const std::size_t n = vectors.size() / d;
  std::vector<double> kept(d, 0.0);
  std::vector<char> leaves(n, 0);
  for (const auto& m : plan.moves) {
    if (m.vertex < 0 || static_cast<std::size_t>(m.vertex) >= n || m.to == Rank{me}) continue;
    leaves[static_cast<std::size_t>(m.vertex)] = 1;
    if (!given) continue;
    auto& out = (*given)[m.to.value()];
    out.resize(d, 0.0);
    for (std::size_t k = 0; k < d; ++k) out[k] += vectors[static_cast<std::size_t>(m.vertex) * d + k].seconds();
  }
  for (std::size_t v = 0; v < n; ++v) {
    if (leaves[v]) continue;
    for (std::size_t k = 0; k < d; ++k) kept[k] += vectors[v * d + k].seconds();
  }
  return kept;
}

// The mean of a per-step series over the steps since the last call.
double mean_since(const std::vector<double>& per_step, int measured_since, int step) {
  double sum = 0;
  for (int s = measured_since; s <= step; ++s) sum += per_step[static_cast<std::size_t>(s)];
  return sum / static_cast<double>(step - measured_since + 1);
}

// What every rank learns of the loads before the balancer runs: their total and largest,
// the steps' exchange time (LoadView::step_exchange), which is the largest wall time less
// the largest compute time, and the slowest rank's share of the last call.
struct CallTotals {
  double total = 0;
  double max = 0;
  double step_exchange = 0;
  double last_call = 0;
};

// What a rank adds to the one reduction: its model load, mean compute and mean wall per
// step, and its share of the last call.
struct RankShare {
  double load = 0;
  double compute = 0;
  double wall = 0;
  double last_call = 0;
};

// The sum of the loads, then the maxima (the model load, the mean compute, the mean wall,
// the last call).
using ReducedShare = std::array<double, 5>;
constexpr std::size_t kSums = 1;

void add_then_max(ReducedShare& into, const ReducedShare& from) {
  for (std::size_t k = 0; k < kSums; ++k) into[k] += from[k];
  for (std::size_t k = kSums; k < into.size(); ++k) into[k] = std::max(into[k], from[k]);
}

// The only collective the replay adds to a call; the metrics, which need every rank's
// load, are gathered when the run ends (CallLedger).
CallTotals reduce_call_totals(const RankShare& r, MPI_Comm comm) {
  const ReducedShare v =
      allreduce_combined<ReducedShare, add_then_max>({r.load, r.load, r.compute, r.wall, r.last_call}, comm);
  return CallTotals{.total = v[0], .max = v[1], .step_exchange = std::max(0.0, v[3] - v[2]), .last_call = v[4]};
}

// --verify: only a migration may change the communication, so each rank's census share
// at a call is the one the last migration left it.
void verify_census(const CensusShare& measured, const CensusShare& carried, int step, MPI_Comm comm) {
  const int changed = allreduce(measured != carried ? 1 : 0, MPI_SUM, comm);
  if (changed != 0) {
    throw AgreedRunError(
        fmt::format("at the LB call of step {}, the communication of {} ranks is not what the last migration left them",
                    step, changed));
  }
}

void verify_owner_tables(const LocalGraph& graph, int step, MPI_Comm comm) {
  const std::int64_t wrong = count_wrong_owner_entries(graph, comm);
  if (wrong != 0) {
    throw AgreedRunError(fmt::format("after the migration at step {}, {} owner-table entries are wrong", step, wrong));
  }
}

// This rank's share of the placement digest (core/hash.hpp).
std::uint64_t owners_digest_share(const LocalGraph& graph, int me) {
  std::uint64_t mine = 0;
  for (LocalIndex v = 0; v < graph.num_local(); ++v) mine += placement_term(graph.gid[v].value(), me);
  return mine;
}

// A call whose balancer promised that nothing moves anywhere: nothing is migrated, and
// only the per-vertex times start afresh, as after a migration. With `verify`, the
// promise is checked.
void keep_the_distribution(const LbContext& ctx, const MigrationPlan& plan, StepLoop& loop, int step) {
  if (ctx.verify) {
    const int me = comm_rank(ctx.comm);
    const auto leaving = static_cast<std::int64_t>(
        std::count_if(plan.moves.begin(), plan.moves.end(), [&](const Move& m) { return m.to != Rank{me}; }));
    const std::int64_t moved = allreduce(leaving, MPI_SUM, ctx.comm);
    if (moved != 0) {
      throw AgreedRunError(fmt::format(
          "the balancer promised that nothing moves at step {}, but its plan moves {} vertices", step, moved));
    }
  }
  loop.restart_vertex_times();
}

// Per-vertex values of the whole graph, cut to the vertices the balancer is shown.
std::vector<double> shown_values(std::vector<double> whole, const MovablePart* movable) {
  if (movable == nullptr) return whole;
  std::vector<double> shown;
  shown.reserve(movable->full.size());
  for (const LocalIndex v : movable->full) shown.push_back(whole[static_cast<std::size_t>(v)]);
  return shown;
}

}  // namespace

std::uint64_t placement_digest(const LocalGraph& graph, MPI_Comm comm) {
  std::uint64_t share = owners_digest_share(graph, comm_rank(comm));
  MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_UINT64_T, MPI_SUM, comm);
  return share;
}

namespace {

// The totals a look reduces as maxima before the compute of each step (LoadLook::maxima_).
constexpr int kLookTotals = 4;

// What the load model reads at a call on this rank, over `everyone` (all its vertices).
LoadModelInputs call_model_inputs(const LbContext& ctx, const LocalGraph& graph, const StepLoop& loop, int step,
                                  int invocation, const std::vector<std::int64_t>& everyone) {
  return LoadModelInputs{.scenario = ctx.scenario,
                         .graph = graph,
                         .vertices = everyone,
                         .machine = ctx.machine,
                         .rank = comm_rank(ctx.comm),
                         .dims = ctx.field.dims(),
                         .invocation = invocation,
                         .weights = loop.weights(),
                         .phase_time = loop.phase_time(),
                         .steps_since_last_call = loop.steps_since_rebuild(),
                         .phase_time_summed = &loop.phase_time_summed(),
                         .step = step};
}

}  // namespace

LbEvent run_lb_call(const LbContext& ctx, LocalGraph& graph, StepLoop& loop, const LbPoint& at, double& last_call_s) {
  const Scenario& s = ctx.scenario;
  const int step = at.step;
  const int invocation = at.invocation;
  const int me = comm_rank(ctx.comm);
  const int nranks = comm_size(ctx.comm);
  const int dims = ctx.field.dims();
  const std::vector<std::int64_t> everyone = all_positions(graph);
  const LoadModelInputs model_inputs = call_model_inputs(ctx, graph, loop, step, invocation, everyone);
  const std::vector<Load> vectors = modeled_vertex_loads(model_inputs);
  // Vertices that never move are not shown to the balancer; their load is the rank's
  // background.
  std::optional<MovablePart> movable;
  if (graph.has_pinned()) movable = movable_part(graph, vectors, dims, Rank{me});
  const LocalGraph& shown = movable ? movable->graph : graph;
  const std::vector<Load>& shown_vectors = movable ? movable->vectors : vectors;
  const std::span<const Load> background =
      movable ? std::span<const Load>(movable->background) : std::span<const Load>();
  const std::vector<Load> loads = summed_loads(shown_vectors, dims);
  const bool trends = ctx.balancer.needs_trends() && trends_measured(model_inputs);
  const std::vector<double> shown_trends =
      trends ? shown_values(modeled_vertex_trends(model_inputs), movable ? &*movable : nullptr) : std::vector<double>();
  const Load rank_load = std::accumulate(loads.begin(), loads.end(), Load{}) +
                         std::accumulate(background.begin(), background.end(), Load{});
  CallShare share;
  share.loads = {rank_load.seconds(), mean_since(loop.steps().compute, at.measured_since, step),
                 mean_since(loop.steps().wall, at.measured_since, step)};
  const CallTotals totals = reduce_call_totals(
      RankShare{.load = share.loads[0], .compute = share.loads[1], .wall = share.loads[2], .last_call = last_call_s},
      ctx.comm);
  share.total_load = totals.total;
  const LoadView view{.graph = shown,
                      .vertex_load = loads,
                      .dims = dims,
                      .vertex_load_vec = dims > 1 ? std::span<const Load>(shown_vectors) : std::span<const Load>(),
                      .vertex_load_trend = shown_trends,
                      .trend_origin = trends ? std::optional<double>(trend_origin(model_inputs)) : std::nullopt,
                      .background = background,
                      .fixed_peers = movable ? std::span<const int>(movable->fixed_peers) : std::span<const int>(),
                      .edge_bytes = s.workload.edge_bytes,
                      .element_bytes = s.workload.element_bytes,
                      .machine = ctx.machine,
                      .rank = Rank{me},
                      .nranks = nranks,
                      .seed = s.seed,
                      .invocation = invocation,
                      .step = step,
                      .period = s.balancer.period,
                      .steps_left = s.steps - step - 1,
                      .rank_load = rank_load,
                      .total_load = Load(totals.total),
                      .max_rank_load = Load(totals.max),
                      .step_exchange = Load(totals.step_exchange),
                      .last_call_s = totals.last_call};
  const double t0 = ctx.engine.now();
  MigrationPlan plan = ctx.balancer.plan(view, ctx.balancer_comm);
  share.decision_s = ctx.engine.now() - t0;
  if (movable) to_full_indices(*movable, plan);

  LbEvent event;
  event.step = step;
  if (ctx.verify) verify_census(loop.census_share(ctx.machine), ctx.ledger.carried_census_share(), step, ctx.comm);
  event.model_imbalance_before = imbalance(totals.max, totals.total / nranks);
  event.protocol = plan.protocol;
  event.prediction = plan.decision;
  if (dims > 1) share.components_before = rank_components(vectors, dims, {}, me);
  if (ctx.balancer.promised_nothing_moves()) {
    keep_the_distribution(ctx, plan, loop, step);
    ctx.before.after_call_without_moves(graph.num_local());
    share.kept = true;
    last_call_s = share.decision_s;
    ctx.ledger.add(std::move(share));
    return event;
  }
  share.components_kept = rank_components(vectors, dims, plan, me, &share.components_given);

  const double t1 = ctx.engine.now();
  const std::int64_t local_before = graph.num_local();
  const MigrationStats stats = ctx.migrator.migrate(graph, plan, [&](const LocalGraph& g) {
    double sum = 0;
    for (LocalIndex v = 0; v < g.num_local(); ++v) {
      sum += ctx.field.total_weight(g.gid[v], g.coords_of(v), g.vweights_of(v), step);
    }
    return sum;
  });
  loop.rebuild(graph);
  share.migration_s = ctx.engine.now() - t1;
  ctx.before.after_migration(stats, graph.num_local());
  if (ctx.verify) verify_owner_tables(graph, step, ctx.comm);

  share.census_after = loop.census_share(ctx.machine);
  share.arrived = graph.num_local() - local_before + stats.vertices_sent;
  share.vertices_sent = stats.vertices_sent;
  share.bytes_sent = stats.bytes_sent;
  share.digest_share = owners_digest_share(graph, me);
  last_call_s = share.decision_s + share.migration_s;
  ctx.ledger.add(std::move(share));
  return event;
}

LoadLook::~LoadLook() {
  // A look still under way at the end of a run was started on every rank alike.
  if (started()) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

void LoadLook::start(const LbContext& ctx, const LocalGraph& graph, const StepLoop& loop, const LbPoint& at,
                     double last_call_s) {
  const std::vector<std::int64_t> everyone = all_positions(graph);
  const LoadModelInputs inputs = call_model_inputs(ctx, graph, loop, at.step, at.invocation, everyone);
  const std::vector<Load> loads = summed_loads(modeled_vertex_loads(inputs), ctx.field.dims());
  const double rank_load = std::accumulate(loads.begin(), loads.end(), Load{}).seconds();
  // The balancer's objects: vertices a trace pins never move.
  const std::int64_t objects = graph.has_pinned() ? graph.pinned_from : graph.global_vertices;
  const auto& compute = loop.steps().compute;
  const bool measured = at.measured_since <= at.step;
  sum_share_ = {rank_load, comm_rank(comm_) == 0 ? static_cast<double>(objects) : 0.0,
                measured ? compute[static_cast<std::size_t>(at.measured_since)] : 0.0};
  edges_ = graph.global_edges;
  unmoved_known_ = ctx.before.known();
  const double unmoved = unmoved_known_ ? ctx.before.unmoved_load(loads, comm_) : 0.0;
  max_share_ = {rank_load, mean_since(loop.steps().wall, at.measured_since, at.step), last_call_s, unmoved};
  max_share_.insert(max_share_.end(), compute.begin() + at.measured_since, compute.begin() + at.step + 1);
  maxima_.assign(max_share_.size(), 0.0);
  // Two reductions of MPI's own operations, started together: under SMPI a user-defined
  // operation in MPI_Iallreduce handed every rank back its own share.
  MPI_Iallreduce(sum_share_.data(), sums_.data(), static_cast<int>(sums_.size()), MPI_DOUBLE, MPI_SUM, comm_,
                 &requests_[0]);
  MPI_Iallreduce(max_share_.data(), maxima_.data(), static_cast<int>(max_share_.size()), MPI_DOUBLE, MPI_MAX, comm_,
                 &requests_[1]);
}

CallOutlook LoadLook::finish(const Scenario& s, const MachineInfo& machine, int step) {
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  const auto steps = static_cast<int>(maxima_.size()) - kLookTotals;
  const double stepwise_max = std::accumulate(maxima_.begin() + kLookTotals, maxima_.end(), 0.0);
  return CallOutlook{.nranks = comm_size(comm_),
                     .objects = static_cast<std::int64_t>(sums_[1]),
                     .edges = edges_,
                     .max_rank_load_s = maxima_[0],
                     .total_load_s = sums_[0],
                     .max_step_s = maxima_[1],
                     .unmoved_max_load_s = unmoved_known_ ? maxima_[3] : 0.0,
                     .stepwise_max_load_s = steps > 0 ? stepwise_max / steps : 0.0,
                     .steps_measured = steps,
                     .first_step_max_load_s = steps > 0 ? maxima_[kLookTotals] : 0.0,
                     .first_step_mean_load_s = steps > 0 ? sums_[2] / comm_size(comm_) : 0.0,
                     .period = s.balancer.period,
                     .steps_left = s.steps - step - 1,
                     .last_call_s = maxima_[2],
                     .edge_bytes = s.workload.edge_bytes,
                     .element_bytes = s.workload.element_bytes,
                     .machine = &machine};
}

}  // namespace lbbench
