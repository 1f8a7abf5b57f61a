// The model engine's run (see run.hpp).
#include "engines/model/run.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <utility>

#include "balancers/sdk/factory.hpp"
#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "engines/model/lb_call.hpp"
#include "engines/model/regrid.hpp"
#include "engines/model/state.hpp"
#include "engines/model/step_timing.hpp"
#include "machine/network.hpp"
#include "replay/lb_points.hpp"
#include "replay/migration.hpp"
#include "replay/placement.hpp"
#include "replay/rank_loads.hpp"
#include "replay/record_builder.hpp"
#include "replay/trace_export.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

namespace {

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// What balancers are told of the machine: the preset's nodes and sites as SMPI lays the
// ranks out, equal speeds, the preset's network, and the fitted costs of the model's own
// platform or, failing that, of the simulated one it stands for.
MachineInfo machine_info(const Scenario& s, const NetworkModel& net, double code_time_scale, std::string* costs_from) {
  MachineInfo info;
  info.rank_node = net.layout().rank_host;
  info.rank_site = net.layout().rank_site;
  info.rank_speed = std::vector<double>(static_cast<std::size_t>(net.nranks()), 1.0);
  info.sites = net.preset().sites;
  info.network = network_facts(net);
  info.code_time_scale = code_time_scale;
  if (s.machine.costs_file.empty()) return info;
  for (const char* engine : {"model", "smpi"}) {
    const auto it = s.machine.costs.find({engine, s.machine.preset});
    if (it == s.machine.costs.end()) continue;
    info.fitted_costs = std::make_shared<const FittedCosts>(it->second);
    *costs_from = fmt::format("fitted: {} · {} ({})", engine, s.machine.preset, s.machine.costs_file);
    return info;
  }
  throw InputError(fmt::format(
      "machine.costs: {} has no fits for model · {} nor smpi · {}; fit them with `lbbench report --costs-out`",
      s.machine.costs_file_resolved, s.machine.preset, s.machine.preset));
}

// The per-step series, accumulated step by step (what the MPI engines reduce at the end).
class Series {
 public:
  Series(int steps, int nranks, int dims) : nranks_(nranks), per_rank_total_(static_cast<std::size_t>(nranks), 0.0) {
    const auto n = static_cast<std::size_t>(steps);
    for (auto* v : {&t_.compute_max, &t_.compute_sum, &t_.wall_max, &t_.wait_sum}) v->assign(n, 0.0);
    if (dims > 1) {
      t_.phase_max.assign(static_cast<std::size_t>(dims), std::vector<double>(n, 0.0));
      t_.phase_sum.assign(static_cast<std::size_t>(dims), std::vector<double>(n, 0.0));
    }
  }

  void add(int step, const StepTimes& times, const std::vector<double>& start) {
    const auto i = static_cast<std::size_t>(step);
    for (std::size_t r = 0; r < static_cast<std::size_t>(nranks_); ++r) {
      const double wall = times.end[r] - start[r];
      t_.compute_max[i] = std::max(t_.compute_max[i], times.compute[r]);
      t_.compute_sum[i] += times.compute[r];
      t_.wall_max[i] = std::max(t_.wall_max[i], wall);
      t_.wait_sum[i] += wall - times.compute[r];
      per_rank_total_[r] += times.compute[r];
    }
    for (std::size_t k = 0; k < t_.phase_max.size(); ++k) {
      for (const double x : times.phase_compute[k]) {
        t_.phase_max[k][i] = std::max(t_.phase_max[k][i], x);
        t_.phase_sum[k][i] += x;
      }
    }
  }

  // The slowest rank's compute at each of the steps first..last, averaged.
  [[nodiscard]] double compute_max_mean(int first, int last) const {
    const auto begin = t_.compute_max.begin();
    return std::accumulate(begin + first, begin + last + 1, 0.0) / (last - first + 1);
  }

  // The slowest rank's compute and the ranks' mean compute at `step`.
  [[nodiscard]] std::pair<double, double> compute_max_and_mean_at(int step) const {
    const auto i = static_cast<std::size_t>(step);
    return {t_.compute_max[i], t_.compute_sum[i] / nranks_};
  }

