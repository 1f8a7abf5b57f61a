// An LB call in the model engine (see lb_call.hpp).
#include "engines/model/lb_call.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "balancers/model/metrics.hpp"
#include "balancers/sdk/centralized.hpp"
#include "balancers/sdk/protocol.hpp"
#include "comm/code_time.hpp"
#include "core/clock.hpp"
#include "engines/model/round_pricer.hpp"
#include "replay/load_model.hpp"
#include "replay/migration.hpp"
#include "replay/record_builder.hpp"

namespace lbbench {

namespace {

// The modeled loads of every rank's vertices, in (rank, local index) order, as the MPI
// engines' ranks compute them, and the problem a serial decision works on.
struct ModeledProblem {
  GlobalProblem problem;
  std::vector<Load> vectors;       // dims per object
  std::vector<double> rank_load;   // per rank, summed, background included
  std::vector<double> background;  // per rank, dims each: the pinned vertices' loads
  // Per rank, as rank_load, with every vertex on the rank that held it before the last
  // call (empty before the first).
  std::vector<double> unmoved_rank_load;
};

// The pinned vertices' loads as the problem's background, as the centralized gather does.
void set_background(ModeledProblem& m, bool vectors, int p, std::size_t dims) {
  GlobalProblem& pr = m.problem;
  pr.rank_background.assign(static_cast<std::size_t>(p), Load{});
  for (std::size_t r = 0; r < static_cast<std::size_t>(p); ++r) {
    for (std::size_t k = 0; k < dims; ++k) pr.rank_background[r] += Load(m.background[r * dims + k]);
  }
  if (!vectors) return;
  pr.rank_background_vec.reserve(m.background.size());
  for (const double x : m.background) pr.rank_background_vec.emplace_back(x);
}

ModeledProblem model_problem(const ModelLbContext& ctx, const ModelState& state, const ModelLbInputs& in) {
  const Scenario& s = ctx.scenario;
  const int p = state.nranks();
  const auto dims = static_cast<std::size_t>(ctx.dims);
  ModeledProblem m;
  GlobalProblem& pr = m.problem;
  pr.nranks = p;
  pr.rank_speed = ctx.machine.rank_speed.values();
  pr.rank_site = ctx.machine.rank_site.values();
  pr.rank_node = ctx.machine.rank_node.values();
  pr.seed = s.seed;
  pr.invocation = in.invocation;
  const auto n = static_cast<std::size_t>(state.graph().num_local());
  pr.id.reserve(n);
  pr.load.reserve(n);
  pr.owner.reserve(n);
  m.vectors.reserve(n * dims);
  m.rank_load.assign(static_cast<std::size_t>(p), 0.0);
  m.background.assign(static_cast<std::size_t>(p) * dims, 0.0);
  if (!in.owner_before_call.empty()) m.unmoved_rank_load.assign(static_cast<std::size_t>(p), 0.0);
  const LocalGraph& g = state.graph();
  for (int r = 0; r < p; ++r) {
    const LoadModelInputs model_inputs{.scenario = s,
                                       .graph = state.graph(),
                                       .vertices = state.vertices_of(r),
                                       .machine = ctx.machine,
                                       .rank = r,
                                       .dims = ctx.dims,
                                       .invocation = in.invocation,
                                       .weights = in.weights,
                                       .phase_time = in.phase_time,
                                       .steps_since_last_call = in.steps_since_last_call,
                                       .phase_time_summed = &in.phase_time_summed,
                                       .step = in.step};
    const std::vector<Load> vectors = modeled_vertex_loads(model_inputs);
    const std::vector<Load> loads = summed_loads(vectors, ctx.dims);
    const bool trends = ctx.balancer.needs_trends() && trends_measured(model_inputs);
    const std::vector<double> trend = trends ? modeled_vertex_trends(model_inputs) : std::vector<double>();
    if (trends) pr.trend_origin = trend_origin(model_inputs);
    // Coordinates go with the trends, as the centralized gather sends them.
    const bool coords = ctx.balancer.needs_coords() && g.dim > 0 && (trends || !ctx.balancer.needs_trends());
    if (coords) pr.coord_dims = g.dim;
    const auto local = state.vertices_of(r);
    for (std::size_t i = 0; i < local.size(); ++i) {
      const VertexId id = g.gid[static_cast<std::size_t>(local[i])];
      m.rank_load[static_cast<std::size_t>(r)] += loads[i].seconds();
      if (!m.unmoved_rank_load.empty()) {
        m.unmoved_rank_load[static_cast<std::size_t>(in.owner_before_call[static_cast<std::size_t>(local[i])])] +=
            loads[i].seconds();
      }
      if (g.is_pinned(id)) {  // never shown to the balancer: the rank's background
        for (std::size_t k = 0; k < dims; ++k)
          m.background[static_cast<std::size_t>(r) * dims + k] += vectors[i * dims + k].seconds();
        continue;
      }
      pr.id.push_back(id);
      pr.load.push_back(loads[i]);
      if (trends) pr.load_trend.push_back(trend[i]);
      if (coords) {
        const auto x = g.coords_of(static_cast<LocalIndex>(local[i]));
        pr.coords.insert(pr.coords.end(), x.begin(), x.end());
      }
      pr.owner.push_back(Rank{r});
      m.vectors.insert(m.vectors.end(), vectors.begin() + static_cast<std::ptrdiff_t>(i * dims),
                       vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * dims));
    }
  }
  if (g.has_pinned()) set_background(m, ctx.balancer.needs_vectors(), p, dims);
  if (ctx.balancer.needs_vectors()) {
    pr.dims = ctx.dims;
    pr.load_vec = ctx.dims > 1 ? m.vectors : pr.load;
  }
  if (ctx.balancer.needs_graph()) {
    // As the centralized gather builds it: each object's neighbors as object indices,
    // with the bytes each edge carries per step (edges to pinned vertices left out).
    const std::size_t objects = pr.size();
    // By position, not id: a mesh that regrids has sparse ids.
    std::vector<std::int64_t> index_of(n, -1);
    for (std::size_t i = 0; i < objects; ++i)
      index_of[static_cast<std::size_t>(state.position_of(pr.id[i]))] = static_cast<std::int64_t>(i);
    pr.xadj.assign(objects + 1, 0);
    if (g.has_pinned()) pr.fixed_xadj.assign(objects + 1, 0);
    for (std::size_t i = 0; i < objects; ++i) {
      const auto v = static_cast<LocalIndex>(state.position_of(pr.id[i]));
      for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
        const std::int64_t j =
            index_of[static_cast<std::size_t>(state.position_of(g.adj[static_cast<std::size_t>(e)]))];
        if (j < 0) {  // a pinned vertex: the rank it sits on
          pr.fixed_rank.push_back(g.adj_owner[static_cast<std::size_t>(e)].value());
          continue;
        }
        pr.adjncy.push_back(j);
        pr.adj_bytes.push_back(s.workload.edge_bytes * g.edge_weight(e));
      }
      pr.xadj[i + 1] = static_cast<std::int64_t>(pr.adjncy.size());
      if (g.has_pinned()) pr.fixed_xadj[i + 1] = static_cast<std::int64_t>(pr.fixed_rank.size());
    }
  }
  return m;
}

