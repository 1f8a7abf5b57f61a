// The machine a run is on, as balancers see it, and the pieces engines place ranks with.
// The `local` preset describes the real hosts: ranks that share memory are one node, all
// nodes one site, all speeds equal.
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>

#include "balancers/sdk/balancer.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct MachineLayout {
  MachineInfo info;
  int nodes = 1;
  int ranks_on_my_node = 1;
  unsigned cores_on_my_node = 1;
};

// What engines place ranks with (engines/*/ decide which apply).

// The real hosts the job runs on: ranks that share memory are one node. With a preset,
// balancers are told its nodes and sites instead; on machine local, the scenario's
// declared sites and speeds. Collective.
MachineLayout discover_hosts(const MachineSpec& spec, MPI_Comm comm);

// Each rank's node and site on the preset. The layout places world ranks (the simulated
// hostfile's order); a reordered communicator runs them in another order.
void place_on_preset(const MachinePreset& preset, MPI_Comm comm, MachineInfo& info);

class NetworkModel;

// What a cost model should assume of the network: the preset's link latency and bandwidth
// (equation 6's alpha and beta), a small message between the farthest ranks and a small
// allreduce, the wide-area link's latency and a cross-site flow's rate, as the model
// engine prices them (checked against SMPI), and the migration engine's collectives per
// call.
NetworkFacts network_facts(const NetworkModel& net);
void set_network(const MachinePreset& preset, int nranks, MachineInfo& info);

// The fits of the platform (engine, preset) this run is on, from the scenario's costs
// file; a file without them is an error rather than a silent fallback to the paper's
// alpha and beta.
void attach_fitted_costs(const MachineSpec& spec, std::string_view engine, MachineInfo& info);

}  // namespace lbbench