  [[nodiscard]] StepTotals totals(double total_time) const {
    StepTotals t = t_;
    t.total_time = total_time;
    t.compute_mean = std::accumulate(per_rank_total_.begin(), per_rank_total_.end(), 0.0) / nranks_;
    t.compute_max_rank = *std::max_element(per_rank_total_.begin(), per_rank_total_.end());
    return t;
  }

 private:
  int nranks_;
  StepTotals t_;
  std::vector<double> per_rank_total_;
};

class ModelRun {
 public:
  ModelRun(const Scenario& s, int nranks, const ModelOptions& o)
      : s_(s),
        o_(o),
        p_(nranks),
        state_(s, nranks),
        net_(s.machine.effective_preset(), nranks),
        decision_costs_(o.charge_code
                            ? fmt::format("measured: the code's thread CPU time, less its page faults at {:.2f} us "
                                          "each (a protocol round's handler: the shorter of two runs), x "
                                          "code_time_scale",
                                          1e6 * page_fault_seconds())
                            : "none: code is free (--code-charge none)"),
        machine_(machine_info(s, net_, o.code_time_scale, &decision_costs_)),
        field_(s.workload, state_.graph(), s.seed, state_.trace()),
        dims_(field_.dims()) {
    if (state_.graph().global_vertices < nranks) {
      throw InputError(fmt::format("{}: the mesh has {} vertices but the run has {} ranks; use at most {} ranks",
                                   s.source, state_.graph().global_vertices, nranks, state_.graph().global_vertices));
    }
    s.balancer.config.check_dims(dims_);
    balancer_ = make_balancer(s.balancer.config);
    // Its one-time set-up, before the run as on the MPI engines; the model is one process.
    balancer_->prepare(MPI_COMM_SELF);
    halo_ = halo_of(state_, s.workload, net_);
    machine_.migration_code = measure_migration_code(state_.graph(), s.workload.element_bytes, s.seed);
    if (mesh_regrids(s.mesh)) {
      if (!o.lbdatafile_out.empty()) {
        throw InputError(fmt::format(
            "{}: --lbdatafile-out writes a fixed set of tasks, and this block mesh creates and destroys its blocks as "
            "it regrids; leave --lbdatafile-out out",
            s.source));
      }
      regridder_ = std::make_unique<ModelRegridder>(s, net_, machine_, o.charge_code ? o.code_time_scale : 0.0);
    }
  }

  RunRecord run() {
    const std::string start_time = utc_timestamp();
    const double host_start = wall_seconds();
    const CommCensus initial = census_of(halo_, net_);
    // The mesh as it starts: a block mesh's blocks change as it regrids.
    const std::int64_t mesh_vertices = state_.graph().global_vertices;
    const std::int64_t mesh_edges = state_.graph().global_edges;
    Progress at = starting_progress();
    std::vector<LbDatafileWriter> exported = open_export();
    LbPoints points(s_, *balancer_);
    for (int step = 0; step < s_.steps; ++step) {
      play_step(step, at);
      export_step(exported, step, at.work);
      if (is_regrid_point(s_, step)) regrid_after(step, at);
      at_point(step, points, at);
    }
    const double total_time = *std::max_element(at.start.begin(), at.start.end());
    for (auto& w : exported) w.close();
    if (!o_.rank_loads_out.empty()) {
      write_rank_loads(o_.rank_loads_out,
                       RankLoadsFile{.scenario = s_,
                                     .engine = "model",
                                     .machine = machine_,
                                     .nranks = p_,
                                     .components = field_.names(),
                                     .rows = label_rows(std::move(at.rank_loads), at.events, o_.rank_loads_stride)});
    }
    RunRecord r =
        assemble_record(RecordFacts{.scenario = s_,
                                    .engine = "model",
                                    .ranks = p_,
                                    .nodes = net_.nodes(),
                                    .sites = net_.preset().sites,
                                    .vertices = mesh_vertices,
                                    .edges = mesh_edges,
                                    .components = field_.names(),
                                    .initial = initial,
                                    .final = census_of(halo_, net_),
                                    .simulation = SimulationInfo{wall_seconds() - host_start, peak_rss_mb(), 0.0},
                                    .provenance = provenance(start_time),
                                    .choices = points.take_choices(),
                                    .regrids = std::move(at.regrids),
                                    .live_blocks = std::move(at.live_blocks),
                                    .live_edges = std::move(at.live_edges)},
                        at.series.totals(total_time), std::move(at.events));
    r.modeling = ModelingInfo{.code_time_scale = o_.code_time_scale,
                              .decision_costs = decision_costs_,
                              .network =
                                  "alpha + beta x bytes over the preset's routes; overheads on eager messages; bulk "
                                  "transfers bounded by the busiest link"};
    if (state_.trace()) r.trace = trace_info(*state_.trace(), p_);
    return r;
  }