// What a centralized strategy gathers to rank 0 (see CentralizedBalancer::plan).
struct Gathered {
  double bytes = 0;  // in the gathervs
  int gathervs = 0;  // each linear at the root
  int small_gathers = 0;
};

Gathered gathered(const Balancer& b, const GlobalProblem& pr, int dims) {
  const auto n = static_cast<double>(pr.size());
  Gathered g{16 * n, 2, 1};  // each rank's count; ids and loads
  if (b.needs_graph()) {     // edge counts; degrees, neighbors and their bytes (and their owners, with pinned ones)
    const auto edges = static_cast<double>(pr.adjncy.size() + pr.fixed_rank.size());
    g.bytes += 8 * n + 16 * edges;
    g.gathervs += 3;
    g.small_gathers += 1;
    if (pr.has_fixed_edges()) {
      g.bytes += 4 * edges;
      g.gathervs += 1;
    }
  }
  if (pr.has_background()) g.small_gathers += b.needs_vectors() ? 2 : 1;  // each rank's background
  if (b.needs_vectors()) {
    g.bytes += 8 * n * dims;
    g.gathervs += 1;
  }
  if (!pr.load_trend.empty()) {
    g.bytes += 8 * n;
    g.gathervs += 1;
  }
  if (!pr.coords.empty()) {
    g.bytes += 8 * n * pr.coord_dims;
    g.gathervs += 1;
  }
  return g;
}

