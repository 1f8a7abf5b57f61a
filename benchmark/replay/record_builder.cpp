// The end of a run (see record_builder.hpp).
#include "replay/record_builder.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "comm/mpi.hpp"
#include "replay/engine.hpp"

namespace lbbench {

namespace {

// The per-step series with what follows from them.
struct Totals : StepTotals {
  std::vector<double> imbalance;  // per step
  double perfect = 0;

  explicit Totals(StepTotals base, int nranks) : StepTotals(std::move(base)) {
    const double p = nranks;
    imbalance.resize(compute_max.size());
    for (std::size_t i = 0; i < imbalance.size(); ++i) {
      imbalance[i] = lbbench::imbalance(compute_max[i], compute_sum[i] / p);
      perfect += compute_sum[i] / p;
    }
  }
  [[nodiscard]] bool has_vectors() const { return !phase_max.empty(); }
  // Σ_k max_r of the phase times at a step: what the step's compute costs with barriers.
  [[nodiscard]] double vector_objective(std::size_t step) const {
    double sum = 0;
    for (const auto& m : phase_max) sum += m[step];
    return sum;
  }
  // Each component's max over average at a step.
  [[nodiscard]] std::vector<double> max_over_avg(std::size_t step, int nranks) const {
    std::vector<double> out;
    for (std::size_t k = 0; k < phase_max.size(); ++k) {
      const double avg = phase_sum[k][step] / nranks;
      out.push_back(avg > 0 ? phase_max[k][step] / avg : 1.0);
    }
    return out;
  }
};

void reduce_to_root(const std::vector<double>& mine, std::vector<double>& out, MPI_Op op, MPI_Comm comm) {
  out.resize(mine.size());
  MPI_Reduce(mine.data(), out.data(), static_cast<int>(mine.size()), MPI_DOUBLE, op, 0, comm);
}

StepTotals reduce_totals(const RunEnd& end, MPI_Comm comm) {
  StepTotals t;
  const RankSteps& mine = end.steps;
  reduce_to_root(mine.compute, t.compute_max, MPI_MAX, comm);
  reduce_to_root(mine.compute, t.compute_sum, MPI_SUM, comm);
  reduce_to_root(mine.wall, t.wall_max, MPI_MAX, comm);
  reduce_to_root(mine.wait, t.wait_sum, MPI_SUM, comm);
  const double p = comm_size(comm);
  t.total_time = allreduce(end.elapsed_s, MPI_MAX, comm);
  const double my_compute = std::accumulate(mine.compute.begin(), mine.compute.end(), 0.0);
  t.compute_mean = allreduce(my_compute, MPI_SUM, comm) / p;
  t.compute_max_rank = allreduce(my_compute, MPI_MAX, comm);
  if (end.components.size() > 1) {
    for (const auto& phase : mine.phase_compute) {
      reduce_to_root(phase, t.phase_max.emplace_back(), MPI_MAX, comm);
      reduce_to_root(phase, t.phase_sum.emplace_back(), MPI_SUM, comm);
    }
  }
  return t;
}

LoadVectorRecord load_vector_of(const Totals& t, const std::vector<std::string>& names, int nranks, int steps) {
  LoadVectorRecord v;
  v.components = names;
  for (std::size_t i = 0; i < t.imbalance.size(); ++i) {
    v.objective_per_step_s.push_back(t.vector_objective(i));
    double avg = 0;
    for (const auto& sum : t.phase_sum) avg += sum[i] / nranks;
    v.perfect_per_step_s.push_back(avg);
  }
  v.objective_mean_s = std::accumulate(v.objective_per_step_s.begin(), v.objective_per_step_s.end(), 0.0) / steps;
  v.phase_max_s = t.phase_max;
  for (const auto& sum : t.phase_sum) {
    std::vector<double>& avg = v.phase_avg_s.emplace_back(sum);
    for (double& a : avg) a /= nranks;
  }
  return v;
}

// `auto`'s choices over the run: the candidate at each point (its `chosen`), and what its
// loop credited the calls with (`credited`, balancers/model/auto/loop.hpp).
std::optional<RunPrediction> run_prediction(const std::vector<Json>& choices) {
  // A point without a call runs none, so none is among the choices whether or not the
  // loop weighed it: the report's fastest candidate must be able to be none.
  std::map<std::string, int> calls{{"none", 0}};
  RunPrediction p;
  bool any_choice = false;
  for (const Json& d : choices) {
    if (d.is_null() || !d.contains("chosen")) continue;
    any_choice = true;
    p.points.push_back(d);
    const Json weighed = d.value("weighed", Json::object());
    for (const auto& [name, w] : weighed.items()) calls.try_emplace(name, 0);
    ++calls[d["chosen"].get<std::string>()];
    const Json credited = d.value("credited", Json());
    if (!credited.is_object()) continue;
    p.predicted_gain_s += credited.value("predicted_gain_s", 0.0);
    p.delivered_gain_s += credited.value("delivered_gain_s", 0.0);
    p.spent_s += credited.value("cost_s", 0.0);
  }
  if (!any_choice) return std::nullopt;
  p.chosen = "none";
  int most = 0;
  for (const auto& [name, n] : calls) {
    p.calls.emplace_back(name, n);
    if (name != "none" && n > most) {
      p.chosen = name;
      most = n;
    }
  }
  return p;
}

// The measured side of each LB call: the imbalance of the steps before and after it.
void fill_measured(std::vector<LbEvent>& events, const Totals& t, int nranks) {
  for (auto& e : events) {
    const auto i = static_cast<std::size_t>(e.step);
    e.imbalance_before = t.imbalance[i];
    e.imbalance_after = t.imbalance[i + 1];
    if (e.vector && t.has_vectors()) {
      e.vector->objective_before_s = t.vector_objective(i);
      e.vector->objective_after_s = t.vector_objective(i + 1);
      e.vector->max_over_avg_before = t.max_over_avg(i, nranks);
      e.vector->max_over_avg_after = t.max_over_avg(i + 1, nranks);
    }
  }
}

// A block mesh's regrids, their sums, and the live blocks and regrid bytes per step.
void regrid_record(RunRecord& r, const OctreeSpec& tree, RecordFacts& facts) {
  RegridRecord g;
  g.period = tree.period;
  r.per_step.vertices = std::move(facts.live_blocks);
  r.per_step.edges = std::move(facts.live_edges);
  r.per_step.regrid_bytes.assign(r.per_step.vertices.size(), 0);
  for (const RegridEvent& e : facts.regrids) {
    g.time_s += e.time_s;
    g.migrations += e.migrations;
    g.migrated_bytes += e.migrated_bytes;
    g.messages += e.messages;
    g.bytes += e.bytes;
    const auto at = static_cast<std::size_t>(e.step);
    if (at < r.per_step.regrid_bytes.size()) r.per_step.regrid_bytes[at] = e.bytes + e.migrated_bytes;
  }
  g.events = std::move(facts.regrids);
  r.regrid = std::move(g);
}

}  // namespace

void record_kept_distribution(LbEvent& event, std::uint64_t owners_digest) {
  event.model_imbalance_predicted_after = event.model_imbalance_before;
  if (event.vector) event.vector->model_objective_predicted_after_s = event.vector->model_objective_before_s;
  event.after = event.before;
  event.migrations = 0;
  event.migrated_bytes = 0;
  event.elements_moved_max = 0;
  event.owners_digest = owners_digest;
  event.migration_s = 0;
}

bool is_lb_point(const Scenario& s, int step) {
  return s.balancer.config.family() != Family::baseline && (step + 1) % s.balancer.period == 0 && step + 1 < s.steps;
}

bool is_regrid_point(const Scenario& s, int step) {
  const auto* tree = std::get_if<OctreeSpec>(&s.mesh);
  return tree != nullptr && (step + 1) % tree->period == 0 && step + 1 < s.steps;
}

int lb_points_after(const Scenario& s, int step) {
  int calls = 0;
  for (int later = step + 1; later < s.steps; ++later) calls += is_lb_point(s, later) ? 1 : 0;
  return calls;
}

bool has_lb_points(const Scenario& s) { return lb_points_after(s, -1) > 0; }

RunRecord build_record(RunEnd end, MPI_Comm comm) {
  StepTotals totals = reduce_totals(end, comm);
  if (comm_rank(comm) != 0) return {};
  return assemble_record(RecordFacts{.scenario = end.scenario,
                                     .engine = end.engine.name(),
                                     .ranks = comm_size(comm),
                                     .nodes = end.machine.nodes,
                                     .sites = end.machine.info.sites,
                                     .vertices = end.vertices,
                                     .edges = end.edges,
                                     .components = end.components,
                                     .initial = end.initial,
                                     .final = end.final,
                                     .simulation = end.engine.simulation(end.setup_s, end.host_wall_s),
                                     .provenance = std::move(end.provenance),
                                     .choices = std::move(end.choices),
                                     .regrids = std::move(end.regrids),
                                     .live_blocks = std::move(end.live_blocks),
                                     .live_edges = std::move(end.live_edges)},
                         totals, std::move(end.events));
}

RunRecord assemble_record(RecordFacts facts, const StepTotals& step_totals, std::vector<LbEvent> events) {
  const Scenario& s = facts.scenario;
  const int nranks = facts.ranks;
  const double p = nranks;
  const Totals t(step_totals, nranks);
  fill_measured(events, t, nranks);
  RunRecord r;
  r.scenario = s.name;
  r.scenario_sha256 = scenario_sha256(s);
  r.scenario_file = s.source;
  r.balancer = s.balancer.name();
  r.balancer_family = family_name(s.balancer.config.family());
  r.balancer_params = s.balancer.config.params_json();
  r.lb_period = s.balancer.period;
  r.model = to_string(s.model);
  r.forecast = to_string(s.forecast);
  r.engine = std::string(facts.engine);
  // A preset of one's own (a file) by its name, as the built-in ones are.
  r.machine = s.machine.definition ? s.machine.definition->name : s.machine.preset;
  r.ranks = nranks;
  r.nodes = facts.nodes;
  r.vertices = facts.vertices;
  r.edges = facts.edges;
  r.steps = s.steps;
  r.seed = s.seed;
  r.total_time_s = t.total_time;
  r.compute_time_s = t.compute_mean;
  r.compute_time_max_s = t.compute_max_rank;
  r.wait_time_s = std::accumulate(t.wait_sum.begin(), t.wait_sum.end(), 0.0) / p;
  r.perfect_balance_time_s = t.perfect;
  for (const auto& e : events) {
    r.lb_time_s += e.decision_s;
    r.migration_time_s += e.migration_s;
    r.migrations += e.migrations;
    r.migrated_bytes += e.migrated_bytes;
    r.imbalance_before.push_back(e.imbalance_before);
    r.imbalance_after.push_back(e.imbalance_after);
    r.imbalance_predicted_after.push_back(e.model_imbalance_predicted_after);
  }
  r.lb_invocations = static_cast<int>(events.size());
  r.lb_points = lb_points_after(s, -1);
  r.imbalance_mean = std::accumulate(t.imbalance.begin(), t.imbalance.end(), 0.0) / s.steps;
  r.edge_cut_initial = facts.initial.edge_cut;
  r.edge_cut = facts.final.edge_cut;
  r.edge_cut_bytes = facts.final.edge_cut_bytes;
  r.messages_per_step = facts.final.messages_per_step;
  if (facts.sites > 1) r.cross_site_messages_per_step = facts.final.cross_site_messages_per_step;
  r.per_step.wall_max_s = t.wall_max;
  r.per_step.compute_max_s = t.compute_max;
  r.per_step.imbalance = t.imbalance;
  for (std::size_t i = 0; i < t.compute_sum.size(); ++i) {
    r.per_step.compute_avg_s.push_back(t.compute_sum[i] / p);
    r.per_step.wait_avg_s.push_back(t.wait_sum[i] / p);
  }
  if (s.machine.definition) r.machine_preset = s.machine.effective_preset().to_json();
  r.simulation = facts.simulation;
  if (t.has_vectors()) r.load_vector = load_vector_of(t, facts.components, nranks, s.steps);
  r.prediction = run_prediction(facts.choices);
  if (const auto* tree = std::get_if<OctreeSpec>(&s.mesh)) regrid_record(r, *tree, facts);
  r.lb = std::move(events);
  r.config = normalized(s);
  r.provenance = std::move(facts.provenance);
  return r;
}

}  // namespace lbbench
