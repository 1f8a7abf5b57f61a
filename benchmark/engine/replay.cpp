// The replay benchmark (see replay.hpp).
#include "engine/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <numeric>
#include <unordered_map>

#include "balancers/model/metrics.hpp"
#include "balancers/factory.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "mpi/mpi.hpp"
#include "core/version.hpp"
#include "engine/distribution.hpp"
#include "engine/halo_exchange.hpp"
#include "engine/machine.hpp"
#include "engine/migration.hpp"
#include "engine/record.hpp"
#include "engine/startup_reorder.hpp"
#include "meshes/build.hpp"
#include "work/compute.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

namespace {

// The communication the current distribution causes each step, over all ranks.
struct CommCensus {
  std::int64_t cut = 0;                  // cut edges
  std::int64_t cut_bytes = 0;            // bytes they carry per step
  std::int64_t messages = 0;             // messages per step
  std::int64_t cross_site_messages = 0;  // of which between sites
};

Json to_json(const CommCensus& c) {
  return Json{{"edge_cut", c.cut},
              {"edge_cut_bytes", c.cut_bytes},
              {"messages_per_step", c.messages},
              {"cross_site_messages_per_step", c.cross_site_messages}};
}

// Pearce's metrics of the per-rank loads at an LB point: as the balancer was told them
// (the model) and as measured (compute time per step since the previous LB call).
struct LoadMetrics {
  LoadMoments model;
  LoadMoments measured;
  std::optional<double> rank_correlation;  // equation 13, model against measured
};

Json to_json(const LoadMoments& m) {
  auto optional = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  return Json{{"mean_s", m.mean}, {"imbalance_pct", m.imbalance_pct}, {"max_over_avg", m.max_over_avg},
              {"sigma", m.sigma}, {"skewness", optional(m.skewness)}, {"kurtosis", optional(m.kurtosis)}};
}

// What happened at one LB point, reduced over ranks.
struct LbEvent {
  int step = 0;
  double imbalance_model_before = 0;  // from the loads the balancer was given
  double imbalance_predicted_after = 0;
  std::int64_t migrated = 0;
  std::int64_t migrated_bytes = 0;
  std::int64_t arrived_max = 0;  // vertices arriving at the busiest receiver (ElementsMoved_max)
  double decision_s = 0;         // slowest rank
  double migration_s = 0;        // slowest rank
  CommCensus before;
  CommCensus after;
  std::optional<ProtocolStats> protocol;  // distributed strategies only
  std::optional<LoadMetrics> metrics;     // on rank 0
  Json decision;                          // on rank 0: what `auto` predicted and chose
  // Vector workloads: Σ_k max_r of the balancer's per-component loads, before and as the
  // plan predicts.
  double model_objective_before = 0;
  double model_objective_predicted_after = 0;
};

// What the plan leaves on the ranks, reduced over them.
struct PredictedAfter {
  double imbalance = 0;         // of the summed loads
  double vector_objective = 0;  // Σ_k max_r of the component loads (vector workloads only)
};

// Everything the record and the summary report, reduced over ranks (complete on rank 0).
struct Totals {
  std::vector<double> compute_max, compute_sum, wall_max, wait_sum;  // per step
  std::vector<double> imbalance;                                     // per step
  // Vector workloads: per component, per step, the slowest rank's and the summed phase time.
  std::vector<std::vector<double>> phase_max, phase_sum;

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
  double total_time = 0, compute_mean = 0, compute_max_rank = 0, wait_mean = 0, perfect = 0;
  double lb_time = 0, migration_time = 0;
  std::int64_t migrations = 0, migrated_bytes = 0;
  CommCensus comm;  // at the end
};

// Peak resident memory of this process (VmHWM), in MiB.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

double imbalance(double max, double avg) { return avg > 0 ? max / avg - 1.0 : 0.0; }

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
  }
}

class Replay {
 public:
  Replay(const Scenario& s, const RunOptions& o, MPI_Comm comm)
      : s_(s), o_(o), me_(comm_rank(comm)), nranks_(comm_size(comm)) {
    comm_ = duplicate_comm(comm);
    lb_comm_ = duplicate_comm(comm);
    halo_comm_ = duplicate_comm(comm);
  }
  ~Replay() {
    exchange_.reset();
    if (phase_comm_ != MPI_COMM_NULL) MPI_Comm_free(&phase_comm_);
    MPI_Comm_free(&halo_comm_);
    MPI_Comm_free(&lb_comm_);
    MPI_Comm_free(&comm_);
  }
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  RunOutcome run() {
    start_time_ = utc_timestamp();
    real_start_ = std::chrono::steady_clock::now();
    const double t_setup = now_seconds();
    setup();
    MPI_Barrier(comm_);
    const double t_start = now_seconds();
    setup_s_ = t_start - t_setup;
    for (int step = 0; step < s_.steps; ++step) {
      run_step(step);
      if (is_lb_point(step)) balance(step);
    }
    const double elapsed = now_seconds() - t_start;
    return finish(elapsed);
  }