// The largest fraction of the objects that one rank holds.
double busiest_share(const GlobalProblem& pr) {
  if (pr.size() == 0) return 0;
  std::vector<std::int64_t> held(static_cast<std::size_t>(pr.nranks), 0);
  for (const Rank r : pr.owner) ++held[static_cast<std::size_t>(r.value())];
  return static_cast<double>(*std::max_element(held.begin(), held.end())) / static_cast<double>(pr.size());
}

// The decision's time on the machine and the new owner of every object.
struct Decided {
  Assignment assignment;
  double decision_s = 0;
  std::optional<ProtocolStats> protocol;
};

// A distributed decision run rank by rank as plan() runs on each rank: the rank's load
// extremes, the quantum's shift, its protocol built from its own part of the graph, and
// its moves, each timed on its own as SMPI charges it (the shorter of two runs), each
// costing the slowest rank's time, since a collective follows each. The protocol's
// rounds are priced by RoundPricer. Only for a graph without pinned vertices, whose
// objects are every rank's vertices in (rank, local index) order.
Decided decide_rank_by_rank(const ModelLbContext& ctx, const DistributedBalancer& balancer, const ModelState& state,
                            const GlobalProblem& pr) {
  const int p = pr.nranks;
  std::vector<std::size_t> begin(static_cast<std::size_t>(p) + 1, 0);
  for (const Rank r : pr.owner) ++begin[static_cast<std::size_t>(r.value()) + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  const LocalGraph no_graph;
  auto view_of = [&](int r, const LocalGraph& graph) {
    const auto i = static_cast<std::size_t>(r);
    // What the protocol's set-up reads: the rank's graph and loads (no pinned vertices,
    // so no background and no fixed peers).
    return LoadView{.graph = graph,
                    .vertex_load = std::span<const Load>(pr.load).subspan(begin[i], begin[i + 1] - begin[i]),
                    .vertex_load_vec = {},
                    .vertex_load_trend = {},
                    .trend_origin = {},
                    .background = {},
                    .fixed_peers = {},
                    .machine = ctx.machine,
                    .rank = Rank{r},
                    .nranks = p,
                    .seed = pr.seed,
                    .invocation = pr.invocation,
                    .rank_load = {},
                    .total_load = {},
                    .max_rank_load = {},
                    .step_exchange = {}};
  };
  double slowest_extremes = 0;
  double min_positive = HUGE_VAL;
  double max_load = 0;
  for (int r = 0; r < p; ++r) {
    double seconds = 0;
    const auto [lo, hi] =
        time_pure([&] { return DistributedBalancer::rank_load_extremes(view_of(r, no_graph)); }, seconds);
    slowest_extremes = std::max(slowest_extremes, seconds);
    min_positive = std::min(min_positive, lo);
    max_load = std::max(max_load, hi);
  }
  double slowest_shift = 0;
  int shift = 0;
  for (int r = 0; r < p; ++r) {
    double seconds = 0;
    shift = std::max(
        shift,
        time_pure([&] { return DistributedBalancer::rank_quantum_shift(view_of(r, no_graph), min_positive, max_load); },
                  seconds));
    slowest_shift = std::max(slowest_shift, seconds);
  }
  const Quantum quantum = Quantum::from_extremes(min_positive, max_load, shift);
  const ProtocolContext pctx{.seed = pr.seed, .invocation = pr.invocation};
  double slowest_setup = 0;
  std::vector<std::unique_ptr<RankProtocol>> ranks;
  ranks.reserve(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const LocalGraph graph = state.part_of(r, ModelState::PartCarries::edge_weights);
    double seconds = 0;
    ranks.push_back(time_pure([&] { return balancer.rank_protocol(view_of(r, graph), quantum, pctx); }, seconds));
    slowest_setup = std::max(slowest_setup, seconds);
  }
  RoundPricer pricer(ctx.net, ctx.code_scale);
  Decided d;
  d.protocol = run_protocol_serial(ranks, &pricer);
  double slowest_moves = 0;
  d.assignment.reserve(pr.size());
  for (int r = 0; r < p; ++r) {
    double seconds = 0;
    static_cast<void>(time_pure(
        [&] { return DistributedBalancer::rank_moves(*ranks[static_cast<std::size_t>(r)], Rank{r}); }, seconds));
    slowest_moves = std::max(slowest_moves, seconds);
    const std::vector<Rank> owners = ranks[static_cast<std::size_t>(r)]->owners();
    d.assignment.insert(d.assignment.end(), owners.begin(), owners.end());
  }
  const NetworkModel& net = ctx.net;
  // The extremes' and the shift's reductions before; the protocol's totals after (4).
  d.decision_s = (slowest_extremes + slowest_shift + slowest_setup + slowest_moves) * ctx.code_scale +
                 pricer.total_s() + net.allreduce_s(16) + net.allreduce_s(4) + 4 * net.allreduce_s(8);
  return d;
}

Decided decide(const ModelLbContext& ctx, const Balancer& balancer, const ModelState& state, const GlobalProblem& pr) {
  const NetworkModel& net = ctx.net;
  const double scale = ctx.code_scale;
  Decided d;
  if (const auto* distributed = dynamic_cast<const DistributedBalancer*>(&balancer)) {
    if (!state.graph().has_pinned()) return decide_rank_by_rank(ctx, *distributed, state, pr);
    // With pinned vertices, the serial reference on the whole problem, its set-up charged
    // by the busiest rank's share.
    RoundPricer pricer(net, scale);
    ProtocolStats stats;
    const double cpu0 = code_cpu_seconds();
    d.assignment =
        distributed->reference(pr, ProtocolContext{.seed = pr.seed, .invocation = pr.invocation}, &stats, &pricer);
    // Each rank builds its own part of the problem and reads its owners back, in time with
    // its vertex count, and the protocol's first collective waits for the busiest: the
    // serial driver did it for all ranks at once (the rest of its time), so that rank's
    // share is its share of the vertices.
    const double setup_cpu = std::max(0.0, code_cpu_seconds() - cpu0 - pricer.driver_cpu_s());
    // The quantum's extremes and shift before, and the protocol's totals after (4 allreduces).
    d.decision_s = setup_cpu * scale * busiest_share(pr) + pricer.total_s() + net.allreduce_s(16) + net.allreduce_s(4) +
                   4 * net.allreduce_s(8);
    d.protocol = stats;
    return d;
  }
  if (dynamic_cast<const CentralizedBalancer*>(&balancer)) {
    // Rank 0 lists the gathered objects' owners, then solves; both are charged.
    std::vector<int> counts(static_cast<std::size_t>(pr.nranks), 0);
    for (const Rank r : pr.owner) ++counts[static_cast<std::size_t>(r.value())];
    const double cpu0 = code_cpu_seconds();
    static_cast<void>(owners_in_rank_order(counts));
    d.assignment = balancer.decide_serially(pr, nullptr);
    const double cpu = code_cpu_seconds() - cpu0;
    // The other sites' shares of the gather and the scatter cross the wide-area link.
    const Gathered g = gathered(balancer, pr, ctx.dims);
    const double scattered = 4.0 * static_cast<double>(pr.size());
    const double remote = 1.0 - 1.0 / net.preset().sites;
    d.decision_s = g.small_gathers * net.small_gather_s() + g.gathervs * net.gatherv_s(g.bytes / g.gathervs) +
                   net.wan_s(remote * g.bytes) + cpu * scale + net.scatterv_s(scattered) +
                   net.wan_s(remote * scattered);
  } else {
    const double cpu0 = code_cpu_seconds();
    d.assignment = balancer.decide_serially(pr, nullptr);
    d.decision_s = (code_cpu_seconds() - cpu0) * scale / pr.nranks;  // every rank decides for its own vertices
  }
  return d;
}

// Σ_k max_r of per-rank component loads.
double vector_objective(const std::vector<double>& per_rank_component, int p, int dims) {
  double sum = 0;
  for (int k = 0; k < dims; ++k) {
    double worst = 0;
    for (int r = 0; r < p; ++r) {
      worst = std::max(worst, per_rank_component[static_cast<std::size_t>(r) * dims + static_cast<std::size_t>(k)]);
    }
    sum += worst;
  }
  return sum;
}

}  // namespace

