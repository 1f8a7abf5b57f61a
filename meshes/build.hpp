// Builds this rank's part of a mesh, generated or read, without any rank holding the whole
// graph. The layout is the builder's natural one (contiguous id blocks for grids and files,
// chunks of space for point clouds); the scenario's initial distribution is applied
// afterwards by the migration engine.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "core/local_graph.hpp"
#include "meshes/mesh_spec.hpp"
#include "meshes/trace/trace.hpp"

namespace lbbench {

// This rank's part of the graph, and what a recorded run adds to it: its tasks' times per
// phase, where they ran, which are pinned (null for every other mesh). Balancers see the
// graph only.
struct Mesh {
  LocalGraph graph;
  std::shared_ptr<const TraceLayout> trace;
};

Mesh build_mesh(const MeshSpec& spec, std::uint64_t seed, MPI_Comm comm);

// Individual builders, also used by tests.
LocalGraph generate_grid(const GridSpec& spec, MPI_Comm comm);
LocalGraph generate_geometric(const GeometricSpec& spec, std::uint64_t seed, MPI_Comm comm);
LocalGraph generate_droplets(const DropletsSpec& spec, std::uint64_t seed, MPI_Comm comm);
// An octree or quadtree block mesh refined around its front at step 0 (meshes/octree/).
LocalGraph generate_octree(const OctreeSpec& spec, MPI_Comm comm);
Mesh read_mesh_file(const MeshFileSpec& spec, MPI_Comm comm);
// A recorded run (an LBDatafile trace): rank 0 reads it, every rank gets the whole trace
// and keeps its block of vertices.
Mesh read_trace_mesh(const MeshFileSpec& spec, MPI_Comm comm);
// Rank `rank`'s block of a trace's graph, before finish_graph.
LocalGraph trace_graph(const Trace& trace, int rank, int nranks);

// Fills the global facts (edge count, coordinate bounds) by reductions and checks the
// local structure. Every builder ends with it.
void finish_graph(LocalGraph& g, MPI_Comm comm);

}  // namespace lbbench