 private:
  void check_ranks() const {
    if (s_.ranks && *s_.ranks != nranks_) {
      throw AgreedInputError(
          fmt::format("{}: the scenario says ranks: {}, but the job has {} MPI ranks (run with "
                      "mpirun -np {}, or --set ranks={})",
                      s_.source, *s_.ranks, nranks_, *s_.ranks, nranks_));
    }
  }

  void setup() {
    check_ranks();
    machine_ = describe_machine(s_.machine, comm_);
    // Simulated ranks share simulated cores as the preset lays them out; only real ones
    // can oversubscribe real cores.
    const bool real = std::string(engine_name()) == "mpi";
    const int oversubscribed = allreduce(
        real && machine_.ranks_on_my_node > static_cast<int>(machine_.cores_on_my_node) ? 1 : 0, MPI_MAX, comm_);
    // The rank-reorder mode shares cores on purpose, and its waiting ranks must not spin.
    sleep_while_waiting_ = real && (oversubscribed || s_.cores);
    if (oversubscribed && !s_.cores && me_ == 0) {
      warnings_ += fmt::format(
          "warning: {} ranks share {} cores on {}; wall times measure time-sharing, not "
          "imbalance\n",
          machine_.ranks_on_my_node, machine_.cores_on_my_node, host_name());
    }
    graph_ = build_mesh(s_.mesh, s_.seed, comm_);
    if (graph_.global_vertices < nranks_) {
      throw AgreedInputError(fmt::format("{}: the mesh has {} vertices but the job has {} ranks; use at most {} ranks",
                                         s_.source, graph_.global_vertices, nranks_, graph_.global_vertices));
    }
    collectively(comm_, [&] {
      field_ = std::make_unique<WorkloadField>(s_.workload, graph_, s_.seed);
      family_ = s_.balancer.config.family();
      s_.balancer.config.check_dims(field_->dims());
      balancer_ = make_balancer(s_.balancer.config);
    });
    if (field_->dims() > 1) phase_comm_ = duplicate_comm(comm_);
    place_at_start(graph_, s_.distribution, s_.seed, comm_);
    setup_wan_delay();
    migrator_ = std::make_unique<Migrator>(comm_, s_.workload.element_bytes, s_.seed);
    lb_exchange_ = std::make_unique<SparseExchange>(comm_);
    balancer_->prepare(lb_comm_);
    work_ = make_compute_phase(s_.workload.unit_seconds, o_.recalibrate, comm_);
    rebuild_exchange();
    initial_comm_ = comm_census();
    compute_.assign(static_cast<std::size_t>(s_.steps), 0.0);
    phase_compute_.assign(static_cast<std::size_t>(field_->dims()),
                          std::vector<double>(static_cast<std::size_t>(s_.steps), 0.0));
    wait_.assign(static_cast<std::size_t>(s_.steps), 0.0);
    wall_.assign(static_cast<std::size_t>(s_.steps), 0.0);
  }

  // On real MPI, a preset with several sites gets Koenig & Kale's delay device; under
  // SMPI the simulated WAN link has the latency itself.
  void setup_wan_delay() {
    if (std::string(engine_name()) != "mpi" || !s_.machine.definition || s_.machine.definition->sites < 2) return;
    WanDelay d;
    d.rank_site = machine_.info.rank_site.values();
    d.latency = s_.machine.effective_preset().wan_latency;
    d.clock_offset = clock_offset_to_rank0(comm_);
    wan_delay_ = d;
  }

  void rebuild_exchange() {
    exchange_.reset();
    exchange_ = std::make_unique<HaloExchange>(graph_, s_.workload.edge_bytes, s_.workload.messages, halo_comm_,
                                               wan_delay_ ? &*wan_delay_ : nullptr);
    exchange_->sleep_while_waiting(sleep_while_waiting_);
    phase_time_.assign(static_cast<std::size_t>(field_->dims()),
                       std::vector<double>(static_cast<std::size_t>(graph_.num_local()), 0.0));
    steps_since_lb_ = 0;
    weights_ready_ = false;
  }

  bool is_lb_point(int step) const {
    return family_ != Family::baseline && (step + 1) % s_.balancer.period == 0 && step + 1 < s_.steps;
  }

  // Algorithm 3, lines 3-9.
  void run_step(int step) {
    const double t0 = now_seconds();
    if (!weights_ready_ || !field_->is_static()) {
      field_->weights(graph_, step, weights_);
      weights_ready_ = true;
    }
    exchange_->post();
    const double computing = s_.workload.schedule == Schedule::bulk ? run_bulk(step) : run_message_driven(step);
    const double t_end = now_seconds();
    const auto i = static_cast<std::size_t>(step);
    compute_[i] = computing;
    wait_[i] = t_end - t0 - computing;
    wall_[i] = t_end - t0;
    ++steps_since_lb_;
  }