ModelDecision model_decide(const ModelLbContext& ctx, const ModelState& state, const ModelLbInputs& in) {
  const int p = state.nranks();
  const auto dims = static_cast<std::size_t>(ctx.dims);
  const ModeledProblem m = model_problem(ctx, state, in);
  const GlobalProblem& pr = m.problem;

  ModelDecision out;
  LbEvent& e = out.event;
  e.step = in.step;
  e.before = in.before;
  e.metrics = LbMetrics{load_moments(m.rank_load), load_moments(in.measured_rank_load),
                        rank_correlation(m.rank_load, in.measured_rank_load)};
  const double total = std::accumulate(m.rank_load.begin(), m.rank_load.end(), 0.0);
  const double avg = total / p;
  const double lmax = *std::max_element(m.rank_load.begin(), m.rank_load.end());
  e.model_imbalance_before = imbalance(lmax, avg);

  // A strategy that chooses among others hands this call to the one it chose.
  const CallOutlook call{.nranks = p,
                         .objects = static_cast<std::int64_t>(pr.size()),
                         .max_rank_load_s = lmax,
                         .total_load_s = total,
                         .period = ctx.scenario.balancer.period,
                         .steps_left = ctx.scenario.steps - in.step - 1,
                         .last_call_s = in.last_call_s,
                         .machine = &ctx.machine};
  Acting acting = ctx.balancer.acting_for(call);
  Decided d = decide(ctx, acting.balancer, state, pr);
  e.decision_s = d.decision_s;
  e.protocol = d.protocol;
  e.prediction = std::move(acting.why);

  // The plan on the loads the balancer saw.
  // Vertices the balancer was not shown stay (and their load with them).
  std::vector<double> after = m.background;
  std::vector<double> before = m.background;
  std::vector<double> after_sum(static_cast<std::size_t>(p), 0.0);
  for (std::size_t r = 0; r < static_cast<std::size_t>(p); ++r) after_sum[r] = pr.background(static_cast<int>(r));
  out.target.resize(static_cast<std::size_t>(state.graph().num_local()));
  for (std::size_t pos = 0; pos < out.target.size(); ++pos)
    out.target[pos] = state.owner(static_cast<std::int64_t>(pos));
  for (std::size_t i = 0; i < pr.size(); ++i) {
    const auto to = static_cast<std::size_t>(d.assignment[i].value());
    const auto from = static_cast<std::size_t>(pr.owner[i].value());
    out.target[static_cast<std::size_t>(state.position_of(pr.id[i]))] = d.assignment[i];
    after_sum[to] += pr.load[i].seconds();
    for (std::size_t k = 0; k < dims; ++k) {
      after[to * dims + k] += m.vectors[i * dims + k].seconds();
      before[from * dims + k] += m.vectors[i * dims + k].seconds();
    }
  }
  e.model_imbalance_predicted_after = imbalance(*std::max_element(after_sum.begin(), after_sum.end()), avg);
  if (dims > 1) {
    LbVector v;
    v.model_objective_before_s = vector_objective(before, p, ctx.dims);
    v.model_objective_predicted_after_s = vector_objective(after, p, ctx.dims);
    e.vector = v;
  }
  return out;
}

