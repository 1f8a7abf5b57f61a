// The command line's other commands (see subcommands.hpp).
#include "app/subcommands.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "app/cli.hpp"
#include "balancers/plugins.hpp"
#include "balancers/sdk/registry.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace {

void add_plugin_option(CLI::App& cmd, std::vector<std::string>& plugins) {
  cmd.add_option("--plugin", plugins,
                 "Load a strategy library built outside the tree, so that its strategy can be named (repeatable)")
      ->allow_extra_args(false);
}

void load_plugins(const std::vector<std::string>& paths) {
  for (const auto& path : paths) load_plugin(path);
}

// A plugin strategy's declared params, one line each under its row.
void print_plugin_params(const BalancerInfo& b, std::size_t indent) {
  for (const auto& spec : b.plugin->params) {
    fmt::print("{:<{}}  {} ({}, default {}): {}\n", "", indent, spec.key, param_type_name(spec.type),
               param_value_text(spec.fallback), spec.doc);
  }
}

}  // namespace

CLI::App* add_validate_command(CLI::App& app, ValidateCommand& c) {
  auto* cmd = app.add_subcommand("validate", "Check a scenario and print it normalized");
  cmd->add_option("scenario", c.scenario_file, "Scenario YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", c.overrides, "Override a scenario key: --set key.path=value (repeatable)");
  add_plugin_option(*cmd, c.plugins);
  return cmd;
}

CLI::App* add_list_command(CLI::App& app, ListCommand& c) {
  auto* cmd = app.add_subcommand("list", "List registered components");
  cmd->add_option("what", c.what, "What to list")->required()->check(CLI::IsMember({"balancers"}));
  add_plugin_option(*cmd, c.plugins);
  return cmd;
}

int list_command(const ListCommand& c) {
  load_plugins(c.plugins);
  std::size_t width = 4;
  for (const auto& b : balancer_table()) width = std::max(width, b.name.size());
  fmt::print("{:<{}}  {:<9}  {}\n", "name", width, "family", "description");
  for (const auto& b : balancer_table()) {
    fmt::print("{:<{}}  {:<9}  {}\n", b.name, width, family_name(b.family), b.description);
    if (b.plugin != nullptr) print_plugin_params(b, width + 11);
  }
  return 0;
}

int validate_command(const ValidateCommand& c) {
  load_plugins(c.plugins);
  const Scenario s = load_scenario(c.scenario_file, c.overrides);
  fmt::print("# {}: valid. Normalized, with every default filled in (sha256 {}):\n", c.scenario_file,
             scenario_sha256(s));
  fmt::print("{}", to_yaml(normalized(s)));
  return 0;
}

CLI::App* add_calibrate_command(CLI::App& app, CalibrateRequest& c) {
  auto* cmd = app.add_subcommand(
      "calibrate", "Measure do_work on this host, cache it, and report its accuracy; or, with --network, the network");
  cmd->add_flag("--quick", c.quick, "Short measurement; accuracy only up to 10 ms");
  cmd->add_flag("--no-cache", c.no_cache, "Do not write the calibration cache");
  cmd->add_flag("--network", c.network,
                "Ping-pong between two ranks (mpirun -np 2): latency and bandwidth for machine.latency and "
                "machine.bandwidth");
  auto* overhead_flag = cmd->add_flag("--overhead", c.overhead,
                                      "The replay's own METG(50%) and per-step floor on a chain of one task per rank "
                                      "(mpirun -np 2), against a bare MPI loop with the same do_work");
  cmd->add_option("--repetitions", c.repetitions,
                  "--overhead: runs of each loop at each work per task (default 5, or 1 with --quick)")
      ->check(CLI::PositiveNumber)
      ->needs(overhead_flag);
  cmd->add_option("--json", c.json_path, "--overhead: also write the table to this file as JSON")->needs(overhead_flag);
  cmd->add_option("--preset-out", c.preset_out,
                  "Measure this machine (under mpirun or srun, with the ranks a run will have) into a machine preset "
                  "that the smpi and model engines run with --machine FILE");

  return cmd;
}

CLI::App* add_reorder_command(CLI::App& app, ReorderRequest& c) {
  auto* cmd = app.add_subcommand("reorder", "Plan a rank reorder for n processes on p cores (Keller et al.)");
  cmd->add_option("--cores", c.cores, "Cores p")->check(CLI::PositiveNumber);
  cmd->add_option("--loads", c.loads, "Loads as VALUExCOUNT,..., e.g. 4x20,2x20,1x24");
  cmd->add_option("--loads-file", c.loads_file, "A file of loads, one or more per line")->check(CLI::ExistingFile);
  cmd->add_option("--per-core", c.per_core, "Processes on every core")->check(CLI::PositiveNumber);
  cmd->add_option("--per-core-list", c.per_core_list, "Processes per core as PROCESSESxCORES,..., e.g. 3x8,5x8");
  cmd->add_option("--method", c.method, "identity, paper, ours, exact, dist, random or worst");
  cmd->add_option("--t", c.levels, "dist: histogram levels")->check(CLI::Range(2, 64));
  cmd->add_option("--seed", c.seed, "random: the seed");
  cmd->add_option("--max-nodes", c.max_nodes, "exact: search nodes before it settles for the best plan found, unproven")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--compare", c.compare, "Also print every method's maximum core load");

  return cmd;
}

CLI::App* add_sweep_command(CLI::App& app, SweepCommand& c) {
  auto* cmd =
      app.add_subcommand("sweep", "Run a sweep of scenarios locally or as a Slurm job array; resumes by default");
  cmd->add_option("sweep", c.file, "Sweep YAML file (scenarios/sweeps/)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", c.sets, "Fix a scenario key for every run: --set key.path=value (repeatable)");
  add_plugin_option(*cmd, c.plugins);
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
  cmd->add_option("--engines", c.engines,
                  "Set each case's runs on other engines beside this engine's (a real run beside its simulated twin), "
                  "with their ratios");
  cmd->add_option("--costs-out", c.costs_file,
                  "Write the decision and migration costs fitted per platform to this file, for a scenario's "
                  "machine.costs");
  return cmd;
}

}  // namespace lbbench
