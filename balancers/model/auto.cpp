// `auto`: Pearce et al.'s Algorithm 1 (see auto.hpp).
#include "balancers/model/auto.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

#include "balancers/diffusive/params.hpp"
#include "balancers/model/cost_model.hpp"
#include "balancers/model/diffusion_sim.hpp"
#include "balancers/model/motion.hpp"
#include "balancers/model/params.hpp"
#include "balancers/model/plan_totals.hpp"
#include "balancers/sdk/factory.hpp"
#include "balancers/sdk/protocol.hpp"
#include "comm/code_time.hpp"
#include "comm/mpi.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The objects a plan sends from, keeps on and brings to each rank.
struct RankMoves {
  std::vector<std::int64_t> sent;
  std::vector<std::int64_t> kept;
  std::vector<std::int64_t> arrived;
  bool any = false;
};

RankMoves rank_moves(const GlobalProblem& problem, const Assignment& a) {
  const auto ranks = static_cast<std::size_t>(problem.nranks);
  RankMoves m{std::vector<std::int64_t>(ranks, 0), std::vector<std::int64_t>(ranks, 0),
              std::vector<std::int64_t>(ranks, 0)};
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const auto from = static_cast<std::size_t>(problem.owner[i].value());
    const auto to = static_cast<std::size_t>(a[i].value());
    if (from == to) {
      ++m.kept[from];
      continue;
    }
    m.any = true;
    ++m.sent[from];
    ++m.arrived[to];
  }
  return m;
}

// What one candidate would do now, from its serial reference.
struct Outcome {
  Assignment assignment;
  RankMoves moves;
  double decision_s = 0;
  double code_s = 0;  // the share of decision_s that is code timed on this host (scaled)
  double lmax_after = 0;
  std::vector<double> rank_loads;  // each rank's time per step after the plan (rank_times)
  double elements_moved_max = 0;   // most objects arriving on one rank
  int protocol_rounds = 0;
};

double max_of(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

// alpha and beta: the params, else the machine preset's network, else the defaults.
Platform platform_of(const AutoParams& p, const GlobalProblem& problem) {
  Platform out;
  out.alpha_s = p.alpha.value_or(problem.network.message_latency_s());
  out.beta_s_per_byte = p.beta.value_or(problem.network.seconds_per_byte());
  return out;
}

// The network as `auto` prices a call on it (beyond the paper's alpha + beta, which it
// keeps for the bytes): what every protocol round, collective, gather and cross-site move
// waits for. On two sites joined by a wide-area link each of these crosses it, and a call
// costs far more than alpha.
struct PricedNetwork {
  Platform local;
  double far_latency_s = 0;          // a small message between the farthest two ranks
  double wan_s_per_byte = 0;         // one cross-site flow; 0 with one site
  double wan_shared_s_per_byte = 0;  // all cross-site flows together, where they share one link
  double collective_s = 0;           // a small allreduce: recursive doubling, there and back
  double barrier_s = 0;              // a barrier over all ranks
  double gatherv_root_s = 0;         // a gatherv's root receiving one share from every rank
  int call_collectives = 0;          // the migration engine's, at every call
};

PricedNetwork priced_network(const Platform& local, const GlobalProblem& problem) {
  const NetworkFacts& n = problem.network;
  PricedNetwork out;
  out.local = local;
  const bool sites = n.wan_latency_s > 0 || n.wan_flow_Bps > 0;
  if (sites && n.wan_flow_Bps > 0) out.wan_s_per_byte = 1.0 / n.wan_flow_Bps;
  if (sites && n.wan_shared_Bps > 0) out.wan_shared_s_per_byte = 1.0 / n.wan_shared_Bps;
  // As the engine says the network runs them, or else from alpha: log2 P stages of
  // recursive doubling, there and back, one of them across the sites.
  out.far_latency_s = n.far_message_s > 0 ? n.far_message_s
                      : sites             ? 2 * local.alpha_s + n.wan_latency_s
                                          : local.alpha_s;
  const double stages = std::ceil(std::log2(std::max(2, problem.nranks)));
  out.collective_s = n.allreduce_s > 0 ? n.allreduce_s : 2 * ((stages - 1) * local.alpha_s + out.far_latency_s);
  out.barrier_s = n.barrier_s > 0 ? n.barrier_s : out.collective_s;
  out.gatherv_root_s = problem.nranks * n.receive_overhead_s;
  out.call_collectives = n.call_collectives;
  return out;
}

// One protocol round on this network, as the engines charge it: the later of the farthest
// message and the barrier that tells every rank that all were sent (NBX's), then the
// allreduce that decides whether to go on.
double protocol_round_s(const PricedNetwork& net) {
  return std::max(net.far_latency_s, net.barrier_s) + net.collective_s;
}

// The other sites' share of what crosses to rank 0, on a machine of several sites.
double remote_share(const GlobalProblem& problem) {
  return problem.rank_site.empty()
             ? 0.0
             : 1.0 - 1.0 / (1 + *std::max_element(problem.rank_site.begin(), problem.rank_site.end()));
}

// `bytes` gathered to rank 0 by `gathervs` gathervs and scattered back, into and out of its
// link, or where more, each gatherv's one receive per rank at the root; across a shared
// wide-area link, the other sites' share (`remote`). Priced by the bytes alone, `auto`'s
// own gather was 21 ms at 8,192 ranks on bgq where its seven gathervs took 69 ms at the
// root: the decision ran at three times its explore budget, and `auto` took 1.78x the
// fastest candidate on the scale scenario.
double gather_scatter_priced_s(double bytes, int gathervs, double remote, const PricedNetwork& net) {
  return net.collective_s / 2 + 2 * net.far_latency_s +
         std::max(bytes * net.local.beta_s_per_byte, gathervs * net.gatherv_root_s) +
         remote * bytes * net.wan_shared_s_per_byte;
}

// The bytes a centralized decision gathers to rank 0 and scatters back (see
// CentralizedBalancer::plan) for n objects: ids, loads and counts; where it needs the
// graph, `adjacency` neighbor entries (twice the edges) with their bytes; `dims` load
// components per object (0 without vectors); each object's trend and `coord_dims`
// coordinates where `trends`; then one owner per object.
double gathered_and_scattered_bytes(double n, double adjacency, bool graph, int dims, bool trends, int coord_dims) {
  double bytes = 20 * n + 4 * n;  // ids, loads and counts; then one owner per object back
  if (graph) bytes += 8 * n + 16 * adjacency;
  bytes += 8 * n * dims;
  if (trends) bytes += 8 * n * (1 + coord_dims);
  return bytes;
}

// The gathervs that carry them (CentralizedBalancer::plan): ids and loads; degrees,
// neighbors and their bytes; the load vectors; the trends; the coordinates.
int gathervs_of(bool graph, int dims, bool trends, int coord_dims) {
  return 2 + (graph ? 3 : 0) + (dims > 0 ? 1 : 0) + (trends ? 1 : 0) + (trends && coord_dims > 0 ? 1 : 0);
}

// What a centralized candidate's gather and scatter cost.
double gather_and_scatter_s(const Balancer& candidate, const GlobalProblem& problem, const PricedNetwork& net) {
  const int dims = candidate.needs_vectors() ? problem.dims : 0;
  const double bytes =
      gathered_and_scattered_bytes(static_cast<double>(problem.size()), static_cast<double>(problem.adjncy.size()),
                                   candidate.needs_graph(), dims, false, 0);
  return gather_scatter_priced_s(bytes, gathervs_of(candidate.needs_graph(), dims, false, 0), remote_share(problem),
                                 net);
}

// What a decision of `auto` gathers and scatters before it can weigh any candidate, the
// protocols that ran first included (their plans are weighed on the gathered loads): the
// graph and each object's trend and coordinates; load vectors left out, so at least this.
double decision_gather_s(std::int64_t objects, std::int64_t edges, int coord_dims, double remote,
                         const PricedNetwork& net) {
  const double bytes = gathered_and_scattered_bytes(static_cast<double>(objects), 2 * static_cast<double>(edges), true,
                                                    0, true, coord_dims);
  return gather_scatter_priced_s(bytes, gathervs_of(true, 0, true, coord_dims), remote, net);
}

// The other sites' share of what crosses to rank 0, on a machine of several sites.
double remote_share(const CallOutlook& call) {
  return call.machine && call.machine->sites > 1 ? 1.0 - 1.0 / call.machine->sites : 0.0;
}

// Equation 6 between sites: the busiest receiver's bytes, those from its own site at beta
// and those from another at a cross-site flow's rate (and all cross-site bytes through a
// shared link), after the farthest sender's latency.
double cross_site_movement_s(const GlobalProblem& problem, const Assignment& a, const PricedNetwork& net) {
  const auto bytes = static_cast<double>(problem.element_bytes);
  std::vector<double> local(static_cast<std::size_t>(problem.nranks), 0.0);
  std::vector<double> remote(local.size(), 0.0);
  double crossing = 0;
  bool moved = false;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    if (a[i] == problem.owner[i]) continue;
    moved = true;
    const auto to = static_cast<std::size_t>(a[i].value());
    if (problem.site(a[i].value()) == problem.site(problem.owner[i].value())) {
      local[to] += bytes;
    } else {
      remote[to] += bytes;
      crossing += bytes;
    }
  }
  if (!moved) return 0;
  double busiest = 0;
  for (std::size_t r = 0; r < local.size(); ++r) {
    busiest = std::max(busiest, local[r] * net.local.beta_s_per_byte + remote[r] * net.wan_s_per_byte);
  }
  return net.far_latency_s + std::max(busiest, crossing * net.wan_shared_s_per_byte);
}

// The step and the moves of an outcome's plan.
void finish(const GlobalProblem& problem, Outcome& o) {
  o.rank_loads = rank_times(problem, o.assignment);
  o.lmax_after = max_of(o.rank_loads);
  o.moves = rank_moves(problem, o.assignment);
  o.elements_moved_max = static_cast<double>(*std::max_element(o.moves.arrived.begin(), o.moves.arrived.end()));
}

Outcome run_reference(const Balancer& candidate, const GlobalProblem& problem, const PricedNetwork& net) {
  Outcome o;
  const auto t0 = std::chrono::steady_clock::now();
  // Host seconds become the machine's: under SMPI, what the simulated core would take.
  auto code_seconds = [&] { return seconds_since(t0) * problem.code_time_scale; };
  if (const auto* d = dynamic_cast<const DistributedBalancer*>(&candidate)) {
    ProtocolStats stats;
    o.assignment =
        d->reference(problem, ProtocolContext{.seed = problem.seed, .invocation = problem.invocation}, &stats);
    // Every rank runs its share at once: its rounds (protocol_round_s), one more allreduce
    // for each round that also reduces values, and plan()'s reductions around the rounds.
    o.code_s = code_seconds() / problem.nranks;
    o.decision_s = o.code_s + stats.rounds * protocol_round_s(net) + stats.reductions * net.collective_s +
                   DistributedBalancer::kPlanCollectives * net.collective_s;
    o.protocol_rounds = stats.rounds;
  } else {
    o.assignment = candidate.decide_serially(problem, nullptr);  // `none` moves nothing
    o.code_s = code_seconds();
    o.decision_s = o.code_s;
    if (dynamic_cast<const CentralizedBalancer*>(&candidate))
      o.decision_s += gather_and_scatter_s(candidate, problem, net);
  }
  finish(problem, o);
  return o;
}

// Beyond the paper, whose L_max stays as the call left it until the next call: the
// slowest rank's compute per step, averaged over the `steps` steps after the call, with
// every object's load moving along its measured trend (GlobalProblem::load_trend) from
// where the plan put it. A plan that keeps a moving hot spot together on a few ranks sees
// them grow slowest again before the next call; one that scatters it does not. L_max
// where no trends were measured.
// Each rank's load trend where `assignment` puts the objects: the sum of its objects'
// trends over its speed (seconds per step).
std::vector<double> rank_trends(const GlobalProblem& problem, const Assignment& assignment) {
  std::vector<double> trend(static_cast<std::size_t>(problem.nranks), 0.0);
  for (std::size_t i = 0; i < problem.size(); ++i)
    trend[static_cast<std::size_t>(assignment[i].value())] += problem.load_trend[i];
  for (int r = 0; r < problem.nranks; ++r) trend[static_cast<std::size_t>(r)] /= problem.speed(r);
  return trend;
}

// Where the loads move (moving_loads_cap), no step is forecast past `cap`.
double mean_slowest_s(const GlobalProblem& problem, const Outcome& o, int steps, double cap) {
  if (problem.load_trend.empty() || steps < 1) return o.lmax_after;
  const std::vector<double> trend = rank_trends(problem, o.assignment);
  double sum = 0;
  for (int t = 1; t <= steps; ++t) {
    const double since = t - problem.trend_origin;
    double slowest = 0;
    for (std::size_t r = 0; r < trend.size(); ++r) slowest = std::max(slowest, o.rank_loads[r] + trend[r] * since);
    sum += std::min(slowest, cap);
  }
  return sum / steps;
}

// ... over the steps to the end of the run, as the plans' totals keep them (at every step
// where they are few, else at TotalsShape::kRunSamples steps spread evenly): a run of
// thousands of steps at thousands of ranks would otherwise cost rank 0 a step's walk over
// every rank for each.
double mean_slowest_to_end_s(const GlobalProblem& problem, const Outcome& o, double cap) {
  const TotalsShape shape{.steps_left = problem.steps_left};
  const int n = shape.run_samples();
  if (problem.load_trend.empty() || n < 1) return o.lmax_after;
  const std::vector<double> trend = rank_trends(problem, o.assignment);
  double sum = 0;
  for (int i = 1; i <= n; ++i) {
    const double since = shape.run_step(i) - problem.trend_origin;
    double slowest = 0;
    for (std::size_t r = 0; r < trend.size(); ++r) {
      slowest = std::max(slowest, std::max(0.0, o.rank_loads[r] + trend[r] * since));
    }
    sum += std::min(slowest, cap);
  }
  return sum / n;
}