 private:
  // A look at the loads' totals under way: what it saw, and when it is in on every rank.
  struct Look {
    CallOutlook seen;
    double in_at_s = 0;
  };

  // What the run carries from step to step. Per-vertex series are by position, and are
  // handed on to the new blocks where a block mesh regrids.
  struct Progress {
    Progress(std::size_t n, int dims, int ranks, bool sums, Series s)
        : work(static_cast<std::size_t>(dims), std::vector<double>(n, 0.0)),
          phase_time(work),
          phase_time_summed(sums ? work.size() : 0, std::vector<double>(n, 0.0)),
          start(static_cast<std::size_t>(ranks), 0.0),
          since_call(start),
          wall_since_call(start),
          series(std::move(s)) {}

    std::vector<std::vector<double>> weights;
    std::vector<std::vector<double>> work;        // per component: each vertex's work this step
    std::vector<std::vector<double>> phase_time;  // ... summed since the last call, as a perfect timer measures it
    // Kept where a line is fitted through each vertex's steps (replay/load_model.hpp).
    std::vector<std::vector<double>> phase_time_summed;
    bool weights_ready = false;
    std::vector<double> start;            // per rank, when its next step starts
    std::vector<double> since_call;       // per rank, compute since the last call
    std::vector<double> wall_since_call;  // ... and whole steps
    int steps_since_call = 0;
    double last_call_s = 0;
    std::vector<int> owner_before_call;  // by position; empty before the first call
    std::optional<Look> look;            // started on the way to the next LB point (Balancer::looks_before_calls)
    Series series;
    std::vector<LbEvent> events;
    std::vector<RankLoadRow> rank_loads;
    std::vector<RegridEvent> regrids;
    std::vector<std::int64_t> live_blocks;
    std::vector<std::int64_t> live_edges;
  };

  [[nodiscard]] Progress starting_progress() const {
    const bool sums = s_.forecast == LoadForecast::trend || balancer_->needs_trends();
    return Progress(static_cast<std::size_t>(state_.graph().num_local()), dims_, p_, sums, Series(s_.steps, p_, dims_));
  }

  // One step on every rank: its work from the workload, timed by the machine's model, and
  // added to what the balancers and the record are told.
  void play_step(int step, Progress& at) {
    const std::size_t n = at.work.front().size();
    if (regridder_) {
      at.live_blocks.push_back(state_.graph().global_vertices);
      at.live_edges.push_back(state_.graph().global_edges);
    }
    if (!at.weights_ready || !field_.is_static()) {
      field_.weights(state_.graph(), step, at.weights);
      for (std::size_t k = 0; k < at.work.size(); ++k) {
        for (std::size_t v = 0; v < n; ++v) at.work[k][v] = at.weights[k][v] * s_.workload.unit_seconds;
      }
      at.weights_ready = true;
    }
    const StepTimes times = time_step(state_, halo_, net_, s_.workload, at.work, at.start);
    if (!o_.rank_loads_out.empty() && RankLoadSteps{o_.rank_loads_stride}.may_record(s_, step)) {
      at.rank_loads.push_back(rank_load_row(step, times));
    }
    // What a perfect per-vertex timer measures: each vertex's share of the work.
    for (std::size_t k = 0; k < at.work.size(); ++k) {
      for (std::size_t v = 0; v < n; ++v) at.phase_time[k][v] += at.work[k][v];
    }
    for (std::size_t k = 0; k < at.phase_time_summed.size(); ++k) {
      for (std::size_t v = 0; v < n; ++v) at.phase_time_summed[k][v] += at.phase_time[k][v];
    }
    ++at.steps_since_call;
    at.series.add(step, times, at.start);
    for (std::size_t r = 0; r < at.since_call.size(); ++r) {
      at.since_call[r] += times.compute[r];
      at.wall_since_call[r] += times.end[r] - at.start[r];
    }
    at.start = times.end;
  }

