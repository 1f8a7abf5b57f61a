// `lbbench run --engine model`: the scenario on a modeled machine, in this process.
#pragma once

#include "engines/launch.hpp"
#include "record/run_record.hpp"

namespace lbbench {

// Validates the request and runs the model; the caller reports the record.
RunRecord launch_model(const LaunchRequest& launch);

}  // namespace lbbench