  // Algorithm 3: all work, then wait. Returns the time spent computing. A vector workload
  // runs its phases in order, each ended by a barrier (as a multi-phase code synchronizes,
  // say to agree on a time step), so each phase's slowest rank costs time. The barrier
  // after the last phase matters too: without it, a rank whose heavy phase comes first
  // runs ahead into the next step, and the phases of consecutive steps overlap.
  double run_bulk(int step) {
    double computing = 0;
    const int dims = field_->dims();
    for (int k = 0; k < dims; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      const double start = now_seconds();
      work_->run(weights_[ku], phase_time_[ku]);
      const double phase = now_seconds() - start;
      phase_compute_[ku][static_cast<std::size_t>(step)] = phase;
      computing += phase;
      if (dims > 1) MPI_Barrier(phase_comm_);  // a scalar workload is Algorithm 3 as it stands
    }
    exchange_->wait(step, o_.watchdog_seconds);
    return computing;
  }

  // Interior vertices while messages fly, then each vertex once its messages are in.
  double run_message_driven(int step) {
    double start = now_seconds();
    work_->run_some(exchange_->interior(), weights_[0], phase_time_[0]);
    double computing = now_seconds() - start;
    for (auto ready = exchange_->next_ready(step, o_.watchdog_seconds); !ready.empty();
         ready = exchange_->next_ready(step, o_.watchdog_seconds)) {
      start = now_seconds();
      work_->run_some(ready, weights_[0], phase_time_[0]);
      computing += now_seconds() - start;
    }
    exchange_->finish(step, o_.watchdog_seconds);
    return computing;
  }

  // What the balancer is told each local vertex costs, per component (vertex-major).
  std::vector<Load> vertex_load_vectors() const {
    const auto dims = static_cast<std::size_t>(field_->dims());
    const auto n = static_cast<std::size_t>(graph_.num_local());
    std::vector<Load> loads(n * dims);
    const std::vector<double> messages =
        s_.model == AppModel::weights ? message_cost_estimates() : std::vector<double>(n, 0.0);
    for (std::size_t v = 0; v < n; ++v) {
      const double error = model_error_factor(graph_.gid[v]);
      for (std::size_t k = 0; k < dims; ++k) loads[v * dims + k] = Load(error * modeled_load(v, k));
      // The halo exchange completes after the step's last phase.
      loads[v * dims + dims - 1] += Load(error * messages[v]);
    }
    return loads;
  }

  // The `weights` model's estimate of what each local vertex's messages cost per step, as
  // an application would reckon its halo exchange: α + β·bytes for every message the vertex
  // sends to another rank (its receives overlap them). A per-neighbor message shares its α
  // among the edges it carries. α and β are the machine's (see MachineInfo).
  std::vector<double> message_cost_estimates() const {
    const double alpha = machine_.info.message_latency_s();
    const double beta = machine_.info.seconds_per_byte();
    const bool per_neighbor = s_.workload.messages == MessageMode::per_neighbor;
    std::unordered_map<int, std::int64_t> edges_to;  // remote edges per neighbor rank
    if (per_neighbor) {
      for (const Rank owner : graph_.adj_owner) {
        if (owner != Rank{me_}) ++edges_to[owner.value()];
      }
    }
    std::vector<double> cost(static_cast<std::size_t>(graph_.num_local()), 0.0);
    for (LocalIndex v = 0; v < graph_.num_local(); ++v) {
      for (std::int64_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        const Rank owner = graph_.adj_owner[static_cast<std::size_t>(e)];
        if (owner == Rank{me_}) continue;
        const auto bytes = static_cast<double>(s_.workload.edge_bytes * graph_.edge_weight(e));
        const double start_up = per_neighbor ? alpha / static_cast<double>(edges_to.at(owner.value())) : alpha;
        cost[static_cast<std::size_t>(v)] += start_up + beta * bytes;
      }
    }
    return cost;
  }

  double modeled_load(std::size_t v, std::size_t k) const {
    switch (s_.model) {
      case AppModel::measured: return phase_time_[k][v] / steps_since_lb_;
      case AppModel::weights:
      case AppModel::weights_no_comm: return weights_[k][v] * s_.workload.unit_seconds;
      case AppModel::counts: return s_.workload.unit_seconds / static_cast<double>(field_->dims());
    }
    return 0;
  }

  // The scenario's `model_error` for one vertex at this LB call: 0 for a vertex the model
  // leaves out, else mean-one log-normal noise. A pure function of (seed, vertex, call),
  // so it does not depend on where the vertex lives.
  double model_error_factor(VertexId v) const {
    const ModelError& e = s_.model_error;
    if (!e.any()) return 1.0;
    const auto id = static_cast<std::uint64_t>(v.value());
    if (e.omit > 0 && uniform01({s_.seed, tag(Stream::model_error), id}) < e.omit) return 0.0;
    if (e.noise <= 0) return 1.0;
    const auto call = static_cast<std::uint64_t>(events_.size());
    const double z = standard_normal(hash_of({s_.seed, tag(Stream::model_error), id, call + 1}));
    return std::exp(e.noise * z - 0.5 * e.noise * e.noise);
  }

  std::vector<Load> summed(const std::vector<Load>& vectors) const {
    const auto dims = static_cast<std::size_t>(field_->dims());
    std::vector<Load> loads(vectors.size() / dims);
    for (std::size_t v = 0; v < loads.size(); ++v) {
      for (std::size_t k = 0; k < dims; ++k) loads[v] += vectors[v * dims + k];
    }
    return loads;
  }

