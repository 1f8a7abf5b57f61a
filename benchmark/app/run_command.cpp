// `lbbench run` (see run_command.hpp).
#include "app/run_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli.hpp"
#include "app/exit_codes.hpp"
#include "app/launch.hpp"
#include "balancers/model/auto/params.hpp"
#include "balancers/plugins.hpp"
#include "balancers/sdk/config.hpp"
#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "engines/memory.hpp"
#include "machine/preset.hpp"
#include "replay/run_status.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {
namespace {

std::string joined_command(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) out += ' ';
    out += argv[i];
  }
  return out;
}

// Errors every rank agreed on exit cleanly with one message from rank 0; anything else
// was seen by one rank only, so the job is aborted rather than left hanging.
int report_mpi_error(const std::exception& e, MPI_Comm comm) {
  const bool agreed = dynamic_cast<const Agreed*>(&e) != nullptr;
  const int code = dynamic_cast<const InputError*>(&e) ? kExitInput : kExitRun;
  if (!agreed) {
    std::fprintf(stderr, "lbbench: error on rank %d: %s\n", comm_rank(comm), e.what());
    std::fflush(stderr);
    MPI_Abort(comm, code);
  }
  if (comm_rank(comm) == 0) std::fprintf(stderr, "lbbench: error: %s\n", e.what());
  return code;
}

// Whether the balancer is zoltan, or `auto` with zoltan among its candidates.
bool uses_zoltan(const BalancerConfig& config) {
  if (config.kind == BalancerKind::zoltan) return true;
  const auto* a = config.params.get_if<AutoParams>();
  return a && std::any_of(a->candidates.begin(), a->candidates.end(), uses_zoltan);
}

// The ranks that share this one's node (and its memory).
int ranks_on_this_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  const int n = comm_size(node);
  MPI_Comm_free(&node);
  return n;
}

// Rank 0's text on every rank.
std::string broadcast_text(std::string text, MPI_Comm comm) {
  auto size = static_cast<std::uint64_t>(text.size());
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);
  text.resize(static_cast<std::size_t>(size));
  MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, 0, comm);
  return text;
}

// The mesh's size as rank 0 finds it (a recorded run is read there only), on every rank.
MeshSize mesh_size_from_rank0(const Scenario& s, MPI_Comm comm) {
  std::array<double, 3> size{};
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    const MeshSize m = expected_mesh_size(s.mesh, s.steps);
    size = {m.vertices, m.edge_ends, m.whole_per_rank};
  });
  MPI_Bcast(size.data(), 3, MPI_DOUBLE, 0, comm);
  return MeshSize{size[0], size[1], size[2]};
}

void load_plugins(const std::vector<std::string>& paths) {
  for (const auto& path : paths) load_plugin(path);
}