// The objects' trends summed, over the ranks' summed speed: how fast perfect balance moves
// (seconds per step). 0 where no trends were measured.
double total_trend_per_step(const GlobalProblem& problem) {
  if (problem.load_trend.empty()) return 0.0;
  double speed = 0;
  for (int r = 0; r < problem.nranks; ++r) speed += problem.speed(r);
  return speed > 0 ? std::accumulate(problem.load_trend.begin(), problem.load_trend.end(), 0.0) / speed : 0.0;
}

// The mean over the `steps` steps after the call of how far each lies from the loads'
// own step (trend_origin), as mean_slowest_s averages them.
double mean_steps_since_origin(const GlobalProblem& problem, int steps) {
  return (steps + 1) / 2.0 - problem.trend_origin;
}

// `none`'s slowest rank as mean_slowest_s prices every candidate's: its ranks as they are
// now, along their trends. Not at the peak alone: on AMR a regrid inside the steps
// since the last call leaves the refined objects' mean between their old and new loads,
// and their trend says where they are going; priced at that mean, `none` was
// under-priced against every candidate priced along the same trends.
double none_step_s(const GlobalProblem& problem, const std::vector<double>& now, double lmax, int horizon, double cap) {
  Outcome o;
  o.assignment = problem.owner;
  o.rank_loads = now;
  o.lmax_after = lmax;
  return mean_slowest_s(problem, o, horizon, cap);
}

// What the record says of the loads' trends: the step they stand at, and where they move
// rather than grow, the cap on every forecast step.
Json load_trends_record(double origin_step, const RankTrends& trends, double cap) {
  Json out{{"origin_step", origin_step},
           {"moving", std::isfinite(cap)},
           {"cancelled_share", trends.size > 0 ? 1.0 - std::abs(trends.sum) / trends.size : 0.0},
           {"largest_rank_trend_s", trends.largest}};
  if (std::isfinite(cap)) out["capped_at_s"] = cap;
  return out;
}

// What a candidate that ran as itself at this call did (Balancer::ran_first).
Outcome outcome_of(RanPlan ran, const GlobalProblem& problem) {
  Outcome o;
  o.assignment = std::move(ran.assignment);
  o.decision_s = ran.decision_s;
  o.protocol_rounds = ran.protocol_rounds;
  finish(problem, o);
  return o;
}

// `none`'s steps to the next call and to the end of the run: the paper's steps x L_max
// (equation 11) plus the measured exchange per step, or, where the loads move through the
// mesh (motion.hpp), the critical path of the moved loads plus the exchange per step.
struct NoneForecast {
  double interval_s = 0;
  double to_end_s = 0;
  bool moving = false;
  Json record;  // which forecast, and why
};

// Motion is fitted only where some rank's load would move by more than this share of the
// slowest rank's along its trend before the run ends: else its steps stay about at L_max
// whatever moves, and the fit is not worth a decision's time.
constexpr double kMotionMatters = 0.05;
// ... and used only where it explains at least this share of the trends (R^2): loads that
// grow in place or change at random are not carried by a motion.
constexpr double kMotionExplains = 0.5;

// The most any rank's load moves along its trend over `steps` steps.
double largest_rank_drift_s(const GlobalProblem& problem, int steps) { return rank_trends_of(problem).largest * steps; }

// `step_s` is `none`'s slowest rank as every candidate's is (mean_slowest_s: along the
// ranks' trends over the H steps after the call, L_max where none were measured); with
// `along_motion`, where the loads move, the critical path of the moved loads instead.
NoneForecast forecast_none(const GlobalProblem& problem, double lmax, double step_s, double exchange, int horizon,
                           bool along_motion) {
  NoneForecast f{.interval_s = app_time_none(step_s + exchange, horizon),
                 .to_end_s = app_time_none(step_s + exchange, problem.steps_left),
                 .record = Json{{"kind", problem.load_trend.empty() ? "peak" : "trend"}}};
  if (!along_motion) return f;
  const int steps = std::max(horizon, problem.steps_left);
  if (largest_rank_drift_s(problem, steps) < kMotionMatters * lmax) return f;
  const std::optional<Motion> motion = fit_motion(problem);
  if (!motion) return f;
  f.record["velocity_per_step"] = motion->velocity;
  f.record["fit_r2"] = motion->fit_r2;
  if (motion->fit_r2 < kMotionExplains) return f;
  const std::vector<std::vector<double>> times = moved_rank_times(problem, *motion, steps);
  const std::vector<std::vector<int>> neighbors = rank_neighbors(problem);
  auto over = [&](int n) {
    return critical_path_s(std::span(times).first(static_cast<std::size_t>(n)), neighbors) + n * exchange;
  };
  f.moving = true;
  f.record["kind"] = "moving";
  f.record["peak_interval_s"] = app_time_none(lmax + exchange, horizon);  // the paper's form
  f.record["peak_to_end_s"] = app_time_none(lmax + exchange, problem.steps_left);
  f.interval_s = over(horizon);
  f.to_end_s = problem.steps_left > 0 ? over(problem.steps_left) : 0.0;
  return f;
}

// Algorithm 2 over `horizon` steps with the candidate's own alpha, iterations and threshold:
// the paper's prediction for diffusion, recorded next to the reference's.
Json paper_diffusion(const GlobalProblem& problem, const DiffusionParams& params, const Platform& platform, int horizon,
                     double decision_s) {
  DiffusionSimInput in;
  in.loads = rank_times(problem, problem.owner);
  in.elements.assign(static_cast<std::size_t>(problem.nranks), 0.0);
  for (const auto& o : problem.owner) in.elements[static_cast<std::size_t>(o.value())] += 1;
  in.neighbors = rank_neighbors(problem);
  in.gamma = params.gamma;
  in.damping = params.damping;
  in.iterations = params.iterations;
  in.threshold = params.threshold;
  in.steps = horizon;
  const DiffusionSimResult sim = simulate_diffusion(in);
  // One LB call per horizon in a run, so only the first simulated step moves load now;
  // convergence_steps says how many calls diffusion would need.
  DiffusionSimResult one_call;
  one_call.steps = {sim.steps.front()};
  return Json{{"convergence_steps", sim.convergence_steps},
              {"interval_s", app_time_diffusion(one_call, decision_s, platform,
                                                static_cast<double>(problem.element_bytes), horizon)}};
}

}  // namespace

AutoBalancer::AutoBalancer(AutoParams params) : params_(std::move(params)) {
  for (const auto& candidate : params_.candidates) candidates_.push_back(make_balancer(candidate));
}

namespace {

// A protocol's call of `rounds` rounds on this network, its code left out: plan()'s six
// allreduces, the rounds, and one more allreduce for each round that also reduces values
// (as run_reference prices them).
double protocol_network_s(const PricedNetwork& net, int rounds, int reducing_rounds) {
  return DistributedBalancer::kPlanCollectives * net.collective_s + rounds * protocol_round_s(net) +
         reducing_rounds * net.collective_s;
}

// The least any distributed candidate's call costs on this network, whatever its protocol
// does: plan()'s six allreduces and one round.
double protocol_floor_s(const PricedNetwork& net) { return protocol_network_s(net, 1, 0); }

// ... and what its structure says its call takes there before it ran. Diffusion's rounds
// each reduce the loads' maximum: priced as rounds alone, its first run at 8,192 bgq ranks
// on scale-drift.yaml was expected at 3.3 ms and took 5.0, past the explore budget it was
// run in.
double expected_protocol_network_s(const DistributedBalancer& protocol, int nranks, const PricedNetwork& net) {
  return protocol_network_s(net, protocol.expected_rounds(nranks), protocol.expected_reducing_rounds(nranks));
}

// What every rank knows of a call from its view.
CallOutlook call_outlook(const LoadView& view) {
  return CallOutlook{.nranks = view.nranks,
                     .objects = view.graph.global_vertices,
                     .edges = view.graph.global_edges,
                     .coord_dims = view.graph.dim,
                     .max_rank_load_s = view.max_rank_load.seconds(),
                     .total_load_s = view.total_load.seconds(),
                     .step_exchange_s = view.step_exchange.seconds(),
                     .period = view.period,
                     .steps_left = view.steps_left,
                     .later_calls = view.later_calls,
                     .machine = &view.machine,
                     .trends = view.rank_trends,
                     .steps_to_point = 0};
}

// A call's scalars as a problem with no objects: what prices its network.
GlobalProblem scalars_of(const CallOutlook& call) {
  GlobalProblem s;
  s.nranks = call.nranks;
  s.period = call.period;
  s.steps_left = call.steps_left;
  s.later_calls = call.later_calls;
  s.step_exchange_s = call.step_exchange_s;
  if (call.machine) {
    s.rank_speed = call.machine->rank_speed.values();
    s.rank_site = call.machine->rank_site.values();
    s.network = call.machine->network;
    s.code_time_scale = call.machine->code_time_scale;
  }
  return s;
}

// The share of the slowest rank's load above perfect balance: what a plan takes off it.
double excess_share(double lmax, double balanced) { return lmax > 0 ? std::max(0.0, 1.0 - balanced / lmax) : 0.0; }

// What a call's totals alone say, alike on every rank: `none`'s time, and the least any
// candidate's could be (its decision's floor at every call, every step perfectly balanced).
struct Outlook {
  PricedNetwork net;
  double gather_s = 0;  // a decision's own gather and scatter, once (decision_gather_s)
  // Where the gather alone is over the explore budget and `weigh_by_totals` is set, the
  // distributed candidates are weighed by their plans' totals (see auto.hpp), which cost
  // `totals_s` (a sparse round and two allreduces) where the gather would.
  bool by_totals = false;
  double totals_s = 0;
  double none_s = 0;
  double calls = 1;
  double balanced_steps_s = 0;
  double excess_share = 0;  // of the slowest rank's load, above perfect balance
  bool none_competes = false;
  // The most any candidate could gain over `none` to the end: every step perfectly
  // balanced and no call costing anything (gain_bound_s in cost_model.hpp: where the loads
  // move, only until the moving load comes back).
  double gain_bound = 0;
  [[nodiscard]] double gain_bound_s() const { return gain_bound; }
  // What weighing any candidate costs the decision: its gather, or its plans' totals.
  [[nodiscard]] double weighing_s() const { return by_totals ? totals_s : gather_s; }
  // Whether a candidate whose call costs at least `floor_s` cannot win even with every
  // later step perfectly balanced, or where its reach is known, balanced as far as that
  // (`reachable_s`, AutoChooser::reachable_s). Choosing it at a decision costs weighing it
  // too (beyond the paper: `auto`'s own price of weighing it).
  [[nodiscard]] bool cannot_win(double floor_s, double reachable_s) const {
    return none_competes && weighing_s() + calls * AutoChooser::kSkipShare * floor_s >= reachable_s;
  }
};

// The layout of the plans' totals at a call: the horizon's steps and the machine's nodes.
TotalsShape totals_shape(const AutoParams& params, const CallOutlook& call, double trend_origin) {
  TotalsShape shape{.horizon = params.horizon > 0 ? params.horizon : std::max(1, call.period),
                    .trend_origin = trend_origin,
                    .steps_left = call.steps_left};
  if (call.machine && !call.machine->rank_node.empty()) {
    shape.nodes = 1 + *std::max_element(call.machine->rank_node.begin(), call.machine->rank_node.end());
  }
  return shape;
}

// What weighing `plans` plans and `none`'s loads by their totals exchanges: one sparse
// round (the senders tell each receiver what arrives), then one allreduce of the maxima
// and one of the sums.
Balancer::DecisionTraffic totals_traffic(int plans, const TotalsShape& shape) {
  PlanTotals one(shape);
  const double weighed = plans + 1;
  return Balancer::DecisionTraffic{
      .sparse_rounds = 1,
      .allreduce_bytes = {weighed * static_cast<double>(one.maxima().size() * sizeof(double)),
                          weighed * static_cast<double>(one.sums().size() * sizeof(double))}};
}

// ... before anything ran, at most: every candidate's plan but `none`'s.
Balancer::DecisionTraffic totals_traffic(const AutoParams& params, const CallOutlook& call) {
  const auto plans = std::max<std::size_t>(1, params.candidates.size()) - 1;
  return totals_traffic(static_cast<int>(plans), totals_shape(params, call, 0));
}

// That traffic on this network: the round's farthest message or its barrier, the later,
// and each allreduce's latency and its bytes there and back.
double totals_weighing_s(const PricedNetwork& net, const Balancer::DecisionTraffic& traffic) {
  double s = traffic.sparse_rounds * std::max(net.far_latency_s, net.barrier_s);
  for (const double bytes : traffic.allreduce_bytes) s += net.collective_s + 2 * bytes * net.local.beta_s_per_byte;
  return s;
}

// Whether `none` is among the candidates: only then can the call's totals choose it.
bool none_is_candidate(const AutoParams& params) {
  return std::any_of(params.candidates.begin(), params.candidates.end(),
                     [](const BalancerConfig& c) { return c.kind == BalancerKind::none; });
}

Outlook outlook_of(const AutoParams& params, const CallOutlook& call) {
  const GlobalProblem s = scalars_of(call);
  Outlook o;
  o.net = priced_network(platform_of(params, s), s);
  o.gather_s = decision_gather_s(call.objects, call.edges, call.coord_dims, remote_share(call), o.net);
  const bool to_the_end = call.steps_left > 0;
  const int horizon = params.horizon > 0 ? params.horizon : std::max(1, call.period);
  const double steps = to_the_end ? call.steps_left : horizon;
  o.calls = to_the_end ? 1.0 + call.later_calls : 1.0;
  double speed = 0;
  for (int r = 0; r < call.nranks; ++r) speed += s.speed(r);
  const double balanced = speed > 0 ? call.total_load_s / speed : 0.0;
  o.balanced_steps_s = steps * (balanced + call.step_exchange_s);
  o.excess_share = excess_share(call.max_rank_load_s, balanced);
  o.none_s = steps * (call.max_rank_load_s + call.step_exchange_s);
  auto bound = [&](bool moving) {
    return gain_bound_s(call.max_rank_load_s - balanced, static_cast<int>(steps), static_cast<int>(o.calls),
                        to_the_end ? call.period : horizon, moving, call.trends.largest);
  };
  o.gain_bound = bound(false);
  o.none_competes = none_is_candidate(params);
  o.by_totals = params.weigh_by_totals && call.machine && o.none_competes &&
                o.gather_s > params.explore_budget * o.gain_bound_s();
  // Only where the plans' totals weigh the protocols is the bound that of loads that move:
  // with the gather affordable, a regrid's jump read as motion (its line's slope through
  // the jump is the fastest trend) and the bound left out greedy where it would have won
  // (amr-2d, block, period 8, on the first accuracy sweep: 0.99 -> 1.23x the fastest).
  if (o.by_totals) o.gain_bound = bound(loads_move(call.trends.sum, call.trends.size));
  o.totals_s = totals_weighing_s(o.net, totals_traffic(params, call));
  return o;
}

// The least a centralized candidate's call costs: its gather of the objects' ids and loads
// and its scatter of their owners, with nothing else gathered and nothing solved.
double gather_floor_s(const CallOutlook& call, const PricedNetwork& net) {
  return gather_scatter_priced_s(24.0 * static_cast<double>(call.objects), gathervs_of(false, 0, false, 0),
                                 remote_share(call), net);
}

// A candidate's floor before anything is gathered: its network's (a protocol's collectives
// and one round, or a gather and a scatter), or its last decision, the longer.
double floor_s(const Balancer& c, double last_decision_s, const CallOutlook& call, const PricedNetwork& net) {
  double network = 0;
  if (dynamic_cast<const DistributedBalancer*>(&c)) {
    network = protocol_floor_s(net);
  } else if (dynamic_cast<const CentralizedBalancer*>(&c)) {
    network = gather_floor_s(call, net);
  }
  return std::max(network, last_decision_s);
}

// What the protocols that ran as themselves at this call took (each its slowest rank's
// time, as the engines hand it), and what their rounds alone cost on the network.
struct RanSoFar {
  double took_s = 0;
  double rounds_s = 0;
  void add(const RanPlan& r, const PricedNetwork& net) {
    took_s += r.decision_s;
    rounds_s += protocol_network_s(net, std::max(1, r.protocol_rounds), r.protocol_reducing_rounds);
  }
};

// What `next` is expected to take if it runs as itself now: its last decision, or before
// it ever ran, the rounds its protocol takes on this many ranks priced on the network,
// times what code added to the rounds of the protocols that ran before it at this call.
// A protocol's floor (one round) said too little: tree's 17 rounds at 32 ranks on bgq
// cost 1.1 ms on the network and 1.4 ms in all, and decisions on the first accuracy sweep
// spent up to three times their budget.
double expected_first_run_s(const DistributedBalancer& next, double last_decision_s, int nranks,
                            const PricedNetwork& net, const RanSoFar& ran) {
  if (last_decision_s > 0) return std::max(last_decision_s, protocol_floor_s(net));
  const double code_share = ran.rounds_s > 0 ? std::max(1.0, ran.took_s / ran.rounds_s) : 1.0;
  return expected_protocol_network_s(next, nranks, net) * code_share;
}

}  // namespace

