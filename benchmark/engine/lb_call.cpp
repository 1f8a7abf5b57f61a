// One LB call (see lb_call.hpp).
#include "engine/lb_call.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "balancers/model/metrics.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "engine/load_model.hpp"
#include "engine/movable_part.hpp"
#include "engine/record_builder.hpp"
#include "engines/engine.hpp"
#include "mpi/mpi.hpp"

namespace lbbench {

namespace {

double imbalance(double max, double avg) { return avg > 0 ? max / avg - 1.0 : 0.0; }

// What the plan leaves on the ranks, reduced over them.
struct PredictedAfter {
  double imbalance = 0;         // of the summed loads
  double vector_objective = 0;  // Σ_k max_r of the component loads (vector workloads only)
};

// This rank's load per component, over its vertices except those the plan moves away
// (whose loads are added to `given`, per target rank).
std::vector<double> rank_components(const std::vector<Load>& vectors, int dims, const MigrationPlan& plan, int me,
                                    std::unordered_map<int, std::vector<double>>* given = nullptr) {
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

// Σ_k max_r, over ranks (collective).
double vector_objective_of(const std::vector<double>& mine, MPI_Comm comm) {
  std::vector<double> worst(mine.size());
  MPI_Allreduce(mine.data(), worst.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, comm);
  return std::accumulate(worst.begin(), worst.end(), 0.0);
}

// What the plan gives on the loads the balancer saw: each rank sends the load it gives
// away to its targets (a sparse exchange, nothing of size P).
PredictedAfter predict_after(const LbContext& ctx, const MigrationPlan& plan, const std::vector<Load>& vectors,
                             int dims, double avg) {
  const int me = comm_rank(ctx.comm);
  std::unordered_map<int, std::vector<double>> given;
  std::vector<double> after = rank_components(vectors, dims, plan, me, &given);
  std::unordered_map<int, Bytes> outgoing;
  for (const auto& [peer, load] : given) {
    ByteWriter w(outgoing[peer]);
    for (double x : load) w.put(x);
  }
  for (const auto& m : ctx.prediction_exchange.exchange(to_messages(outgoing))) {
    ByteReader r(m.data);
    for (double& x : after) x += r.get<double>();
  }
  PredictedAfter out;
  out.imbalance = imbalance(allreduce(std::accumulate(after.begin(), after.end(), 0.0), MPI_MAX, ctx.comm), avg);
  if (dims > 1) out.vector_objective = vector_objective_of(after, ctx.comm);
  return out;
}

// The ranks' loads as the call sees them: their total and largest and the steps' exchange
// time, on every rank, and the metrics, on rank 0.
struct RankLoads {
  double total = 0;
  double max = 0;
  double step_exchange = 0;  // LoadView::step_exchange
  std::optional<LbMetrics> metrics;
};

// The mean of a per-step series over the steps since the last call.
double mean_since(const std::vector<double>& per_step, int measured_since, int step) {
  double sum = 0;
  for (int s = measured_since; s <= step; ++s) sum += per_step[static_cast<std::size_t>(s)];
  return sum / static_cast<double>(step - measured_since + 1);
}

// Three doubles per rank, gathered on rank 0: the metrics need every rank's load (the rank
// correlation sorts them), and nothing else of the graph. Rank 0 then sums them in rank
// order (as the model engine does) and broadcasts the total, the largest and the steps'
// exchange time: two collectives where a gather and two reductions were three, each of
// which costs the wide-area latency several times over on a machine of two sites.
RankLoads gather_rank_loads(const LbContext& ctx, const RankSteps& steps, double model_load, int step,
                            int measured_since) {
  const std::array<double, 3> mine{model_load, mean_since(steps.compute, measured_since, step),
                                   mean_since(steps.wall, measured_since, step)};
  const int me = comm_rank(ctx.comm);
  const auto nranks = static_cast<std::size_t>(comm_size(ctx.comm));
  std::vector<double> all(me == 0 ? mine.size() * nranks : 0);
  MPI_Gather(mine.data(), mine.size(), MPI_DOUBLE, all.data(), mine.size(), MPI_DOUBLE, 0, ctx.comm);
  RankLoads out;
  std::array<double, 3> shared{0.0, 0.0, 0.0};
  if (me == 0) {
    std::vector<double> model(nranks);
    std::vector<double> measured_loads(nranks);
    std::vector<double> walls(nranks);
    for (std::size_t r = 0; r < nranks; ++r) {
      model[r] = all[3 * r];
      measured_loads[r] = all[3 * r + 1];
      walls[r] = all[3 * r + 2];
    }
    shared = {std::accumulate(model.begin(), model.end(), 0.0), *std::max_element(model.begin(), model.end()),
              step_exchange_s(measured_loads, walls)};
    out.metrics = LbMetrics{load_moments(model), load_moments(measured_loads), rank_correlation(model, measured_loads)};
  }
  MPI_Bcast(shared.data(), shared.size(), MPI_DOUBLE, 0, ctx.comm);
  out.total = shared[0];
  out.max = shared[1];
  out.step_exchange = shared[2];
  return out;
}

void verify_owner_tables(const LocalGraph& graph, int step, MPI_Comm comm) {
  const std::int64_t wrong = count_wrong_owner_entries(graph, comm);
  if (wrong != 0) {
    throw AgreedRunError(fmt::format("after the migration at step {}, {} owner-table entries are wrong", step, wrong));
  }
}

// The census carried from the last call against one measured now: only a migration may
// change it.
void verify_census(const CommCensus& measured, const CommCensus& carried, int step) {
  if (measured != carried) {
    throw AgreedRunError(fmt::format(
        "at the LB call of step {}, the census carried from the last call (edge cut {}, {} messages per step) is "
        "not the one measured ({}, {})",
        step, carried.edge_cut, carried.messages_per_step, measured.edge_cut, measured.messages_per_step));
  }
}

// This rank's share of the placement digest (core/hash.hpp).
std::uint64_t owners_digest_share(const LocalGraph& graph, int me) {
  std::uint64_t mine = 0;
  for (LocalIndex v = 0; v < graph.num_local(); ++v) mine += placement_term(graph.gid[v].value(), me);
  return mine;
}

// What the migration moved, summed over ranks, and the placement digest, in one reduction:
// the digest is a record of what happened, so it must not add a collective (whose
// simulated latency, on a wide-area machine, would move the run's times).
struct MovedTotals {
  std::int64_t vertices = 0;
  std::int64_t bytes = 0;
  std::uint64_t digest = 0;
};

MovedTotals moved_totals(const MigrationStats& stats, const LocalGraph& graph, int me, MPI_Comm comm) {
  // Unsigned sums wrap modulo 2^64, which the digest is; the counts are far below 2^63.
  std::array<std::uint64_t, 3> v{static_cast<std::uint64_t>(stats.vertices_sent),
                                 static_cast<std::uint64_t>(stats.bytes_sent), owners_digest_share(graph, me)};
  MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_SUM, comm);
  return {static_cast<std::int64_t>(v[0]), static_cast<std::int64_t>(v[1]), v[2]};
}

// A call whose balancer promised that nothing moves anywhere: nothing is migrated or
// totalled (record_kept_distribution), and only the per-vertex times start afresh, as
// after a migration. With `verify`, the promise is checked.
void keep_the_distribution(const LbContext& ctx, const MigrationPlan& plan, const std::vector<Load>& vectors, int dims,
                           StepLoop& loop, LbEvent& event) {
  const int me = comm_rank(ctx.comm);
  if (ctx.verify) {
    const auto leaving = static_cast<std::int64_t>(
        std::count_if(plan.moves.begin(), plan.moves.end(), [&](const Move& m) { return m.to != Rank{me}; }));
    const std::int64_t moved = allreduce(leaving, MPI_SUM, ctx.comm);
    if (moved != 0) {
      throw AgreedRunError(fmt::format(
          "the balancer promised that nothing moves at step {}, but its plan moves {} vertices", event.step, moved));
    }
  }
  if (dims > 1) {
    LbVector v;
    v.model_objective_before_s = vector_objective_of(rank_components(vectors, dims, {}, me), ctx.comm);
    event.vector = v;
  }
  loop.restart_vertex_times();
  record_kept_distribution(event, ctx.owners_digest);
}

}  // namespace

std::uint64_t placement_digest(const LocalGraph& graph, MPI_Comm comm) {
  std::uint64_t share = owners_digest_share(graph, comm_rank(comm));
  MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_UINT64_T, MPI_SUM, comm);
  return share;
}

