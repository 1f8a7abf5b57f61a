// Sweeps as Slurm job arrays (see slurm.hpp).
#include "harness/slurm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/process.hpp"
#include "engines/catalog.hpp"
#include "harness/runner.hpp"
#include "harness/store.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

// Single quotes for the shell.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

fs::path jobs_file(const fs::path& results) { return results / "slurm" / "jobs.txt"; }

struct SubmittedJob {
  std::string job;
  fs::path ids_file;
};

std::optional<SubmittedJob> newest_job(const fs::path& results) {
  std::ifstream in(jobs_file(results));
  std::string line;
  std::optional<SubmittedJob> out;
  while (std::getline(in, line)) {
    const Json j = Json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("job"))
      out = SubmittedJob{j["job"].get<std::string>(), j["ids_file"].get<std::string>()};
  }
  return out;
}

// Array tasks of the job still in the queue, by state ("PENDING", "RUNNING", ...).
std::map<std::string, int> queued_states(const std::string& job) {
  std::map<std::string, int> out;
  std::string text;
  try {
    text = capture_output({"squeue", "-h", "-r", "-j", job, "-o", "%T"});
  } catch (const InputError&) {
    return out;  // squeue forgets finished jobs and then calls their id invalid
  }
  std::istringstream lines(text);
  for (std::string state; lines >> state;) ++out[state];
  return out;
}

std::vector<std::string> all_ids(const fs::path& ids_file) {
  std::ifstream in(ids_file);
  if (!in) throw InputError(fmt::format("{}: cannot read the list of submitted runs", ids_file.string()));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

int runs_per_task_of(const fs::path& ids_file) {
  std::ifstream in(ids_file);
  std::string header;
  std::getline(in, header);
  int per_task = 1;
  if (std::sscanf(header.c_str(), "# runs_per_task %d", &per_task) != 1 || per_task < 1) {
    throw InputError(fmt::format("{}: the first line must be '# runs_per_task N'", ids_file.string()));
  }
  return per_task;
}

std::string batch_script(const Sweep& sweep, const SlurmPlan& plan, const fs::path& results,
                         const std::vector<std::string>& forwarded_sets, const std::string& lbbench) {
  const SlurmSettings& s = sweep.slurm;
  int ntasks = s.ntasks;
  for (const auto& r : sweep.runs) {
    if (s.ntasks == 0 && find_engine(r.engine).process_per_rank) ntasks = std::max(ntasks, r.ranks);
  }
  std::string out = "#!/bin/bash\n";
  out += fmt::format("# lbbench sweep {}: {} runs in {} array tasks. Written by lbbench sweep --slurm.\n", sweep.name,
                     plan.ids.size(), plan.tasks);
  out += fmt::format("#SBATCH --job-name=lbbench-{}\n", sweep.name);
  out += fmt::format("#SBATCH --array=0-{}\n", plan.tasks - 1);
  out += fmt::format("#SBATCH --output={}/task-%a.out\n", (results / "slurm").string());
  if (!s.partition.empty()) out += fmt::format("#SBATCH --partition={}\n", s.partition);
  if (!s.account.empty()) out += fmt::format("#SBATCH --account={}\n", s.account);
  if (!s.time.empty()) out += fmt::format("#SBATCH --time={}\n", s.time);
  if (s.nodes > 0) out += fmt::format("#SBATCH --nodes={}\n", s.nodes);
  out += fmt::format("#SBATCH --ntasks={}\n", std::max(1, ntasks));
  for (const auto& a : s.sbatch_args) out += fmt::format("#SBATCH {}\n", a);
  out += fmt::format(
      "# Each task runs its share of the runs; an mpi-engine run starts as\n"
      "#   srun --mpi={} -n RANKS lbbench run SCENARIO --set ...\n",
      s.mpi);
  out += "set -euo pipefail\n";
  out += fmt::format("cd {}\n", quoted(fs::current_path().string()));
  std::string cmd =
      fmt::format("exec {} sweep {} --task \"$SLURM_ARRAY_TASK_ID\" --ids {} --results {}", quoted(lbbench),
                  quoted(sweep.file.string()), quoted(plan.ids_file.string()), quoted(results.string()));
  for (const auto& set : forwarded_sets) cmd += " --set " + quoted(set);
  for (const auto& plugin : sweep.plugins) cmd += " --plugin " + quoted(plugin);
  return out + cmd + "\n";
}

}  // namespace

SlurmPlan plan_slurm(const Sweep& sweep, const fs::path& results, const std::vector<std::string>& forwarded_sets,
                     const std::string& lbbench) {
  const auto statuses = recorded_statuses(results);
  SlurmPlan plan;
  for (const auto& r : sweep.runs) {
    const auto it = statuses.find(r.id);
    if (it == statuses.end() || it->second != "ok") plan.ids.push_back(r.id);
  }
  plan.runs_per_task = sweep.slurm.runs_per_task;
  plan.tasks = static_cast<int>((plan.ids.size() + plan.runs_per_task - 1) / plan.runs_per_task);
  const std::string name = utc_timestamp("%Y%m%d-%H%M%S");
  plan.ids_file = fs::absolute(results / "slurm" / (name + ".ids"));
  plan.script_file = fs::absolute(results / "slurm" / (name + ".sbatch"));
  plan.script = batch_script(sweep, plan, fs::absolute(results), forwarded_sets, lbbench);
  return plan;
}