std::vector<double> AutoChooser::learned() const {
  const std::size_t k = candidates_.size();
  std::vector<double> out(4 * k, 0.0);
  for (std::size_t i = 0; i < k; ++i) {
    if (i < decision_per_object_.size()) out[i] = decision_per_object_[i];
    if (i < migration_s_.size()) out[k + i] = migration_s_[i];
    if (i < migration_share_.size()) out[2 * k + i] = migration_share_[i];
    out[3 * k + i] = i < reach_.size() ? reach_[i] : kReachUnknown;
  }
  return out;
}

void AutoChooser::learn(const std::vector<double>& learned) const {
  const std::size_t k = candidates_.size();
  auto block = [&](std::size_t b) {
    return std::vector<double>(learned.begin() + static_cast<std::ptrdiff_t>(b * k),
                               learned.begin() + static_cast<std::ptrdiff_t>((b + 1) * k));
  };
  decision_per_object_ = block(0);
  migration_s_ = block(1);
  migration_share_ = block(2);
  reach_ = block(3);
}

void AutoChooser::size_learned() const {
  decision_per_object_.resize(candidates_.size(), 0.0);
  migration_s_.resize(candidates_.size(), 0.0);
  migration_share_.resize(candidates_.size(), 0.0);
  sampled_before_.resize(candidates_.size(), false);
  reach_.resize(candidates_.size(), kReachUnknown);
}

std::vector<double> AutoChooser::take_reach() const {
  size_learned();
  std::vector<double> last = reach_;
  std::fill(reach_.begin(), reach_.end(), kReachUnknown);
  return last;
}

void AutoChooser::learn_reaches(const std::vector<std::pair<std::size_t, double>>& steps_of, double none_s,
                                double gain_bound_s, Json& predictions) const {
  if (!(gain_bound_s > 0)) return;  // nothing to gain: no share of it is known
  for (const auto& [i, steps_s] : steps_of) {
    reach_[i] = std::clamp((none_s - steps_s) / gain_bound_s, 0.0, 1.0);
    predictions[std::string(params_.candidates[i].name())]["reach"] = reach_[i];
  }
}

double AutoChooser::reachable_s(std::size_t candidate, double gain_bound_s) const {
  const bool known = candidate < reach_.size() && reach_[candidate] >= 0;
  return known ? reach_[candidate] * gain_bound_s : gain_bound_s;
}

void AutoChooser::learn_weighed(std::size_t candidate, double decision_s, double migration_s, double objects,
                                double share_now) const {
  if (objects > 0) decision_per_object_[candidate] = decision_s / objects;
  migration_s_[candidate] = migration_s;
  migration_share_[candidate] = share_now;
  sampled_before_[candidate] = false;
}

double AutoChooser::last_migration_s(std::size_t candidate, double share_now) const {
  if (candidate >= migration_s_.size() || !(migration_share_[candidate] > 0)) return 0.0;
  return migration_s_[candidate] * std::min(1.0, share_now / migration_share_[candidate]);
}

double AutoChooser::last_decision_s(std::size_t candidate, std::int64_t objects) const {
  return candidate < decision_per_object_.size() ? decision_per_object_[candidate] * static_cast<double>(objects) : 0.0;
}

std::vector<const Balancer*> AutoChooser::runs_first(const CallOutlook& call) const {
  // Only what every rank knows alike: every distributed candidate runs unless even its
  // floor cannot win.
  const Outlook o = outlook_of(params_, call);
  std::vector<std::pair<double, const Balancer*>> eligible;
  const bool priced = call.machine != nullptr;
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    const auto* c = dynamic_cast<const DistributedBalancer*>(candidates_[i].get());
    if (!c) continue;
    const double last = last_decision_s(i, call.objects);
    if (priced && o.cannot_win(floor_s(*c, last, call, o.net) + last_migration_s(i, o.excess_share),
                               reachable_s(i, o.gain_bound_s()))) {
      continue;
    }
    // The cheapest first, so that the explore budget (keeps_running_first) is spent on
    // the likelier winners: by its last decision, or before it ever ran, by the rounds its
    // protocol takes on this many ranks.
    eligible.emplace_back(last > 0 ? last : expected_protocol_network_s(*c, call.nranks, o.net), c);
  }
  std::stable_sort(eligible.begin(), eligible.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Balancer*> out;
  for (const auto& [cost, c] : eligible) out.push_back(c);
  return out;
}

bool AutoChooser::keeps_running_first(const CallOutlook& call, const std::vector<RanPlan>& ran,
                                      const Balancer& next) const {
  if (!call.machine) return true;  // no network to price the protocols on
  const Outlook o = outlook_of(params_, call);
  RanSoFar before;  // alike on every rank
  for (const RanPlan& r : ran) before.add(r, o.net);
  std::size_t index = 0;
  while (index < candidates_.size() && candidates_[index].get() != &next) ++index;
  const double last = last_decision_s(index, call.objects);
  const auto* protocol = dynamic_cast<const DistributedBalancer*>(&next);
  const double expected =
      protocol ? expected_first_run_s(*protocol, last, call.nranks, o.net, before) : floor_s(next, last, call, o.net);
  // The decision's gather (or its plans' totals) is spent on finding out too, whatever runs.
  return o.weighing_s() + before.took_s + expected <= params_.explore_budget * o.gain_bound_s();
}

Json AutoChooser::ruled_out_by_floors(const CallOutlook& call) const {
  if (!call.machine) return nullptr;  // no network to price the floors on
  const Outlook o = outlook_of(params_, call);
  // Finding out what any candidate costs starts with the decision's gather: where that
  // alone is more than the explore budget, no candidate is weighed (beyond the paper).
  const double budget = params_.explore_budget * o.gain_bound_s();
  const bool gather_over_budget = o.gather_s > budget;
  Json candidates = Json::object();
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    if (params_.candidates[i].kind == BalancerKind::none) continue;
    const double last = last_decision_s(i, call.objects);
    const double decision = floor_s(*candidates_[i], last, call, o.net);
    const double migration = last_migration_s(i, o.excess_share);
    // Weighed by the plans' totals, only a protocol's plan is known on every rank; the
    // others need the gather.
    const auto* protocol = dynamic_cast<const DistributedBalancer*>(candidates_[i].get());
    const bool weighable = o.by_totals ? protocol != nullptr : !gather_over_budget;
    // Weighed by the plans' totals, a protocol is weighed only once it has run as itself,
    // and where even its run alone, first at the call, would take the decision past the
    // explore budget, the call runs none of them (keeps_running_first) and keeps `none`.
    const double first_run =
        protocol && o.by_totals ? expected_first_run_s(*protocol, last, call.nranks, o.net, RanSoFar{}) : 0.0;
    const bool over_budget = o.by_totals && o.weighing_s() + first_run > budget;
    const double reachable = reachable_s(i, o.gain_bound_s());
    const bool out_of_reach = o.cannot_win(decision + migration, reachable);
    if (weighable && !over_budget && !out_of_reach) return nullptr;
    const bool measured = last == decision && decision > 0;
    Json& c = candidates[std::string(params_.candidates[i].name())];
    c = Json{{"skipped", true},
             {"floor_s", decision + migration},
             {"floor_from", measured ? "its last decision" : "the network"},
             {"migration_floor_s", migration},
             {"bound_s", o.weighing_s() + o.calls * kSkipShare * (decision + migration) + o.balanced_steps_s}};
    if (o.by_totals && !weighable) c["needs_the_gather"] = true;
    if (weighable && over_budget) {
      c["over_explore_budget"] = true;
      c["expected_run_s"] = first_run;
    }
    if (reachable < o.gain_bound_s()) c["reachable_s"] = reachable;
  }
  if (!o.none_competes) return nullptr;
  candidates["none"] = Json{{"to_end_s", o.none_s}};
  return Json{{"chosen", "none"},
              {"decided_by", o.by_totals ? "the call's totals: no protocol's floor can win or its run as itself fit "
                                           "in the explore budget, and the decision's gather alone, which the others "
                                           "need, costs more than the budget"
                             : gather_over_budget
                                 ? "the call's totals: the decision's gather alone costs more than its explore budget"
                                 : "the call's totals: no other candidate's floor can win"},
              {"exploration",
               o.by_totals ? Json{{"gain_bound_s", o.gain_bound_s()},
                                  {"budget_s", budget},
                                  {"gather_s", o.gather_s},
                                  {"totals_s", o.totals_s}}
                           : Json{{"gain_bound_s", o.gain_bound_s()}, {"budget_s", budget}, {"gather_s", o.gather_s}}},
              {"chosen_over", call.steps_left > 0 ? "the rest of the run" : "the steps until the next call"},
              {"steps_left", call.steps_left},
              {"later_calls", call.later_calls},
              {"network", Json{{"far_latency_s", o.net.far_latency_s},
                               {"collective_s", o.net.collective_s},
                               {"barrier_s", o.net.barrier_s}}},
              {"lmax_before_s", call.max_rank_load_s},
              {"step_exchange_s", call.step_exchange_s},
              {"candidates", candidates}};
}

void AutoChooser::ran_first(std::vector<RanPlan> plans) const {
  ran_.assign(candidates_.size(), std::nullopt);
  ran_order_.clear();
  for (RanPlan& plan : plans) {
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (candidates_[i].get() != plan.balancer) continue;
      ran_[i] = std::move(plan);
      ran_order_.push_back(i);
    }
  }
}

std::vector<const RanPlan*> AutoChooser::ran_plans() const {
  std::vector<const RanPlan*> out;
  for (const std::size_t i : ran_order_) {
    if (i < ran_.size() && ran_[i]) out.push_back(&*ran_[i]);
  }
  return out;
}

namespace {

// What the candidates that ran as themselves at a call did: alike on every rank, and each
// one's plan on this rank.
struct RanHere {
  std::vector<RanPlan> ran;
  std::vector<MigrationPlan> plans;
};

// Runs the candidates `acting` lists (runs_first) as themselves, while it lets them
// (keeps_running_first).
RanHere run_as_themselves(const Balancer& acting, const std::vector<std::unique_ptr<Balancer>>& candidates,
                          const LoadView& view, MPI_Comm comm) {
  const CallOutlook call = call_outlook(view);
  RanHere out;
  for (const Balancer* next : acting.runs_first(call)) {
    if (!acting.keeps_running_first(call, out.ran, *next)) break;
    const auto it = std::find_if(candidates.begin(), candidates.end(), [&](const auto& b) { return b.get() == next; });
    // What the candidate takes as itself, by the engine's clock: simulated under SMPI.
    const double t0 = MPI_Wtime();
    out.plans.push_back((*it)->plan(view, comm));
    // Its slowest rank's time, so that every rank weighs the next one alike
    // (keeps_running_first) and rank 0 charges it as the call took.
    double took = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, comm);
    const MigrationPlan& plan = out.plans.back();
    out.ran.push_back(RanPlan{.balancer = next,
                              .assignment = {},
                              .decision_s = took,
                              .protocol_rounds = plan.protocol ? plan.protocol->rounds : 0,
                              .protocol_reducing_rounds = plan.protocol ? plan.protocol->reductions : 0});
  }
  return out;
}

}  // namespace

