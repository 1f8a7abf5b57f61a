// A scenario: the mesh, the workload on it, the initial distribution, the balancer and the
// machine, parsed strictly from YAML. See scenarios/README.md for every key.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "balancers/sdk/config.hpp"
#include "core/config.hpp"
#include "core/json_yaml.hpp"
#include "core/named.hpp"
#include "machine/preset.hpp"
#include "meshes/mesh_spec.hpp"
#include "scenario/costs_file.hpp"

namespace lbbench {

// --- workload --------------------------------------------------------------------------------
struct UniformWeights {
  double min = 1.0;
  double max = 1.0;
};
struct LognormalWeights {
  double mu = 0.0;
  double sigma = 0.5;
};
struct HotspotWeights {
  double base = 1.0;
  double peak = 10.0;
  double radius = 0.1;         // in normalized coordinates
  std::vector<double> center;  // normalized; empty means the middle of the box
};
struct GradientWeights {
  int axis = 0;
  double from = 1.0;  // weight at the low end of the axis
  double to = 10.0;   // weight at the high end
};
struct FileWeights {
  int component = 0;
  double scale = 1.0;
};
// A recorded run's times (an lbdatafile mesh): each task's time in the phase the trace
// evolution picks, or one subphase's time, or the time outside every subphase, divided by
// unit_seconds so that do_work spends the recorded time (times scale).
struct TraceWeights {
  enum class Part { time, subphase, rest };
  Part part = Part::time;
  int subphase = 0;  // with Part::subphase
  double scale = 1.0;
};
using WeightModel =
    std::variant<UniformWeights, LognormalWeights, HotspotWeights, GradientWeights, FileWeights, TraceWeights>;
// The name of each alternative, in the variant's order.
inline constexpr std::array<std::string_view, 6> kWeightModelNames{"uniform",  "lognormal", "hotspot",
                                                                   "gradient", "from-file", "trace"};
static_assert(kWeightModelNames.size() == std::variant_size_v<WeightModel>);

struct StaticEvolution {};
// The load field moves: w(x, step) = w(x - velocity * step), periodic in the unit box.
struct DriftEvolution {
  std::vector<double> velocity;
};
// Every `period` steps a new set of regions is refined (their work multiplied) and the old
// ones coarsen back.
struct AmrEvolution {
  int period = 10;
  int regions = 2;
  double radius = 0.15;
  double factor = 4.0;
  int levels = 1;
};
struct Phase {
  int steps = 1;
  WeightModel weights;
};
struct PhasesEvolution {
  std::vector<Phase> phases;
  bool cycle = true;
};
// Step k replays the recorded run's phase k; past the last phase the replay starts over
// (repeat) or stays in the last one (hold).
struct TraceEvolution {
  bool repeat = true;
};
using Evolution = std::variant<StaticEvolution, DriftEvolution, AmrEvolution, PhasesEvolution, TraceEvolution>;
inline constexpr std::array<std::string_view, 5> kEvolutionNames{"static", "drift", "amr", "phases", "trace"};
static_assert(kEvolutionNames.size() == std::variant_size_v<Evolution>);

// One component of a vertex's load vector (Buch): a phase of the step, with its own weight
// model and evolution. The step runs the components in order, with a barrier between
// them, so each phase's own maximum over ranks costs time.
struct LoadComponent {
  std::string name;
  WeightModel weights;
  Evolution evolution;
};

enum class MessageMode { per_edge, per_neighbor };
inline constexpr NameTable<MessageMode, 2> kMessageModes{
    {{MessageMode::per_edge, "per-edge"}, {MessageMode::per_neighbor, "per-neighbor"}}};
// bulk: Algorithm 3, all local work between posting and waiting. message-driven: interior
// vertices first, then each vertex as soon as all its messages are in (as a Charm++ or
// AMPI code overlaps communication).
enum class Schedule { bulk, message_driven };
inline constexpr NameTable<Schedule, 2> kSchedules{
    {{Schedule::bulk, "bulk"}, {Schedule::message_driven, "message-driven"}}};

struct WorkloadSpec {
  double unit_seconds = 1e-5;
  WeightModel weights = UniformWeights{};
  Evolution evolution = StaticEvolution{};
  std::vector<LoadComponent> components;  // empty: scalar loads from weights and evolution
  std::int64_t edge_bytes = 64;
  std::int64_t element_bytes = 1024;
  MessageMode messages = MessageMode::per_edge;
  Schedule schedule = Schedule::bulk;
};

// --- distribution, balancer, machine ----------------------------------------------------------
// trace: where the recorded run had each task (an lbdatafile mesh), its ranks mapped onto
// the run's by blocks. sfc: a block mesh's blocks in the order of a space-filling curve,
// cut into equal parts.
enum class DistributionKind { block, cyclic, random, strips, file, trace, sfc };
inline constexpr NameTable<DistributionKind, 7> kDistributionKinds{{{DistributionKind::block, "block"},
                                                                    {DistributionKind::cyclic, "cyclic"},
                                                                    {DistributionKind::random, "random"},
                                                                    {DistributionKind::strips, "strips"},
                                                                    {DistributionKind::file, "file"},
                                                                    {DistributionKind::trace, "trace"},
                                                                    {DistributionKind::sfc, "sfc"}}};
enum class Curve { morton, hilbert };
inline constexpr NameTable<Curve, 2> kCurves{{{Curve::morton, "morton"}, {Curve::hilbert, "hilbert"}}};
struct DistributionSpec {
  DistributionKind kind = DistributionKind::block;
  int axis = 0;      // strips
  std::string file;  // file: as written
  std::string file_resolved;
  Curve curve = Curve::morton;  // sfc
};

// Which balancer, with its params parsed and validated once, here; the engine builds the
// balancer from this (balancers/sdk/registry.hpp) without reading YAML again.
struct BalancerSpec {
  BalancerConfig config;
  int period = 10;
  [[nodiscard]] std::string name() const { return std::string(config.name()); }
};

// The machine: `local` (the hosts the job runs on), with sites and speeds declared inline,
// or a preset from scenarios/machines. Inline sites are an integer k (ranks split into k
// contiguous, nearly equal groups) or one site per rank; speeds are one number for every
// rank or one per rank; both are checked against the job's size.
struct MachineSpec {
  std::string preset = "local";
  std::optional<MachinePreset> definition;  // the preset, read and checked (not for local)
  std::optional<double> wan_latency;        // override for presets with sites
  // Ranks per simulated core, for the rank-reorder mode on a simulated machine (the mpi
  // engine's counterpart is `cores:`, which pins real processes).
  std::optional<int> processes_per_core;
  // The network a cost model assumes (α, 1/β): measured by `lbbench calibrate --network`
  // for the local machine; for a preset, an override of its links (simulated and modeled).
  std::optional<double> latency;
  std::optional<double> bandwidth;
  // Override of the preset's eager limit (simulated and modeled machines).
  std::optional<double> eager_bytes;
  // `costs`: the decision and migration costs fitted from recorded runs (a file written by
  // `lbbench report --costs-out`), as written and as read; the run takes its platform's.
  std::string costs_file;
  std::string costs_file_resolved;
  CostsByPlatform costs;
  int site_groups = 0;         // `sites: k`; 0 when not given this way
  std::vector<int> sites;      // `sites: [..]`, one per rank
  std::vector<double> speeds;  // one per rank, or a single value for all