double model_migration_s(const NetworkModel& net, const MachineInfo& machine, double code_scale,
                         const MigrationTally& tally) {
  // The migration engine's own code on the busiest ranks: packing what leaves, then
  // rebuilding the local graph from what stays and what arrived (the engine charges both).
  const double code = machine.migration_code.busiest_s(tally.sent_from, tally.kept_at, tally.arrived_at) * code_scale;
  // Two sparse exchanges (the owner-table notes, then the vertices); the bytes through the
  // busiest link between nodes (or into the busiest rank, within its node), its arrivals
  // received one message each at most; and the migration engine's checks (about a dozen
  // allreduces). Between sites, every flow shares the one wide-area link.
  const auto messages_in = static_cast<double>(std::min<std::int64_t>(tally.arrivals_max, net.nranks()));
  const double data =
      std::max({net.bulk_transfer_s(tally.rank_flows), tally.receiver_bytes_max / net.preset().loopback_bandwidth,
                net.wan_s(tally.cross_site_bytes)}) +
      static_cast<double>(messages_in) * net.receive_overhead_s(tally.receiver_bytes_max / std::max(1.0, messages_in)) +
      net.latency_s(0, std::min(1, net.nranks() - 1));
  return code + kMigrationBarriers * net.barrier_s() + data + kMigrationAllreduces * net.allreduce_s(32);
}

