// The rank-reorder benchmark mode (Keller, Majeed & Kessler): n processes share p < n
// cores, and the ranks are permuted once, at start-up, so each core's processes carry a
// fair share of the load. No vertex moves: the process that becomes rank r builds rank
// r's part of the mesh, exactly as rank r would have.
#pragma once

#include <mpi.h>

#include <string>

#include "core/json_yaml.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct StartupReorder {
  MPI_Comm comm = MPI_COMM_NULL;  // the reordered communicator; the caller frees it
  Json report;                    // the record's `reorder` object; only on the new rank 0
};

class Engine;

// Collective over comm. With `cores`, first pins each node's processes round-robin to
// that many cores (§1.2 order for a list of processes per core). Then each rank's load is
// the sum of its vertices' weights at step 0 times unit_seconds, and the scenario's
// reorder method permutes the ranks.
StartupReorder reorder_at_start(const Scenario& s, const Engine& engine, MPI_Comm comm);

}  // namespace lbbench
