// The machine a run is on, as balancers see it. The `local` preset describes the real
// hosts: ranks that share memory are one node, all nodes one site, all speeds equal.
#pragma once

#include <mpi.h>

#include <string>

#include "balancers/balancer.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct MachineLayout {
  MachineInfo info;
  int nodes = 1;
  int ranks_on_my_node = 1;
  unsigned cores_on_my_node = 1;
};

// Collective.
MachineLayout describe_machine(const MachineSpec& spec, MPI_Comm comm);

// Set by `lbbench run --engine smpi` for the simulated ranks: simulated seconds per host
// second of real code (MachineInfo::code_time_scale).
inline constexpr const char* kCodeTimeScaleEnv = "LBBENCH_SMPI_CODE_TIME_SCALE";

}  // namespace lbbench