  // The LB point of `step`, or the start of a look on the way to it: asks the balancer
  // (through LbPoints) whether to call, and makes the call.
  void at_point(int step, LbPoints& points, Progress& at) {
    const bool look_starts = points.look_starts(step);
    const bool point = points.takes_point(step);
    if (!point && !look_starts) return;
    const PerStep per_step = per_step_since_call(at);
    const ModelLbInputs in = inputs_at(step, at, per_step);
    if (look_starts) at.look = start_look(in, at.start);
    if (!point) return;
    Balancer* calling = points.calling([&] {
      if (!at.look) at.look = start_look(in, at.start);
      const CallOutlook seen = finish_look(*at.look, step, at.start);
      at.look.reset();
      return seen;
    });
    if (!calling) {
      at.last_call_s = 0;  // the point kept the distribution (LbPoints::calling)
      return;
    }
    // Whose decision fit prices the call: the balancer's, or the candidate it chose.
    const std::string name = points.looks() ? points.last_choice().value("chosen", std::string(s_.balancer.name()))
                                            : std::string(s_.balancer.name());
    const double call_start = *std::max_element(at.start.begin(), at.start.end());
    at.owner_before_call.resize(at.work.front().size());
    for (std::size_t v = 0; v < at.owner_before_call.size(); ++v)
      at.owner_before_call[v] = state_.owner(static_cast<std::int64_t>(v)).value();
    ModelLbCall call = balance(in, *calling, name);
    if (points.looks()) call.event.prediction = points.last_choice();
    at.last_call_s = call.event.decision_s + call.event.migration_s;
    at.events.push_back(std::move(call.event));
    std::fill(at.start.begin(), at.start.end(), call_start + call.duration_s);
    start_measuring_afresh(at);
  }

  // Each rank's compute and whole step, per step since the last call.
  struct PerStep {
    std::vector<double> load;
    std::vector<double> wall;
  };
  [[nodiscard]] static PerStep per_step_since_call(const Progress& at) {
    PerStep out{at.since_call, at.wall_since_call};
    for (double& m : out.load) m /= at.steps_since_call;
    for (double& w : out.wall) w /= at.steps_since_call;
    return out;
  }

  // What the balancer is told at the point of `step`.
  [[nodiscard]] static ModelLbInputs inputs_at(int step, const Progress& at, const PerStep& per_step) {
    return ModelLbInputs{.step = step,
                         .invocation = static_cast<int>(at.events.size()),
                         .weights = at.weights,
                         .phase_time = at.phase_time,
                         .steps_since_last_call = at.steps_since_call,
                         .phase_time_summed = at.phase_time_summed,
                         .measured_rank_load = per_step.load,
                         .measured_rank_wall = per_step.wall,
                         .stepwise_max_load = at.series.compute_max_mean(step - at.steps_since_call + 1, step),
                         .first_step_load = at.series.compute_max_and_mean_at(step - at.steps_since_call + 1),
                         .before = {},
                         .last_call_s = at.last_call_s,
                         .owner_before_call = at.owner_before_call};
  }