  // Algorithm 3, lines 10-13: decide, then migrate, then refresh what the loop uses.
  void balance(int step) {
    const std::vector<Load> vectors = vertex_load_vectors();
    const std::vector<Load> loads = summed(vectors);
    const Load rank_load = std::accumulate(loads.begin(), loads.end(), Load{});
    const int dims = field_->dims();
    const LoadView view{.graph = graph_,
                        .vertex_load = loads,
                        .dims = dims,
                        .vertex_load_vec = dims > 1 ? std::span<const Load>(vectors) : std::span<const Load>(),
                        .edge_bytes = s_.workload.edge_bytes,
                        .element_bytes = s_.workload.element_bytes,
                        .machine = machine_.info,
                        .rank = Rank{me_},
                        .nranks = nranks_,
                        .seed = s_.seed,
                        .invocation = static_cast<int>(events_.size()),
                        .step = step,
                        .period = s_.balancer.period,
                        .rank_load = rank_load,
                        .total_load = Load(allreduce(rank_load.seconds(), MPI_SUM, comm_)),
                        .max_rank_load = Load(allreduce(rank_load.seconds(), MPI_MAX, comm_))};
    std::optional<LoadMetrics> metrics = gather_load_metrics(rank_load.seconds(), step);
    const double t0 = now_seconds();
    const MigrationPlan plan = balancer_->plan(view, lb_comm_);
    const double decision = now_seconds() - t0;

    LbEvent event;
    event.step = step;
    event.before = comm_census();
    const double avg = view.total_load.seconds() / nranks_;
    event.imbalance_model_before = imbalance(view.max_rank_load.seconds(), avg);
    const PredictedAfter predicted = predict_after(plan, vectors, avg);
    event.imbalance_predicted_after = predicted.imbalance;
    if (dims > 1) {
      event.model_objective_before = vector_objective_of(rank_components(vectors, {}));
      event.model_objective_predicted_after = predicted.vector_objective;
    }

    const double t1 = now_seconds();
    const int current_step = step;
    const std::int64_t local_before = graph_.num_local();
    const MigrationStats stats = migrator_->migrate(graph_, plan, [&](const LocalGraph& g) {
      double sum = 0;
      for (LocalIndex v = 0; v < g.num_local(); ++v) {
        sum += field_->total_weight(g.gid[v], g.coords_of(v), g.vweights_of(v), current_step);
      }
      return sum;
    });
    rebuild_exchange();
    const double migration = now_seconds() - t1;
    if (o_.verify) verify_owner_tables(step);

    event.after = comm_census();
    event.migrated = allreduce(stats.vertices_sent, MPI_SUM, comm_);
    event.migrated_bytes = allreduce(stats.bytes_sent, MPI_SUM, comm_);
    event.arrived_max = allreduce(graph_.num_local() - local_before + stats.vertices_sent, MPI_MAX, comm_);
    event.decision_s = allreduce(decision, MPI_MAX, comm_);
    event.migration_s = allreduce(migration, MPI_MAX, comm_);
    event.protocol = plan.protocol;
    event.metrics = std::move(metrics);
    event.decision = plan.decision;
    events_.push_back(event);
  }

  // Two doubles per rank, gathered on rank 0: the metrics need every rank's load (the rank
  // correlation sorts them), and nothing else of the graph.
  std::optional<LoadMetrics> gather_load_metrics(double model_load, int step) const {
    const int from = events_.empty() ? 0 : events_.back().step + 1;
    double measured = 0;
    for (int s = from; s <= step; ++s) measured += compute_[static_cast<std::size_t>(s)];
    measured /= static_cast<double>(step - from + 1);
    const std::array<double, 2> mine{model_load, measured};
    std::vector<double> all(me_ == 0 ? 2 * static_cast<std::size_t>(nranks_) : 0);
    MPI_Gather(mine.data(), 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, comm_);
    if (me_ != 0) return std::nullopt;
    std::vector<double> model(static_cast<std::size_t>(nranks_));
    std::vector<double> measured_loads(model.size());
    for (std::size_t r = 0; r < model.size(); ++r) {
      model[r] = all[2 * r];
      measured_loads[r] = all[2 * r + 1];
    }
    return LoadMetrics{load_moments(model), load_moments(measured_loads), rank_correlation(model, measured_loads)};
  }

  CommCensus comm_census() const {
    const int my_site = machine_.info.rank_site[static_cast<std::size_t>(me_)];
    const std::int64_t cross = exchange_->messages_to(
        [&](int peer) { return machine_.info.rank_site[static_cast<std::size_t>(peer)] != my_site; });
    CommCensus c;
    c.cut = allreduce(exchange_->remote_edges(), MPI_SUM, comm_) / 2;
    c.cut_bytes = allreduce(exchange_->remote_edge_bytes(), MPI_SUM, comm_) / 2;
    c.messages = allreduce(exchange_->messages_per_step(), MPI_SUM, comm_);
    c.cross_site_messages = allreduce(cross, MPI_SUM, comm_);
    return c;
  }

