// Run records (contract: schema "lbbench.run/1", one JSON object per line, JSON Lines).
//
// An engine fills one RunRecord per run; every reporter reads one: the console summary and
// the per-step table (benchmark/app), `lbbench report` and the cost fits (harness). None of
// them re-derives what the record holds, and only this file writes the schema strings.
// Records are only ever extended: from_json reads records written before a field existed,
// leaving it empty (std::optional) or at its zero.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "balancers/model/metrics.hpp"
#include "balancers/sdk/protocol_stats.hpp"
#include "core/json_yaml.hpp"

namespace lbbench {

inline constexpr std::string_view kRunSchema = "lbbench.run/1";
inline constexpr std::string_view kFailureSchema = "lbbench.failure/1";

// The communication the current distribution causes each step, over all ranks.
struct CommCensus {
  std::int64_t edge_cut = 0;                      // cut edges
  std::int64_t edge_cut_bytes = 0;                // bytes they carry per step
  std::int64_t messages_per_step = 0;             // messages per step
  std::int64_t cross_site_messages_per_step = 0;  // of which between sites
  bool operator==(const CommCensus&) const = default;
};

// Pearce's metrics of the per-rank loads at an LB call: as the balancer was told them (the
// model) and as measured (compute time per step since the previous call).
struct LbMetrics {
  LoadMoments model;
  LoadMoments measured;
  std::optional<double> rank_correlation;  // equation 13, model against measured
};

// A vector workload's phases around one LB call: Σ_k max_r of the phase times measured in
// the step before and after, each phase's max/avg, and the balancer's own view.
struct LbVector {
  double objective_before_s = 0;
  double objective_after_s = 0;
  std::vector<double> max_over_avg_before;
  std::vector<double> max_over_avg_after;
  double model_objective_before_s = 0;
  double model_objective_predicted_after_s = 0;
};

// One LB call, reduced over ranks.
struct LbEvent {
  int step = 0;                                // the step after which it ran
  double imbalance_before = 0;                 // max/avg - 1 of compute time in the step before
  double imbalance_after = 0;                  // ... and in the step after
  double model_imbalance_before = 0;           // of the loads the balancer was told
  double model_imbalance_predicted_after = 0;  // what its plan gives on those loads
  std::int64_t migrations = 0;
  std::int64_t migrated_bytes = 0;
  // Vertices arriving at the busiest receiver (ElementsMoved_max); absent from old records.
  std::optional<std::int64_t> elements_moved_max;
  // Where every vertex is after the migration (the sum of placement_term over vertices,
  // core/hash.hpp): equal between runs, and engines, that placed every vertex alike.
  // Absent from old records.
  std::optional<std::uint64_t> owners_digest;
  double decision_s = 0;   // slowest rank
  double migration_s = 0;  // slowest rank
  CommCensus before;
  CommCensus after;
  std::optional<ProtocolStats> protocol;  // distributed strategies
  Json prediction;                        // what `auto` predicted and chose, as it says; else null
  std::optional<LbMetrics> metrics;
  std::optional<LbVector> vector;  // vector workloads
};

// One regrid of a block mesh (an octree or quadtree that regrids), reduced over ranks: what
// the mesh became, and what the regrid itself cost apart from the LB calls.
struct RegridEvent {
  int step = 0;                      // the step after which it ran
  std::int64_t vertices_before = 0;  // live blocks
  std::int64_t vertices_after = 0;
  std::int64_t refined = 0;    // blocks that split into 2^dim children
  std::int64_t merged = 0;     // families of 2^dim siblings that merged into their parent
  std::int64_t created = 0;    // blocks made (children and parents), each with a new id
  std::int64_t destroyed = 0;  // blocks gone (split blocks and merged siblings)
  // The rounds of messages that decided it (splits spreading, families agreeing, fates
  // told), of which split_rounds spread splits; their messages and bytes over all ranks.
  int rounds = 0;
  int split_rounds = 0;
  std::int64_t messages = 0;
  std::int64_t bytes = 0;
  // Siblings moved to the rank that gathers their family, as the migration engine moved them.
  std::int64_t migrations = 0;
  std::int64_t migrated_bytes = 0;
  std::int64_t elements_moved_max = 0;  // arriving at the busiest gathering rank
  double time_s = 0;                    // slowest rank: the whole regrid
  // Its parts, each the slowest rank's: deciding (the blocks' code and the rounds of
  // messages), gathering the families, and telling the fates and rebuilding the blocks.
  // The slowest rank of one part need not be the slowest of another, so they may sum to
  // more than time_s.
  double decision_s = 0;
  double migration_s = 0;
  double rebuild_s = 0;
  CommCensus after;
  std::uint64_t owners_digest = 0;  // where every block is after it
};

// A block mesh's regrids over the run, and their sums.
struct RegridRecord {
  int period = 0;
  double time_s = 0;
  std::int64_t migrations = 0;
  std::int64_t migrated_bytes = 0;
  std::int64_t messages = 0;
  std::int64_t bytes = 0;
  std::vector<RegridEvent> events;
};

// Per step: the slowest rank's wall and compute time, the mean compute and wait time, and
// max/avg - 1 of compute time.
struct PerStep {
  std::vector<double> wall_max_s;
  std::vector<double> compute_max_s;
  std::vector<double> compute_avg_s;  // absent from old records
  std::vector<double> wait_avg_s;     // absent from old records
  std::vector<double> imbalance;
  // A block mesh that regrids: the live blocks and their edges in each step, and the bytes
  // the regrid after it sent (its decision's messages and the siblings it gathered; 0
  // without a regrid).
  std::vector<std::int64_t> vertices;
  std::vector<std::int64_t> edges;
  std::vector<std::int64_t> regrid_bytes;
};

// A vector workload's phases over the run.
struct LoadVectorRecord {
  std::vector<std::string> components;
  double objective_mean_s = 0;
  std::vector<double> objective_per_step_s;  // Σ_k max_r of the phase times
  std::vector<double> perfect_per_step_s;    // Σ_k of the mean phase times
  // Per component (in the order of `components`), per step.
  std::vector<std::vector<double>> phase_max_s;
  std::vector<std::vector<double>> phase_avg_s;
};

// What the simulation itself cost on the host that ran it, and the simulated set-up time.
struct SimulationInfo {
  double wall_s = 0;
  double peak_rss_mb = 0;
  double setup_s = 0;  // simulated time from the replay's start to its first step
};

// `auto`'s choices over the run, from what its LB points recorded (LbEvent::prediction).
struct RunPrediction {
  std::string chosen;  // the candidate it called at the most points; `none` where it called at none
  std::vector<std::pair<std::string, int>> calls;  // per candidate, the points it called it at
  // Over the windows its closed loop credited: the gain it predicted, the gain measured,
  // and what its calls cost as charged.
  double predicted_gain_s = 0;
  double delivered_gain_s = 0;
  double spent_s = 0;
  // Every point it looked at, a call or not: the step, and what it weighed and chose there
  // (balancers/model/auto/loop.cpp's record), so a point that called nothing says why.
  std::vector<Json> points;
};

// The imbalance vt recorded of one phase (its LBStatsfile), for the step that replays it.
struct RecordedImbalance {
  int step = 0;            // the replay's step of the phase: its index among the trace's phases
  std::int64_t phase = 0;  // vt's phase id
  double imbalance = 0;    // the statistic's imb, max/avg - 1 of the ranks' loads
  bool operator==(const RecordedImbalance&) const = default;
};

// A replayed recorded run (an lbdatafile mesh): what the trace held, and how its ranks
// were mapped onto the run's.
struct TraceInfo {
  int files = 0;
  int ranks = 0;  // of the recorded run
  int phases = 0;
  int subphases = 0;
  std::int64_t tasks = 0;
  std::int64_t pinned = 0;  // non-migratable tasks (and whole ranks named by communications)
  std::string mapping;      // "one to one", or how blocks of ranks were mapped
  // vt's LBStatsfile beside the data, empty without one; the pre-LB statistic read
  // (Rank_load_raw, or Rank_load_modeled); its imbalance per phase that both hold.
  std::string stats_file;
  std::string recorded_statistic;
  std::vector<RecordedImbalance> recorded_imbalance;
};

// How the model engine priced a run.
struct ModelingInfo {
  double code_time_scale = 1.0;  // machine seconds per host second of the balancers' code
  std::string decision_costs;    // "measured: ..." or "fitted: ..."
  std::string network;
};

// A strategy library a run loaded (balancers/plugins.hpp).
struct PluginProvenance {
  std::string name;  // the strategy it registers
  std::string path;
  std::string sha256;
};

// The strategy libraries this process loaded, in the order loaded.
std::vector<PluginProvenance> loaded_plugin_provenance();

struct Provenance {
  std::string git;
  std::string host;
  std::string mpi_library;
  std::string mpi_thread_level;
  std::string start_time;
  std::string command;
  Json work;                              // how do_work ran: the calibration, or simulated
  std::vector<PluginProvenance> plugins;  // in the order loaded; none for most runs
};

// Added by `lbbench sweep` to the records of its runs.
struct SweepInfo {
  std::string name;
  std::string id;
  int index = 0;
  int repetition = 0;
  std::string engine;
  Json axes = Json::object();
  std::string status;
  std::optional<double> elapsed_s;
};

struct RunRecord {
  std::string scenario;
  std::string scenario_sha256;
  std::string scenario_file;
  std::string balancer;
  std::string balancer_family;
  Json balancer_params = Json::object();
  int lb_period = 0;
  std::string model;
  std::string forecast = "mean";  // how measured loads were carried forward (scenario key forecast)
  std::string engine;
  std::string machine;
  int ranks = 0;
  int nodes = 0;
  std::int64_t vertices = 0;
  std::int64_t edges = 0;
  int steps = 0;
  std::uint64_t seed = 0;
  double total_time_s = 0;
  double compute_time_s = 0;      // mean over ranks
  double compute_time_max_s = 0;  // the largest rank's
  double wait_time_s = 0;
  double lb_time_s = 0;
  double migration_time_s = 0;
  double perfect_balance_time_s = 0;
  std::int64_t migrations = 0;
  std::int64_t migrated_bytes = 0;
  int lb_invocations = 0;
  // LB points of the scenario. Absent in records made before it was kept.
  std::optional<int> lb_points;
  std::vector<double> imbalance_before;
  std::vector<double> imbalance_after;
  std::vector<double> imbalance_predicted_after;
  double imbalance_mean = 0;
  std::int64_t edge_cut_initial = 0;
  std::int64_t edge_cut = 0;
  std::int64_t edge_cut_bytes = 0;
  std::int64_t messages_per_step = 0;
  std::optional<std::int64_t> cross_site_messages_per_step;  // machines with sites
  std::vector<LbEvent> lb;
  PerStep per_step;
  Json machine_preset;                       // the preset with the scenario's overrides; null on machine local
  std::optional<SimulationInfo> simulation;  // simulated engines
  std::optional<LoadVectorRecord> load_vector;
  std::optional<RunPrediction> prediction;  // `auto`
  std::optional<ModelingInfo> modeling;     // the model engine
  std::optional<TraceInfo> trace;           // a replayed recorded run
  std::optional<RegridRecord> regrid;       // a block mesh that regrids
  Json config;                              // the normalized scenario
  Json reorder;                             // the rank reorder at start-up; null without one
  Provenance provenance;
  std::optional<SweepInfo> sweep;

