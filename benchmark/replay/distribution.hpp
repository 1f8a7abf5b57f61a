// The initial distribution: where each vertex starts, applied by the migration engine.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
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

// Distributions that place a vertex by its place in an order of all vertices rather than
// by a rule of its own: sfc (a block mesh along its curve), and block on a mesh whose ids
// are sparse (equal ranges of ids in id order, as block means on dense ids).
bool places_in_key_order(const DistributionSpec& spec, const LocalGraph& g);
// Each local vertex's key in that order (unique over the mesh). `mesh` is the block mesh's
// spec for sfc.
std::vector<std::uint64_t> placement_keys(const DistributionSpec& spec, const MeshSpec& mesh, const LocalGraph& g);
// The rank of each key when all keys, sorted, are cut into equal parts: the cuts are found
// by a binary search over key values, one allreduce of the P-1 cuts' counts per step, so
// no rank sorts more than its own keys. `total`: the keys over all ranks. Collective.
std::vector<Rank> cut_in_key_order(std::span<const std::uint64_t> keys, std::int64_t total, MPI_Comm comm);
// The same in one process that holds every key.
std::vector<Rank> cut_in_key_order_serial(std::span<const std::uint64_t> keys, int nranks);

// Starting rank of every local vertex. Throws InputError (agreed on every rank) when the
// distribution asks for what the mesh lacks, or a partition file is wrong. `mesh` is
// needed by sfc only.
std::vector<Rank> initial_owners(const DistributionSpec& spec, const LocalGraph& g, const TraceLayout* trace,
                                 std::uint64_t seed, MPI_Comm comm, const MeshSpec* mesh = nullptr);

// Moves every vertex to its starting rank. Placing the mesh is not a migration of the
// benchmark: no payload, nothing counted.
void place_at_start(LocalGraph& g, const TraceLayout* trace, const DistributionSpec& spec, std::uint64_t seed,
                    MPI_Comm comm, const MeshSpec* mesh = nullptr);

}  // namespace lbbench