  // This rank's load per component, over its vertices except those the plan moves away
  // (whose loads are added to `given`, per target rank).
  std::vector<double> rank_components(const std::vector<Load>& vectors, const MigrationPlan& plan,
                                      std::unordered_map<int, std::vector<double>>* given = nullptr) const {
    const auto dims = static_cast<std::size_t>(field_->dims());
    const std::size_t n = vectors.size() / dims;
    std::vector<double> kept(dims, 0.0);
    std::vector<char> leaves(n, 0);
    for (const auto& m : plan.moves) {
      if (m.vertex < 0 || static_cast<std::size_t>(m.vertex) >= n || m.to == Rank{me_}) continue;
      leaves[static_cast<std::size_t>(m.vertex)] = 1;
      if (!given) continue;
      auto& out = (*given)[m.to.value()];
      out.resize(dims, 0.0);
      for (std::size_t k = 0; k < dims; ++k) out[k] += vectors[static_cast<std::size_t>(m.vertex) * dims + k].seconds();
    }
    for (std::size_t v = 0; v < n; ++v) {
      if (leaves[v]) continue;
      for (std::size_t k = 0; k < dims; ++k) kept[k] += vectors[v * dims + k].seconds();
    }
    return kept;
  }

  // Σ_k max_r, over ranks (collective).
  double vector_objective_of(const std::vector<double>& mine) {
    std::vector<double> worst(mine.size());
    MPI_Allreduce(mine.data(), worst.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, comm_);
    return std::accumulate(worst.begin(), worst.end(), 0.0);
  }

  // What the plan gives on the loads the balancer saw: each rank sends the load it gives
  // away to its targets (a sparse exchange, nothing of size P).
  PredictedAfter predict_after(const MigrationPlan& plan, const std::vector<Load>& vectors, double avg) {
    std::unordered_map<int, std::vector<double>> given;
    std::vector<double> after = rank_components(vectors, plan, &given);
    std::unordered_map<int, Bytes> outgoing;
    for (const auto& [peer, load] : given) {
      ByteWriter w(outgoing[peer]);
      for (double x : load) w.put(x);
    }
    for (const auto& m : lb_exchange_->exchange(to_messages(outgoing))) {
      ByteReader r(m.data);
      for (double& x : after) x += r.get<double>();
    }
    PredictedAfter out;
    out.imbalance = imbalance(allreduce(std::accumulate(after.begin(), after.end(), 0.0), MPI_MAX, comm_), avg);
    if (field_->dims() > 1) out.vector_objective = vector_objective_of(after);
    return out;
  }

  void verify_owner_tables(int step) {
    const std::int64_t wrong = count_wrong_owner_entries(graph_, comm_);
    if (wrong != 0) {
      throw AgreedRunError(
          fmt::format("after the migration at step {}, {} owner-table entries are wrong", step, wrong));
    }
  }

  [[nodiscard]] Totals reduce_totals(double elapsed) const;
  [[nodiscard]] Json make_record(const Totals& t) const;
  [[nodiscard]] Json run_prediction(const Totals& t) const;
  [[nodiscard]] Json load_vector_json(const Totals& t) const;
  [[nodiscard]] std::string make_summary(const Totals& t) const;
  [[nodiscard]] std::string make_steps_csv(const Totals& t) const;
  RunOutcome finish(double elapsed);

  const Scenario& s_;
  const RunOptions& o_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm lb_comm_ = MPI_COMM_NULL;
  MPI_Comm halo_comm_ = MPI_COMM_NULL;
  MPI_Comm phase_comm_ = MPI_COMM_NULL;  // the barriers between phases
  int me_;
  int nranks_;
  std::string start_time_;
  std::chrono::steady_clock::time_point real_start_;  // host time, even under SMPI
  double setup_s_ = 0;                                 // from the replay's start to its first step
  std::string warnings_;
  bool sleep_while_waiting_ = false;
  MachineLayout machine_;
  LocalGraph graph_;
  std::unique_ptr<WorkloadField> field_;
  Family family_ = Family::baseline;
  std::unique_ptr<Balancer> balancer_;
  std::unique_ptr<Migrator> migrator_;
  std::unique_ptr<SparseExchange> lb_exchange_;
  std::unique_ptr<ComputePhase> work_;
  std::optional<WanDelay> wan_delay_;
  std::unique_ptr<HaloExchange> exchange_;
  CommCensus initial_comm_;

  std::vector<std::vector<double>> weights_;  // per component, per local vertex
  bool weights_ready_ = false;
  std::vector<std::vector<double>> phase_time_;     // per component, per local vertex, summed since the last LB
  std::vector<std::vector<double>> phase_compute_;  // per component, per step, this rank
  int steps_since_lb_ = 0;
  std::vector<double> compute_, wait_, wall_;  // per step, this rank
  std::vector<LbEvent> events_;
};

