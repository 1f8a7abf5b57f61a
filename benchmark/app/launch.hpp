// Starting a run on an engine this binary does not run in-process: `lbbench` starts the
// smpi engine (smpirun with lbbench-smpi) and runs the model engine itself; lbbench-smpi,
// which smpirun starts, launches nothing. CMake compiles one of the two definitions into
// each binary.
#pragma once

#include "app/outputs.hpp"
#include "engines/catalog.hpp"
#include "engines/launch.hpp"

namespace lbbench {

// Returns the run's exit code. Throws InputError for a request the engine refuses.
int launch_engine(EngineKind kind, const LaunchRequest& request, const RunOutputs& outputs);

}  // namespace lbbench
