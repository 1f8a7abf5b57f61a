// `lbbench sweep` and `lbbench report` (see commands.hpp).
#include "harness/commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/process.hpp"
#include "harness/engine_compare.hpp"
#include "harness/runner.hpp"
#include "harness/slurm.hpp"
#include "harness/store.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

void apply_slurm_overrides(SlurmSettings& s, const SlurmSettings& o) {
  if (!o.partition.empty()) s.partition = o.partition;
  if (!o.time.empty()) s.time = o.time;
  if (!o.account.empty()) s.account = o.account;
  if (o.nodes > 0) s.nodes = o.nodes;
  if (o.ntasks > 0) s.ntasks = o.ntasks;
  if (o.runs_per_task > 0) s.runs_per_task = o.runs_per_task;
  if (!o.mpi.empty()) s.mpi = o.mpi;
  s.sbatch_args.insert(s.sbatch_args.end(), o.sbatch_args.begin(), o.sbatch_args.end());
}

// Earlier records are never deleted: --fresh renames them.
void set_records_aside(const fs::path& results) {
  const fs::path runs = results / "runs.jsonl";
  if (!fs::exists(runs)) return;
  const fs::path aside = results / fmt::format("runs.{}.jsonl.old", static_cast<long>(std::time(nullptr)));
  fs::rename(runs, aside);
  fmt::print(stderr, "lbbench sweep: earlier records moved to {}\n", aside.string());
}

RunnerOptions runner_options(const Sweep& sweep, const fs::path& results, const fs::path& records,
                             const std::string& launcher) {
  RunnerOptions options;
  options.results = results;
  options.records = records;
  options.launcher = launcher;
  options.srun_mpi = sweep.slurm.mpi;
  options.lbbench = self_binary();
  options.plugins = sweep.plugins;
  options.recalibrate = sweep.recalibrate;
  return options;
}

int list_runs(const Sweep& sweep, const fs::path& results) {
  const auto statuses = recorded_statuses(results);
  for (const auto& r : sweep.runs) {
    const auto it = statuses.find(r.id);
    fmt::print("{:>4}  {}  {:<7}  {:<4} {:>6} ranks  {}\n", r.index, r.id,
               it == statuses.end() ? "pending" : it->second, r.engine, r.ranks, r.label());
  }
  return 0;
}

int run_task(const Sweep& sweep, const SweepCommand& cmd, const fs::path& results) {
  const auto ids = task_ids(cmd.ids_file, *cmd.task);
  const auto statuses = recorded_statuses(results);
  std::vector<const SweepRun*> todo;
  for (const auto& id : ids) {
    const auto run = std::find_if(sweep.runs.begin(), sweep.runs.end(), [&](const auto& r) { return r.id == id; });
    if (run == sweep.runs.end()) {
      throw InputError(fmt::format(
          "{}: run {} is not in the sweep any more; was the sweep file edited after submission?", cmd.ids_file, id));
    }
    const auto s = statuses.find(id);
    if (s == statuses.end() || s->second != "ok") todo.push_back(&*run);
  }
  const RunnerOptions options =
      runner_options(sweep, results, task_records_file(results, cmd.ids_file, *cmd.task), "srun");
  const RunnerSummary s = run_runs(sweep, todo, options);
  fmt::print("task {}: {} runs recorded, {} failed\n", *cmd.task, s.ok, s.failed);
  return s.interrupted ? 130 : 0;
}