std::vector<RanPlan> AutoBalancer::run_first(const LoadView& view, MPI_Comm comm) {
  const auto local = static_cast<std::size_t>(view.graph.num_local());
  RanHere here = run_as_themselves(chooser_, candidates_, view, comm);
  std::vector<RanPlan>& out = here.ran;
  std::vector<std::vector<Rank>> moved_to;  // per candidate that ran, each local vertex's destination
  for (const MigrationPlan& plan : here.plans) {
    moved_to.emplace_back(local, view.rank);
    for (const Move& m : plan.moves) moved_to.back()[static_cast<std::size_t>(m.vertex)] = m.to;
  }
  // Vertex-major, so that one gather carries every candidate's destinations in the
  // problem's order.
  const std::size_t k = out.size();
  std::vector<Rank> destination(local * k);
  for (std::size_t v = 0; v < local; ++v) {
    for (std::size_t c = 0; c < k; ++c) destination[v * k + c] = moved_to[c][v];
  }
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  const int mine = static_cast<int>(local * k);
  std::vector<int> counts(static_cast<std::size_t>(nranks), 0);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<int> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<Rank> all(me == 0 ? static_cast<std::size_t>(displs.back() + counts.back()) : 0);
  MPI_Gatherv(destination.data(), mine, mpi_type<Rank>(), all.data(), counts.data(), displs.data(), mpi_type<Rank>(), 0,
              comm);
  if (me != 0) return {};
  const std::size_t objects = k > 0 ? all.size() / k : 0;
  for (std::size_t c = 0; c < k; ++c) {
    out[c].assignment.resize(objects);
    for (std::size_t i = 0; i < objects; ++i) out[c].assignment[i] = all[i * k + c];
  }
  return std::move(out);
}

bool AutoChooser::needs_vectors() const {
  return std::any_of(candidates_.begin(), candidates_.end(), [](const auto& c) { return c->needs_vectors(); });
}

namespace {

// After a call whose totals alone chose `none`, how many of the `later_calls` to skip
// before looking again: as many looks as `budget` of `none`'s time to the end pays for at
// `look_s` each (the call's one reduction), spread evenly over the calls left.
int calls_to_skip(double budget, double none_to_end_s, double look_s, int later_calls) {
  if (later_calls <= 0 || !(look_s > 0)) return 0;
  const double affordable = std::floor(budget * none_to_end_s / look_s);
  if (affordable >= later_calls) return 0;
  if (affordable < 1) return later_calls;
  const auto looks = static_cast<int>(affordable);
  return (later_calls + 1 + looks) / (looks + 1) - 1;  // ceil((later_calls + 1) / (looks + 1)) - 1
}

}  // namespace

bool AutoBalancer::takes_call(const CallOutlook* look) const {
  look_decision_ = nullptr;
  if (calls_to_skip_ > 0) {
    --calls_to_skip_;
    return false;
  }
  if (look == nullptr || !keeps_none(*look)) return true;
  ++kept_by_looks_;
  return false;
}

bool AutoBalancer::wants_look() const {
  // Before the first call the run is under `none` as much as after a call that chose it,
  // and a look can keep it only where `none` is a candidate.
  const bool none_kept =
      calls_ == 0 ? none_is_candidate(params_) : chosen_ && params_.candidates[*chosen_].kind == BalancerKind::none;
  return params_.nonblocking_look && calls_to_skip_ == 0 && none_kept;
}

void AutoBalancer::skip_calls_after_floors(Json& floor, const CallOutlook& call) const {
  // Under the model's own extrapolation (loads stay as they are) no later call can win
  // either, with fewer steps left to gain on; only changing loads could. So later calls
  // look again only as far as `look_budget` of the run pays for their reductions.
  if (call.steps_left <= 0) return;
  const double none_s = floor["candidates"]["none"]["to_end_s"].get<double>();
  const double look_s = floor["network"]["collective_s"].get<double>();
  calls_to_skip_ = calls_to_skip(params_.look_budget, none_s, look_s, call.later_calls);
  floor["look_budget"] = params_.look_budget;
  floor["skips_next_calls"] = calls_to_skip_;
}

std::size_t AutoBalancer::none_index() const {
  // ruled_out_by_floors() decides only where `none` is a candidate.
  std::size_t none = 0;
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    if (params_.candidates[i].kind == BalancerKind::none) none = i;
  }
  return none;
}

void AutoBalancer::remember_last_decision() const {
  if (redecided_ && chosen_) {
    decided_.push_back({decided_at_, *chosen_});
    // A candidate chosen to run once leaves the loads in a shape of their own, for which
    // its decision chose to keep `none` (run_once); one it leaves about as they were is
    // the decision's own shape.
    const std::optional<double> after = chooser_.then_none_at();
    if (after && decided_at_ > 0 && std::abs(*after / decided_at_ - 1.0) > params_.redecide) {
      decided_.push_back({*after, none_index()});
    }
  }
  redecided_ = false;
}

namespace {

double max_over_mean_of(const CallOutlook& call) {
  const double mean = call.nranks > 0 ? call.total_load_s / call.nranks : 0.0;
  return mean > 0 ? call.max_rank_load_s / mean : 1.0;
}

// A look sees the loads some steps before the LB point; for its totals to keep `none` there
// without a call, they are taken at the most the point can show: the slowest rank grown by
// the fastest rank's trend at every step between, the sum by the ranks' trends. (On the
// SMPI fixture auto-bgp, drift-3d at 16 ranks, a look half a period early saw an explore
// budget just under tree's expected run and kept `none`: 39.5 ms, where the call had run
// tree and taken 38.5.) Where the loads move, not past the slowest rank of now or of an
// earlier call (moving_loads_cap): at 32,768 ranks on scale-drift.yaml, the fastest trend
// over the half period would have made every point a call, whose reduction joins every
// rank to the slowest (33.8 ms, where `none` takes 27.9).
CallOutlook at_the_point(const CallOutlook& look, double slowest_seen_s) {
  CallOutlook out = look;
  const double steps = std::max(0, look.steps_to_point);
  const double cap =
      moving_loads_cap(look.trends.sum, look.trends.size, std::max(look.max_rank_load_s, slowest_seen_s));
  out.max_rank_load_s = std::min(look.max_rank_load_s + steps * look.trends.largest, cap);
  out.total_load_s = std::max(0.0, out.total_load_s + steps * look.trends.sum);
  out.steps_to_point = 0;
  return out;
}

}  // namespace

bool AutoBalancer::keeps_none(const CallOutlook& look) const {
  remember_last_decision();
  if (const Decided* before = remembered(max_over_mean_of(look))) {
    return params_.candidates[before->chosen].kind == BalancerKind::none;
  }
  Json floor = chooser_.ruled_out_by_floors(at_the_point(look, chooser_.slowest_seen_s()));
  if (floor.is_null()) return false;
  // Kept by the totals alone: as a call decided so would, it is remembered for the loads'
  // shape, and the next points look again only as far as `look_budget` pays for their
  // reductions.
  decided_.push_back({max_over_mean_of(look), none_index()});
  skip_calls_after_floors(floor, look);
  floor["by_look"] = true;
  floor["calls"] = calls_;
  look_decision_ = std::move(floor);
  return true;
}

const AutoBalancer::Decided* AutoBalancer::remembered(double max_over_mean) const {
  if (params_.redecide <= 0) return nullptr;
  const Decided* nearest = nullptr;
  auto distance = [&](const Decided& d) { return std::abs(std::log(max_over_mean / d.max_over_mean)); };
  for (const auto& d : decided_) {
    if (!nearest || distance(d) < distance(*nearest)) nearest = &d;
  }
  if (!nearest || std::abs(max_over_mean / nearest->max_over_mean - 1.0) > params_.redecide) return nullptr;
  return nearest;
}

const Balancer& AutoBalancer::acting_for(const CallOutlook& call) const {
  // The last call's decision, if it was one, is known on every rank by now.
  remember_last_decision();
  ++calls_;
  looks_before_call_ = std::exchange(kept_by_looks_, 0);
  chooser_.saw_call(call);
  const double max_over_mean = max_over_mean_of(call);
  this_call_ = max_over_mean;
  floor_decision_ = nullptr;
  if (const Decided* before = remembered(max_over_mean)) {
    redecided_ = false;
    decided_at_ = before->max_over_mean;
    chosen_ = before->chosen;
    return *candidates_[before->chosen];
  }
  redecided_ = true;
  decided_at_ = max_over_mean;
  chooser_.set_then_none_at(std::nullopt);
  // Where the totals alone rule every other candidate out, `none` is chosen on every rank
  // alike, with nothing gathered or run.
  floor_decision_ = chooser_.ruled_out_by_floors(call);
  if (!floor_decision_.is_null()) {
    chosen_ = none_index();
    skip_calls_after_floors(floor_decision_, call);
    return *candidates_[*chosen_];
  }
  chosen_.reset();
  // Where the decision's gather alone is over its explore budget, the protocols' plans are
  // weighed by their totals; every rank makes the choice.
  if (chooser_.by_totals(call)) {
    totals_.at_call(call);
    return totals_;
  }
  // The chooser's solve() puts its choice in chosen_ (under MPI only rank 0 runs it, and
  // plan() broadcasts it); the next call remembers it.
  return chooser_;
}

void AutoBalancer::prepare(MPI_Comm comm) {
  chooser_.prepare(comm);
  totals_.prepare(comm);
  for (auto& c : candidates_) c->prepare(comm);
}

MigrationPlan AutoBalancer::plan(const LoadView& view, MPI_Comm comm) {
  const Balancer& acting = acting_for(call_outlook(view));
  MigrationPlan out;
  if (&acting == &totals_) {
    out = totals_.plan(view, comm);
  } else if (&acting != &chooser_) {
    out = candidates_[*chosen_]->plan(view, comm);
  } else {
    chooser_.ran_first(run_first(view, comm));
    out = chooser_.plan(view, comm);
    broadcast_decision(comm);
  }
  out.decision = view.rank.value() == 0 ? decision() : Json(nullptr);
  return out;
}

void AutoBalancer::broadcast_decision(MPI_Comm comm) {
  // The choice travels as the last double (candidates are few, so the index is exact),
  // after the shape it leaves where it runs once (0: it does not).
  std::vector<double> message = chooser_.learned();
  message.push_back(chooser_.then_none_at().value_or(0.0));
  message.push_back(static_cast<double>(chosen_.value_or(0)));
  MPI_Bcast(message.data(), static_cast<int>(message.size()), MPI_DOUBLE, 0, comm);
  chosen_ = static_cast<std::size_t>(message.back());
  message.pop_back();
  chooser_.set_then_none_at(message.back() > 0 ? std::optional(message.back()) : std::nullopt);
  message.pop_back();
  chooser_.learn(message);
}

Assignment AutoBalancer::decide_serially(const GlobalProblem& problem, ProtocolObserver* observer) const {
  // Without a machine the outlook rules nothing out: the problem's network is priced where
  // the chooser runs.
  const std::vector<double> now = rank_times(problem, problem.owner);
  const CallOutlook call{.nranks = problem.nranks,
                         .objects = static_cast<std::int64_t>(problem.size()),
                         .edges = static_cast<std::int64_t>(problem.adjncy.size() / 2),
                         .coord_dims = problem.coord_dims,
                         .max_rank_load_s = max_of(now),
                         .total_load_s = std::accumulate(now.begin(), now.end(), 0.0),
                         .step_exchange_s = problem.step_exchange_s,
                         .period = problem.period,
                         .steps_left = problem.steps_left,
                         .later_calls = problem.later_calls,
                         .machine = nullptr,
                         .trends = rank_trends_of(problem),
                         .steps_to_point = 0};
  return acting_for(call).decide_serially(problem, observer);
}

Json AutoBalancer::decision() const {
  if (!chosen_) return nullptr;
  Json out = !redecided_                  ? Json{{"chosen", params_.candidates[*chosen_].name()}}
             : !floor_decision_.is_null() ? floor_decision_
                                          : chooser_.decision();
  out["redecided"] = redecided_;
  out["max_over_mean"] = this_call_;
  out["max_over_mean_at_decision"] = decided_at_;
  out["decisions"] = decided_.size() + (redecided_ ? 1 : 0);
  out["calls"] = calls_;
  if (params_.nonblocking_look) out["points_kept_by_looks"] = looks_before_call_;
  return out;
}

namespace {

// C_LbDecision and C_DataMvmt of one candidate's call, from the platform's fits where the
// scenario gave them (machine.costs), else as the paper models them: the decision timed
// on the candidate's reference, and alpha + beta x ElementsMoved_max x elementsize (the
// bytes from another site at a cross-site flow's rate). Beyond the paper, without fits,
// the migration engine's collectives at every call are a floor under C_DataMvmt.
struct CallCost {
  double decision_s = 0;
  double migration_s = 0;
  double migration_code_s = 0;  // its part that is the migration engine's code (not fitted)
  double repeat_s = 0;          // a later call that finds nothing to move: its fixed costs
  double later_call_s = 0;      // a later call as the run will pay it (see auto.hpp)
  bool fitted_decision = false;
  bool fitted_migration = false;
};

// Beyond the paper's C_DataMvmt, the migration engine's own code, as the engines charge it
// (MigrationCode::busiest_s; every rank rebuilds once anything moves), scaled as code is.
// A plan that re-places most vertices (greedy, metis) pays it on every vertex.
double migration_code_s(const GlobalProblem& problem, const RankMoves& moves) {
  if (!moves.any) return 0.0;
  return problem.migration_code.busiest_s(moves.sent, moves.kept, moves.arrived) * problem.code_time_scale;
}

// Beyond the paper's busiest receiver (equation 6): the busiest node's links, which carry
// every byte that leaves the node or enters it, for all its ranks together. A plan that
// re-places most objects (greedy, metis) moves most of them between nodes, and on
// quickstart (bgq, 32 ranks on 2 nodes) greedy's migration took 2.5 times what its
// busiest receiver's bytes at beta predicted. 0 where the nodes or their bandwidth are
// not known.
double busiest_node_s(const GlobalProblem& problem, const Assignment& a) {
  const double bandwidth = problem.network.node_bandwidth_Bps;
  if (problem.rank_node.empty() || bandwidth <= 0) return 0.0;
  const auto nodes =
      static_cast<std::size_t>(*std::max_element(problem.rank_node.begin(), problem.rank_node.end())) + 1;
  std::vector<double> out(nodes, 0.0), in(nodes, 0.0);
  const auto bytes = static_cast<double>(problem.element_bytes);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const auto from = static_cast<std::size_t>(problem.rank_node[static_cast<std::size_t>(problem.owner[i].value())]);
    const auto to = static_cast<std::size_t>(problem.rank_node[static_cast<std::size_t>(a[i].value())]);
    if (from == to) continue;
    out[from] += bytes;
    in[to] += bytes;
  }
  return std::max(max_of(out), max_of(in)) / bandwidth;
}

