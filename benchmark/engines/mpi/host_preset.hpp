// `lbbench calibrate --preset-out FILE`: this machine measured into a machine preset.
#pragma once

#include "engines/native_commands.hpp"

namespace lbbench {

// Runs under mpirun or srun (it starts MPI with argc and argv); returns the exit code.
int calibrate_preset(const CalibrateRequest& request, int argc, char** argv);

}  // namespace lbbench
