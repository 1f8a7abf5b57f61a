// Runs a sweep's runs one after another (locally, or inside one Slurm array task) and
// records each: its run record with a `sweep` field added, or a failure record that keeps
// the exit code and the last lines of the run's output. A failed run never stops the
// sweep; an interrupted one is not recorded, so it runs again on resume.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/sweep.hpp"
#include "record/run_record.hpp"

namespace lbbench {

// Lines of a failed run's output its failure record keeps.
constexpr std::size_t kErrorTailLines = 20;

struct RunnerOptions {
  std::filesystem::path results;    // the sweep's folder: logs/ and scratch go here
  std::filesystem::path records;    // the JSON Lines file records are appended to
  std::string launcher = "mpirun";  // how mpi-engine ranks start: mpirun | srun
  bool recalibrate = false;         // mpi-engine runs measure do_work first (Sweep::recalibrate)
  std::string srun_mpi = "pmix";
  std::string lbbench;               // the lbbench binary
  std::vector<std::string> plugins;  // strategy libraries every run loads (--plugin)
  bool bar = false;                  // redraw a progress bar on stderr (a terminal)
};

struct RunnerSummary {
  int ok = 0;
  int failed = 0;
  bool interrupted = false;
};

// The command line of one run.
std::vector<std::string> run_command(const SweepRun& run, const RunnerOptions& options,
                                     const std::filesystem::path& record_out);

RunnerSummary run_runs(const Sweep& sweep, const std::vector<const SweepRun*>& todo, const RunnerOptions& options);

// The `sweep` field of a record: which sweep, run and repetition, and the axis values.
SweepInfo sweep_info(const Sweep& sweep, const SweepRun& run, const std::string& status);

// A record for a run that ended without one, with the provenance a run record has: this
// build, this host, when the run started (empty when not known) and its command.
Json failure_record(const Sweep& sweep, const SweepRun& run, int exit_code, const std::string& reason,
                    const std::vector<std::string>& error_tail, double seconds, const std::string& started = "",
                    const std::vector<std::string>& command = {});

// This lbbench binary's path, for the commands of runs and batch scripts.
std::string self_binary();

}  // namespace lbbench
