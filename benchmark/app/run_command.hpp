// `lbbench run`: its options, and the run on this binary's own engine or on another one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/outputs.hpp"
#include "replay/engine.hpp"
#include "replay/replay.hpp"

namespace CLI {
class App;
}

namespace lbbench {

struct RunCommand {
  std::string scenario_file;
  std::string trace;                   // --trace: a recorded run instead of a scenario file
  std::vector<std::string> overrides;  // --set
  std::string set_file;                // --set-file: how `--engine smpi` hands its overrides through smpirun
  std::vector<std::string> plugins;    // --plugin: strategy libraries, loaded before the scenario is read
  RunOptions options;
  RunOutputs outputs;
  EngineSettings settings;
  std::string code_charge = "explicit";
  std::string engine;
  std::string machine;
  int ranks = 0;
  std::string platform_dir;
  std::optional<double> host_ghz;
  std::vector<std::string> smpi_cfg;
};

CLI::App* add_run_command(CLI::App& app, RunCommand& c);

// Returns the exit code: 0, 2 for bad input, 3 for a run that broke.
int run_command(RunCommand& c, int argc, char** argv);

}  // namespace lbbench