Totals Replay::reduce_totals(double elapsed) const {
  Totals t;
  const auto steps = static_cast<std::size_t>(s_.steps);
  for (auto* v : {&t.compute_max, &t.compute_sum, &t.wall_max, &t.wait_sum}) v->resize(steps);
  MPI_Reduce(compute_.data(), t.compute_max.data(), s_.steps, MPI_DOUBLE, MPI_MAX, 0, comm_);
  MPI_Reduce(compute_.data(), t.compute_sum.data(), s_.steps, MPI_DOUBLE, MPI_SUM, 0, comm_);
  MPI_Reduce(wall_.data(), t.wall_max.data(), s_.steps, MPI_DOUBLE, MPI_MAX, 0, comm_);
  MPI_Reduce(wait_.data(), t.wait_sum.data(), s_.steps, MPI_DOUBLE, MPI_SUM, 0, comm_);
  const double p = nranks_;
  t.total_time = allreduce(elapsed, MPI_MAX, comm_);
  const double my_compute = std::accumulate(compute_.begin(), compute_.end(), 0.0);
  t.compute_mean = allreduce(my_compute, MPI_SUM, comm_) / p;
  t.compute_max_rank = allreduce(my_compute, MPI_MAX, comm_);
  t.comm = comm_census();
  // Keeps do_work's reads observable, so no compiler can drop them.
  (void)allreduce(static_cast<double>(work_->checksum() & 0xFF), MPI_SUM, comm_);
  t.wait_mean = std::accumulate(t.wait_sum.begin(), t.wait_sum.end(), 0.0) / p;
  if (field_->dims() > 1) {
    for (const auto& mine : phase_compute_) {
      auto& mx = t.phase_max.emplace_back(steps);
      auto& sum = t.phase_sum.emplace_back(steps);
      MPI_Reduce(mine.data(), mx.data(), s_.steps, MPI_DOUBLE, MPI_MAX, 0, comm_);
      MPI_Reduce(mine.data(), sum.data(), s_.steps, MPI_DOUBLE, MPI_SUM, 0, comm_);
    }
  }
  t.imbalance.resize(steps);
  for (std::size_t i = 0; i < steps; ++i) {
    t.imbalance[i] = imbalance(t.compute_max[i], t.compute_sum[i] / p);
    t.perfect += t.compute_sum[i] / p;
  }
  for (const auto& e : events_) {
    t.lb_time += e.decision_s;
    t.migration_time += e.migration_s;
    t.migrations += e.migrated;
    t.migrated_bytes += e.migrated_bytes;
  }
  return t;
}

Json Replay::load_vector_json(const Totals& t) const {
  std::vector<double> objective, perfect;
  Json phase_max = Json::object(), phase_avg = Json::object();
  for (std::size_t i = 0; i < t.imbalance.size(); ++i) {
    objective.push_back(t.vector_objective(i));
    double avg = 0;
    for (const auto& sum : t.phase_sum) avg += sum[i] / nranks_;
    perfect.push_back(avg);
  }
  for (std::size_t k = 0; k < t.phase_max.size(); ++k) {
    const std::string& name = field_->names()[k];
    phase_max[name] = t.phase_max[k];
    std::vector<double> avg(t.phase_sum[k]);
    for (double& a : avg) a /= nranks_;
    phase_avg[name] = avg;
  }
  return Json{{"components", field_->names()},
              {"objective_mean_s", std::accumulate(objective.begin(), objective.end(), 0.0) / s_.steps},
              {"objective_per_step_s", objective},
              {"perfect_per_step_s", perfect},
              {"phase_max_s", phase_max},
              {"phase_avg_s", phase_avg}};
}

// The whole run as `auto`'s first call predicted it, for each candidate: the measured
// steps up to the call, then the paper's assumption (equations 9 and 11) that the loads
// stay as they are, so the candidate's one call sets every later step's L_max. A run of
// the candidate also calls it at every later LB point, which then finds the load balanced
// and moves nothing, but still pays its decision (and, with fitted costs, the migration
// engine's fixed work): `repeat_s` each. The report scores these against the runs of each
// candidate.
Json Replay::run_prediction(const Totals& t) const {
  const auto first =
      std::find_if(events_.begin(), events_.end(), [](const LbEvent& e) { return !e.decision.is_null(); });
  if (first == events_.end()) return nullptr;
  const auto upto = static_cast<std::size_t>(first->step) + 1;
  const double before =
      std::accumulate(t.wall_max.begin(), t.wall_max.begin() + static_cast<std::ptrdiff_t>(upto), 0.0);
  const double steps_after = static_cast<double>(s_.steps) - static_cast<double>(upto);
  int later_calls = 0;
  for (int step = first->step + 1; step < s_.steps; ++step) later_calls += is_lb_point(step) ? 1 : 0;
  const Json& d = first->decision;
  Json candidates = Json::object();
  for (const auto& [name, c] : d["candidates"].items()) {
    const double rest = name == "none" ? steps_after * d["lmax_before_s"].get<double>()
                                       : c["decision_s"].get<double>() + c["migration_s"].get<double>() +
                                             later_calls * c.value("repeat_s", c["decision_s"].get<double>()) +
                                             steps_after * c["lmax_after_s"].get<double>();
    candidates[name] = Json{{"total_s", before + rest}};
  }
  return Json{
      {"chosen", d["chosen"]}, {"at_step", first->step}, {"later_calls", later_calls}, {"candidates", candidates}};
}