CallOutlook model_outlook(const ModelLbContext& ctx, const ModelState& state, const ModelLbInputs& in) {
  const ModeledProblem m = model_problem(ctx, state, in);
  return CallOutlook{
      .nranks = state.nranks(),
      .objects = static_cast<std::int64_t>(m.problem.size()),
      .edges = state.graph().global_edges,
      .max_rank_load_s = *std::max_element(m.rank_load.begin(), m.rank_load.end()),
      .total_load_s = std::accumulate(m.rank_load.begin(), m.rank_load.end(), 0.0),
      .max_step_s = *std::max_element(in.measured_rank_wall.begin(), in.measured_rank_wall.end()),
      .unmoved_max_load_s =
          m.unmoved_rank_load.empty() ? 0.0 : *std::max_element(m.unmoved_rank_load.begin(), m.unmoved_rank_load.end()),
      .stepwise_max_load_s = in.stepwise_max_load,
      .steps_measured = in.steps_since_last_call,
      .first_step_max_load_s = in.first_step_load.first,
      .first_step_mean_load_s = in.first_step_load.second,
      .period = ctx.scenario.balancer.period,
      .steps_left = ctx.scenario.steps - in.step - 1,
      .last_call_s = in.last_call_s,
      .edge_bytes = ctx.scenario.workload.edge_bytes,
      .element_bytes = ctx.scenario.workload.element_bytes,
      .machine = &ctx.machine};
}

double model_lb_overhead_s(const NetworkModel& net) {
  // The loads' sum and maxima and the last call's share, five doubles in one allreduce.
  return net.allreduce_s(40);
}

}  // namespace lbbench