  // Times are simulated (the engine simulated the machine).
  [[nodiscard]] bool simulated() const { return simulation.has_value(); }
};

// A sweep's run that left no record.
struct FailureRecord {
  std::string scenario;
  std::string balancer;
  std::string engine;
  std::string machine;
  int ranks = 0;
  int exit_code = 0;
  std::string reason;
  std::vector<std::string> error_tail;
  double elapsed_s = 0;
  std::string time;
  Json config;
  std::optional<SweepInfo> sweep;
  // Where and how the run was tried, as a run record says it (the MPI library and do_work
  // are left empty: the run did not get to report them).
  std::optional<Provenance> provenance;
};

Json to_json(const RunRecord& r);
Json to_json(const FailureRecord& r);
Json to_json(const SweepInfo& s);
Json to_json(const CommCensus& c);
Json to_json(const RegridRecord& r);
Json to_json(const ProtocolStats& p);
Json to_json(const LoadMoments& m);

// The mesh's vertices and edges when the LB call after `step` ran: a block mesh's as the
// regrids had left them (a regrid of the same step comes first), any other mesh's own.
std::pair<std::int64_t, std::int64_t> mesh_size_at_call(const RunRecord& r, int step);

// Throws InputError naming the field when a record lacks a field every record has, or
// holds a value of the wrong type.
RunRecord run_record_from_json(const Json& j);
FailureRecord failure_record_from_json(const Json& j);
SweepInfo sweep_info_from_json(const Json& j);

[[nodiscard]] bool is_run_record(const Json& j);
[[nodiscard]] bool is_failure_record(const Json& j);

}  // namespace lbbench
