// The replay benchmark (see replay.hpp): set-up, the step loop with its LB calls, and the
// record. The pieces: step_loop (Algorithm 3's step), load_model (what balancers are
// told), lb_call (an LB point), record_builder (the end of a run).
#include "replay/replay.hpp"

#include <fmt/format.h>

#include <array>
#include <memory>

#include "balancers/sdk/factory.hpp"
#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/version.hpp"
#include "meshes/build.hpp"
#include "replay/call_ledger.hpp"
#include "replay/distribution.hpp"
#include "replay/engine.hpp"
#include "replay/lb_call.hpp"
#include "replay/lb_points.hpp"
#include "replay/migration.hpp"
#include "replay/placement.hpp"
#include "replay/rank_loads.hpp"
#include "replay/record_builder.hpp"
#include "replay/regrid.hpp"
#include "replay/startup_reorder.hpp"
#include "replay/step_loop.hpp"
#include "replay/trace_export.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

namespace {

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
  Replay(const Scenario& s, const RunOptions& o, const Engine& engine, MPI_Comm comm)
      : s_(s), o_(o), engine_(engine), me_(comm_rank(comm)), nranks_(comm_size(comm)) {
    comm_ = duplicate_comm(comm);
    lb_comm_ = duplicate_comm(comm);
    halo_comm_ = duplicate_comm(comm);
  }
  ~Replay() {
    loop_.reset();
    if (phase_comm_ != MPI_COMM_NULL) MPI_Comm_free(&phase_comm_);
    MPI_Comm_free(&halo_comm_);
    MPI_Comm_free(&lb_comm_);
    MPI_Comm_free(&comm_);
  }
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  RunOutcome run() {
    const std::string start_time = utc_timestamp();
    const double host_start = wall_seconds();
    const double t_setup = engine_.now();
    setup();
    std::unique_ptr<RankExport> exported;
    if (!o_.lbdatafile_out.empty()) {
      collectively(comm_, [&] {
        exported = std::make_unique<RankExport>(o_.lbdatafile_out, s_, trace_.get(), me_, nranks_,
                                                engine_.info().process_per_rank);
      });
    }
    MPI_Barrier(comm_);
    const double t_start = engine_.now();
    // Writing the export is not the run's time: each step's is written, the ranks wait for
    // the slowest writer, and the next step starts from there.
    double exporting = 0;
    std::vector<LbEvent> events;
    int measured_since = 0;  // the first step of the loads' window: after the last point
    double last_call_s = 0;  // this rank's share of the last call: its decision and migration
    LoadLook look(comm_);
    LbPoints points(s_, *balancer_);
    for (int step = 0; step < s_.steps; ++step) {
      const bool point = is_lb_point(s_, step);
      const bool regrid = is_regrid_point(s_, step);
      if (regridder_) {
        live_blocks_.push_back(graph_.global_vertices);
        live_edges_.push_back(graph_.global_edges);
      }
      loop_->run(graph_, step, o_.watchdog_seconds, !exported && !point && !regrid && step + 1 < s_.steps);
      if (exported) {
        const double t = engine_.now();
        exported->step(graph_, *loop_, step);
        loop_->barrier(step, o_.watchdog_seconds, "after writing the LBDatafile export");
        exporting += engine_.now() - t;
      }
      // The mesh changes before anything looks at it: a look or an LB call after this step
      // sees the new blocks, as a code that balances after it regrids.
      if (regrid) regrid_after(step);
      const LbPoint at{.step = step, .invocation = static_cast<int>(events.size()), .measured_since = measured_since};
      if (points.look_starts(step)) look.start(lb_context(*balancer_), graph_, *loop_, at, last_call_s);
      if (!points.takes_point(step)) continue;
      Balancer* calling = points.calling([&] {
        if (!look.started()) look.start(lb_context(*balancer_), graph_, *loop_, at, last_call_s);
        return look.finish(s_, machine_.info, step);
      });
      if (!calling) {
        last_call_s = 0;  // the point kept the distribution (LbPoints::calling)
        continue;
      }
      events.push_back(run_lb_call(lb_context(*calling), graph_, *loop_, at, last_call_s));
      if (points.looks() && me_ == 0) events.back().prediction = points.last_choice();
      measured_since = step + 1;
    }
    const double elapsed = engine_.now() - t_start - exporting;
    ledger_->settle(events, field_->dims(), *prediction_exchange_, comm_);
    std::vector<RegridEvent> regrids = regridder_ ? regridder_->settle(comm_) : std::vector<RegridEvent>();
    if (!o_.rank_loads_out.empty()) write_rank_loads_of(events);
    if (exported) collectively(comm_, [&] { exported->close(); });
    const CommCensus final = loop_->census(machine_.info);
    // Keeps do_work's reads observable, so no compiler can drop them.
    (void)allreduce(static_cast<double>(work_->checksum() & 0xFF), MPI_SUM, comm_);
    RunOutcome out;
    out.record = build_record(RunEnd{.scenario = s_,
                                     .engine = engine_,
                                     .machine = machine_,
                                     .vertices = mesh_vertices_,
                                     .edges = mesh_edges_,
                                     .components = field_->names(),
                                     .steps = loop_->steps(),
                                     .events = std::move(events),
                                     .choices = points.take_choices(),
                                     .initial = initial_census_,
                                     .final = final,
                                     .elapsed_s = elapsed,
                                     .setup_s = t_start - t_setup,
                                     .host_wall_s = wall_seconds() - host_start,
                                     .provenance = provenance(start_time),
                                     .regrids = std::move(regrids),
                                     .live_blocks = live_blocks_,
                                     .live_edges = live_edges_},
                              comm_);
    if (trace_) out.record.trace = trace_info(*trace_, nranks_);
    out.reporter = me_ == 0;
    out.warnings = warnings_;
    return out;
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

  // Collective: the block mesh regrids after `step`, and the LB calls' record learns of it.
  void regrid_after(int step) {
    regridder_->regrid(graph_, *loop_, *migrator_, *field_, machine_.info, engine_, step, o_.verify);
    std::uint64_t digest = 0;
    for (const VertexId id : graph_.gid) digest += placement_term(id.value(), me_);
    ledger_->regridded(loop_->census_share(machine_.info), digest);
    placement_before_->forget();  // the blocks changed: the placement before the call is gone
  }

  void setup() {
    check_ranks();
    if (mesh_regrids(s_.mesh) && !o_.lbdatafile_out.empty()) {
      throw AgreedInputError(
          fmt::format("{}: --lbdatafile-out writes a fixed set of tasks, and this block mesh creates and destroys its "
                      "blocks as it regrids; leave --lbdatafile-out out",
                      s_.source));
    }
    machine_ = engine_.place(s_.machine, comm_);
    // Only real ranks can oversubscribe real cores; simulated ones share simulated cores
    // as the preset lays them out.
    const bool real = engine_.real_cores();
    const int oversubscribed = allreduce(
        real && machine_.ranks_on_my_node > static_cast<int>(machine_.cores_on_my_node) ? 1 : 0, MPI_MAX, comm_);
    // The rank-reorder mode shares cores on purpose, and its waiting ranks must not spin.
    const bool sleep_while_waiting = real && (oversubscribed || s_.cores);
    if (oversubscribed && !s_.cores && me_ == 0) {
      warnings_ += fmt::format(
          "warning: {} ranks share {} cores on {}; wall times measure time-sharing, not "
          "imbalance\n",
          machine_.ranks_on_my_node, machine_.cores_on_my_node, host_name());
    }
    Mesh mesh = build_mesh(s_.mesh, s_.seed, comm_);
    graph_ = std::move(mesh.graph);
    trace_ = std::move(mesh.trace);
    if (graph_.global_vertices < nranks_) {
      throw AgreedInputError(fmt::format("{}: the mesh has {} vertices but the job has {} ranks; use at most {} ranks",
                                         s_.source, graph_.global_vertices, nranks_, graph_.global_vertices));
    }
    collectively(comm_, [&] {
      field_ = std::make_unique<WorkloadField>(s_.workload, graph_, s_.seed, trace_);
      s_.balancer.config.check_dims(field_->dims());
      balancer_ = make_balancer(s_.balancer.config);
    });
    if (field_->dims() > 1) phase_comm_ = duplicate_comm(comm_);
    place_at_start(graph_, trace_.get(), s_.distribution, s_.seed, comm_, &s_.mesh);
    // Rank 0's, on every rank (before the clock): a balancer that prices a migration it has
    // not run (`auto`) prices it alike everywhere.
    MigrationCode& code = machine_.info.migration_code;
    if (me_ == 0) code = measure_migration_code(graph_, s_.workload.element_bytes, s_.seed);
    std::array<double, 3> per_vertex{code.pack_s, code.unpack_s, code.keep_s};
    MPI_Bcast(per_vertex.data(), 3, MPI_DOUBLE, 0, comm_);
    code = MigrationCode{.pack_s = per_vertex[0], .unpack_s = per_vertex[1], .keep_s = per_vertex[2]};
    std::optional<WanDelay> wan_delay = engine_.wan_delay(s_.machine, machine_.info, comm_);
    migrator_ = std::make_unique<Migrator>(comm_, s_.workload.element_bytes, s_.seed);
    if (mesh_regrids(s_.mesh)) regridder_ = std::make_unique<Regridder>(s_, comm_);
    prediction_exchange_ = std::make_unique<SparseExchange>(comm_);
    balancer_->prepare(lb_comm_);
    work_ = engine_.compute_phase(s_.workload.unit_seconds, comm_);
    // Each vertex's time is read only where it is used: measured loads at an LB call or in
    // the LBDatafile export.
    const bool time_vertices = s_.model == AppModel::measured && (has_lb_points(s_) || !o_.lbdatafile_out.empty());
    loop_ = std::make_unique<StepLoop>(s_, engine_, *field_, *work_, std::move(wan_delay), sleep_while_waiting,
                                       StepLoop::Comms{comm_, halo_comm_, phase_comm_}, time_vertices,
                                       s_.forecast == LoadForecast::trend || balancer_->needs_trends());
    loop_->rebuild(graph_);
    initial_census_ = loop_->census(machine_.info);
    // The mesh as it starts: a block mesh's blocks change as it regrids.
    mesh_vertices_ = graph_.global_vertices;
    mesh_edges_ = graph_.global_edges;
    // An LB call that moves nothing keeps this digest; measured here, before the run's
    // clock starts, so that such a call adds no collective of its own.
    ledger_ = std::make_unique<CallLedger>(placement_digest(graph_, comm_), initial_census_,
                                           loop_->census_share(machine_.info));
  }

  // After the run's clock: each rank's recorded steps gathered, written by rank 0.
  void write_rank_loads_of(const std::vector<LbEvent>& events) {
    std::vector<RankLoadRow> rows =
        gather_rank_loads(s_, loop_->steps(), field_->dims(), RankLoadSteps{o_.rank_loads_stride}, comm_);
    collectively(comm_, [&] {
      if (me_ != 0) return;
      write_rank_loads(o_.rank_loads_out,
                       RankLoadsFile{.scenario = s_,
                                     .engine = std::string(engine_.name()),
                                     .machine = machine_.info,
                                     .nranks = nranks_,
                                     .components = field_->names(),
                                     .rows = label_rows(std::move(rows), events, o_.rank_loads_stride)});
    });
  }

  [[nodiscard]] LbContext lb_context(Balancer& calling) const {
    return LbContext{.scenario = s_,
                     .engine = engine_,
                     .machine = machine_.info,
                     .field = *field_,
                     .balancer = calling,
                     .migrator = *migrator_,
                     .comm = comm_,
                     .balancer_comm = lb_comm_,
                     .verify = o_.verify,
                     .ledger = *ledger_,
                     .before = *placement_before_};
  }

  [[nodiscard]] Provenance provenance(const std::string& start_time) const {
    int level = 0;
    MPI_Query_thread(&level);
    return Provenance{.git = git_describe(),
                      .host = host_name(),
                      .mpi_library = mpi_library_version(),
                      .mpi_thread_level = thread_level_name(level),
                      .start_time = start_time,
                      .command = o_.command_line,
                      .work = work_->describe(),
                      .plugins = loaded_plugin_provenance()};
  }

  const Scenario& s_;
  const RunOptions& o_;
  const Engine& engine_;
  int me_;
  int nranks_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm lb_comm_ = MPI_COMM_NULL;
  MPI_Comm halo_comm_ = MPI_COMM_NULL;
  MPI_Comm phase_comm_ = MPI_COMM_NULL;  // the barriers between phases
  std::string warnings_;
  MachineLayout machine_;
  LocalGraph graph_;
  std::shared_ptr<const TraceLayout> trace_;  // the recorded run the mesh was read from, or null
  std::unique_ptr<WorkloadField> field_;
  std::unique_ptr<Balancer> balancer_;
  std::unique_ptr<Migrator> migrator_;
  std::unique_ptr<Regridder> regridder_;                 // a block mesh that regrids; null otherwise
  std::vector<std::int64_t> live_blocks_;                // its blocks in each step
  std::vector<std::int64_t> live_edges_;                 // and their edges
  std::unique_ptr<SparseExchange> prediction_exchange_;  // the plans' scores, when the run ends
  std::unique_ptr<CallLedger> ledger_;
  std::unique_ptr<PlacementBefore> placement_before_ = std::make_unique<PlacementBefore>();
  std::unique_ptr<ComputePhase> work_;
  std::unique_ptr<StepLoop> loop_;
  CommCensus initial_census_;
  std::int64_t mesh_vertices_ = 0;
  std::int64_t mesh_edges_ = 0;
};

}  // namespace

RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options, const Engine& engine, MPI_Comm comm) {
  if (!scenario.cores && !scenario.reorder) return Replay(scenario, options, engine, comm).run();
  StartupReorder start = reorder_at_start(scenario, engine, comm);
  RunOutcome out;
  try {
    out = Replay(scenario, options, engine, start.comm).run();
  } catch (...) {
    MPI_Comm_free(&start.comm);
    throw;
  }
  MPI_Comm_free(&start.comm);
  if (out.reporter) out.record.reorder = start.report;
  return out;
}

}  // namespace lbbench
