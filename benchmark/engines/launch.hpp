// Starting a run on an engine the `lbbench` front end does not run in-process: it checks
// the request and starts what runs it (`--engine smpi`: smpirun with lbbench-smpi), with the
// same scenario, overrides and outputs.
#pragma once

#include <string>
#include <vector>

#include "engines/catalog.hpp"

namespace lbbench {

struct LaunchRequest {
  std::string scenario;
  std::vector<std::string> overrides;  // --set, forwarded
  int ranks = 0;                       // 0: the scenario's `ranks`
  std::vector<std::string> forwarded;  // other run options, forwarded as they are
  std::string platform_dir;            // keep the generated platform here; empty: a temporary folder
  std::vector<std::string> cfg;        // extra simulator settings, KEY:VALUE
};

// Returns the run's exit code. Throws InputError for a request the engine refuses.
int launch_engine(EngineKind kind, const LaunchRequest& request);

}  // namespace lbbench
