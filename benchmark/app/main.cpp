// The lbbench command line: run, validate, list, calibrate, reorder, sweep, report.

// SMPI's compiler wrapper defines exit(x) as a macro, which breaks CLI::App::exit.
// lbbench never calls exit() itself: main returns.
#ifdef exit
#undef exit
#endif
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "app/reorder_plan.hpp"
#include "app/reporters.hpp"
#include "balancers/registry.hpp"
#include "core/error.hpp"
#include "engine/replay.hpp"
#include "engine/run_status.hpp"
#include "engines/engine.hpp"
#include "engines/launch.hpp"
#include "engines/memory.hpp"
#include "engines/native_commands.hpp"
#include "harness/commands.hpp"
#include "mpi/mpi.hpp"
#include "record/record_file.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {
namespace {

constexpr int kExitInput = 2;
constexpr int kExitRun = 3;

std::string joined_command(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) out += ' ';
    out += argv[i];
  }
  return out;
}

int list_balancers() {
  std::size_t width = 4;
  for (const auto& b : balancer_table()) width = std::max(width, b.name.size());
  fmt::print("{:<{}}  {:<9}  {}\n", "name", width, "family", "description");
  for (const auto& b : balancer_table())
    fmt::print("{:<{}}  {:<9}  {}\n", b.name, width, family_name(b.family), b.description);
  return 0;
}

int validate(const std::string& file, const std::vector<std::string>& overrides) {
  const Scenario s = load_scenario(file, overrides);
  fmt::print("# {}: valid. Normalized, with every default filled in (sha256 {}):\n", file, scenario_sha256(s));
  fmt::print("{}", to_yaml(normalized(s)));
  return 0;
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

struct Outputs {
  std::string record;      // --out
  std::string steps_csv;   // --steps-csv
  std::string lbdatafile;  // --lbdatafile-out
};

void check_outputs_writable(const Outputs& outputs) {
  check_writable(outputs.record, "record file", true);
  check_writable(outputs.steps_csv, "per-step table", false);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw RunError(fmt::format("{}: could not write the per-step table", path));
}

// Whether the balancer is zoltan, or `auto` with zoltan among its candidates.
bool uses_zoltan(const BalancerConfig& config) {
  if (config.kind == BalancerKind::zoltan) return true;
  const auto* a = std::get_if<AutoParams>(&config.params);
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
    const MeshSize m = expected_mesh_size(s.mesh);
    size = {m.vertices, m.edge_ends, m.whole_per_rank};
  });
  MPI_Bcast(size.data(), 3, MPI_DOUBLE, 0, comm);
  return MeshSize{size[0], size[1], size[2]};
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

int run(int argc, char** argv, const std::string& file, const std::string& trace,
        const std::vector<std::string>& overrides, const Outputs& outputs, RunOptions options, const Engine& engine) {
  std::optional<Scenario> read_early = scenario_before_mpi(file, trace, overrides);
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
    if (outcome.reporter) {
      std::fputs(outcome.warnings.c_str(), stderr);
      std::fputs(console_summary(outcome.record).c_str(), stdout);
      if (!outputs.record.empty()) {
        append_record(outputs.record, to_json(outcome.record));
        fmt::print("  record appended to {}\n", outputs.record);
      }
      if (!outputs.steps_csv.empty()) write_file(outputs.steps_csv, steps_csv(outcome.record));
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    return report_mpi_error(e, comm);
  }
}

// A JSON array of "key.path=value" strings.
std::vector<std::string> read_set_file(const std::string& path) {
  std::ifstream in(path);
  const auto list = nlohmann::json::parse(in, nullptr, false);
  if (!list.is_array()) throw InputError(fmt::format("{}: expected a JSON array of key.path=value strings", path));
  return list.get<std::vector<std::string>>();
}