// What a plan moves, as a call's migration is priced: from the whole assignment on rank 0,
// or from the plan's totals reduced over the ranks (moved_of in both forms).
struct Moved {
  bool any = false;
  double elements_moved_max = 0;  // most objects arriving on one rank
  double code_s = 0;              // migration_code_s
  double node_link_s = 0;         // busiest_node_s
  double cross_site_s = 0;        // cross_site_movement_s, where there are several sites
};

Moved moved_of(const Outcome& o, const GlobalProblem& problem, const PricedNetwork& net) {
  return Moved{.any = o.moves.any,
               .elements_moved_max = o.elements_moved_max,
               .code_s = migration_code_s(problem, o.moves),
               .node_link_s = o.moves.any ? busiest_node_s(problem, o.assignment) : 0.0,
               .cross_site_s = net.wan_s_per_byte > 0 ? cross_site_movement_s(problem, o.assignment, net) : 0.0};
}

// A call's cost for a plan that moves `m`, on a problem of `vertices` and `edges`, whose
// scalars (element bytes, fits, ranks) `problem` gives.
CallCost priced_call(std::string_view name, double decision_s, const Moved& m, double vertices, double edges,
                     const GlobalProblem& problem, const PricedNetwork& net) {
  CallCost c;
  if (name == "none") return c;
  const auto element_bytes = static_cast<double>(problem.element_bytes);
  c.decision_s = decision_s;
  double idle_migration = net.call_collectives * net.collective_s;
  c.migration_code_s = m.code_s;
  const double node_link_s = m.any ? net.local.alpha_s + m.node_link_s : 0.0;
  c.migration_s = idle_migration + c.migration_code_s +
                  (net.wan_s_per_byte > 0
                       ? m.cross_site_s
                       : std::max(data_movement_cost(net.local, m.elements_moved_max, element_bytes), node_link_s));
  const FittedCosts* fits = problem.fitted_costs.get();
  if (const FittedCost* d = fits ? fits->decision_of(name) : nullptr) {
    c.decision_s = d->seconds(vertices, edges, problem.nranks);
    c.fitted_decision = true;
  }
  if (fits && fits->migration) {
    // The migration engine runs at every call, moving something or not.
    const double per_rank = vertices / problem.nranks;
    c.migration_s = fits->migration_s(per_rank, m.elements_moved_max, element_bytes);
    idle_migration = fits->migration_s(per_rank, 0, element_bytes);
    c.fitted_migration = true;
  }
  c.repeat_s = c.decision_s + idle_migration;
  c.later_call_s = c.decision_s + c.migration_s;
  return c;
}

CallCost call_cost(std::string_view name, const Outcome& o, const GlobalProblem& problem, const PricedNetwork& net) {
  return priced_call(name, o.decision_s, moved_of(o, problem, net), static_cast<double>(problem.size()),
                     static_cast<double>(problem.adjncy.size()) / 2, problem, net);
}

}  // namespace

namespace {

// The problem's scalars, with none of its tables.
GlobalProblem scalars_only(const GlobalProblem& p) {
  GlobalProblem s;
  s.nranks = p.nranks;
  s.dims = p.dims;
  s.seed = p.seed;
  s.invocation = p.invocation;
  s.element_bytes = p.element_bytes;
  s.period = p.period;
  s.steps_left = p.steps_left;
  s.later_calls = p.later_calls;
  s.step_exchange_s = p.step_exchange_s;
  s.trend_origin = p.trend_origin;
  s.migration_code = p.migration_code;
  s.network = p.network;
  s.code_time_scale = p.code_time_scale;
  s.fitted_costs = p.fitted_costs;
  return s;
}

// The first n entries of a table (all of a shorter one: an empty table means "all alike").
template <typename T>
std::vector<T> prefix(const std::vector<T>& v, std::size_t n) {
  return std::vector<T>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), n)));
}

// How many objects the first `ranks` ranks hold (objects come in rank order).
std::size_t objects_of_first(const GlobalProblem& problem, int ranks) {
  return static_cast<std::size_t>(
      std::find_if(problem.owner.begin(), problem.owner.end(), [&](Rank r) { return r.value() >= ranks; }) -
      problem.owner.begin());
}

// The objects of the first `ranks` ranks (a prefix: objects come in rank order) with the
// edges among them: a smaller problem of the same kind, to time a candidate on. Only their
// tables are copied: a copy of the whole problem would copy its whole graph, which on 1.2
// million edges cost more than timing greedy on the sample.
GlobalProblem first_ranks_of(const GlobalProblem& problem, int ranks) {
  GlobalProblem s = scalars_only(problem);
  const auto m = objects_of_first(problem, ranks);
  const auto r = static_cast<std::size_t>(ranks);
  const auto dims = static_cast<std::size_t>(problem.dims);
  s.nranks = ranks;
  s.id = prefix(problem.id, m);
  s.load = prefix(problem.load, m);
  s.load_trend = prefix(problem.load_trend, m);
  s.owner = prefix(problem.owner, m);
  s.load_vec = prefix(problem.load_vec, m * dims);
  s.rank_speed = prefix(problem.rank_speed, r);
  s.rank_site = prefix(problem.rank_site, r);
  s.rank_node = prefix(problem.rank_node, r);
  s.rank_background = prefix(problem.rank_background, r);
  s.rank_background_vec = prefix(problem.rank_background_vec, r * dims);
  if (!problem.has_graph()) return s;
  s.xadj.push_back(0);
  if (problem.has_fixed_edges()) s.fixed_xadj.push_back(0);
  for (std::size_t i = 0; i < m; ++i) {
    for (auto e = problem.xadj[i]; e < problem.xadj[i + 1]; ++e) {
      if (static_cast<std::size_t>(problem.adjncy[static_cast<std::size_t>(e)]) >= m) continue;
      s.adjncy.push_back(problem.adjncy[static_cast<std::size_t>(e)]);
      if (!problem.adj_bytes.empty()) s.adj_bytes.push_back(problem.adj_bytes[static_cast<std::size_t>(e)]);
    }
    s.xadj.push_back(static_cast<std::int64_t>(s.adjncy.size()));
    if (!problem.has_fixed_edges()) continue;
    for (auto e = problem.fixed_xadj[i]; e < problem.fixed_xadj[i + 1]; ++e) {
      if (problem.fixed_rank[static_cast<std::size_t>(e)] < ranks) {
        s.fixed_rank.push_back(problem.fixed_rank[static_cast<std::size_t>(e)]);
      }
    }
    s.fixed_xadj.push_back(static_cast<std::int64_t>(s.fixed_rank.size()));
  }
  return s;
}

// The shortest a step can be after any plan: every rank at the same share of the load for
// its speed.
double perfect_balance_s(const GlobalProblem& problem) {
  double load = 0;
  for (const Load l : problem.load) load += l.seconds();
  double speed = 0;
  for (int r = 0; r < problem.nranks; ++r) {
    load += problem.background(r);
    speed += problem.speed(r);
  }
  return speed > 0 ? load / speed : 0.0;
}

// A sample's ranks: the first 1/share of them, at least 2.
int sample_ranks(int nranks, int share) { return std::max(2, nranks / share); }

// What ordering n objects and placing each among k parts takes, up to a constant.
double sample_work(std::size_t n, int k) {
  const auto objects = static_cast<double>(n);
  return objects * (std::log2(std::max(2.0, objects)) + std::log2(static_cast<double>(k)));
}

// What a sample's plan says: the candidate's decision at full size, and the share of the
// sample's objects the plan left where they were.
struct SampleEstimate {
  double decision_s = 0;
  double kept_share = 1;
};

double kept_share(const GlobalProblem& sample, const Assignment& plan) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < sample.size(); ++i) kept += plan[i] == sample.owner[i] ? 1 : 0;
  return sample.size() > 0 ? static_cast<double>(kept) / static_cast<double>(sample.size()) : 1.0;
}

// A centralized candidate's expected decision on a large problem, from its time on the
// objects of the first 1/share of the ranks, scaled as n (log n + log k) for n objects and k
// parts (ordering the objects, then placing each among the parts: greedy's sort and heap,
// a partitioner's levels), plus its gather and scatter. On the quickstart's 16,384
// vertices at 32 ranks, sampled on 2 ranks, that says 4.9 ms for greedy's 4.5 and 18 ms
// for metis's 32 (gather and scatter included); scaled by the objects alone it said about
// 2.5 and 10 ms, metis looked as if it might win, and it ran in full.
std::optional<SampleEstimate> sampled_decision_s(const Balancer& c, const GlobalProblem& problem,
                                                 const PricedNetwork& net, int share) {
  const int ranks = sample_ranks(problem.nranks, share);
  if (!dynamic_cast<const CentralizedBalancer*>(&c) || problem.size() < AutoChooser::kSampleObjects ||
      ranks >= problem.nranks) {
    return std::nullopt;
  }
  const GlobalProblem sample = first_ranks_of(problem, ranks);
  if (sample.size() == 0) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  const Assignment plan = c.decide_serially(sample, nullptr);
  const double code = seconds_since(t0) * problem.code_time_scale;
  return SampleEstimate{
      .decision_s = code * sample_work(problem.size(), problem.nranks) / sample_work(sample.size(), ranks) +
                    gather_and_scatter_s(c, problem, net),
      .kept_share = kept_share(sample, plan)};
}

// The share of its objects a plan at full size is expected to move, from the share a
// k-rank sample's plan kept where they were (beyond the paper). A plan that places the
// objects afresh (greedy, metis) keeps about 1/k of them by chance, and 1/P at P ranks;
// one that keeps objects home beyond chance (a refinement) keeps that share at any size.
double moved_share_at_full_size(double kept_share, int sample_ranks, int nranks) {
  const double chance = 1.0 / sample_ranks;
  const double kept_beyond_chance = std::clamp((kept_share - chance) / (1.0 - chance), 0.0, 1.0);
  return (1.0 - kept_beyond_chance) * (1.0 - 1.0 / nranks);
}

// A plan that moves `share` of every rank's objects, spread evenly over the other ranks:
// what a plan that re-places objects afresh looks like to the migration engine and the
// network.
Assignment spread_plan(const GlobalProblem& problem, double share) {
  const auto ranks = static_cast<std::size_t>(problem.nranks);
  std::vector<std::int64_t> held(ranks, 0), sent(ranks, 0);
  for (const Rank r : problem.owner) ++held[static_cast<std::size_t>(r.value())];
  Assignment plan = problem.owner;
  if (ranks < 2) return plan;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const auto from = static_cast<std::size_t>(problem.owner[i].value());
    if (static_cast<double>(sent[from]) >= std::round(share * static_cast<double>(held[from]))) continue;
    const auto step = 1 + static_cast<std::size_t>(sent[from]) % (ranks - 1);
    plan[i] = Rank(static_cast<int>((from + step) % ranks));
    ++sent[from];
  }
  return plan;
}

// A centralized candidate's migration before it ever ran in full (beyond the paper): what
// its call_cost would be for a plan that moves the share its sample's plan says, spread
// over the ranks. On drift-3d (block, bgq, 32 ranks) greedy's plan moves 426 of the
// busiest rank's 432 objects, and its 11-13 ms of migration was found only by running it
// in full, after its 4 ms decision.
double sampled_migration_s(std::string_view name, const GlobalProblem& problem, const PricedNetwork& net,
                           double kept_share, int sample_ranks) {
  Outcome o;
  o.assignment = spread_plan(problem, moved_share_at_full_size(kept_share, sample_ranks, problem.nranks));
  o.moves = rank_moves(problem, o.assignment);
  o.elements_moved_max = static_cast<double>(*std::max_element(o.moves.arrived.begin(), o.moves.arrived.end()));
  return call_cost(name, o, problem, net).migration_s;
}

// A centralized candidate's expected decision from samples (what taking them cost is on
// the decision's clock, solve()'s `spent`). Where the ranks are many, a smaller sample
// comes first (1/kFirstSampleShare of the usual one's ranks), and the usual one
// (1/kSampleShare of the ranks) follows only where what the first took, scaled to it, fits
// in what the decision has left to spend (`left_s`): on cluster-ib at 128 ranks, metis's usual sample took 3
// ms of a 3 ms budget only to learn that its decision would take 74 ms. Nor does it follow
// where the first's estimate already `rules_out` the candidate.
struct Sampled {
  std::optional<double> estimate_s;
  int ranks = 0;          // of the sample the estimate is from
  double kept_share = 1;  // of its objects, by its plan
};

Sampled sample_within(const Balancer& c, const GlobalProblem& problem, const PricedNetwork& net, double left_s,
                      const std::function<bool(double)>& rules_out) {
  const int usual = sample_ranks(problem.nranks, AutoChooser::kSampleShare);
  const int first = sample_ranks(problem.nranks, AutoChooser::kSampleShare * AutoChooser::kFirstSampleShare);
  Sampled out;
  auto take = [&](int share) {
    const auto t0 = std::chrono::steady_clock::now();
    if (const auto estimate = sampled_decision_s(c, problem, net, share)) {
      out.estimate_s = estimate->decision_s;
      out.kept_share = estimate->kept_share;
      out.ranks = sample_ranks(problem.nranks, share);
    }
    return seconds_since(t0) * problem.code_time_scale;
  };
  if (first >= usual) {
    (void)take(AutoChooser::kSampleShare);
    return out;
  }
  const double first_took = take(AutoChooser::kSampleShare * AutoChooser::kFirstSampleShare);
  if (!out.estimate_s || rules_out(*out.estimate_s)) return out;
  const double usual_expected = first_took * sample_work(objects_of_first(problem, usual), usual) /
                                sample_work(objects_of_first(problem, first), first);
  if (usual_expected <= left_s - first_took) (void)take(AutoChooser::kSampleShare);
  return out;
}

const FittedCost* fitted_decision(const GlobalProblem& problem, const std::string& name) {
  return problem.fitted_costs ? problem.fitted_costs->decision_of(name) : nullptr;
}

