// The machine a run is on (see machine.hpp).
#include "replay/placement.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <thread>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "machine/network.hpp"
#include "replay/migration.hpp"

namespace lbbench {

namespace {

// Cores the ranks of one node may run on: the union of their affinity masks, which
// follows what the launcher or the batch system granted (not every core of the host).
unsigned cores_available_to(MPI_Comm node) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t all;
  MPI_Allreduce(&mine, &all, sizeof(cpu_set_t), MPI_BYTE, MPI_BOR, node);
  return std::max(1, CPU_COUNT(&all));
}

// Sites and speeds declared in the scenario, checked against the job's size. The same on
// every rank, so errors need no agreement.
void apply_inline_layout(const MachineSpec& spec, int nranks, MachineInfo& info) {
  std::vector<int> sites(static_cast<std::size_t>(nranks), 0);
  if (spec.site_groups > 0) {
    if (spec.site_groups > nranks) {
      throw AgreedInputError(
          fmt::format("machine.sites is {}, but the job has only {} ranks", spec.site_groups, nranks));
    }
    for (int r = 0; r < nranks; ++r) sites[static_cast<std::size_t>(r)] = block_owner(r, nranks, spec.site_groups);
  } else if (!spec.sites.empty()) {
    if (static_cast<int>(spec.sites.size()) != nranks) {
      throw AgreedInputError(
          fmt::format("machine.sites lists {} ranks, but the job has {}", spec.sites.size(), nranks));
    }
    sites = spec.sites;
  }
  info.sites = *std::max_element(sites.begin(), sites.end()) + 1;
  for (int s = 0; s < info.sites; ++s) {
    if (std::find(sites.begin(), sites.end(), s) == sites.end()) {
      throw AgreedInputError(fmt::format("machine.sites: site {} has no ranks (sites are numbered 0..{} without gaps)",
                                         s, info.sites - 1));
    }
  }
  info.rank_site = std::move(sites);
  if (spec.speeds.size() == 1)
    info.rank_speed = std::vector<double>(static_cast<std::size_t>(nranks), spec.speeds.front());
  if (spec.speeds.size() > 1) {
    if (static_cast<int>(spec.speeds.size()) != nranks) {
      throw AgreedInputError(
          fmt::format("machine.speeds lists {} ranks, but the job has {}", spec.speeds.size(), nranks));
    }
    info.rank_speed = spec.speeds;
  }
}

}  // namespace

NetworkFacts network_facts(const NetworkModel& net) {
  const MachinePreset& preset = net.preset();
  NetworkFacts n;
  n.link_latency_s = preset.link_latency;
  n.link_bandwidth_Bps = preset.link_bandwidth;
  constexpr double kSmall = 64;  // bytes: a protocol's message
  const int far = net.nranks() - 1;
  n.far_message_s = net.send_overhead_s(kSmall) + net.transfer_s(0, far, kSmall) + net.receive_overhead_s(kSmall);
  n.allreduce_s = net.allreduce_s(8);
  n.barrier_s = net.barrier_s();
  n.receive_overhead_s = net.receive_overhead_s(kSmall);
  n.node_bandwidth_Bps = net.node_bandwidth_Bps();
  n.scattered_exchange_s_per_byte = net.scattered_exchange_s_per_byte();
  n.call_collectives = kMigrationCollectives;
  if (preset.sites > 1) {  // the last rank is on the last site
    n.wan_latency_s = preset.wan_latency;
    n.wan_flow_Bps = net.bandwidth_Bps(0, far);
    if (preset.wan_shared) n.wan_shared_Bps = preset.wan_bandwidth;
  }
  return n;
}

void set_network(const MachinePreset& preset, int nranks, MachineInfo& info) {
  info.network = network_facts(NetworkModel(preset, nranks));
}

void attach_fitted_costs(const MachineSpec& spec, std::string_view engine, MachineInfo& info) {
  if (spec.costs_file.empty()) return;
  const auto it = spec.costs.find({std::string(engine), spec.preset});
  if (it == spec.costs.end()) {
    std::string listed;
    for (const auto& [platform, fits] : spec.costs) listed += fmt::format(" {} · {};", platform.first, platform.second);
    throw AgreedInputError(fmt::format(
        "machine.costs: {} has no fits for {} · {} (it has:{}); fit them with `lbbench "
        "report --costs-out` over runs on this platform",
        spec.costs_file_resolved, engine, spec.preset, listed.empty() ? " none" : listed.substr(0, listed.size() - 1)));
  }
  info.fitted_costs = std::make_shared<const FittedCosts>(it->second);
}

void place_on_preset(const MachinePreset& preset, MPI_Comm comm, MachineInfo& info) {
  const std::vector<int> world = world_ranks_of(comm);
  const RankLayout layout = plan_layout(preset, comm_size(MPI_COMM_WORLD));
  std::vector<int> node(world.size()), site(world.size());
  for (std::size_t r = 0; r < world.size(); ++r) {
    node[r] = layout.rank_host[static_cast<std::size_t>(world[r])];
    site[r] = layout.rank_site[static_cast<std::size_t>(world[r])];
  }
  info.rank_node = std::move(node);
  info.rank_site = std::move(site);
}

MachineLayout discover_hosts(const MachineSpec& spec, MPI_Comm comm) {
  MachineLayout out;
  const int nranks = comm_size(comm);
  out.info = MachineInfo::uniform(nranks);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  out.ranks_on_my_node = comm_size(node);
  // A node's id is the number of node leaders (lowest rank of each node) before its own.
  // An allgather rather than MPI_Exscan, which SMPI implements in O(P^2) messages.
  const int leader = comm_rank(node) == 0 ? 1 : 0;
  std::vector<int> leaders(static_cast<std::size_t>(nranks));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
  int node_id = 0;
  for (int r = 0; r < comm_rank(comm); ++r) node_id += leaders[static_cast<std::size_t>(r)];
  MPI_Bcast(&node_id, 1, MPI_INT, 0, node);
  std::vector<int> nodes(static_cast<std::size_t>(nranks));
  MPI_Allgather(&node_id, 1, MPI_INT, nodes.data(), 1, MPI_INT, comm);
  out.info.rank_node = std::move(nodes);
  out.nodes = std::accumulate(leaders.begin(), leaders.end(), 0);
  out.cores_on_my_node = cores_available_to(node);
  MPI_Comm_free(&node);
  if (spec.definition) {
    // A preset: balancers see the simulated (or pretended) machine's nodes and sites.
    place_on_preset(spec.effective_preset(), comm, out.info);
    out.info.sites = spec.definition->sites;
    set_network(spec.effective_preset(), nranks, out.info);
  } else {
    apply_inline_layout(spec, nranks, out.info);
    if (spec.latency) out.info.network.link_latency_s = *spec.latency;
    if (spec.bandwidth) out.info.network.link_bandwidth_Bps = out.info.network.node_bandwidth_Bps = *spec.bandwidth;
    out.info.network.call_collectives = kMigrationCollectives;
  }
  return out;
}

}  // namespace lbbench