std::string submit_slurm(const SlurmPlan& plan, const fs::path& results) {
  fs::create_directories(results / "slurm");
  {
    std::ofstream ids(plan.ids_file);
    ids << "# runs_per_task " << plan.runs_per_task << "\n";
    for (const auto& id : plan.ids) ids << id << "\n";
    std::ofstream script(plan.script_file);
    script << plan.script;
    if (!ids || !script) throw RunError(fmt::format("{}: cannot write the batch files", (results / "slurm").string()));
  }
  std::string out = capture_output({"sbatch", "--parsable", plan.script_file.string()});
  std::string job = out.substr(0, out.find_first_of(";\n"));
  const RecordStore jobs(jobs_file(results));
  jobs.append(Json{{"job", job},
                   {"ids_file", plan.ids_file.string()},
                   {"script", plan.script_file.string()},
                   {"runs", plan.ids.size()},
                   {"tasks", plan.tasks}});
  return job;
}

std::vector<std::string> task_ids(const fs::path& ids_file, int task) {
  const int per_task = runs_per_task_of(ids_file);
  const auto ids = all_ids(ids_file);
  std::vector<std::string> out;
  for (std::size_t i = static_cast<std::size_t>(task) * per_task; i < ids.size() && out.size() < std::size_t(per_task);
       ++i) {
    out.push_back(ids[i]);
  }
  return out;
}

fs::path task_records_file(const fs::path& results, const fs::path& ids_file, int task) {
  return results / "tasks" / fmt::format("{}-task-{}.jsonl", ids_file.stem().string(), task);
}

int print_slurm_status(const Sweep& sweep, const fs::path& results) {
  const auto job = newest_job(results);
  const auto statuses = recorded_statuses(results);
  int ok = 0;
  int failed = 0;
  for (const auto& r : sweep.runs) {
    const auto it = statuses.find(r.id);
    if (it != statuses.end()) ++(it->second == "ok" ? ok : failed);
  }
  const int total = static_cast<int>(sweep.runs.size());
  fmt::print("sweep {}: {} runs: {} recorded, {} failed, {} without a record\n", sweep.name, total, ok, failed,
             total - ok - failed);
  if (!job) {
    fmt::print("no Slurm job submitted from {}\n", results.string());
    return total - ok;
  }
  const auto states = queued_states(job->job);
  int queued = 0;
  std::string text;
  for (const auto& [state, n] : states) {
    queued += n;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, state);
  }
  fmt::print("job {}: {}\n", job->job, queued ? text + " array tasks in the queue" : "no longer in the queue");
  const int unfinished = total - ok - failed;
  if (!queued && unfinished > 0)
    fmt::print("run `lbbench sweep {} --collect` to merge the tasks' records\n", sweep.file.string());
  return queued ? 0 : unfinished;
}

void collect_slurm(const Sweep& sweep, const fs::path& results) {
  const RecordStore store(results / "runs.jsonl");
  std::set<std::string> present;
  for (const auto& r : read_records(store.file()).records) present.insert(r.dump());
  int merged = 0;
  std::vector<fs::path> task_files;
  if (fs::exists(results / "tasks")) {
    for (const auto& e : fs::directory_iterator(results / "tasks")) task_files.push_back(e.path());
  }
  std::sort(task_files.begin(), task_files.end());
  for (const auto& f : task_files) {
    for (const auto& r : read_records(f).records) {
      if (present.insert(r.dump()).second) {
        store.append(r);
        ++merged;
      }
    }
  }
  const auto job = newest_job(results);
  const bool job_done = job && queued_states(job->job).empty();
  int lost = 0;
  if (job_done) {
    // Runs the job owned that ended without any record: a time limit, a cancel, a node.
    auto statuses = run_statuses(read_records(store.file()).records);
    const int per_task = runs_per_task_of(job->ids_file);
    const auto ids = all_ids(job->ids_file);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (statuses.contains(ids[i])) continue;
      const auto run =
          std::find_if(sweep.runs.begin(), sweep.runs.end(), [&](const auto& r) { return r.id == ids[i]; });
      if (run == sweep.runs.end()) continue;
      const fs::path out = results / "slurm" / fmt::format("task-{}.out", i / per_task);
      store.append(failure_record(sweep, *run, -1,
                                  fmt::format("Slurm job {} ended without a record of this run (time limit, cancel "
                                              "or node failure?); see {}",
                                              job->job, out.string()),
                                  tail_lines(out, kErrorTailLines), 0));
      ++lost;
    }
    for (const auto& f : task_files) fs::remove(f);  // all merged above, and no task writes any more
  }
  fmt::print(
      "merged {} records into {}{}\n", merged, store.file().string(),
      lost ? fmt::format("; {} runs of job {} ended without a record and are marked failed", lost, job->job) : "");
  if (job && !job_done) fmt::print("job {} is still in the queue; collect again when it ends\n", job->job);
}

}  // namespace lbbench