Json Replay::make_record(const Totals& t) const {
  Json before = Json::array(), after = Json::array(), predicted = Json::array(), lb = Json::array();
  for (const auto& e : events_) {
    const auto i = static_cast<std::size_t>(e.step);
    before.push_back(t.imbalance[i]);
    after.push_back(t.imbalance[i + 1]);
    predicted.push_back(e.imbalance_predicted_after);
    Json& call = lb.emplace_back(Json{{"step", e.step},
                                      {"imbalance_before", t.imbalance[i]},
                                      {"imbalance_after", t.imbalance[i + 1]},
                                      {"model_imbalance_before", e.imbalance_model_before},
                                      {"model_imbalance_predicted_after", e.imbalance_predicted_after},
                                      {"migrations", e.migrated},
                                      {"migrated_bytes", e.migrated_bytes},
                                      {"elements_moved_max", e.arrived_max},
                                      {"decision_s", e.decision_s},
                                      {"migration_s", e.migration_s},
                                      {"before", to_json(e.before)},
                                      {"after", to_json(e.after)}});
    if (e.protocol) call["protocol"] = e.protocol->to_json();
    if (!e.decision.is_null()) call["prediction"] = e.decision;
    if (e.metrics) {
      call["metrics"] =
          Json{{"model", to_json(e.metrics->model)},
               {"measured", to_json(e.metrics->measured)},
               {"rank_correlation", e.metrics->rank_correlation ? Json(*e.metrics->rank_correlation) : Json(nullptr)}};
    }
    if (t.has_vectors()) {
      call["vector"] = Json{{"objective_before_s", t.vector_objective(i)},
                            {"objective_after_s", t.vector_objective(i + 1)},
                            {"max_over_avg_before", t.max_over_avg(i, nranks_)},
                            {"max_over_avg_after", t.max_over_avg(i + 1, nranks_)},
                            {"model_objective_before_s", e.model_objective_before},
                            {"model_objective_predicted_after_s", e.model_objective_predicted_after}};
    }
  }
  Json r;
  r["schema"] = kRunSchema;
  r["scenario"] = s_.name;
  r["scenario_sha256"] = scenario_sha256(s_);
  r["scenario_file"] = s_.source;
  r["balancer"] = s_.balancer.name();
  r["balancer_family"] = family_name(family_);
  r["balancer_params"] = s_.balancer.config.params_json();
  r["lb_period"] = s_.balancer.period;
  r["model"] = to_string(s_.model);
  r["engine"] = engine_name();
  r["machine"] = s_.machine.preset;
  r["ranks"] = nranks_;
  r["nodes"] = machine_.nodes;
  r["vertices"] = graph_.global_vertices;
  r["edges"] = graph_.global_edges;
  r["steps"] = s_.steps;
  r["seed"] = s_.seed;
  r["total_time_s"] = t.total_time;
  r["compute_time_s"] = t.compute_mean;
  r["compute_time_max_s"] = t.compute_max_rank;
  r["wait_time_s"] = t.wait_mean;
  r["lb_time_s"] = t.lb_time;
  r["migration_time_s"] = t.migration_time;
  r["perfect_balance_time_s"] = t.perfect;
  r["migrations"] = t.migrations;
  r["migrated_bytes"] = t.migrated_bytes;
  r["lb_invocations"] = events_.size();
  r["imbalance_before"] = before;
  r["imbalance_after"] = after;
  r["imbalance_predicted_after"] = predicted;
  r["imbalance_mean"] = std::accumulate(t.imbalance.begin(), t.imbalance.end(), 0.0) / s_.steps;
  r["edge_cut_initial"] = initial_comm_.cut;
  r["edge_cut"] = t.comm.cut;
  r["edge_cut_bytes"] = t.comm.cut_bytes;
  r["messages_per_step"] = t.comm.messages;
  if (machine_.info.sites > 1) r["cross_site_messages_per_step"] = t.comm.cross_site_messages;
  r["lb"] = lb;
  r["per_step"] = Json{{"wall_max_s", t.wall_max}, {"compute_max_s", t.compute_max}, {"imbalance", t.imbalance}};
  if (s_.machine.definition) r["machine_preset"] = s_.machine.effective_preset().to_json();
  if (std::string(engine_name()) == "smpi") {
    // All simulated ranks share one process: its peak memory is the simulation's.
    r["simulation"] =
        Json{{"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - real_start_).count()},
             {"peak_rss_mb", peak_rss_mb()},
             {"setup_s", setup_s_}};
  }
  if (t.has_vectors()) r["load_vector"] = load_vector_json(t);
  r["prediction"] = run_prediction(t);
  r["config"] = normalized(s_);
  int level = 0;
  MPI_Query_thread(&level);
  r["provenance"] = Json{{"git", git_describe()},
                         {"host", host_name()},
                         {"mpi_library", mpi_library_version()},
                         {"mpi_thread_level", thread_level_name(level)},
                         {"start_time", start_time_},
                         {"command", o_.command_line},
                         {"work", work_->describe()}};
  return r;
}

std::string Replay::make_summary(const Totals& t) const {
  std::string out = fmt::format("lbbench · {} · {} ranks on {} ({}) · {} vertices · {} edges · {} steps · balancer {}",
                                s_.name, nranks_, s_.machine.preset, engine_name(), graph_.global_vertices,
                                graph_.global_edges, s_.steps, s_.balancer.name());
  out += family_ == Family::baseline ? "\n" : fmt::format(" every {} steps\n", s_.balancer.period);
  if (std::string(engine_name()) == "smpi") out += "  (times are simulated)\n";
  out += fmt::format(
      "  total {:.3f} s   compute {:.3f} s (mean/rank)   wait {:.3f} s   LB {:.3f} s   migration {:.3f} s\n",
      t.total_time, t.compute_mean, t.wait_mean, t.lb_time, t.migration_time);
  const double mean = std::accumulate(t.imbalance.begin(), t.imbalance.end(), 0.0) / s_.steps;
  out += fmt::format("  imbalance (max/avg - 1): first step {:.1f}%, last step {:.1f}%, mean {:.1f}%\n",
                     100 * t.imbalance.front(), 100 * t.imbalance.back(), 100 * mean);
  if (t.has_vectors()) {
    const std::size_t last = t.imbalance.size() - 1;
    std::string names;
    for (const auto& n : field_->names()) names += (names.empty() ? "" : ", ") + n;
    out += fmt::format("  load vector ({}): sum of phase maxima {:.2f} ms at the first step, {:.2f} ms at the last\n",
                       names, 1e3 * t.vector_objective(0), 1e3 * t.vector_objective(last));
  }
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const auto& e = events_[i];
    const auto step = static_cast<std::size_t>(e.step);
    out += fmt::format(
        "  LB {} after step {}: imbalance {:.1f}% -> {:.1f}% (predicted {:.1f}%), {} vertices moved ({:.2f} MB)\n",
        i + 1, e.step, 100 * t.imbalance[step], 100 * t.imbalance[step + 1], 100 * e.imbalance_predicted_after,
        e.migrated, static_cast<double>(e.migrated_bytes) / 1e6);
    if (t.has_vectors()) {
      out += fmt::format("        sum of phase maxima {:.2f} -> {:.2f} ms (the model: {:.2f} -> {:.2f} ms predicted)\n",
                         1e3 * t.vector_objective(step), 1e3 * t.vector_objective(step + 1),
                         1e3 * e.model_objective_before, 1e3 * e.model_objective_predicted_after);
    }
    if (e.protocol) {
      out += fmt::format("        protocol: {} rounds, {} messages ({:.1f} kB), largest list {}, decided in {:.3f} s\n",
                         e.protocol->rounds, e.protocol->messages, static_cast<double>(e.protocol->bytes) / 1e3,
                         e.protocol->largest_list, e.decision_s);
    }
  }
  out += fmt::format("  edge cut {} -> {} edges; {} messages per step", initial_comm_.cut, t.comm.cut, t.comm.messages);
  out += machine_.info.sites > 1 ? fmt::format(", {} between sites\n", t.comm.cross_site_messages) : "\n";
  out += fmt::format("  perfect balance would take {:.3f} s ({:.1f}% less)\n", t.perfect,
                     t.total_time > 0 ? 100.0 * (t.total_time - t.perfect) / t.total_time : 0.0);
  return out;
}

