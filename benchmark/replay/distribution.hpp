// The initial distribution: where each vertex starts, applied by the migration engine.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/local_graph.hpp"
#include "meshes/trace/trace.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// `trace` is the recorded run the mesh was read from, or null.

// Starting rank of local vertex v among `nranks` for every distribution but `file`
// (a pure function of the vertex, its position and the seed).
Rank starting_rank(const DistributionSpec& spec, const LocalGraph& g, const TraceLayout* trace, LocalIndex v,
                   int nranks, std::uint64_t seed);

// `owners` (one per local vertex) with a recorded run's non-migratable objects put back on
// their own ranks: a partition file cannot move them.
std::vector<Rank> pin_recorded(const LocalGraph& g, const TraceLayout* trace, std::vector<Rank> owners, int nranks);

// A partition file's ranks, one per vertex in id order, read in one process; the same
// checks as the distributed reader.
std::vector<Rank> read_partition_file(const std::string& path, std::int64_t vertices, int nranks);

// Throws AgreedInputError when the mesh cannot be distributed as the spec says (strips
// along an axis the mesh lacks).
void check_distribution(const DistributionSpec& spec, const LocalGraph& g);

// Starting rank of every local vertex. Throws InputError (agreed on every rank) when the
// distribution asks for what the mesh lacks, or a partition file is wrong.
std::vector<Rank> initial_owners(const DistributionSpec& spec, const LocalGraph& g, const TraceLayout* trace,
                                 std::uint64_t seed, MPI_Comm comm);

// Moves every vertex to its starting rank. Placing the mesh is not a migration of the
// benchmark: no payload, nothing counted.
void place_at_start(LocalGraph& g, const TraceLayout* trace, const DistributionSpec& spec, std::uint64_t seed,
                    MPI_Comm comm);

}  // namespace lbbench