LbEvent run_lb_call(const LbContext& ctx, LocalGraph& graph, StepLoop& loop, int step, int invocation,
                    int measured_since) {
  const Scenario& s = ctx.scenario;
  const int me = comm_rank(ctx.comm);
  const int nranks = comm_size(ctx.comm);
  const int dims = ctx.field.dims();
  const std::vector<std::int64_t> everyone = all_positions(graph);
  const std::vector<Load> vectors =
      modeled_vertex_loads(LoadModelInputs{.scenario = s,
                                           .graph = graph,
                                           .vertices = everyone,
                                           .machine = ctx.machine,
                                           .rank = me,
                                           .dims = dims,
                                           .invocation = invocation,
                                           .weights = loop.weights(),
                                           .phase_time = loop.phase_time(),
                                           .steps_since_last_call = loop.steps_since_rebuild(),
                                           .phase_time_summed = &loop.phase_time_summed(),
                                           .step = step});
  // Vertices that never move are not shown to the balancer; their load is the rank's
  // background.
  std::optional<MovablePart> movable;
  if (graph.has_pinned()) movable = movable_part(graph, vectors, dims, Rank{me});
  const LocalGraph& shown = movable ? movable->graph : graph;
  const std::vector<Load>& shown_vectors = movable ? movable->vectors : vectors;
  const std::span<const Load> background =
      movable ? std::span<const Load>(movable->background) : std::span<const Load>();
  const std::vector<Load> loads = summed_loads(shown_vectors, dims);
  const Load rank_load = std::accumulate(loads.begin(), loads.end(), Load{}) +
                         std::accumulate(background.begin(), background.end(), Load{});
  RankLoads rank_loads = gather_rank_loads(ctx, loop.steps(), rank_load.seconds(), step, measured_since);
  const LoadView view{.graph = shown,
                      .vertex_load = loads,
                      .dims = dims,
                      .vertex_load_vec = dims > 1 ? std::span<const Load>(shown_vectors) : std::span<const Load>(),
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
                      .later_calls = lb_points_after(s, step),
                      .rank_load = rank_load,
                      .total_load = Load(rank_loads.total),
                      .max_rank_load = Load(rank_loads.max),
                      .step_exchange = Load(rank_loads.step_exchange)};
  const double t0 = ctx.engine.now();
  MigrationPlan plan = ctx.balancer.plan(view, ctx.balancer_comm);
  const double decision = ctx.engine.now() - t0;
  if (movable) to_full_indices(*movable, plan);

  LbEvent event;
  event.step = step;
  event.before = ctx.census;
  if (ctx.verify) verify_census(loop.census(ctx.machine), ctx.census, step);
  const double avg = view.total_load.seconds() / nranks;
  event.model_imbalance_before = imbalance(view.max_rank_load.seconds(), avg);
  event.protocol = plan.protocol;
  event.metrics = std::move(rank_loads.metrics);
  event.prediction = plan.decision;
  if (ctx.balancer.promised_nothing_moves()) {
    keep_the_distribution(ctx, plan, vectors, dims, loop, event);
    event.decision_s = allreduce(decision, MPI_MAX, ctx.comm);
    return event;
  }
  const PredictedAfter predicted = predict_after(ctx, plan, vectors, dims, avg);
  event.model_imbalance_predicted_after = predicted.imbalance;
  if (dims > 1) {
    LbVector v;
    v.model_objective_before_s = vector_objective_of(rank_components(vectors, dims, {}, me), ctx.comm);
    v.model_objective_predicted_after_s = predicted.vector_objective;
    event.vector = v;
  }

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
  const double migration = ctx.engine.now() - t1;
  if (ctx.verify) verify_owner_tables(graph, step, ctx.comm);

  event.after = loop.census(ctx.machine);
  const MovedTotals moved = moved_totals(stats, graph, me, ctx.comm);
  event.migrations = moved.vertices;
  event.migrated_bytes = moved.bytes;
  event.owners_digest = moved.digest;
  // The three maxima in one reduction (the element count is exact in a double).
  std::array<double, 3> maxima{static_cast<double>(graph.num_local() - local_before + stats.vertices_sent), decision,
                               migration};
  MPI_Allreduce(MPI_IN_PLACE, maxima.data(), static_cast<int>(maxima.size()), MPI_DOUBLE, MPI_MAX, ctx.comm);
  event.elements_moved_max = static_cast<std::int64_t>(maxima[0]);
  event.decision_s = maxima[1];
  event.migration_s = maxima[2];
  return event;
}

}  // namespace lbbench