  // The preset with the scenario's overrides applied.
  [[nodiscard]] MachinePreset effective_preset() const {
    MachinePreset p = *definition;
    if (wan_latency) p.wan_latency = *wan_latency;
    if (processes_per_core) p.processes_per_core = *processes_per_core;
    if (latency) p.link_latency = *latency;
    if (bandwidth) p.link_bandwidth = *bandwidth;
    if (eager_bytes) p.eager_bytes = *eager_bytes;
    return p;
  }
};

// The oversubscribed benchmark mode of Keller et al.: each node's processes are pinned,
// round-robin, to `count` cores (or to as many cores as `per_core` lists, with that many
// processes each), so n processes share p < n cores.
struct CoresSpec {
  int count = 0;              // `cores: p`
  std::vector<int> per_core;  // `cores: [6, 10]`; empty when given as a count
};

// The rank reorder at start-up (balancers/reorder): which method permutes the ranks
// before the replay begins. `identity` keeps them.
struct ReorderSpec {
  std::string method = "identity";
  int levels = 16;  // dist: the paper's t
};

// What the balancer is told a vertex costs: its measured time, its weight (the
// application's estimate), or one unit each (counts only, Pearce et al.'s "Molecules").
enum class AppModel { measured, weights, weights_no_comm, counts };
inline constexpr NameTable<AppModel, 4> kAppModels{{{AppModel::measured, "measured"},
                                                    {AppModel::weights, "weights"},
                                                    {AppModel::weights_no_comm, "weights-no-comm"},
                                                    {AppModel::counts, "counts"}}};

// How measured loads are carried forward to the steps after an LB call: as their mean
// since the last call (constant), or along each vertex's least-squares line through its
// steps since the last call, averaged over the steps until the next call (a drifting or
// refining load is then told as it will be, not as it was on average).
enum class LoadForecast { mean, trend };
inline constexpr NameTable<LoadForecast, 2> kLoadForecasts{
    {{LoadForecast::mean, "mean"}, {LoadForecast::trend, "trend"}}};

// A wrong application model on purpose (Pearce et al., Section 7.1): each vertex's modeled
// load is multiplied by mean-one log-normal noise of this sigma, and a share of the
// vertices, drawn at random, is left out of the model altogether.
struct ModelError {
  double noise = 0;
  double omit = 0;
  [[nodiscard]] bool any() const { return noise > 0 || omit > 0; }
};

// A strategy library a scenario loads (`plugins:`): its path as written, and found from the
// scenario's folder.
struct PluginRef {
  std::string path;
  std::string resolved;
};

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  int steps = 10;
  std::optional<int> ranks;
  MeshSpec mesh;
  WorkloadSpec workload;
  DistributionSpec distribution;
  BalancerSpec balancer;
  MachineSpec machine;
  AppModel model = AppModel::measured;
  LoadForecast forecast = LoadForecast::mean;
  ModelError model_error;
  std::optional<CoresSpec> cores;
  std::optional<ReorderSpec> reorder;
  std::vector<PluginRef> plugins;  // loaded before the balancer is read
  std::string source;              // file it was read from
};