// What a run on another engine is started with: the scenario, and the options it forwards.
LaunchRequest launch_request_of(const std::string& scenario, const std::string& trace,
                                const std::vector<std::string>& overrides, int ranks, const std::string& platform_dir,
                                const std::vector<std::string>& cfg, const Outputs& outputs, const RunOptions& options,
                                std::optional<double> host_ghz, const std::string& code_charge) {
  LaunchRequest launch;
  launch.cfg = cfg;
  launch.scenario = scenario;
  launch.trace = trace;
  launch.overrides = overrides;
  launch.lbdatafile_out = outputs.lbdatafile;
  launch.ranks = ranks;
  launch.platform_dir = platform_dir;
  launch.record_out = outputs.record;
  launch.steps_csv = outputs.steps_csv;
  launch.verify = options.verify;
  launch.watchdog_seconds = options.watchdog_seconds;
  launch.host_ghz = host_ghz;
  launch.code_charge = code_charge;
  launch.command_line = options.command_line;
  launch.max_memory = options.max_memory;
  return launch;
}

CLI::App* add_sweep_command(CLI::App& app, SweepCommand& c) {
  auto* cmd =
      app.add_subcommand("sweep", "Run a sweep of scenarios locally or as a Slurm job array; resumes by default");
  cmd->add_option("sweep", c.file, "Sweep YAML file (scenarios/sweeps/)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", c.sets, "Fix a scenario key for every run: --set key.path=value (repeatable)");
  cmd->add_option("--results", c.results, "Folder of the sweep's records (default results/<sweep name>)");
  cmd->add_flag("--list", c.list, "Print every run with its id and state; run nothing");
  cmd->add_flag("--fresh", c.fresh, "Move earlier records aside (never deleted) and run everything again");
  cmd->add_option("--repetitions", c.repetitions,
                  "Run the first N repetitions instead of the sweep's count (their ids are unchanged)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--launcher", c.launcher, "How mpi-engine runs start locally: mpirun or srun")
      ->check(CLI::IsMember({"mpirun", "srun"}));
  auto* slurm = cmd->add_flag("--slurm", c.slurm, "Submit the runs not yet recorded as one Slurm job array");
  cmd->add_flag("--dry-run", c.dry_run, "With --slurm: print the batch script, submit nothing")->needs(slurm);
  cmd->add_flag("--status", c.status, "Show the submitted job's state and how many runs are recorded");
  cmd->add_flag("--collect", c.collect, "Merge the Slurm tasks' records into runs.jsonl");
  cmd->add_option("--partition", c.slurm_overrides.partition, "#SBATCH --partition");
  cmd->add_option("--time", c.slurm_overrides.time, "#SBATCH --time, e.g. 00:30:00");
  cmd->add_option("--account", c.slurm_overrides.account, "#SBATCH --account");
  cmd->add_option("--nodes", c.slurm_overrides.nodes, "#SBATCH --nodes")->check(CLI::PositiveNumber);
  cmd->add_option("--ntasks", c.slurm_overrides.ntasks, "#SBATCH --ntasks (default: the largest rank count)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--runs-per-task", c.slurm_overrides.runs_per_task, "Runs each array task executes in turn")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sbatch-arg", c.slurm_overrides.sbatch_args,
                  "Any other #SBATCH option, e.g. --qos=debug (repeatable)");
  cmd->add_option("--task", c.task, "Run one array task of a submitted job (used by the batch script)");
  cmd->add_option("--ids", c.ids_file, "The submitted job's list of run ids (used by the batch script)");
  return cmd;
}

CLI::App* add_report_command(CLI::App& app, ReportCommand& c) {
  auto* cmd = app.add_subcommand("report", "Compare balancers over run records: markdown or CSV tables");
  cmd->add_option("results", c.results, "A records file (.jsonl) or a folder of them")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--baseline", c.options.baseline, "Balancer the speedups are measured against (default none)");
  cmd->add_option("--resamples", c.options.resamples, "Bootstrap resamples for the confidence intervals")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--csv", c.csv_file, "Also write the table as CSV to this file");
  cmd->add_flag("--format-csv", c.csv, "Print CSV instead of markdown");
  cmd->add_option("--costs-out", c.costs_file,
                  "Write the decision and migration costs fitted per platform to this file, for a scenario's "
                  "machine.costs");
  return cmd;
}