int run_locally(const Sweep& sweep, const SweepCommand& cmd, const fs::path& results) {
  if (cmd.fresh) set_records_aside(results);
  const auto statuses = recorded_statuses(results);
  std::vector<const SweepRun*> todo;
  int done = 0;
  int retried = 0;
  for (const auto& r : sweep.runs) {
    const auto it = statuses.find(r.id);
    if (it != statuses.end() && it->second == "ok") {
      ++done;
      continue;
    }
    if (it != statuses.end()) ++retried;
    todo.push_back(&r);
  }
  fmt::print(stderr, "lbbench sweep {}: {} runs, {} already recorded, {} to run{} -> {}\n", sweep.name,
             sweep.runs.size(), done, todo.size(), retried ? fmt::format(" ({} failed before)", retried) : "",
             (results / "runs.jsonl").string());
  RunnerOptions options =
      runner_options(sweep, results, results / "runs.jsonl", cmd.launcher.empty() ? sweep.launcher : cmd.launcher);
  options.bar = ::isatty(STDERR_FILENO) != 0;
  const RunnerSummary s = run_runs(sweep, todo, options);
  if (s.interrupted) {
    fmt::print(stderr, "lbbench sweep: interrupted; {} runs recorded this time. The same command resumes.\n",
               s.ok + s.failed);
    return 130;
  }
  fmt::print(stderr, "lbbench sweep {}: {} recorded, {} failed{}\n", sweep.name, s.ok, s.failed,
             s.failed ? "; their records hold the exit code and the end of the output" : "");
  return s.failed ? 1 : 0;
}

int run_on_slurm(const Sweep& sweep, const SweepCommand& cmd, const fs::path& results) {
  const SlurmPlan plan = plan_slurm(sweep, results, cmd.sets, self_binary());
  if (plan.ids.empty()) {
    fmt::print("every run of sweep {} is recorded; nothing to submit\n", sweep.name);
    return 0;
  }
  if (cmd.dry_run) {
    fmt::print("{}", plan.script);
    fmt::print(stderr, "lbbench sweep: dry run: {} runs in {} array tasks; nothing written or submitted\n",
               plan.ids.size(), plan.tasks);
    return 0;
  }
  const std::string job = submit_slurm(plan, results);
  fmt::print("submitted job {}: {} runs in {} array tasks ({})\nfollow it with: lbbench sweep {} --status\n", job,
             plan.ids.size(), plan.tasks, plan.script_file.string(), cmd.file);
  return 0;
}

}  // namespace

int sweep_command(const SweepCommand& cmd) {
  Sweep sweep = load_sweep(cmd.file, cmd.sets, cmd.repetitions, cmd.plugins);
  apply_slurm_overrides(sweep.slurm, cmd.slurm_overrides);
  const fs::path results = cmd.results.empty() ? fs::path("results") / sweep.name : fs::path(cmd.results);
  if (cmd.list) return list_runs(sweep, results);
  if (cmd.task) return run_task(sweep, cmd, results);
  if (cmd.status) return print_slurm_status(sweep, results) > 0 ? 1 : 0;
  if (cmd.collect) {
    collect_slurm(sweep, results);
    return 0;
  }
  if (cmd.slurm || cmd.dry_run) return run_on_slurm(sweep, cmd, results);
  return run_locally(sweep, cmd, results);
}

int report_command(const ReportCommand& cmd) {
  const RecordSet set = read_records(cmd.results);
  for (const auto& s : set.skipped) fmt::print(stderr, "lbbench report: skipped {}\n", s);
  if (!cmd.engines.empty()) {
    fmt::print("{}", engines_markdown(compare_engines(set.records), cmd.engines));
    return 0;
  }
  const Report report = build_report(set.records, cmd.options);
  if (report.records == 0) throw InputError(fmt::format("{}: no run records found", cmd.results));
  const std::string csv = report_csv(report);
  if (!cmd.csv_file.empty()) {
    std::ofstream out(cmd.csv_file);
    out << csv;
    if (!out) throw InputError(fmt::format("{}: cannot write the CSV table", cmd.csv_file));
  }
  if (!cmd.costs_file.empty()) {
    if (report.decision_costs.empty() && report.migration_costs.empty()) {
      throw InputError(fmt::format("{}: no LB call to fit costs on", cmd.results));
    }
    std::ofstream out(cmd.costs_file);
    out << costs_file_json(report.decision_costs, report.migration_costs).dump(2) << '\n';
    if (!out) throw InputError(fmt::format("{}: cannot write the costs file", cmd.costs_file));
  }
  fmt::print("{}", cmd.csv ? csv : report_markdown(report, cmd.options));
  return 0;
}

}  // namespace lbbench
