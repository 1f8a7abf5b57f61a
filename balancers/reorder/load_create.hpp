// The MPI side of the rank reorder, for C++ callers; lb_load_create.h wraps it for C.
// Both calls are collective, and throw the same std::exception on every process.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>

#include "balancers/reorder/reorder.hpp"

namespace lbbench::reorder {

// The key of a core of the host this process runs on (MPI_Get_processor_name), as a
// non-negative hash of the host name and the CPU number. The key is opaque: processes
// with equal keys share a core.
std::int64_t core_key(int cpu);
// The core this process runs on now (sched_getcpu): for real processes, as the C API's
// callers are. A simulated process passes its simulated host's key, core_key(0).
std::int64_t current_core_key();

// Allgathers each process's core key and lays out the slots (§1.2).
SlotLayout gather_layout(MPI_Comm comm, std::int64_t my_core_key);

// MPI_Load_create: loads has one entry per rank of comm, equal on every process.
MPI_Comm load_create(MPI_Comm comm, std::span<const double> loads, Method method, std::int64_t my_core_key,
                     const PlanOptions& options = {});

// MPI_Dist_load_create: each process knows its own load only.
MPI_Comm dist_load_create(MPI_Comm comm, double my_load, int levels, std::int64_t my_core_key);

}  // namespace lbbench::reorder
