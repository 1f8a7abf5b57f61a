// `lbbench run --engine smpi`: generate the SimGrid platform and hostfile for a machine
// preset and a rank count, then run lbbench-smpi under smpirun with the right flags.
#pragma once

#include <string>
#include <vector>

namespace lbbench {

struct SmpiLaunch {
  std::string scenario;
  std::vector<std::string> overrides;  // --set, forwarded
  int ranks = 0;                       // 0: the scenario's `ranks`
  std::vector<std::string> forwarded;  // other run options, forwarded as they are
  std::string platform_dir;            // keep the platform files here; empty: a temporary folder
  std::vector<std::string> cfg;        // extra SimGrid settings, KEY:VALUE, after the preset's
};

// Validates the scenario, writes the platform, runs the simulation; returns its exit code.
int launch_smpi(const SmpiLaunch& launch);

// Cycles per second of one core of this host, measured with a chain of dependent adds
// (one per cycle on any current core).
double measure_host_ghz();

}  // namespace lbbench