// Whether every plugin loads, before MPI starts; the collective read reports the error.
bool try_loading_plugins(const std::vector<std::string>& paths) {
  try {
    load_plugins(paths);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Every rank reads the scenario on its own before MPI starts, to know which thread level to
// ask for. Null where that fails, or where the scenario comes from a recorded run (which
// rank 0 alone reads): the collective read then reports the failure.
std::optional<Scenario> scenario_before_mpi(const std::string& file, const std::string& trace,
                                            const std::vector<std::string>& overrides) {
  if (!trace.empty()) return std::nullopt;
  try {
    return load_scenario(file, overrides);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Multiple where Zoltan may run, or where the scenario is not known yet (see MpiThreads).
MpiThreads threads_for(const std::optional<Scenario>& s) {
  return !s || uses_zoltan(s->balancer.config) ? MpiThreads::multiple : MpiThreads::funneled;
}

// The run on this binary's own engine, in this process: one of the job's ranks.
int run_in_process(int argc, char** argv, const RunCommand& c, RunOptions options, const Engine& engine) {
  const std::string& file = c.scenario_file;
  const std::string& trace = c.trace;
  const std::vector<std::string>& overrides = c.overrides;
  const RunOutputs& outputs = c.outputs;
  const bool plugins_loaded = try_loading_plugins(c.plugins);
  std::optional<Scenario> read_early = plugins_loaded ? scenario_before_mpi(file, trace, overrides) : std::nullopt;
  MpiSession mpi(&argc, &argv, threads_for(read_early));
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = comm_rank(comm);
  options.command_line = joined_command(argc, argv);
  try {
    Scenario scenario;
    // With a process per rank, each node checks the memory of the ranks it holds (a
    // one-process engine's front end checked the whole run before it started this one).
    const bool per_node = engine.info().process_per_rank;
    const int node_ranks = per_node ? ranks_on_this_node(comm) : 0;
    if (per_node) run_status::watch(me);  // a rank stopped by the launcher says where it was
    // A recorded run is read by rank 0 alone; the other ranks are told what they need of it.
    std::string trace_yaml;
    if (!trace.empty()) {
      collectively(comm, [&] {
        if (me == 0) trace_yaml = trace_scenario_yaml(trace);
      });
      trace_yaml = broadcast_text(trace_yaml, comm);
    }
    collectively(comm, [&] {
      load_plugins(c.plugins);  // every rank alike; the first rank's error is the one reported
      if (read_early) {
        scenario = std::move(*read_early);
      } else {
        scenario = trace.empty() ? load_scenario(file, overrides) : scenario_from_trace_yaml(trace_yaml, overrides);
      }
      engine.info().check(scenario);
      if (!per_node && me == 0) check_outputs_writable(outputs);
    });
    if (per_node) {
      const MeshSize mesh = mesh_size_from_rank0(scenario, comm);
      collectively(comm, [&] {
        const int ranks = comm_size(comm);
        refuse_what_cannot_fit(
            memory_needed(scenario, ranks, EngineKind::mpi, node_ranks, engine.process_bytes(), mesh),
            memory_limit(options.max_memory), ranks, EngineKind::mpi);
        if (me == 0) check_outputs_writable(outputs);
      });
    }
    if (uses_zoltan(scenario.balancer.config) && !mpi.thread_multiple() && me == 0) {
      std::fprintf(stderr,
                   "lbbench: warning: MPI gives thread level %d, not MPI_THREAD_MULTIPLE; "
                   "Zoltan with Scotch needs it\n",
                   mpi.thread_level());
    }
    const RunOutcome outcome = run_scenario(scenario, options, engine, comm);
    if (outcome.reporter) report_run(outcome.record, outcome.warnings, outputs);
    return 0;
  } catch (const std::exception& e) {
    return report_mpi_error(e, comm);
  }
}

// A JSON array of "key.path=value" strings.
std::vector<std::string> read_set_file(const std::string& path) {
  std::ifstream in(path);
  const auto list = nlohmann::json::parse(in, nullptr, false);
  const auto strings = [](const nlohmann::json& l) {
    return std::all_of(l.begin(), l.end(), [](const nlohmann::json& x) { return x.is_string(); });
  };
  if (!list.is_array() || !strings(list)) {
    throw InputError(fmt::format("{}: expected a JSON array of key.path=value strings", path));
  }
  return list.get<std::vector<std::string>>();
}

std::vector<std::string> absolute_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  out.reserve(paths.size());
  for (const auto& p : paths) out.push_back(std::filesystem::absolute(p).string());
  return out;
}

// What a run on another engine is started with: the scenario, and the options it forwards.
LaunchRequest launch_request_of(const RunCommand& c) {
  return LaunchRequest{.scenario = c.scenario_file,
                       .trace = c.trace,
                       .overrides = c.overrides,
                       .lbdatafile_out = c.outputs.lbdatafile,
                       .rank_loads_out = c.options.rank_loads_out,
                       .rank_loads_stride = c.options.rank_loads_stride,
                       .ranks = c.ranks,
                       .record_out = c.outputs.record,
                       .steps_csv = c.outputs.steps_csv,
                       .verify = c.options.verify,
                       .watchdog_seconds = c.options.watchdog_seconds,
                       .platform_dir = c.platform_dir,
                       .cfg = c.smpi_cfg,
                       .host_ghz = c.host_ghz,
                       .code_charge = c.code_charge,
                       .command_line = c.options.command_line,
                       .max_memory = c.options.max_memory,
                       .plugins = absolute_paths(c.plugins)};
}

void add_engine_options(CLI::App& run, RunCommand& c) {
  std::vector<std::string> engine_names;
  for (const auto& e : engine_table()) engine_names.emplace_back(e.name);
  run.add_option("--engine", c.engine,
                 "mpi (real MPI, under mpirun or srun), smpi (a simulated machine) or model (a modeled machine, for "
                 "10^5-10^6 ranks)")
      ->check(CLI::IsMember(engine_names));
  run.add_option("--machine", c.machine,
                 "Machine preset (sets machine.preset): local, bgp, bgq, cluster-ib, grid-2site");
  run.add_option("--ranks", c.ranks, "Simulated or modeled ranks (smpi and model engines)")->check(CLI::PositiveNumber);
  run.add_option("--host-ghz", c.host_ghz,
                 "This host's clock in GHz, which sets how the smpi and model engines charge real code and do_work "
                 "(measured when not given; give it to compare runs across hosts)")
      ->check(CLI::PositiveNumber);
  run.add_option("--platform-dir", c.platform_dir, "Keep the generated SimGrid platform in this folder (smpi engine)");
  run.add_option("--smpi-cfg", c.smpi_cfg,
                 "Extra SimGrid setting KEY:VALUE, e.g. smpi/simulate-computation:no (smpi engine, repeatable)");
  run.add_flag("--recalibrate", c.settings.recalibrate, "Measure do_work now instead of using the cached calibration");
  // How the smpi launcher tells lbbench-smpi the simulated core's clock against this host's.
  run.add_option("--code-time-scale", c.settings.code_time_scale)->group("")->check(CLI::PositiveNumber);
  run.add_option("--code-charge", c.code_charge,
                 "How real code takes simulated time (smpi and model engines): explicit (the balancers' and the "
                 "migration's code, by its own CPU time; the default), simulator (SimGrid benchmarks all code, its "
                 "own overhead included) or none (code is free: runs repeat exactly)")
      ->check(CLI::IsMember({"explicit", "simulator", "none"}));
}

// The overrides a run starts from: --set-file's, then --set's, then --machine's.
void gather_overrides(RunCommand& c) {
  if (!c.set_file.empty()) {
    const auto from_file = read_set_file(c.set_file);
    c.overrides.insert(c.overrides.begin(), from_file.begin(), from_file.end());
  }
  if (!c.machine.empty()) {
    // A preset file given on the command line is found from the working folder, wherever
    // the scenario is.
    const bool file = names_a_preset_file(c.machine) && std::filesystem::exists(c.machine);
    c.overrides.push_back("machine.preset=" + (file ? std::filesystem::absolute(c.machine).string() : c.machine));
  }
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, RunCommand& c) {
  auto* run = app.add_subcommand("run", "Run a scenario (under mpirun or srun)");
  auto* scenario = run->add_option("scenario", c.scenario_file, "Scenario YAML file")->check(CLI::ExistingFile);
  auto* trace = run->add_option(
      "--trace", c.trace,
      "Replay a recorded run (vt's LBDatafile: a folder, a data.%r.json pattern or a glob) instead of a scenario file, "
      "one step per recorded phase; --set changes the rest");
  scenario->excludes(trace);
  run->add_option("--set", c.overrides, "Override a scenario key: --set key.path=value (repeatable)");
  run->add_option("--set-file", c.set_file)->group("")->check(CLI::ExistingFile);
  run->add_option("--plugin", c.plugins,
                  "Load a strategy library built outside the tree (lbbench_add_balancer), so that its strategy can be "
                  "named like a built-in one (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--out", c.outputs.record, "Append the run record (JSON Lines) to this file");
  run->add_option("--steps-csv", c.outputs.steps_csv, "Write a per-step table to this CSV file");
  run->add_option("--lbdatafile-out", c.outputs.lbdatafile,
                  "Write the run as vt's LBDatafile JSON to this folder (data.<rank>.json, one phase per step), "
                  "for LBAF or for replaying it again");
  run->add_option("--rank-loads", c.options.rank_loads_out,
                  "Write every rank's load at the steps before and after each LB call to this file, for plot.py ranks");
  run->add_option("--rank-loads-stride", c.options.rank_loads_stride,
                  "With --rank-loads, also every rank's load at every N-th step (a timeline)")
      ->check(CLI::NonNegativeNumber);
  run->add_flag("--verify", c.options.verify, "Check every rank's owner table after every migration");
  run->add_option("--watchdog", c.options.watchdog_seconds, "Seconds a step may wait for messages before the run stops")
      ->check(CLI::PositiveNumber);
  run->add_option("--max-memory", c.options.max_memory,
                  "Memory the run may use (for example 8GB); by default what this host and its cgroup have available")
      ->transform(CLI::AsSizeValue(true));
  add_engine_options(*run, c);
  return run;
}

int run_command(RunCommand& c, int argc, char** argv) {
  const int checked = exit_code_of([&] {
    gather_overrides(c);
    if (c.scenario_file.empty() && c.trace.empty()) {
      throw InputError("run needs a scenario file, or --trace DIR to replay a recorded run");
    }
    return 0;
  });
  if (checked != 0) return checked;
  c.options.command_line = joined_command(argc, argv);
  c.settings.charge_code = c.code_charge == "explicit";
  const std::unique_ptr<Engine> native = make_native_engine(c.settings);
  const EngineInfo& requested = c.engine.empty() ? native->info() : find_engine(c.engine);
  if (requested.kind != native->info().kind) {
    return exit_code_of([&] {
      load_plugins(c.plugins);
      return launch_engine(requested.kind, launch_request_of(c), c.outputs);
    });
  }
  if (native->info().process_per_rank &&
      (c.ranks > 0 || !c.platform_dir.empty() || !c.smpi_cfg.empty() || c.host_ghz)) {
    std::fprintf(stderr,
                 "lbbench: error: --ranks, --platform-dir, --smpi-cfg and --host-ghz belong to --engine smpi or model; "
                 "with real MPI, start the ranks with mpirun -np N (or srun)\n");
    return kExitInput;
  }
  c.options.lbdatafile_out = c.outputs.lbdatafile;
  return run_in_process(argc, argv, c, c.options, *native);
}

}  // namespace lbbench
