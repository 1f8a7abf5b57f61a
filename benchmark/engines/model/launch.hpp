// `lbbench run --engine model`: the scenario on a modeled machine, in this process.
#pragma once

#include "engines/launch.hpp"

namespace lbbench {

// Validates the request, runs the model, prints the summary and writes the outputs;
// returns the exit code.
int launch_model(const LaunchRequest& launch);

}  // namespace lbbench
