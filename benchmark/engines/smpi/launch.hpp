// `lbbench run --engine smpi`: generate the SimGrid platform and hostfile for a machine
// preset and a rank count, then run lbbench-smpi under smpirun with the right flags.
#pragma once

#include "engines/launch.hpp"

namespace lbbench {

// Validates the scenario, writes the platform, runs the simulation; returns its exit code.
// `cfg` settings go to SimGrid after the preset's, so they win.
int launch_smpi(const LaunchRequest& launch);

}  // namespace lbbench
