// Sweep files (scenarios/sweeps/*.yaml): base scenarios, fixed settings, axes whose
// product makes the runs, and repetitions. Expansion is deterministic, every run is
// validated before anything starts, and each run has a stable id.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"

namespace lbbench {

// #SBATCH settings; empty strings and zeros are left to Slurm's defaults.
struct SlurmSettings {
  std::string partition;
  std::string time;  // Slurm's time format, "00:30:00"
  std::string account;
  int nodes = 0;
  int ntasks = 0;                        // 0: the largest rank count among the runs
  int runs_per_task = 1;                 // runs one array task executes in turn
  std::string mpi = "pmix";              // srun --mpi=, how Open MPI ranks meet under srun
  std::vector<std::string> sbatch_args;  // anything else, as "--opt=value"
};

struct SweepRun {
  int index = 0;                   // position in the expansion
  int repetition = 0;              // 0-based
  std::string id;                  // 12 hex digits of sha256(normalized scenario, engine, repetition)
  std::filesystem::path scenario;  // the base scenario file, absolute
  std::string engine;              // mpi | smpi
  int ranks = 0;
  Json axes = Json::object();               // axis key -> this run's value
  std::vector<std::string> overrides;       // --set assignments: fixed settings, then axes
  Json config;                              // the normalized scenario
  [[nodiscard]] std::string label() const;  // "balancer=greedy ranks=64 #2"
};

struct Sweep {
  std::string name;
  std::filesystem::path file;                    // the sweep file
  std::vector<std::filesystem::path> scenarios;  // base scenarios, absolute; several make an outer axis
  int repetitions = 1;
  double timeout_s = 3600;          // per run
  std::string launcher = "mpirun";  // how the mpi engine starts ranks locally: mpirun | srun
  // The mpi engine's runs measure do_work before each run (run --recalibrate) instead of
  // reading this host's cached rate: a host's rate can drift by tens of percent within a
  // sweep, and a run compared with a simulation must do the work its weights ask for.
  bool recalibrate = false;
  std::vector<std::string> axis_keys;  // in file order
  SlurmSettings slurm;
  // Strategy libraries every run loads (--plugin, then the sweep's `plugins:`), absolute.
  std::vector<std::string> plugins;
  std::vector<SweepRun> runs;  // repetition-major: every configuration once, then again
};

// Reads, expands and validates a sweep. `extra_sets` are "key.path=value" settings from the
// command line, applied after the file's. Errors name the file, line and column.
// `repetitions` > 0 replaces the sweep file's count; the runs kept are the first ones, with
// the ids they have in the full sweep (a deterministic engine needs only one). `plugins`
// are strategy libraries loaded before the sweep's own (--plugin).
Sweep load_sweep(const std::filesystem::path& file, const std::vector<std::string>& extra_sets = {},
                 int repetitions = 0, const std::vector<std::string>& plugins = {});

// The stable id of a run: the same scenario, engine and repetition give the same id.
std::string run_id(const Json& normalized_scenario, const std::string& engine, int repetition);

}  // namespace lbbench
