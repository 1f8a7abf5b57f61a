// The initial distribution: where each vertex starts, applied by the migration engine.
#pragma once

#include <mpi.h>

#include <vector>

#include "meshes/local_graph.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// Starting rank of every local vertex. Throws InputError (agreed on every rank) when the
// distribution asks for what the mesh lacks, or a partition file is wrong.
std::vector<Rank> initial_owners(const DistributionSpec& spec, const LocalGraph& g, std::uint64_t seed, MPI_Comm comm);

// Moves every vertex to its starting rank. Placing the mesh is not a migration of the
// benchmark: no payload, nothing counted.
void place_at_start(LocalGraph& g, const DistributionSpec& spec, std::uint64_t seed, MPI_Comm comm);

}  // namespace lbbench