// Parses and validates a scenario tree; `file` names it in errors and anchors relative paths.
Scenario parse_scenario(const YAML::Node& root, const std::string& file, SchemaRecorder* recorder = nullptr);

// Reads a file, applies `--set key.path=value` overrides, parses.
Scenario load_scenario(const std::string& path, std::span<const std::string> overrides = {},
                       SchemaRecorder* recorder = nullptr);

// `lbbench run --trace SOURCE`: a recorded run (a folder, %r pattern or glob of LBDatafile
// files) replayed with every default, one step per recorded phase; --set changes the rest.
// Relative paths in it are relative to the working folder.
inline constexpr const char* kTraceScenarioName = "(--trace)";
std::string trace_scenario_yaml(const std::string& source);
// The recorded run's rank count, which one-process engines run by default.
int trace_ranks(const std::string& source);
// The scenario of trace_scenario_yaml's text, with overrides.
Scenario scenario_from_trace_yaml(const std::string& yaml, std::span<const std::string> overrides,
                                  SchemaRecorder* recorder = nullptr);
// The scenario a run was given: its file, or the trace it replays with --trace.
Scenario load_run_scenario(const std::string& file, const std::string& trace, std::span<const std::string> overrides,
                           SchemaRecorder* recorder = nullptr);

// Applies one "key.path=value" override; the value is parsed as YAML.
void apply_override(YAML::Node& root, const std::string& assignment);

// The scenario with every default filled in; printing it as YAML gives a valid scenario.
Json normalized(const Scenario& s);
// sha256 of the normalized scenario's compact JSON.
std::string scenario_sha256(const Scenario& s);

inline std::string_view to_string(DistributionKind k) { return name_of(kDistributionKinds, k); }
inline std::string_view to_string(Curve c) { return name_of(kCurves, c); }
inline std::string_view to_string(MessageMode m) { return name_of(kMessageModes, m); }
inline std::string_view to_string(Schedule s) { return name_of(kSchedules, s); }
inline std::string_view to_string(AppModel m) { return name_of(kAppModels, m); }
inline std::string_view to_string(LoadForecast f) { return name_of(kLoadForecasts, f); }
inline std::string_view weight_model_name(const WeightModel& w) { return kWeightModelNames[w.index()]; }
inline std::string_view evolution_name(const Evolution& e) { return kEvolutionNames[e.index()]; }

}  // namespace lbbench