// Where a skipped candidate's expected decision came from, for the record.
const char* estimated_from(bool sampled, bool at_floor, bool sampled_before, const GlobalProblem& problem,
                           const std::string& name) {
  if (sampled) return "a sample";
  if (at_floor) return "the protocol's floor";
  if (fitted_decision(problem, name)) return "the platform's fit";
  return sampled_before ? "an earlier sample" : "its last decision";
}

// A candidate weighed at a decision: its predicted time, what its calls cost (decision
// and migration, at this call and the later ones) and the vertices its plan moves.
struct Weighed {
  std::size_t candidate = 0;
  double time = 0;
  double calls_s = 0;
  double moved = 0;
  Assignment assignment;
  // Where it is weighed as run once (RunOnce): the loads' max over mean its plan leaves,
  // for which `none` is remembered.
  std::optional<double> then_none_at;
};

// Beyond the paper: `auto`'s own way of running a candidate. Where it chose one, the next
// call finds the loads in the shape the plan left them (max over mean), decides again for
// it, and unless the loads move, keeps `none`: so a candidate is also weighed as run once,
// now, with its placement held to the end along the loads' trends and each later call a
// reduction, and `auto` remembers `none` for the shape it leaves (`run_once`). On a million
// objects at 8,192 ranks, tree's first call takes the imbalance from 184% to 4%, and its
// later calls, 26 ms each on loads already balanced, gain nothing. Only where the loads
// stay: where some rank's load moves along its trend by more than kMotionMatters of the
// slowest rank's before the run ends, the shape changes, the later calls decide again at a
// decision's cost. Nor can a call foresee loads that change later (a regrid, particles
// that cluster): where weighed run once, tree and diffusion were predicted 4.5-11% faster
// than `none` on the first accuracy sweep's AMR and MD cases and measured up to 1.32 times
// the fastest. So a candidate is weighed run once only where that beats `none` by more
// than `once_margin` (0.15: the model's mean error on diffusion, 14%, the largest of any
// candidate's); on `scale.yaml` at 8,192 ranks it beats it by 48%.
bool loads_stay(double largest_rank_drift_s, double lmax) { return largest_rank_drift_s < kMotionMatters * lmax; }
struct RunOnce {
  double to_end_s = 0;
  bool faster = false;  // than the candidate at every call
};

RunOnce run_once(double first_call_s, double held_step_s, double every_call_to_end_s, int later_calls, int steps_left,
                 const PricedNetwork& net, double none_to_end_s, double margin) {
  RunOnce r;
  if (steps_left <= 0 || later_calls <= 0) return r;
  r.to_end_s = app_time_to_end(first_call_s, net.collective_s, later_calls, held_step_s, steps_left);
  r.faster = r.to_end_s < every_call_to_end_s && r.to_end_s < (1.0 - margin) * none_to_end_s;
  return r;
}

// What a candidate's prediction says of its run-once weighing.
void say_run_once(Json& p, const RunOnce& once) {
  if (once.to_end_s <= 0) return;
  p["once_to_end_s"] = once.to_end_s;
  p["then"] = once.faster ? "none" : "itself";
}

// The fastest of the weighed candidates (ties to the one listed first), and the runner-up's
// time, a skipped candidate's least included.
struct Ranking {
  std::size_t best = 0;
  double best_time = 0;
  double second_time = std::numeric_limits<double>::infinity();
};

Ranking ranking_of(const std::vector<Weighed>& weighed, double skipped_bound) {
  Ranking r;
  const auto fastest = std::min_element(weighed.begin(), weighed.end(), [](const Weighed& a, const Weighed& b) {
    return std::tie(a.time, a.candidate) < std::tie(b.time, b.candidate);
  });
  r.best = fastest->candidate;
  r.best_time = fastest->time;
  r.second_time = skipped_bound;
  for (const Weighed& w : weighed) {
    if (&w != &*fastest) r.second_time = std::min(r.second_time, w.time);
  }
  return r;
}

// The near-tie rule (beyond the paper; off unless `near_tie` is set): among the candidates
// predicted within `within` (relative) of the fastest, the one whose calls cost least,
// then the one that moves least, then the one listed first. Measured on the accuracy
// sweeps, the cheaper candidate of a near-tie was more often the slower one (16 of 46
// changed picks measured no slower), which is why it is not the default.
// A weighed candidate's prediction: its time to the next call and to the end, its call's
// parts, the slowest rank its plan leaves and the most objects arriving on one rank;
// `reference_s` is its decision as timed, where a fit priced it instead.
Json weighed_record(double interval_s, double to_end_s, const CallCost& cost, double lmax_after_s,
                    double elements_moved_max, double reference_s) {
  Json p{{"interval_s", interval_s},      {"to_end_s", to_end_s},
         {"decision_s", cost.decision_s}, {"migration_s", cost.migration_s},
         {"repeat_s", cost.repeat_s},     {"later_call_s", cost.later_call_s},
         {"lmax_after_s", lmax_after_s},  {"elements_moved_max", elements_moved_max}};
  if (!cost.fitted_migration) p["migration_code_s"] = cost.migration_code_s;
  if (cost.fitted_decision) p["decision_reference_s"] = reference_s;
  if (cost.fitted_decision || cost.fitted_migration) {
    p["fitted"] = Json{{"decision", cost.fitted_decision}, {"migration", cost.fitted_migration}};
  }
  return p;
}

// The network a decision priced on, for its record.
Json network_record(const PricedNetwork& net) {
  return Json{{"far_latency_s", net.far_latency_s},
              {"cross_site_s_per_byte", net.wan_s_per_byte},
              {"collective_s", net.collective_s},
              {"barrier_s", net.barrier_s},
              {"call_collectives", net.call_collectives}};
}

// Where the near-tie rule chose other than the fastest: which, and by how much.
Json near_tie_record(std::string_view fastest, double picked_s, double fastest_s, double within) {
  return Json{{"fastest", fastest},
              {"slower_by", fastest_s > 0 ? (picked_s - fastest_s) / fastest_s : 0.0},
              {"within", within}};
}

const Weighed& near_tie_pick(const std::vector<Weighed>& weighed, double fastest, double within) {
  const Weighed* pick = nullptr;
  for (const Weighed& w : weighed) {
    if (w.time > fastest * (1.0 + within)) continue;
    if (!pick || std::tie(w.calls_s, w.moved, w.candidate) < std::tie(pick->calls_s, pick->moved, pick->candidate)) {
      pick = &w;
    }
  }
  return *pick;
}

}  // namespace

double AutoChooser::decision_estimate_s(std::size_t candidate, const GlobalProblem& problem) const {
  const std::string name(params_.candidates[candidate].name());
  if (const FittedCost* d = fitted_decision(problem, name)) {
    return d->seconds(static_cast<double>(problem.size()), static_cast<double>(problem.adjncy.size()) / 2,
                      problem.nranks);
  }
  const double per_object = candidate < decision_per_object_.size() ? decision_per_object_[candidate] : 0.0;
  return per_object * static_cast<double>(problem.size());
}