  // After a call every per-vertex and per-rank series starts again.
  static void start_measuring_afresh(Progress& at) {
    for (auto& t : at.phase_time) std::fill(t.begin(), t.end(), 0.0);
    for (auto& t : at.phase_time_summed) std::fill(t.begin(), t.end(), 0.0);
    std::fill(at.since_call.begin(), at.since_call.end(), 0.0);
    std::fill(at.wall_since_call.begin(), at.wall_since_call.end(), 0.0);
    at.steps_since_call = 0;
    at.weights_ready = false;
  }

  // The block mesh regrids after `step`: every rank waits for the slowest, as the regrid's
  // collectives make it; each per-vertex series measured since the last call is handed on
  // to the new blocks (the mean of what each inherits), and the halo follows them.
  void regrid_after(int step, Progress& at) {
    const double start = *std::max_element(at.start.begin(), at.start.end());
    ModelRegrid g = regridder_->regrid(state_, field_, step);
    for (auto* series : {&at.phase_time, &at.phase_time_summed}) {
      for (auto& per_vertex : *series) per_vertex = inherited(per_vertex, g);
    }
    halo_ = halo_of(state_, s_.workload, net_);
    g.event.after = census_of(halo_, net_);
    std::fill(at.start.begin(), at.start.end(), start + g.duration_s);
    at.regrids.push_back(g.event);
    at.owner_before_call.clear();  // the blocks changed: the placement before the call is gone
    const auto n = static_cast<std::size_t>(state_.graph().num_local());
    for (auto& w : at.work) w.assign(n, 0.0);
    at.weights_ready = false;
  }

  static std::vector<double> inherited(const std::vector<double>& old, const ModelRegrid& g) {
    std::vector<double> out(g.inherit_begin.size() - 1, 0.0);
    for (std::size_t v = 0; v < out.size(); ++v) {
      const auto count = g.inherit_begin[v + 1] - g.inherit_begin[v];
      for (auto i = g.inherit_begin[v]; i < g.inherit_begin[v + 1]; ++i)
        out[v] += old[static_cast<std::size_t>(g.inherit_from[static_cast<std::size_t>(i)])];
      if (count > 0) out[v] /= static_cast<double>(count);
    }
    return out;
  }

  // Every rank's compute of one step, per component (replay/rank_loads.hpp).
  [[nodiscard]] RankLoadRow rank_load_row(int step, const StepTimes& times) const {
    const auto d = static_cast<std::size_t>(dims_);
    RankLoadRow row{.step = step, .labels = {}, .loads = std::vector<float>(static_cast<std::size_t>(p_) * d)};
    for (std::size_t r = 0; r < static_cast<std::size_t>(p_); ++r) {
      for (std::size_t k = 0; k < d; ++k) {
        row.loads[r * d + k] = static_cast<float>(dims_ > 1 ? times.phase_compute[k][r] : times.compute[r]);
      }
    }
    return row;
  }

  // One file per rank, each opened only to append a phase: thousands stay closed.
  [[nodiscard]] std::vector<LbDatafileWriter> open_export() const {
    std::vector<LbDatafileWriter> out;
    if (o_.lbdatafile_out.empty()) return out;
    out.reserve(static_cast<std::size_t>(p_));
    for (int r = 0; r < p_; ++r) out.emplace_back(o_.lbdatafile_out, r, false);
    return out;
  }

  // Each rank's vertices with the work they did this step: the model times them exactly.
  void export_step(std::vector<LbDatafileWriter>& exported, int step,
                   const std::vector<std::vector<double>>& work) const {
    if (exported.empty()) return;
    const std::vector<int> subphases = exported_subphases(s_.workload);
    for (int r = 0; r < p_; ++r) {
      const auto positions = state_.vertices_of(r);
      std::vector<std::vector<double>> loads(work.size());
      for (std::size_t k = 0; k < work.size(); ++k) {
        for (const std::int64_t pos : positions) loads[k].push_back(work[k][static_cast<std::size_t>(pos)]);
      }
      exported[static_cast<std::size_t>(r)].add(phase_json(PhaseOfRank{.step = step,
                                                                       .rank = r,
                                                                       .nranks = p_,
                                                                       .graph = state_.graph(),
                                                                       .trace = state_.trace().get(),
                                                                       .positions = positions,
                                                                       .loads = loads,
                                                                       .subphases = subphases,
                                                                       .edge_bytes = s_.workload.edge_bytes}));
    }
  }

