// Child processes: for sweeps, one run at a time, its output in a log file, a time limit,
// and Ctrl-C or SIGTERM passed on to the whole process group of the run (mpirun and its
// ranks, or smpirun), so an interrupted sweep leaves nothing behind; and a command run in
// the foreground, as `lbbench run --engine smpi` starts its simulation.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lbbench {

struct ProcessResult {
  int exit_code = 0;  // the child's exit status, or 128 + signal
  bool timed_out = false;
  bool interrupted = false;  // the sweep itself was asked to stop
  double seconds = 0;
};

// Runs `argv` (searched on PATH) with stdout and stderr appended to `log`. `tick` is called
// about twice a second while it runs.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& log, double timeout_s,
                          const std::function<void()>& tick);

// Installs SIGINT and SIGTERM handlers that ask run_process to stop its child.
void catch_stop_signals();
[[nodiscard]] bool stop_requested();

// Runs `argv` (searched on PATH) with this process's standard streams, in the foreground
// (Ctrl-C reaches it), and waits for it. Returns its exit status, or 128 + signal.
// Throws InputError when it cannot start.
int run_in_foreground(const std::vector<std::string>& argv);

// Runs a short command and returns its standard output (for sbatch and squeue).
// Throws InputError when it cannot start or exits non-zero, with its error output.
std::string capture_output(const std::vector<std::string>& argv);

}  // namespace lbbench
