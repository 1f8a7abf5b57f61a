// Sweeps as Slurm job arrays.
//
// `--slurm` writes the ids of the runs not yet recorded to slurm/<stamp>.ids and one batch
// script, slurm/<stamp>.sbatch, whose array tasks each run `lbbench sweep ... --task K`:
// that re-expands the same sweep, takes its chunk of the ids, and starts each mpi-engine
// run with srun inside the allocation. Each task appends to its own file under tasks/, so
// no two tasks write one file; `--collect` merges them into runs.jsonl.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/sweep.hpp"

namespace lbbench {

struct SlurmPlan {
  std::vector<std::string> ids;  // runs to submit, in sweep order
  int runs_per_task = 1;
  int tasks = 0;  // array tasks
  std::filesystem::path ids_file;
  std::filesystem::path script_file;
  std::string script;
};

// The plan and batch script for the runs of `sweep` not recorded in `results` yet.
// `forwarded_sets` are the command line's --set, repeated in each task's command.
SlurmPlan plan_slurm(const Sweep& sweep, const std::filesystem::path& results,
                     const std::vector<std::string>& forwarded_sets, const std::string& lbbench);

// Writes the plan's files and submits the script with sbatch; returns the job id.
std::string submit_slurm(const SlurmPlan& plan, const std::filesystem::path& results);

// Prints the state of the newest submitted job and of the records; returns the number of
// runs neither recorded nor still queued.
int print_slurm_status(const Sweep& sweep, const std::filesystem::path& results);

// Merges the tasks' records into runs.jsonl. When the job has left the queue, runs it
// submitted that have no record get a failure record with the tail of their task's output.
void collect_slurm(const Sweep& sweep, const std::filesystem::path& results);

// The runs of array task `task` listed in `ids_file`.
std::vector<std::string> task_ids(const std::filesystem::path& ids_file, int task);

// The file array task `task` of `ids_file` appends its records to.
std::filesystem::path task_records_file(const std::filesystem::path& results, const std::filesystem::path& ids_file,
                                        int task);

}  // namespace lbbench