  // Each rank starts the look's reduction when its step ends and goes on; the reduction is
  // in once the last rank has started it.
  [[nodiscard]] Look start_look(const ModelLbInputs& in, const std::vector<double>& step_end) const {
    return Look{.seen = model_outlook(lb_context(*balancer_), state_, in),
                .in_at_s = *std::max_element(step_end.begin(), step_end.end()) + model_lb_overhead_s(net_)};
  }

  // At the LB point of `step`, every rank that is ahead of the look waits for it.
  CallOutlook finish_look(Look& look, int step, std::vector<double>& start) const {
    for (double& t : start) t = std::max(t, look.in_at_s);
    look.seen.steps_left = s_.steps - step - 1;
    return look.seen;
  }

  [[nodiscard]] ModelLbContext lb_context(Balancer& calling) const {
    return ModelLbContext{.scenario = s_,
                          .net = net_,
                          .machine = machine_,
                          .balancer = calling,
                          .dims = dims_,
                          .code_scale = o_.charge_code ? o_.code_time_scale : 0.0};
  }

  // `name`: the calling balancer's, whose decision fit prices it (`auto`'s candidate's).
  ModelLbCall balance(const ModelLbInputs& at, Balancer& calling, std::string_view name) {
    const ModelLbContext ctx = lb_context(calling);
    ModelLbInputs in = at;
    in.before = census_of(halo_, net_);
    ModelLbCall call = model_lb_call(ctx, state_, in, [&] {
      halo_ = halo_of(state_, s_.workload, net_);
      return census_of(halo_, net_);
    });
    if (const FittedCosts* fits = machine_.fitted_costs.get()) apply_fits(*fits, calling, name, call);
    return call;
  }

  // Decision and migration from the platform's fits, where it has them, instead of the
  // timed code and the network model.
  void apply_fits(const FittedCosts& fits, const Balancer& calling, std::string_view name, ModelLbCall& call) const {
    LbEvent& e = call.event;
    const double before = e.decision_s + e.migration_s;
    const auto v = static_cast<double>(state_.graph().global_vertices);
    if (const FittedCost* d = fits.decision_of(name)) {
      e.decision_s = d->seconds(v, static_cast<double>(state_.graph().global_edges), p_);
    }
    // A call that promised to move nothing runs no migration to fit.
    if (fits.migration && !calling.promised_nothing_moves()) {
      e.migration_s = fits.migration_s(v / p_, static_cast<double>(e.elements_moved_max.value_or(0)),
                                       static_cast<double>(s_.workload.element_bytes));
    }
    call.duration_s += e.decision_s + e.migration_s - before;
  }

  [[nodiscard]] Provenance provenance(const std::string& start_time) const {
    return Provenance{.git = git_describe(),
                      .host = host_name(),
                      .mpi_library = "none: the model engine sends no messages",
                      .mpi_thread_level = "none",
                      .start_time = start_time,
                      .command = o_.command_line,
                      .work = Json{{"kind", "modeled"}, {"unit_seconds", s_.workload.unit_seconds}},
                      .plugins = loaded_plugin_provenance()};
  }

  const Scenario& s_;
  const ModelOptions& o_;
  int p_;
  ModelState state_;
  NetworkModel net_;
  std::string decision_costs_;
  MachineInfo machine_;
  WorkloadField field_;
  int dims_;
  std::unique_ptr<Balancer> balancer_;
  Halo halo_;
  std::unique_ptr<ModelRegridder> regridder_;  // a block mesh that regrids; null otherwise
};

}  // namespace

RunRecord run_model(const Scenario& s, int nranks, const ModelOptions& options) {
  return ModelRun(s, nranks, options).run();
}

}  // namespace lbbench