int main_impl(int argc, char** argv) {
  CLI::App app{"lbbench: a replay benchmark and evaluation suite for dynamic load balancing"};
  app.require_subcommand(1);

  std::string scenario_file;
  std::vector<std::string> overrides;
  RunOptions options;
  Outputs outputs;
  auto* run_cmd = app.add_subcommand("run", "Run a scenario (under mpirun or srun)");
  auto* run_scenario_option =
      run_cmd->add_option("scenario", scenario_file, "Scenario YAML file")->check(CLI::ExistingFile);
  std::string trace;
  auto* trace_option = run_cmd->add_option(
      "--trace", trace,
      "Replay a recorded run (vt's LBDatafile: a folder, a data.%r.json pattern or a glob) instead of a scenario file, "
      "one step per recorded phase; --set changes the rest");
  run_scenario_option->excludes(trace_option);
  run_cmd->add_option("--set", overrides, "Override a scenario key: --set key.path=value (repeatable)");
  std::string set_file;  // how `--engine smpi` hands its overrides through smpirun
  run_cmd->add_option("--set-file", set_file)->group("")->check(CLI::ExistingFile);
  run_cmd->add_option("--out", outputs.record, "Append the run record (JSON Lines) to this file");
  run_cmd->add_option("--steps-csv", outputs.steps_csv, "Write a per-step table to this CSV file");
  run_cmd->add_option("--lbdatafile-out", outputs.lbdatafile,
                      "Write the run as vt's LBDatafile JSON to this folder (data.<rank>.json, one phase per step), "
                      "for LBAF or for replaying it again");
  run_cmd->add_flag("--verify", options.verify, "Check every rank's owner table after every migration");
  run_cmd
      ->add_option("--watchdog", options.watchdog_seconds, "Seconds a step may wait for messages before the run stops")
      ->check(CLI::PositiveNumber);
  run_cmd
      ->add_option("--max-memory", options.max_memory,
                   "Memory the run may use (for example 8GB); by default what this host and its cgroup have available")
      ->transform(CLI::AsSizeValue(true));
  EngineSettings settings;
  run_cmd->add_flag("--recalibrate", settings.recalibrate,
                    "Measure do_work now instead of using the cached calibration");
  // How the smpi launcher tells lbbench-smpi the simulated core's clock against this host's.
  run_cmd->add_option("--code-time-scale", settings.code_time_scale)->group("")->check(CLI::PositiveNumber);
  std::string code_charge = "explicit";
  run_cmd
      ->add_option("--code-charge", code_charge,
                   "How real code takes simulated time (smpi and model engines): explicit (the balancers' and the "
                   "migration's code, by its own CPU time; the default), simulator (SimGrid benchmarks all code, its "
                   "own overhead included) or none (code is free: runs repeat exactly)")
      ->check(CLI::IsMember({"explicit", "simulator", "none"}));
  std::string engine;
  std::string machine;
  int ranks = 0;
  std::string platform_dir;
  std::vector<std::string> engine_names;
  for (const auto& e : engine_table()) engine_names.emplace_back(e.name);
  run_cmd
      ->add_option("--engine", engine,
                   "mpi (real MPI, under mpirun or srun), smpi (a simulated machine) or model (a modeled machine, for "
                   "10^5-10^6 ranks)")
      ->check(CLI::IsMember(engine_names));
  run_cmd->add_option("--machine", machine,
                      "Machine preset (sets machine.preset): local, bgp, bgq, cluster-ib, grid-2site");
  run_cmd->add_option("--ranks", ranks, "Simulated or modeled ranks (smpi and model engines)")
      ->check(CLI::PositiveNumber);
  std::optional<double> host_ghz;
  run_cmd
      ->add_option("--host-ghz", host_ghz,
                   "This host's clock in GHz, which sets how the smpi and model engines charge real code and do_work "
                   "(measured when not given; give it to compare runs across hosts)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--platform-dir", platform_dir,
                      "Keep the generated SimGrid platform in this folder (smpi engine)");
  std::vector<std::string> smpi_cfg;
  run_cmd->add_option("--smpi-cfg", smpi_cfg,
                      "Extra SimGrid setting KEY:VALUE, e.g. smpi/simulate-computation:no (smpi engine, repeatable)");

  auto* validate_cmd = app.add_subcommand("validate", "Check a scenario and print it normalized");
  validate_cmd->add_option("scenario", scenario_file, "Scenario YAML file")->required()->check(CLI::ExistingFile);
  validate_cmd->add_option("--set", overrides, "Override a scenario key: --set key.path=value (repeatable)");

  auto* list_cmd = app.add_subcommand("list", "List registered components");
  std::string what;
  list_cmd->add_option("what", what, "What to list")->required()->check(CLI::IsMember({"balancers"}));

  bool quick = false;
  bool no_cache = false;
  bool network = false;
  bool overhead = false;
  auto* calibrate_cmd = app.add_subcommand(
      "calibrate", "Measure do_work on this host, cache it, and report its accuracy; or, with --network, the network");
  calibrate_cmd->add_flag("--quick", quick, "Short measurement; accuracy only up to 10 ms");
  calibrate_cmd->add_flag("--no-cache", no_cache, "Do not write the calibration cache");
  calibrate_cmd->add_flag("--network", network,
                          "Ping-pong between two ranks (mpirun -np 2): latency and bandwidth for machine.latency and "
                          "machine.bandwidth");
  auto* overhead_flag =
      calibrate_cmd->add_flag("--overhead", overhead,
                              "The replay's own METG(50%) and per-step floor on a chain of one task per rank "
                              "(mpirun -np 2), against a bare MPI loop with the same do_work");
  int overhead_repetitions = 0;
  calibrate_cmd
      ->add_option("--repetitions", overhead_repetitions,
                   "--overhead: runs of each loop at each work per task (default 5, or 1 with --quick)")
      ->check(CLI::PositiveNumber)
      ->needs(overhead_flag);
  std::string overhead_json;
  calibrate_cmd->add_option("--json", overhead_json, "--overhead: also write the table to this file as JSON")
      ->needs(overhead_flag);

  ReorderRequest reorder;
  auto* reorder_cmd = app.add_subcommand("reorder", "Plan a rank reorder for n processes on p cores (Keller et al.)");
  reorder_cmd->add_option("--cores", reorder.cores, "Cores p")->check(CLI::PositiveNumber);
  reorder_cmd->add_option("--loads", reorder.loads, "Loads as VALUExCOUNT,..., e.g. 4x20,2x20,1x24");
  reorder_cmd->add_option("--loads-file", reorder.loads_file, "A file of loads, one or more per line")
      ->check(CLI::ExistingFile);
  reorder_cmd->add_option("--per-core", reorder.per_core, "Processes on every core")->check(CLI::PositiveNumber);
  reorder_cmd->add_option("--per-core-list", reorder.per_core_list,
                          "Processes per core as PROCESSESxCORES,..., e.g. 3x8,5x8");
  reorder_cmd->add_option("--method", reorder.method, "identity, paper, ours, exact, dist, random or worst");
  reorder_cmd->add_option("--t", reorder.levels, "dist: histogram levels")->check(CLI::Range(2, 64));
  reorder_cmd->add_option("--seed", reorder.seed, "random: the seed");
  reorder_cmd
      ->add_option("--max-nodes", reorder.max_nodes,
                   "exact: search nodes before it settles for the best plan found, unproven")
      ->check(CLI::PositiveNumber);
  reorder_cmd->add_flag("--compare", reorder.compare, "Also print every method's maximum core load");

  SweepCommand sweep;
  sweep.slurm_overrides.runs_per_task = 0;  // unset: the sweep file's settings stand
  sweep.slurm_overrides.mpi.clear();
  auto* sweep_cmd = add_sweep_command(app, sweep);
  ReportCommand report;
  auto* report_cmd = add_report_command(app, report);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*sweep_cmd) return sweep_command(sweep);
    if (*report_cmd) return report_command(report);
    if (*list_cmd) return list_balancers();
    if (*reorder_cmd) return plan_reorder(reorder);
    if (*validate_cmd) return validate(scenario_file, overrides);
  } catch (const InputError& e) {
    std::fprintf(stderr, "lbbench: error: %s\n", e.what());
    return kExitInput;
  } catch (const RunError& e) {
    std::fprintf(stderr, "lbbench: error: %s\n", e.what());
    return kExitRun;
  } catch (const std::exception& e) {
    // Not an input error and not a run's broken invariant: a defect, said as one rather
    // than an abort.
    std::fprintf(stderr, "lbbench: internal error: %s\n", e.what());
    return kExitRun;
  }
  if (*calibrate_cmd) {
    try {
      return calibrate_command(CalibrateRequest{.quick = quick,
                                                .no_cache = no_cache,
                                                .network = network,
                                                .overhead = overhead,
                                                .repetitions = overhead_repetitions,
                                                .json_path = overhead_json},
                               argc, argv);
    } catch (const InputError& e) {
      std::fprintf(stderr, "lbbench: error: %s\n", e.what());
      return kExitInput;
    }
  }
  if (!set_file.empty()) {
    try {
      const auto from_file = read_set_file(set_file);
      overrides.insert(overrides.begin(), from_file.begin(), from_file.end());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lbbench: error: %s\n", e.what());
      return kExitInput;
    }
  }
  if (scenario_file.empty() && trace.empty()) {
    std::fprintf(stderr, "lbbench: error: run needs a scenario file, or --trace DIR to replay a recorded run\n");
    return kExitInput;
  }
  if (!machine.empty()) overrides.push_back("machine.preset=" + machine);
  options.command_line = joined_command(argc, argv);
  settings.charge_code = code_charge == "explicit";
  const std::unique_ptr<Engine> native = make_native_engine(settings);
  const EngineInfo& requested = engine.empty() ? native->info() : find_engine(engine);
  if (requested.kind != native->info().kind) {
    try {
      return launch_engine(requested.kind, launch_request_of(scenario_file, trace, overrides, ranks, platform_dir,
                                                             smpi_cfg, outputs, options, host_ghz, code_charge));
    } catch (const InputError& e) {
      std::fprintf(stderr, "lbbench: error: %s\n", e.what());
      return kExitInput;
    } catch (const RunError& e) {
      std::fprintf(stderr, "lbbench: error: %s\n", e.what());
      return kExitRun;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lbbench: internal error: %s\n", e.what());
      return kExitRun;
    }
  }
  if (native->info().process_per_rank && (ranks > 0 || !platform_dir.empty() || !smpi_cfg.empty() || host_ghz)) {
    std::fprintf(stderr,
                 "lbbench: error: --ranks, --platform-dir, --smpi-cfg and --host-ghz belong to --engine smpi or model; "
                 "with real MPI, start the ranks with mpirun -np N (or srun)\n");
    return kExitInput;
  }
  options.lbdatafile_out = outputs.lbdatafile;
  return run(argc, argv, scenario_file, trace, overrides, outputs, options, *native);
}

}  // namespace
}  // namespace lbbench

int main(int argc, char** argv) { return lbbench::main_impl(argc, argv); }
