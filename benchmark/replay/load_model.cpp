// The application model (see load_model.hpp).
#include "replay/load_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "core/hash.hpp"

namespace lbbench {

namespace {

// The `weights` model's estimate of what each local vertex's messages cost per step, as
// an application would reckon its halo exchange: α + β·bytes for every message the vertex
// sends to another rank (its receives overlap them). A per-neighbor message shares its α
// among the edges it carries. α and β are the machine's (see MachineInfo).
std::vector<double> message_cost_estimates(const LoadModelInputs& in) {
  const LocalGraph& graph = in.graph;
  const double alpha = in.machine.network.message_latency_s();
  const double beta = in.machine.network.seconds_per_byte();
  const bool per_neighbor = in.scenario.workload.messages == MessageMode::per_neighbor;
  std::unordered_map<int, std::int64_t> edges_to;  // remote edges per neighbor rank
  if (per_neighbor) {
    for (const std::int64_t v : in.vertices) {
      for (std::int64_t e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
        const Rank owner = graph.adj_owner[static_cast<std::size_t>(e)];
        if (owner != Rank{in.rank}) ++edges_to[owner.value()];
      }
    }
  }
  std::vector<double> cost(in.vertices.size(), 0.0);
  for (std::size_t i = 0; i < in.vertices.size(); ++i) {
    const std::int64_t v = in.vertices[i];
    for (std::int64_t e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      const Rank owner = graph.adj_owner[static_cast<std::size_t>(e)];
      if (owner == Rank{in.rank}) continue;
      const auto bytes = static_cast<double>(in.scenario.workload.edge_bytes * graph.edge_weight(e));
      const double start_up = per_neighbor ? alpha / static_cast<double>(edges_to.at(owner.value())) : alpha;
      cost[i] += start_up + beta * bytes;
    }
  }
  return cost;
}

// The steps from an LB call after `step` to the next call, or to the run's end.
int steps_ahead(const Scenario& s, int step) { return std::max(1, std::min(s.balancer.period, s.steps - step - 1)); }

// The slope of the least-squares line through a vertex's n steps since the last call
// (y_i at i = 1..n), in seconds per step. Σ i·y_i = (n + 1)·Σ y_i − Σ_j Σ_{i≤j} y_i; the
// slope is Σ (i − t̄)·y_i / Σ (i − t̄)².
double measured_slope(const LoadModelInputs& in, std::size_t v, std::size_t k) {
  const double n = in.steps_since_last_call;
  const double sum = in.phase_time[k][v];
  const double weighted = (n + 1) * sum - (*in.phase_time_summed)[k][v];
  return (weighted - (n + 1) / 2 * sum) / (n * (n * n - 1) / 12);
}

// A vertex's measured time per step, carried forward to the steps until the next call.
// `trend`: the least-squares line through its n steps since the last call (y_i at
// i = 1..n) is averaged over the steps ahead (n + 1 .. n + h), whose middle lies
// (n + h) / 2 steps past the steps' own middle. A line needs two steps; a negative
// forecast is none.
double measured_load(const LoadModelInputs& in, std::size_t v, std::size_t k) {
  const double n = in.steps_since_last_call;
  const double mean = in.phase_time[k][v] / n;
  if (in.scenario.forecast != LoadForecast::trend || n < 2) return mean;
  if (in.phase_time_summed == nullptr || in.phase_time_summed->size() <= k)
    throw std::logic_error("the trend forecast needs the summed vertex times");
  const double h = steps_ahead(in.scenario, in.step);
  return std::max(0.0, mean + measured_slope(in, v, k) * (n + h) / 2);
}

// Vertex at `v` (a position in the graph), component k.
double modeled_load(const LoadModelInputs& in, std::int64_t v, std::size_t k) {
  switch (in.scenario.model) {
    case AppModel::measured: return measured_load(in, static_cast<std::size_t>(v), k);
    case AppModel::weights:
    case AppModel::weights_no_comm:
      return in.weights[k][static_cast<std::size_t>(v)] * in.scenario.workload.unit_seconds;
    case AppModel::counts: return in.scenario.workload.unit_seconds / static_cast<double>(in.dims);
  }
  return 0;
}

// The scenario's `model_error` for one vertex at this LB call: 0 for a vertex the model
// leaves out, else mean-one log-normal noise. A pure function of (seed, vertex, call),
// so it does not depend on where the vertex lives.
double model_error_factor(const LoadModelInputs& in, VertexId v) {
  const ModelError& e = in.scenario.model_error;
  if (!e.any()) return 1.0;
  const auto id = static_cast<std::uint64_t>(v.value());
  const std::uint64_t seed = in.scenario.seed;
  if (e.omit > 0 && uniform01({seed, tag(Stream::model_error), id}) < e.omit) return 0.0;
  if (e.noise <= 0) return 1.0;
  const auto call = static_cast<std::uint64_t>(in.invocation);
  const double z = standard_normal(hash_of({seed, tag(Stream::model_error), id, call + 1}));
  return std::exp(e.noise * z - 0.5 * e.noise * e.noise);
}

}  // namespace

std::vector<Load> modeled_vertex_loads(const LoadModelInputs& in) {
  const auto dims = static_cast<std::size_t>(in.dims);
  const std::size_t n = in.vertices.size();
  std::vector<Load> loads(n * dims);
  const std::vector<double> messages =
      in.scenario.model == AppModel::weights ? message_cost_estimates(in) : std::vector<double>(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t v = in.vertices[i];
    const double error = model_error_factor(in, in.graph.gid[static_cast<std::size_t>(v)]);
    for (std::size_t k = 0; k < dims; ++k) loads[i * dims + k] = Load(error * modeled_load(in, v, k));
    // The halo exchange completes after the step's last phase.
    loads[i * dims + dims - 1] += Load(error * messages[i]);
  }
  return loads;
}

bool trends_measured(const LoadModelInputs& in) {
  return in.scenario.model == AppModel::measured && in.steps_since_last_call >= 2 && in.phase_time_summed != nullptr &&
         in.phase_time_summed->size() == static_cast<std::size_t>(in.dims);
}

double trend_origin(const LoadModelInputs& in) {
  const double n = in.steps_since_last_call;
  // The mean's line passes through the middle of the measured steps; the trend forecast
  // averages the steps ahead, whose middle lies (h + 1) / 2 steps past the call.
  if (in.scenario.forecast == LoadForecast::trend) return (steps_ahead(in.scenario, in.step) + 1) / 2.0;
  return -(n - 1) / 2;
}

std::vector<double> modeled_vertex_trends(const LoadModelInputs& in) {
  if (!trends_measured(in)) throw std::logic_error("modeled_vertex_trends without measured trends");
  const auto dims = static_cast<std::size_t>(in.dims);
  std::vector<double> trends(in.vertices.size(), 0.0);
  for (std::size_t i = 0; i < in.vertices.size(); ++i) {
    const auto v = static_cast<std::size_t>(in.vertices[i]);
    double slope = 0;
    for (std::size_t k = 0; k < dims; ++k) slope += measured_slope(in, v, k);
    trends[i] = model_error_factor(in, in.graph.gid[v]) * slope;
  }
  return trends;
}

std::vector<std::int64_t> all_positions(const LocalGraph& graph) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(graph.num_local()));
  std::iota(out.begin(), out.end(), std::int64_t{0});
  return out;
}

std::vector<Load> summed_loads(const std::vector<Load>& vectors, int dims) {
  const auto d = static_cast<std::size_t>(dims);
  std::vector<Load> loads(vectors.size() / d);
  for (std::size_t v = 0; v < loads.size(); ++v) {
    for (std::size_t k = 0; k < d; ++k) loads[v] += vectors[v * d + k];
  }
  return loads;
}

}  // namespace lbbench
