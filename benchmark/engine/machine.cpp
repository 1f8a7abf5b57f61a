// The machine a run is on (see machine.hpp).
#include "engine/machine.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "core/mpi.hpp"

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

}  // namespace

MachineLayout describe_machine(const MachineSpec& /*spec: only `local` exists so far*/, MPI_Comm comm) {
  MachineLayout out;
  const int nranks = comm_size(comm);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  out.ranks_on_my_node = comm_size(node);
  const int leader = comm_rank(node) == 0 ? 1 : 0;
  int node_id = 0;
  MPI_Exscan(&leader, &node_id, 1, MPI_INT, MPI_SUM, comm);
  if (comm_rank(comm) == 0) node_id = 0;  // Exscan leaves rank 0's result undefined
  MPI_Bcast(&node_id, 1, MPI_INT, 0, node);
  out.info.rank_node.resize(static_cast<std::size_t>(nranks));
  MPI_Allgather(&node_id, 1, MPI_INT, out.info.rank_node.data(), 1, MPI_INT, comm);
  out.nodes = allreduce(leader, MPI_SUM, comm);
  out.info.node_site.assign(static_cast<std::size_t>(out.nodes), 0);
  out.info.rank_speed.assign(static_cast<std::size_t>(nranks), 1.0);
  out.cores_on_my_node = cores_available_to(node);
  MPI_Comm_free(&node);
  return out;
}

}  // namespace lbbench