Assignment AutoChooser::solve(const GlobalProblem& problem) const {
  const auto started = std::chrono::steady_clock::now();
  const Platform platform = platform_of(params_, problem);
  const PricedNetwork net = priced_network(platform, problem);
  const int horizon = params_.horizon > 0 ? params_.horizon : std::max(1, problem.period);
  const std::vector<double> now = rank_times(problem, problem.owner);
  const double lmax = max_of(now);
  const double mean_load = problem.nranks > 0 ? std::accumulate(now.begin(), now.end(), 0.0) / problem.nranks : 0.0;
  const RankTrends trends = rank_trends_of(problem);
  const bool stay = loads_stay(trends.largest * problem.steps_left, lmax);
  const double cap = moving_loads_cap(trends.sum, trends.size, std::max(lmax, slowest_seen_s()));
  // With the rest of the run known, candidates compete over all of it; else over the
  // steps until the next call, as in the paper.
  const bool to_the_end = problem.steps_left > 0;
  // Every predicted step is its slowest rank's compute plus the exchange measured in the
  // steps before this call (beyond the paper; see auto.hpp).
  const double exchange = problem.step_exchange_s;
  const double perfect = perfect_balance_s(problem);
  // Perfect balance moves with the loads' total trend, as every candidate's and `none`'s
  // slowest rank moves with its own: on loads that grow, the balance of now is a floor no
  // plan's steps reach, and the bounds that skip a candidate and set the budget would
  // hold steps that grow against one that does not.
  const double balanced =
      perfect + total_trend_per_step(problem) * mean_steps_since_origin(problem, horizon) + exchange;
  size_learned();
  const std::vector<double> reach = take_reach();
  const double share_now = excess_share(lmax, perfect);
  // The cheapest to decide first, so that a dear one that cannot win is seen to be so
  // before it runs: even at kSkipShare of its expected decision, and with every later step
  // perfectly balanced, it would take longer than the best candidate so far.
  std::vector<double> estimate(candidates_.size());
  // What finding out would spend, where more than `estimate`: a protocol that did not run
  // as itself is expected to take what keeps_running_first expected of it (its reference
  // on rank 0 costs more), so one the engine left out for the budget is left out here too.
  std::vector<double> to_find_out(candidates_.size(), 0.0);
  std::vector<bool> at_floor(candidates_.size(), false);
  ran_.resize(candidates_.size());
  RanSoFar ran_first;
  for (const auto& r : ran_) {
    if (r) ran_first.add(*r, net);
  }
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    estimate[i] = ran_[i] ? ran_[i]->decision_s : decision_estimate_s(i, problem);
    // A protocol costs at least its floor, known before it ran.
    const auto* protocol = dynamic_cast<const DistributedBalancer*>(candidates_[i].get());
    if (!ran_[i] && protocol) {
      const double floor = protocol_floor_s(net);
      to_find_out[i] = expected_first_run_s(*protocol, estimate[i], problem.nranks, net, ran_first);
      at_floor[i] = floor > estimate[i];
      estimate[i] = std::max(estimate[i], floor);
    }
  }
  // Those that ran as themselves at this call first: weighing them is free, and the best
  // of them is the bar a dear unknown candidate's sample must clear to be run in full.
  // (Tried by expected decision alone, metis, unknown at a first decision, came before
  // tree and diffusion, cleared only `none`'s bar and ran in full: 32-35 ms of 37-43 ms
  // first decisions on the first accuracy sweep's 15,000- and 16,384-vertex cases.) Then
  // where nothing is known yet, the distributed candidates (whose decision is a rank's
  // share) before the centralized ones.
  auto centralized = [&](std::size_t i) {
    return dynamic_cast<const CentralizedBalancer*>(candidates_[i].get()) != nullptr;
  };
  std::vector<std::size_t> order(candidates_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(!ran_[a], estimate[a], centralized(a)) < std::tuple(!ran_[b], estimate[b], centralized(b));
  });
  Json predictions = Json::object();
  std::optional<std::size_t> best;
  double best_time = 0;
  double second_time = std::numeric_limits<double>::infinity();
  double skipped_bound = std::numeric_limits<double>::infinity();  // the least a skipped candidate takes
  std::vector<Weighed> weighed;
  std::vector<std::pair<std::size_t, double>> steps_of;  // each weighed candidate's steps after its call
  // What this decision may spend finding out what candidates cost (explore_budget): a share
  // of the most any of them could gain over `none`, its steps at the lower of L_max and
  // its trends. A line through a regrid overshoots where it goes on (droplets-amr at
  // cluster-ib: 4.8 ms a step along the trends at L_max's 2.3), and a budget set on it
  // paid for greedy's full run, 3.8 ms, at a decision that chose tree all the same. The
  // protocols that ran as themselves have spent theirs already.
  const double none_step = none_step_s(problem, now, lmax, horizon, cap);
  const NoneForecast none_steps = forecast_none(problem, lmax, none_step, exchange, horizon, false);
  const int steps_ahead = to_the_end ? problem.steps_left : horizon;
  const double gain_bound =
      std::max(0.0, app_time_none(std::min(none_step, lmax) + exchange, steps_ahead) - steps_ahead * balanced);
  const double explore_budget = params_.explore_budget * gain_bound;
  // The decision's own gather, priced on the network, was spent on finding out too.
  const double gather =
      decision_gather_s(static_cast<std::int64_t>(problem.size()), static_cast<std::int64_t>(problem.adjncy.size() / 2),
                        problem.coord_dims, remote_share(problem), net);
  // `explored` is what was spent off rank 0's clock: the gather, the protocols that ran as
  // themselves, and the network a reference's plan is priced on.
  double explored = gather;
  for (const auto& r : ran_) explored += r ? r->decision_s : 0.0;
  // And so is all of rank 0's own code as it goes (beyond the paper), timed from the start
  // of the decision: the samples and references, and besides them the forecasts and the
  // pricing of every weighed candidate. Left out, that code was most of what a decision
  // cost beyond what it counted: a median 1.3 ms (29%) of the decisions on the first
  // accuracy sweep under SMPI, where on amr-2d (cyclic, period 8) greedy's and metis's
  // samples then took 1.25 ms, counted 2.6 ms of a 2.1 ms budget, and the decision took 3.7.
  auto spent = [&] { return explored + seconds_since(started) * problem.code_time_scale; };
  const double calls = to_the_end ? 1.0 + problem.later_calls : 1.0;
  // The least a candidate whose every call costs at least `call_s` takes: kSkipShare of
  // that at every call, and every step perfectly balanced (the bound that skips it).
  auto skip_bound = [&](double call_s) { return calls * kSkipShare * call_s + steps_ahead * balanced; };
  for (const std::size_t i : order) {
    const BalancerConfig& candidate = params_.candidates[i];
    const std::string name(candidate.name());
    // Where finding out what it costs (a sample, then its reference) would take the
    // decision past its budget, it is not weighed; nor, with nothing left to spend, sampled.
    const bool costs_to_weigh = best && !ran_[i] && candidate.kind != BalancerKind::none;
    auto skip_over_budget = [&] {
      predictions[name] = Json{{"skipped", true},
                               {"over_explore_budget", true},
                               {"bound_s", skip_bound(estimate[i])},
                               {"decision_estimate_s", estimate[i]},
                               {"explored_s", spent()}};
    };
    bool sampled = false;
    int sampled_ranks = 0;
    double sampled_kept_share = 1;
    // Where it was sampled at this decision, which sample said what it costs.
    auto say_sample = [&] {
      if (!sampled) return;
      predictions[name]["sample_ranks"] = sampled_ranks;
      predictions[name]["sample_kept_share"] = sampled_kept_share;
    };
    if (best && estimate[i] == 0) {  // unknown: time it on a sample where the problem is large
      if (costs_to_weigh && spent() >= explore_budget) {
        skip_over_budget();
        continue;
      }
      // A first sample that already rules the candidate out, with its decision alone at
      // every call, is enough.
      const auto rules_out = [&](double decision_s) { return skip_bound(decision_s) >= best_time; };
      const Sampled sampled_now = sample_within(*candidates_[i], problem, net, explore_budget - spent(), rules_out);
      if (const auto s = sampled_now.estimate_s) {
        estimate[i] = *s;
        sampled = true;
        sampled_ranks = sampled_now.ranks;
        sampled_kept_share = sampled_now.kept_share;
        // Kept as its expected decision: a candidate that never wins is never run in
        // full, and would be timed on a sample again at every decision.
        decision_per_object_[i] = *s / static_cast<double>(problem.size());
        sampled_before_[i] = true;
      }
    }
    // Its last migration, scaled down where less is to be taken off the slowest rank now.
    double migration_estimate = last_migration_s(i, share_now);
    auto bound_with = [&](double migration) { return skip_bound(estimate[i] + migration); };
    double bound = bound_with(migration_estimate);
    // Where its decision alone leaves it in the running, its migration from what its
    // sample's plan moved, kept as its last. Not before: pricing that plan walks every
    // object on rank 0, 0.3-0.9 ms of the first decisions on the second accuracy sweep's 15,606-
    // and 24,000-object cases, where the decisions alone ruled greedy and metis out.
    if (sampled && best && !ran_[i] && bound < best_time) {
      migration_s_[i] = sampled_migration_s(name, problem, net, sampled_kept_share, sampled_ranks);
      migration_share_[i] = share_now;
      migration_estimate = last_migration_s(i, share_now);
      bound = bound_with(migration_estimate);
    }
    // Where it balanced little at the last decision, its calls against that share of the
    // bound (kReachUnknown).
    if (best && !ran_[i] && reach[i] >= 0 &&
        calls * kSkipShare * (estimate[i] + migration_estimate) >= reach[i] * gain_bound) {
      predictions[name] = Json{{"skipped", true},
                               {"out_of_reach", true},
                               {"reach", reach[i]},
                               {"bound_s", bound},
                               {"decision_estimate_s", estimate[i]},
                               {"migration_estimate_s", migration_estimate}};
      continue;
    }
    // One that ran as itself already paid for its decision: weighing it is free.
    if (best && !ran_[i] && bound >= best_time) {
      predictions[name] =
          Json{{"skipped", true},
               {"bound_s", bound},
               {"decision_estimate_s", estimate[i]},
               {"migration_estimate_s", migration_estimate},
               {"estimated_from", estimated_from(sampled, at_floor[i], sampled_before_[i] && !sampled, problem, name)}};
      say_sample();
      second_time = std::min(second_time, bound);
      skipped_bound = std::min(skipped_bound, bound);
      continue;
    }
    if (costs_to_weigh && spent() + std::max(estimate[i], to_find_out[i]) > explore_budget) {
      skip_over_budget();
      say_sample();
      continue;
    }
    const bool ran_as_itself = ran_[i].has_value();
    const Outcome o =
        ran_as_itself ? outcome_of(*std::move(ran_[i]), problem) : run_reference(*candidates_[i], problem, net);
    const CallCost cost = call_cost(name, o, problem, net);
    if (!ran_as_itself) explored += o.decision_s - o.code_s;  // its code is on the clock
    learn_weighed(i, cost.decision_s, cost.migration_s, static_cast<double>(problem.size()), share_now);
    const bool none = candidate.kind == BalancerKind::none;
    // `none`'s steps are forecast_none's: its slowest rank along the trends over the H steps
    // after the call, as a candidate's, held to the end. Where the loads move, it may be
    // priced again along their motion below.
    const double slowest = none ? none_step : mean_slowest_s(problem, o, horizon, cap);
    const double step_after = slowest + exchange;
    const double interval =
        none ? none_steps.interval_s : app_time_global(cost.decision_s + cost.migration_s, step_after, horizon);
    const double to_end = none ? none_steps.to_end_s
                               : app_time_to_end(cost.decision_s + cost.migration_s, cost.later_call_s,
                                                 problem.later_calls, step_after, problem.steps_left);
    Json p = weighed_record(interval, to_end, cost, o.lmax_after, o.elements_moved_max, o.decision_s);
    if (!problem.load_trend.empty()) p["step_lmax_s"] = slowest;
    if (none) p["steps_forecast"] = none_steps.record;
    if (!none) steps_of.emplace_back(i, steps_ahead * step_after);
    if (sampled) {  // what its sample said, before it ran in full
      p["sampled_estimate_s"] = estimate[i];
      p["sampled_migration_s"] = migration_estimate;
    }
    if (dynamic_cast<const DistributedBalancer*>(candidates_[i].get())) {
      p["protocol_rounds"] = o.protocol_rounds;
      p["ran_as_itself"] = ran_as_itself;
    }
    const auto* diffusion = candidate.params.get_if<DiffusionParams>();
    if (diffusion && params_.paper_diffusion) {
      p["paper"] = paper_diffusion(problem, *diffusion, platform, horizon, cost.decision_s);
    }
    const RunOnce once =
        none || !params_.run_once || !stay
            ? RunOnce{}
            : run_once(cost.decision_s + cost.migration_s, mean_slowest_to_end_s(problem, o, cap) + exchange, to_end,
                       problem.later_calls, problem.steps_left, net, none_steps.to_end_s, params_.once_margin);
    say_run_once(p, once);
    predictions[name] = p;
    say_sample();
    // Its decision at this call is made already (a protocol ran as itself, a reference on
    // rank 0 made the plan applied): whichever is chosen, it is paid, so it does not count
    // in the choice (beyond the paper; its prediction keeps it, as a run of it alone pays
    // it).
    const double time = (!to_the_end ? interval : once.faster ? once.to_end_s : to_end) - cost.decision_s;
    // Ties go to the candidate listed first, whatever order they were tried in.
    if (!best || time < best_time || (time == best_time && i < *best)) {
      if (best) second_time = std::min(second_time, best_time);
      best = i;
      best_time = time;
    } else {
      second_time = std::min(second_time, time);
    }
    const double later_s = once.faster ? net.collective_s : cost.later_call_s;
    const double calls_cost =
        none ? 0.0 : cost.decision_s + cost.migration_s + (to_the_end ? problem.later_calls * later_s : 0.0);
    weighed.push_back({i, time, calls_cost, o.elements_moved_max, o.assignment,
                       once.faster ? std::optional(o.lmax_after / mean_load) : std::nullopt});
  }
  // Where another candidate beat `none`'s steps along the trends, `none` may still win
  // with its steps along the loads' motion: that forecast is made only where it can change
  // the choice, since the decision pays for it (about 1 ms of rank 0's code at 13,824
  // objects, where the motion is fitted).
  const auto none_at = std::find_if(weighed.begin(), weighed.end(), [&](const Weighed& w) {
    return params_.candidates[w.candidate].kind == BalancerKind::none;
  });
  if (best && none_at != weighed.end() && none_at->candidate != *best) {
    const NoneForecast moved = forecast_none(problem, lmax, none_step, exchange, horizon, true);
    Json& p = predictions[std::string(params_.candidates[none_at->candidate].name())];
    p["steps_forecast"] = moved.record;
    if (moved.moving) {
      p["interval_s"] = moved.interval_s;
      p["to_end_s"] = moved.to_end_s;
      none_at->time = to_the_end ? moved.to_end_s : moved.interval_s;
      const Ranking r = ranking_of(weighed, skipped_bound);
      best = r.best;
      best_time = r.best_time;
      second_time = r.second_time;
    }
  }
  if (none_at != weighed.end()) learn_reaches(steps_of, none_at->time, gain_bound, predictions);
  const Weighed& pick = near_tie_pick(weighed, best_time, params_.near_tie);
  chosen_ = pick.candidate;
  then_none_at_ = pick.then_none_at;
  ran_.clear();  // this call's; the next decision runs them again
  last_decision_ = Json{
      {"chosen", params_.candidates[pick.candidate].name()},
      // How much slower the runner-up is predicted to be than the fastest, relative: a
      // small margin is within the model's own error.
      {"margin", std::isfinite(second_time) && best_time > 0 ? (second_time - best_time) / best_time : 0.0},
      {"chosen_over", to_the_end ? "the rest of the run" : "the steps until the next call"},
      {"horizon_steps", horizon},
      {"steps_left", problem.steps_left},
      {"later_calls", problem.later_calls},
      {"alpha_s", platform.alpha_s},
      {"beta_s_per_byte", platform.beta_s_per_byte},
      {"network", network_record(net)},
      {"lmax_before_s", lmax},
      {"step_exchange_s", exchange},
      {"load_trends",
       problem.load_trend.empty() ? Json(nullptr) : load_trends_record(problem.trend_origin, trends, cap)},
      {"lave_s", problem.nranks ? std::accumulate(now.begin(), now.end(), 0.0) / problem.nranks : 0.0},
      {"exploration",
       Json{{"gain_bound_s", gain_bound}, {"budget_s", explore_budget}, {"gather_s", gather}, {"spent_s", spent()}}},
      {"candidates", predictions}};
  if (pick.candidate != *best) {
    last_decision_["near_tie"] =
        near_tie_record(params_.candidates[*best].name(), pick.time, best_time, params_.near_tie);
  }
  return pick.assignment;
}

// Weighing by the plans' totals (see AutoTotalsWeigher in auto.hpp).

namespace {

// Each rank's share of a plan of the whole problem: what the engines' reductions add up.
std::vector<RankShare> rank_shares(const GlobalProblem& problem, const Assignment& a) {
  std::vector<RankShare> shares(static_cast<std::size_t>(problem.nranks));
  const std::vector<double> loads = rank_times(problem, a);
  const std::vector<double> trends =
      problem.load_trend.empty() ? std::vector<double>(shares.size(), 0.0) : rank_trends(problem, a);
  for (std::size_t r = 0; r < shares.size(); ++r) {
    shares[r].load_s = loads[r];
    shares[r].trend_s = trends[r];
  }
  const auto bytes = static_cast<double>(problem.element_bytes);
  auto node = [&](int r) { return problem.rank_node.empty() ? 0 : problem.rank_node[static_cast<std::size_t>(r)]; };
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const int from = problem.owner[i].value();
    const int to = a[i].value();
    RankShare& sender = shares[static_cast<std::size_t>(from)];
    RankShare& receiver = shares[static_cast<std::size_t>(to)];
    if (from == to) {
      ++sender.kept;
      continue;
    }
    ++sender.sent;
    ++receiver.arrived;
    if (problem.site(from) == problem.site(to)) {
      receiver.bytes_in_own_site += bytes;
    } else {
      receiver.bytes_in_other_sites += bytes;
      sender.bytes_out_other_sites += bytes;
    }
    if (node(from) != node(to)) {
      sender.bytes_out_other_nodes += bytes;
      receiver.bytes_in_other_nodes += bytes;
    }
  }
  return shares;
}

SharePrices share_prices(const PricedNetwork& net, const GlobalProblem& scalars) {
  return SharePrices{.s_per_byte_own_site = net.local.beta_s_per_byte,
                     .s_per_byte_other_sites = net.wan_s_per_byte,
                     .code = scalars.migration_code};
}

PlanTotals totals_of(const GlobalProblem& problem, const Assignment& a, const TotalsShape& shape,
                     const SharePrices& prices) {
  PlanTotals t(shape);
  const std::vector<RankShare> shares = rank_shares(problem, a);
  for (std::size_t r = 0; r < shares.size(); ++r) {
    t.add(shares[r], problem.rank_node.empty() ? 0 : problem.rank_node[r], prices);
  }
  return t;
}

// What a plan moves, from its totals: as moved_of prices the whole assignment.
Moved moved_of(const PlanTotals& t, const GlobalProblem& scalars, const PricedNetwork& net) {
  const double bandwidth = scalars.network.node_bandwidth_Bps;
  const bool any = t.any_moved();
  return Moved{.any = any,
               .elements_moved_max = t.arrived_max(),
               .code_s = any ? t.code_host_s() * scalars.code_time_scale : 0.0,
               .node_link_s = any && bandwidth > 0 ? t.busiest_node_bytes() / bandwidth : 0.0,
               .cross_site_s = any && net.wan_s_per_byte > 0
                                   ? net.far_latency_s + std::max(t.busiest_receiver_s(),
                                                                  t.cross_site_bytes() * net.wan_shared_s_per_byte)
                                   : 0.0};
}

}  // namespace

bool AutoChooser::by_totals(const CallOutlook& call) const {
  return call.machine != nullptr && outlook_of(params_, call).by_totals;
}