std::string Replay::make_steps_csv(const Totals& t) const {
  std::string csv = "step,wall_max_s,compute_max_s,compute_avg_s,wait_avg_s,imbalance,lb\n";
  const double p = nranks_;
  std::size_t next_event = 0;
  for (std::size_t i = 0; i < t.imbalance.size(); ++i) {
    const bool lb_here = next_event < events_.size() && static_cast<std::size_t>(events_[next_event].step) == i;
    if (lb_here) ++next_event;
    csv += fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{}\n", i, t.wall_max[i], t.compute_max[i],
                       t.compute_sum[i] / p, t.wait_sum[i] / p, t.imbalance[i], lb_here ? 1 : 0);
  }
  return csv;
}

RunOutcome Replay::finish(double elapsed) {
  const Totals totals = reduce_totals(elapsed);
  RunOutcome out;
  if (me_ != 0) return out;
  out.reporter = true;
  out.record = make_record(totals);
  out.summary = make_summary(totals);
  out.warnings = warnings_;
  out.steps_csv = make_steps_csv(totals);
  return out;
}

}  // namespace

RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options, MPI_Comm comm) {
  if (!scenario.cores && !scenario.reorder) return Replay(scenario, options, comm).run();
  StartupReorder start = reorder_at_start(scenario, comm);
  RunOutcome out;
  try {
    out = Replay(scenario, options, start.comm).run();
  } catch (...) {
    MPI_Comm_free(&start.comm);
    throw;
  }
  MPI_Comm_free(&start.comm);
  if (out.reporter) {
    out.record["reorder"] = start.report;
    out.summary += start.summary;
  }
  return out;
}

}  // namespace lbbench