std::optional<std::size_t> AutoChooser::weigh_totals(const CallOutlook& call, const GlobalProblem& scalars,
                                                     const std::vector<PlanTotals>& totals,
                                                     const PlanTotals& none_totals) const {
  const Outlook o = outlook_of(params_, call);
  const PricedNetwork& net = o.net;
  const int horizon = params_.horizon > 0 ? params_.horizon : std::max(1, call.period);
  const bool to_the_end = call.steps_left > 0;
  const double exchange = call.step_exchange_s;
  const std::vector<const RanPlan*> ran = ran_plans();
  size_learned();
  const std::vector<double> reach = take_reach();
  Json predictions = Json::object();
  std::vector<Weighed> weighed;
  std::vector<std::pair<std::size_t, double>> steps_of;  // each weighed plan's steps after its call
  double explored = o.totals_s;
  // `none`: its loads as they are, along their trends, as solve() prices it (the loads'
  // motion is not fitted: that needs every object's place).
  std::size_t none = 0;
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    if (params_.candidates[i].kind == BalancerKind::none) none = i;
  }
  const double cap =
      moving_loads_cap(call.trends.sum, call.trends.size, std::max(none_totals.lmax_s(), slowest_seen_s()));
  const double none_step = none_totals.mean_slowest_s(cap) + exchange;
  const double none_interval = app_time_none(none_step, horizon);
  const double none_to_end = app_time_none(none_step, call.steps_left);
  predictions[std::string(params_.candidates[none].name())] = Json{{"interval_s", none_interval},
                                                                   {"to_end_s", none_to_end},
                                                                   {"step_lmax_s", none_totals.mean_slowest_s(cap)},
                                                                   {"lmax_after_s", none_totals.lmax_s()}};
  weighed.push_back({none, to_the_end ? none_to_end : none_interval, 0.0, 0.0, {}, std::nullopt});
  const auto objects = static_cast<double>(call.objects);
  const bool stay = loads_stay(none_totals.largest_trend_s() * call.steps_left, call.max_rank_load_s);
  for (std::size_t j = 0; j < ran.size(); ++j) {
    const std::size_t c = ran_order_[j];
    const std::string name(params_.candidates[c].name());
    const Moved moved = moved_of(totals[j], scalars, net);
    const CallCost cost =
        priced_call(name, ran[j]->decision_s, moved, objects, static_cast<double>(call.edges), scalars, net);
    explored += ran[j]->decision_s;
    learn_weighed(c, cost.decision_s, cost.migration_s, objects, o.excess_share);
    const double slowest = totals[j].mean_slowest_s(cap);
    const double step_after = slowest + exchange;
    const double interval = app_time_global(cost.decision_s + cost.migration_s, step_after, horizon);
    const double to_end = app_time_to_end(cost.decision_s + cost.migration_s, cost.later_call_s, call.later_calls,
                                          step_after, call.steps_left);
    Json p = weighed_record(interval, to_end, cost, totals[j].lmax_s(), moved.elements_moved_max, ran[j]->decision_s);
    p["step_lmax_s"] = slowest;
    p["protocol_rounds"] = ran[j]->protocol_rounds;
    p["ran_as_itself"] = true;
    predictions[name] = p;
    steps_of.emplace_back(c, (to_the_end ? call.steps_left : horizon) * step_after);
    const RunOnce once =
        !params_.run_once || !stay
            ? RunOnce{}
            : run_once(cost.decision_s + cost.migration_s, totals[j].mean_slowest_to_end_s(cap) + exchange, to_end,
                       call.later_calls, call.steps_left, net, none_to_end, params_.once_margin);
    say_run_once(predictions[name], once);
    const double later_s = once.faster ? net.collective_s : cost.later_call_s;
    const double calls_cost = cost.decision_s + cost.migration_s + (to_the_end ? call.later_calls * later_s : 0.0);
    const double mean_load = call.nranks > 0 ? call.total_load_s / call.nranks : 0.0;
    weighed.push_back({c,
                       (!to_the_end   ? interval
                        : once.faster ? once.to_end_s
                                      : to_end) -
                           cost.decision_s,
                       calls_cost,
                       moved.elements_moved_max,
                       {},
                       once.faster && mean_load > 0 ? std::optional(totals[j].lmax_s() / mean_load) : std::nullopt});
  }
  // The rest were not weighed: a protocol the explore budget left out, or a candidate
  // whose plan only the gather would show.
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    const std::string name(params_.candidates[i].name());
    if (predictions.contains(name)) continue;
    const bool protocol = dynamic_cast<const DistributedBalancer*>(candidates_[i].get()) != nullptr;
    // The least it could take: its floor at every call, every step perfectly balanced, and
    // for one that needs it, the gather.
    const double floor =
        floor_s(*candidates_[i], last_decision_s(i, call.objects), call, net) + last_migration_s(i, o.excess_share);
    // A protocol runs_first() left out where what it reached at the last decision could
    // not pay for its calls, else for the budget.
    const bool out_of_reach = protocol && reach[i] >= 0 && o.cannot_win(floor, reach[i] * o.gain_bound_s());
    predictions[name] =
        Json{{"skipped", true},
             {!protocol      ? "needs_the_gather"
              : out_of_reach ? "out_of_reach"
                             : "over_explore_budget",
              true},
             {"floor_s", floor},
             {"bound_s", (protocol ? 0.0 : o.gather_s) + o.calls * kSkipShare * floor + o.balanced_steps_s}};
    if (out_of_reach) predictions[name]["reach"] = reach[i];
  }
  learn_reaches(steps_of, to_the_end ? none_to_end : none_interval, o.gain_bound_s(), predictions);
  const Ranking r = ranking_of(weighed, std::numeric_limits<double>::infinity());
  const Weighed& pick = near_tie_pick(weighed, r.best_time, params_.near_tie);
  chosen_ = pick.candidate;
  then_none_at_ = pick.then_none_at;
  last_decision_ = Json{
      {"chosen", params_.candidates[pick.candidate].name()},
      {"margin", std::isfinite(r.second_time) && r.best_time > 0 ? (r.second_time - r.best_time) / r.best_time : 0.0},
      {"decided_by",
       "the plans' totals, reduced over the ranks: the decision's gather alone costs more than its "
       "explore budget"},
      {"chosen_over", to_the_end ? "the rest of the run" : "the steps until the next call"},
      {"horizon_steps", horizon},
      {"steps_left", call.steps_left},
      {"later_calls", call.later_calls},
      {"alpha_s", net.local.alpha_s},
      {"beta_s_per_byte", net.local.beta_s_per_byte},
      {"network", network_record(net)},
      {"lmax_before_s", call.max_rank_load_s},
      {"step_exchange_s", exchange},
      {"load_trends",
       call.trends.size > 0 ? load_trends_record(none_totals.shape().trend_origin, call.trends, cap) : Json(nullptr)},
      {"lave_s", call.nranks ? call.total_load_s / call.nranks : 0.0},
      {"exploration", Json{{"gain_bound_s", o.gain_bound_s()},
                           {"budget_s", params_.explore_budget * o.gain_bound_s()},
                           {"gather_s", o.gather_s},
                           {"totals_s", o.totals_s},
                           {"spent_s", explored}}},
      {"candidates", predictions}};
  if (pick.candidate != r.best) {
    last_decision_["near_tie"] =
        near_tie_record(params_.candidates[r.best].name(), pick.time, r.best_time, params_.near_tie);
  }
  std::optional<std::size_t> out;
  for (std::size_t j = 0; j < ran.size(); ++j) {
    if (ran_order_[j] == pick.candidate) out = j;
  }
  return out;
}

void AutoChooser::forget_ran() const {
  ran_.clear();
  ran_order_.clear();
}

Assignment AutoTotalsWeigher::decide_serially(const GlobalProblem& problem, ProtocolObserver* /*observer*/) const {
  const TotalsShape shape = totals_shape(params_, call_, problem.trend_origin);
  const PricedNetwork net = priced_network(platform_of(params_, problem), problem);
  const SharePrices prices = share_prices(net, problem);
  const std::vector<const RanPlan*> ran = chooser_.ran_plans();
  std::vector<PlanTotals> totals;
  for (const RanPlan* r : ran) totals.push_back(totals_of(problem, r->assignment, shape, prices));
  traffic_ = totals_traffic(static_cast<int>(ran.size()), shape);
  const std::optional<std::size_t> chosen =
      chooser_.weigh_totals(call_, problem, totals, totals_of(problem, problem.owner, shape, prices));
  Assignment out = chosen ? ran[*chosen]->assignment : problem.owner;
  chooser_.forget_ran();  // this call's; the next decision runs them again
  return out;
}

namespace {

// A call's scalars as a problem with no objects, from a view: what prices its plans.
GlobalProblem scalars_of(const LoadView& view) {
  GlobalProblem s = scalars_of(call_outlook(view));
  s.rank_node = view.machine.rank_node.values();
  s.element_bytes = view.element_bytes;
  s.trend_origin = view.trend_origin.value_or(0.0);
  s.fitted_costs = view.machine.fitted_costs;
  s.migration_code = view.machine.migration_code;
  return s;
}

// What a plan sends from this rank to one other: objects, their loads and their trends.
struct Sending {
  double objects = 0;
  double load_s = 0;
  double trend_s = 0;
};

// This rank's share of each plan (and, last, of the loads as they are), once the plans'
// senders told every rank what arrives: one sparse round.
std::vector<RankShare> shares_here(const LoadView& view, const std::vector<MigrationPlan>& plans,
                                   SparseExchange& exchange) {
  const std::size_t k = plans.size();
  const int me = view.rank.value();
  const bool trends = !view.vertex_load_trend.empty();
  auto trend_of = [&](std::size_t v) { return trends ? view.vertex_load_trend[v] : 0.0; };
  const MachineInfo& m = view.machine;
  auto node = [&](int r) { return m.rank_node.empty() ? 0 : m.rank_node[static_cast<std::size_t>(r)]; };
  auto site = [&](int r) { return m.rank_site.empty() ? 0 : m.rank_site[static_cast<std::size_t>(r)]; };
  const double speed = m.rank_speed.empty() ? 1.0 : m.rank_speed[static_cast<std::size_t>(me)];
  const auto bytes = static_cast<double>(view.element_bytes);
  double here_load = 0, here_trend = 0, background = 0;
  for (std::size_t v = 0; v < view.vertex_load.size(); ++v) {
    here_load += view.vertex_load[v].seconds();
    here_trend += trend_of(v);
  }
  for (const Load b : view.background) background += b.seconds();
  std::vector<RankShare> shares(k + 1);
  std::vector<double> load_after(k + 1, here_load), trend_after(k + 1, here_trend);
  std::map<int, Bytes> outgoing;
  std::vector<std::map<int, Sending>> sending(k);
  {  // what leaves, per plan and receiver: code only, charged as such
    const ChargedCode counting;
    for (std::size_t c = 0; c < k; ++c) {
      for (const Move& mv : plans[c].moves) {
        const int to = mv.to.value();
        if (to == me) continue;
        const auto v = static_cast<std::size_t>(mv.vertex);
        Sending& s = sending[c][to];
        s.objects += 1;
        s.load_s += view.vertex_load[v].seconds();
        s.trend_s += trend_of(v);
      }
      RankShare& share = shares[c];
      for (const auto& [to, s] : sending[c]) {
        share.sent += static_cast<std::int64_t>(s.objects);
        load_after[c] -= s.load_s;
        trend_after[c] -= s.trend_s;
        if (site(to) != site(me)) share.bytes_out_other_sites += s.objects * bytes;
        if (node(to) != node(me)) share.bytes_out_other_nodes += s.objects * bytes;
        ByteWriter w(outgoing[to]);
        w.put(static_cast<double>(c));
        w.put(s);
      }
      share.kept = static_cast<std::int64_t>(view.vertex_load.size()) - share.sent;
    }
  }
  shares[k].kept = static_cast<std::int64_t>(view.vertex_load.size());
  const std::vector<Message> received = exchange.exchange(to_messages(outgoing));
  const ChargedCode reading;
  for (const Message& msg : received) {
    ByteReader r(msg.data);
    while (!r.done()) {
      const auto c = static_cast<std::size_t>(r.get<double>());
      const auto s = r.get<Sending>();
      RankShare& share = shares.at(c);
      share.arrived += static_cast<std::int64_t>(s.objects);
      load_after[c] += s.load_s;
      trend_after[c] += s.trend_s;
      (site(msg.peer) == site(me) ? share.bytes_in_own_site : share.bytes_in_other_sites) += s.objects * bytes;
      if (node(msg.peer) != node(me)) share.bytes_in_other_nodes += s.objects * bytes;
    }
  }
  for (std::size_t c = 0; c <= k; ++c) {
    shares[c].load_s = (load_after[c] + background) / speed;
    shares[c].trend_s = trend_after[c] / speed;
  }
  return shares;
}

}  // namespace

void AutoTotalsWeigher::prepare(MPI_Comm comm) {
  if (exchange_ && exchange_parent_ == comm) return;
  exchange_ = std::make_unique<SparseExchange>(comm);
  exchange_parent_ = comm;
}

MigrationPlan AutoTotalsWeigher::plan(const LoadView& view, MPI_Comm comm) {
  prepare(comm);
  RanHere here = run_as_themselves(*this, candidates_, view, comm);
  const std::size_t k = here.plans.size();
  chooser_.ran_first(here.ran);
  const GlobalProblem scalars = scalars_of(view);
  const TotalsShape shape = totals_shape(params_, call_, scalars.trend_origin);
  const PricedNetwork net = priced_network(platform_of(params_, scalars), scalars);
  const SharePrices prices = share_prices(net, scalars);
  const std::vector<RankShare> shares = shares_here(view, here.plans, *exchange_);
  // Every plan's totals (and, last, `none`'s) in two reductions: their maxima, their sums.
  std::vector<PlanTotals> totals(k + 1, PlanTotals(shape));
  std::vector<double> maxima, sums;
  for (std::size_t c = 0; c <= k; ++c) {
    totals[c].add(shares[c], view.machine.rank_node.empty() ? 0 : view.machine.rank_node[view.rank.value()], prices);
    maxima.insert(maxima.end(), totals[c].maxima().begin(), totals[c].maxima().end());
    sums.insert(sums.end(), totals[c].sums().begin(), totals[c].sums().end());
  }
  MPI_Allreduce(MPI_IN_PLACE, maxima.data(), static_cast<int>(maxima.size()), MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, comm);
  std::size_t at_max = 0, at_sum = 0;
  for (PlanTotals& t : totals) {
    std::copy_n(maxima.begin() + static_cast<std::ptrdiff_t>(at_max), t.maxima().size(), t.maxima().begin());
    std::copy_n(sums.begin() + static_cast<std::ptrdiff_t>(at_sum), t.sums().size(), t.sums().begin());
    at_max += t.maxima().size();
    at_sum += t.sums().size();
  }
  const PlanTotals none = std::move(totals.back());
  totals.pop_back();
  traffic_ = totals_traffic(static_cast<int>(k), shape);
  std::optional<std::size_t> chosen;
  {
    const ChargedCode weighing;
    chosen = chooser_.weigh_totals(call_, scalars, totals, none);
  }
  chooser_.forget_ran();
  return chosen ? std::move(here.plans[*chosen]) : MigrationPlan{};
}

}  // namespace lbbench
